"""A gone session's memory: `Lab.release` and server/upkeep.py's `release_state` and `_gone_sessions`."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import torch
from streamlit.runtime.state.common import TESTING_KEY
from streamlit.testing.v1.element_tree import ElementTree

from server import upkeep
from server.admission import ADMISSIONS
from server.budget import BUDGET
from tests.apptest_helpers import stage_w, start
from support.labs import make_lab


def test_a_released_lab_holds_no_tensor_whoever_refers_to_it():
    lab = make_lab(optimizer="adam", embedding_dim=8, work=BUDGET)  # admitted as the app's labs are
    lab.run(3)
    lab.load_parameters({"embedding.weight": torch.ones_like(lab.weight)})  # an import's copy, kept as an event
    params = list(lab.model.parameters())  # held elsewhere, as a closure of the page would
    dead = [weakref.ref(t) for t in [p.grad for p in params] + [v for s in lab.optimizer.state.values()
                                                                   for v in s.values() if torch.is_tensor(v)]]
    dead += [weakref.ref(a) for a in lab.snapshots.values()]
    dead += [weakref.ref(t) for _, _, payload in lab.events for t in payload.values()]
    promised = ADMISSIONS.promised()
    assert len(dead) > 10 and all(r() is not None for r in dead) and lab.held_bytes() > 0
    lab.release()
    gc.collect()
    assert all(r() is None for r in dead)  # gradients, optimizer state, snapshots, loaded weights: freed
    assert all(p.numel() == 0 and p.untyped_storage().nbytes() == 0 and p.grad is None for p in params)
    assert lab.held_bytes() == 0 and ADMISSIONS.promised() <= promised  # its admission ticket is returned


def test_a_session_released_while_it_was_showing_a_lab_runs_again_from_a_fresh_explorer():
    at = start("ko")
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    old = at.session_state["_ws"]
    assert not at.exception and old.lab.steps == 1
    state = at._session_state._state  # the SessionState AppTest runs the script against
    harness = state[TESTING_KEY]  # AppTest's own bookkeeping (its widgets' format functions): not the app's
    assert upkeep.release_state(state) == 1
    at._fragment_storage.clear()  # as upkeep does to a gone AppSession's fragments
    assert old.lab.model is None and "_ws" not in state
    state[TESTING_KEY] = harness
    at._tree = ElementTree()  # the harness's page: widgets whose values the cleared state no longer has
    at._tree._runner = at
    at.run()
    assert not at.exception
    ex = at.session_state["_ws"]
    assert ex is not old and ex.lab.steps == 0
    w = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))  # nn.Embedding(6, 3, padding_idx=1)'s init
    w[1] = 0
    np.testing.assert_array_equal(stage_w(at)[1], w.numpy())
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    assert not at.exception and at.session_state["_ws"].lab.steps == 1


class _Session:
    def __init__(self, sid: str, running: bool = False):
        self.id, self._scriptrunner = sid, (object() if running else None)


class _Info:
    def __init__(self, session):
        self.session = session


class _Storage:
    def __init__(self):
        self.sessions = []

    def list(self):
        return [_Info(s) for s in self.sessions]


class _Manager:
    """Streamlit's WebsocketSessionManager as upkeep reads it: connected sessions and the store."""

    def __init__(self):
        self._storage_lock = threading.Lock()
        self.active, self._session_storage = [], _Storage()

    def list_active_sessions(self):
        return [_Info(s) for s in self.active]


def test_only_a_session_that_can_never_run_again_is_gone():
    mgr, watched = _Manager(), {}
    a, b, c = _Session("a"), _Session("b"), _Session("c", running=True)
    mgr.active = [a, b, c]
    assert upkeep._gone_sessions(mgr, watched) == []
    mgr.active, mgr._session_storage.sessions = [b], [a, c]  # a and c wait for their tabs: resumable
    assert upkeep._gone_sessions(mgr, watched) == []
    mgr._session_storage.sessions = [c]  # a's TTL passed (or Streamlit dropped it)
    assert upkeep._gone_sessions(mgr, watched) == [a]
    assert upkeep._gone_sessions(mgr, watched) == []  # released once
    mgr._session_storage.sessions = []  # c expired while its script still runs: it waits
    assert upkeep._gone_sessions(mgr, watched) == []
    c._scriptrunner = None
    assert upkeep._gone_sessions(mgr, watched) == [c]
    mgr.active = [b]
    assert upkeep._gone_sessions(mgr, watched) == []  # b stays connected throughout


def test_a_reconnected_session_is_not_gone():
    mgr, watched = _Manager(), {}
    a = _Session("a")
    mgr._session_storage.sessions = [a]
    upkeep._gone_sessions(mgr, watched)
    mgr._session_storage.sessions, mgr.active = [], [a]  # its tab came back
    assert upkeep._gone_sessions(mgr, watched) == []
    mgr.active = []  # and closed for good
    assert upkeep._gone_sessions(mgr, watched) == [a]
