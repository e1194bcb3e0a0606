"""This session's explorer and the vocabulary editor's base: installing, replacing and showing them.

Everything a session owns besides its widgets — its inputs, lab, projection frame, selection —
lives in one `core.explorer.Explorer` (under ``Private.EXPLORER``); the editor's base table sits
beside it. Nothing here is shared between sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

import numpy as np
import pandas as pd
import streamlit as st

from assets import presets
from core.explorer import Explorer
from core.knobs import KNOBS
from core.cost import load_seconds
from core.problems import InputError
from core.share_link import SHARE_PARAM, from_query_params
from core.state import AppState, Restored, restore
from core.vocab import Vocab
from server.budget import BUDGET
from session.keys import Keys, Private
from session.own import own


@dataclass
class EditorBase:
    """The table the vocabulary editor edits: its rows as a frame and as the Vocab they make.

    Streamlit's editor holds the learner's edits as changes to this base, so it stays fixed while
    they edit (a preset or an import replaces it; a windowed table folds a valid edit into it).
    """

    frame: pd.DataFrame
    vocab: Vocab
    seen: object = None  # the editor state the explorer's vocabulary was last applied from
    drawn_start: int | None = None  # a windowed table: where its window was drawn last run
    turn: int = 0  # grows when the table is put back as it was before an edit (an undo): see `undo_restart`


def current() -> Explorer | None:
    """This session's explorer, or None before the first run made one."""
    return st.session_state.get(Private.EXPLORER)


def editor_base() -> EditorBase:
    return own().editor


def install(ex: Explorer) -> None:
    """Make ``ex`` this session's explorer, with the editor based on its vocabulary."""
    st.session_state[Private.EXPLORER] = ex
    own().from_link = None  # a link's lab no longer shown: the link leaves the address
    own().editor = EditorBase(vocab_frame(ex.vocab), ex.vocab)


def rebase_editor(ex: Explorer) -> None:
    """The editor edits ``ex``'s vocabulary from now on (a token list replaced the table): pending
    edits of the old table are dropped with it."""
    own().editor = EditorBase(vocab_frame(ex.vocab), ex.vocab)
    for key in (Keys.VOCAB, Keys.VOCAB_START, Keys.VOCAB_FIND):
        st.session_state.pop(key, None)


def vocab_frame(vocab: Vocab) -> pd.DataFrame:
    """The editor's table for a vocabulary: columns token, id (as text), role."""
    roles = np.full(vocab.size, "normal", dtype=object)
    roles[vocab.unk_id], roles[vocab.pad_id] = "unk", "pad"
    ids = np.arange(vocab.size).astype(str).astype(object)  # the id column is text: see components/inputs.py
    frame = pd.DataFrame({"token": list(vocab.tokens), "id": ids, "role": roles})
    frame.index = pd.RangeIndex(1, vocab.size + 1, name="#")  # row numbers as the error messages count them
    return frame


def config_widgets(values: dict) -> dict:
    """Widget key → value for knob values (core.knobs): fixed_len is two widgets, a mode and a length."""
    out = {k.name: values[k.name] for k in KNOBS if k.name != "fixed_len"}
    out[Keys.PAD_MODE] = "fixed" if values["fixed_len"] else "longest"
    out[Keys.FIXED_LEN] = values["fixed_len"] or 4
    return out


def show_knobs(values: dict, drawn: Collection[str] | None = None, new_run: bool = False) -> None:
    """Before the knob widgets are drawn (``drawn``: the keys of those this call's caller draws; None:
    every one), give each the value it is to show: the one in session state (a choice still to be
    applied, or refused), else the value in effect (``values``).

    A widget the last run did not draw is handed its value again even when session state holds one:
    a run that did not draw it (a language switch, an import, this very function) leaves a plain
    value there, and the browser starts a widget it had not shown from Streamlit's default (0.0, the
    first option) unless its value was set in the run that draws it, then sends that default back.
    ``new_run``: the first call of a run of the page (what the last run drew is then rolled over).
    """
    kept = own()
    if new_run:
        kept.knobs_drawn_last, kept.knobs_drawn = frozenset(kept.knobs_drawn), set()
    widgets = config_widgets(values)
    for key in widgets if drawn is None else [k for k in widgets if k in drawn]:
        if key not in st.session_state or key not in kept.knobs_drawn_last:
            st.session_state[key] = st.session_state.get(key, widgets[key])
        kept.knobs_drawn.add(key)


def set_widgets(ex: Explorer) -> None:
    """Show ``ex``'s inputs in the widgets (only in a callback or before the widgets are drawn)."""
    st.session_state[Keys.SENTENCES] = ex.text
    st.session_state[Keys.PRESET] = ex.preset_id if ex.preset_id in presets.ORDER else st.session_state.get(
        Keys.PRESET, presets.DEFAULT)
    st.session_state.update(config_widgets(ex.config_values()))
    for key in (Keys.VOCAB, Keys.VOCAB_START, Keys.VOCAB_FIND, Keys.TIMELINE):  # edits of the old table
        st.session_state.pop(key, None)


def open_share_link(value: str) -> None:
    """Open the example a share link carries, replaying its steps; a bad link leaves the lab as it is and says why."""
    try:
        state = from_query_params({SHARE_PARAM: value})
        restored = restore(state, BUDGET)
    except InputError as e:
        st.session_state[Private.EXPLORER].problems["link"] = e.problems
        return
    install(from_state(state, restored, "share.loaded_from_link"))
    own().from_link = value


def opened_link() -> str | None:
    """The ?s= value this session's explorer was opened from, while it still shows that link's lab."""
    return own().from_link


def queue_state(state: AppState, restored: Restored, notice: str) -> None:
    """Apply an imported state on the next run (widgets drawn in this run cannot change now)."""
    own().pending = (state, restored, notice)


def from_state(state: AppState, restored: Restored, notice: str) -> Explorer:
    """The explorer of a restored state, its inputs shown in the widgets and its language chosen."""
    ex = Explorer.from_lab(restored.lab, state.sentences)
    ex.notices.append((notice, {"steps": restored.lab.steps}))
    ex.notices.extend((f"err.{p.code}", p.params) for p in restored.notices)  # e.g. a non-zero PAD row
    set_widgets(ex)
    st.session_state[Keys.LANG] = state.lang
    return ex


def undo_restart() -> None:
    """Callback of the restart's Undo: the explorer puts back the lab and inputs the restart replaced,
    and the widgets (sentences, knobs, the vocabulary table) show those inputs again."""
    ex = current()
    if ex is not None and ex.undo_restart():
        turn = own().editor.turn + 1 if own().editor is not None else 0
        set_widgets(ex)
        rebase_editor(ex)
        # The browser's grid still holds the undone edit against a table equal to this one, and would
        # send it again with every run: a new turn gives the editor another identity (components/inputs.py).
        own().editor.turn = turn
        ex.notices.append(("notice.undone", {"steps": ex.lab.steps}))


def load_preset(preset_id: str) -> None:
    """Callback of the Load button: the preset is loaded at the top of the next run, where its
    status can be shown while it is built (the 100k example takes seconds)."""
    own().pending_preset = preset_id


def load_chosen_preset() -> None:
    """Callback of the Load button: the preset the picker shows is loaded at the top of the next run."""
    load_preset(st.session_state.get(Keys.PRESET))


def replace_with_preset(preset_id: str) -> None:
    """Replace the explorer with a preset (widgets included); if its lab cannot be built (the server
    is short of memory), keep the current one, edits included, and say why."""
    try:
        preset = presets.load(preset_id)
        with BUDGET.job("load", load_seconds(len(preset["vocab"]))):  # a lane of the server's budget, or refused
            ex = Explorer.from_preset(preset, BUDGET)
    except InputError as e:
        st.session_state[Private.EXPLORER].problems["preset"] = e.problems
        return
    install(ex)
    set_widgets(ex)
