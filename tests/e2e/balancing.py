"""What the load-balancer tests (tests/e2e/test_balancers.py: deploy/haproxy.cfg run by Debian's
haproxy, then deploy/nginx.conf by Debian's nginx) share: two `streamlit run app.py` replicas on free
loopback ports, both balancers in front of the same two in turn, learners (browser contexts) whose
cookie SERVERID names their replica, and the scenario each balancer must pass, in order:

1. the learners are spread over both replicas and stay there: each context's cookie names a
   replica, and a watcher on each page records every change of its connection state, so killing
   one replica shows which pages it served (those, and only those, lose their connection);
2. one replica is killed (SIGKILL, a crash): its learners' pages reconnect through the balancer to
   the survivor, whose name their cookie then carries, and the page works (a Step steps);
3. (the keeper's part of failover, issue 23) the learner sees a message and an offer of the kept
   work, and restoring it gives W bitwise as torch computes it;
4. the replica comes back: no live learner moves (cookies still name the survivor, sessions keep
   their steps); a new learner is sent to the returned replica.

A balancer subclasses `Balancer` with ``url``, ``start_balancer``, ``wait_down`` and ``wait_up`` (and
``newcomers_to_reach_returned``); the scenario reaches the replicas through it. Every wait is a
condition with a bound.
"""

from __future__ import annotations

import signal
import subprocess
import time

import numpy as np
import pytest

from support.server import NO_WATCHER, free_port, start_servers, stop_process

from .helpers import ARTIFACTS, VIEWPORT, button, label, lookup_tables, open_app, section, shown_step, wait_step

LANG = "ko"
LEARNERS = 4
STEPS = 2  # each learner trains this many steps before the kill
START_S = 180  # a replica's first answer; a reconnection; a balancer marking a replica up or down
COOKIE = "SERVERID"  # both recipes' cookie, naming the replica: app1, app2
OFFER = "[class*='st-key-keeper_restore_'] button"
# The steps of every entry the keeper holds in this browser (components/keeper/keeper.js: one per page session).
KEPT_STEPS_JS = """() => { const out = [];
  for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i);
    if (k.startsWith('nn-embedding-explorer.work.')) out.push(JSON.parse(localStorage.getItem(k)).steps); }
  return out; }"""

# Each change of the page's connection state, recorded from now on (Streamlit writes it on stApp).
WATCH_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__lbStates = [];
  new MutationObserver(() => window.__lbStates.push(app.getAttribute('data-test-connection-state')))
    .observe(app, {attributes: true, attributeFilter: ['data-test-connection-state']});
}"""
RECONNECTED_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return window.__lbStates.some(s => s !== 'CONNECTED') && app.getAttribute('data-test-connection-state') === 'CONNECTED';
}"""


class Replicas:
    """Two replicas, each on a free loopback port, with their logs in artifacts/ (``tag`` in the names)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.ports = {"app1": free_port(), "app2": free_port()}
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: dict[str, object] = {}
        self.starts = {"app1": 0, "app2": 0}
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def log_path(self, name: str):
        return ARTIFACTS / f"e2e-{self.tag}-{name}-{self.starts.get(name, 0)}.log"

    def start_replica(self, *names: str) -> None:
        """Start the replicas ``names`` (side by side when several) and wait until each is healthy."""
        for name in names:
            self.starts[name] += 1
        try:
            started = start_servers(*(dict(script="app.py", timeout=START_S, extra=NO_WATCHER, port=self.ports[name],
                                           log=self.log_path(name)) for name in names))
        except RuntimeError as e:
            raise AssertionError(f"replica {' or '.join(names)} did not start: {e}") from None
        for name, server in zip(names, started):
            self.procs[name], self.logs[name] = server.proc, server.log

    def start_missing(self) -> None:
        """Start each replica not running now (all at first; after a scenario that stopped short, the killed one)."""
        missing = [name for name in self.ports if name not in self.procs or self.procs[name].poll() is not None]
        if missing:
            self.start_replica(*missing)

    def kill(self, name: str) -> None:
        self.procs[name].send_signal(signal.SIGKILL)  # a crash, not a shutdown
        self.procs[name].wait(timeout=15)
        self.logs[name].close()

    def stop(self) -> None:
        """Stop every replica this object started, by its pid."""
        for proc in self.procs.values():
            stop_process(proc)
        for log in self.logs.values():
            log.close()


class Balancer:
    """A balancer in front of ``replicas``: its own process (``proc``), the address learners open (``url``)."""

    url: str
    # How many new learners, arriving one after another once a replica is back, until one is sent
    # to it: 1 where the balancer sends each to the replica with the fewest open pages.
    newcomers_to_reach_returned = 1

    def __init__(self, replicas: Replicas) -> None:
        self.replicas = replicas
        self.proc: subprocess.Popen | None = None
        self.log = None

    def stop(self) -> None:
        """Stop the balancer, by its pid; the replicas stay for the next one."""
        if self.proc is not None:
            stop_process(self.proc)
        if self.log is not None:
            self.log.close()

    def start_balancer(self) -> None:
        raise NotImplementedError

    def wait_down(self, name: str) -> None:
        """Until the balancer no longer sends anyone to replica ``name``."""
        raise NotImplementedError

    def wait_up(self, name: str) -> None:
        """Until the balancer sends new learners to replica ``name`` again."""
        raise NotImplementedError

    def wait_until(self, what: str, test) -> None:
        deadline = time.monotonic() + START_S
        while not test():
            assert self.proc is not None and self.proc.poll() is None, "the balancer exited"
            assert time.monotonic() < deadline, f"never: {what}"
            time.sleep(0.25)


class Learner:
    def __init__(self, browser, url: str) -> None:
        self.ctx = browser.new_context(locale="ko-KR", viewport=dict(VIEWPORT))
        self.ctx.set_default_timeout(60_000)
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        open_app(self.page, url)
        section(self.page, LANG, "train")
        self.page.evaluate(WATCH_JS)

    def replica(self) -> str | None:
        return next((c["value"] for c in self.ctx.cookies() if c["name"] == COOKIE), None)

    def lost_connection(self) -> bool:
        return self.page.evaluate("() => window.__lbStates.some(s => s !== 'CONNECTED')")

    def step(self) -> int:
        """One Step; returns the step the stage shows after it (one more than before)."""
        before = shown_step(self.page)
        button(self.page, "step").click()
        wait_step(self.page, before + 1)
        return before + 1


def torch_w(steps: int) -> np.ndarray:
    """W of the app's opening example after ``steps`` steps, computed afresh by torch in this process."""
    from assets import presets
    from core.explorer import Explorer

    ex = Explorer.from_preset(presets.load(presets.DEFAULT))
    ex.run(steps)
    return ex.lab.weight.detach().numpy().copy()


def balancer_fixture(cluster: Balancer):
    """A fixture's body: both replicas running (started if not), then the balancer, stopped at the end."""
    try:
        cluster.replicas.start_missing()
        cluster.start_balancer()
        yield cluster
    finally:
        cluster.stop()


def learners_fixture(browser, cluster: Balancer):
    held: list[Learner] = []
    try:
        for _ in range(LEARNERS):
            held.append(Learner(browser, cluster.url))  # one after another: each page's WebSocket is open
        yield held
    finally:
        for learner in held:
            learner.ctx.close()


# ---- the scenario, in order; ``state`` is the calling module's own dict ----------------------------
def learners_spread_over_both_replicas_and_stay(cluster: Balancer, learners: list[Learner]) -> None:
    first = [l.replica() for l in learners]
    assert set(first) == {"app1", "app2"}, first  # every page's cookie names one replica, and both serve
    for learner in learners:
        for n in range(1, STEPS + 1):
            assert learner.step() == n  # the session stays: no step is lost to another replica
    assert [l.replica() for l in learners] == first
    assert not any(l.lost_connection() for l in learners)
    for name in ("app1", "app2"):  # each replica logged its torch build once, however many learners it serves
        lines = [l for l in cluster.replicas.log_path(name).read_text(errors="replace").splitlines()
                 if "embedding_explorer.install" in l]
        assert len(lines) == 1 and "CPU build" in lines[0], lines
    assert all(l.errors == [] for l in learners)


def a_killed_replicas_learners_reconnect_to_the_survivor_and_work(cluster: Balancer, learners: list[Learner],
                                                                  state: dict) -> None:
    dead = learners[0].replica()
    survivor = "app2" if dead == "app1" else "app1"
    victims = [l for l in learners if l.replica() == dead]
    others = [l for l in learners if l.replica() == survivor]
    state.update(dead=dead, survivor=survivor, victims=victims, others=others)
    steps = {id(l): shown_step(l.page) for l in others}
    cluster.replicas.kill(dead)
    for learner in victims:  # the pages that replica served, and only those, lose their connection
        learner.page.wait_for_function(RECONNECTED_JS, timeout=START_S * 1000, polling=100)
    cluster.wait_down(dead)
    assert not any(l.lost_connection() for l in others)
    for learner in victims:
        assert learner.replica() == survivor  # re-pinned by the balancer's answer
    # The last victim is left for the keeper's test; the first one steps on the survivor. Its page still
    # draws the dead session's stage until the survivor's first run for it ends: that run starts afresh
    # at step 0 (the kept work is only offered), so step 0 on the stage is the condition to wait for.
    worker = victims[0]
    wait_step(worker.page, 0)
    assert worker.step() == 1
    for learner in others:  # nobody on the survivor noticed anything
        assert learner.step() == steps[id(learner)] + 1
    assert worker.replica() == survivor


def the_survivor_offers_the_kept_work_and_restores_w_bitwise(state: dict) -> None:
    victims = state.get("victims") or pytest.skip("the failover test did not run")
    learner = victims[-1]
    assert len(victims) >= 2, "one victim steps (the test above); another needs its work offered untouched"
    page = learner.page
    offer = page.locator(OFFER)
    offer.wait_for(state="visible", timeout=30_000)
    assert f"{STEPS}단계" in offer.inner_text()
    page.get_by_text(label(LANG, "keeper.reconnected")).wait_for(state="visible", timeout=30_000)
    kept = page.evaluate(KEPT_STEPS_JS)
    assert STEPS in kept  # the new session did not overwrite the kept work
    offer.click()
    wait_step(page, STEPS)
    section(page, LANG, "lookup")
    w = lookup_tables(page, LANG)["w"]
    assert np.array_equal(np.stack([w[i] for i in sorted(w)]), torch_w(STEPS))


def a_returning_replica_takes_no_live_learner(browser, cluster: Balancer, learners: list[Learner],
                                              state: dict) -> None:
    dead, survivor = state.get("dead"), state.get("survivor")
    if dead is None:
        pytest.skip("the failover test did not run")
    for learner in learners:  # the restored learner was left on the lookup view
        section(learner.page, LANG, "train")
    steps = {id(l): shown_step(l.page) for l in learners}
    cluster.replicas.start_replica(dead)
    cluster.wait_up(dead)
    for learner in learners:
        assert learner.replica() == survivor
        assert learner.step() == steps[id(learner)] + 1  # the same session, one step further
        assert learner.replica() == survivor
    newcomers: list[Learner] = []  # the returned replica serves new learners
    try:
        for _ in range(cluster.newcomers_to_reach_returned):
            newcomers.append(Learner(browser, cluster.url))
            if newcomers[-1].replica() == dead:
                break
        assert dead in [n.replica() for n in newcomers], [n.replica() for n in newcomers]
        for newcomer in newcomers:
            assert newcomer.step() == 1
    finally:
        for newcomer in newcomers:
            newcomer.ctx.close()
