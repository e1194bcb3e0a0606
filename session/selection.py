"""The followed token, picked anywhere: an id cell, a scatter point, the picker, the stage.

Callbacks and pre-draw syncs: each reads its widget's value and tells the explorer."""

from __future__ import annotations

import streamlit as st

from core.explorer import Explorer
from session.keys import Keys
from session.own import own


def select_token_from_cell(ex: Explorer) -> None:
    """The id matrix's clicked cell: its id becomes the token followed in every view, its sentence the
    one the lookup stage shows. Called before the lookup view is drawn, and applied once per new
    selection (a cell that stays selected does not override a later pick elsewhere)."""
    cells = (st.session_state.get(Keys.ID_CELL) or {}).get("selection", {}).get("cells", [])
    if not cells or cells == own().cell_seen:
        return
    own().cell_seen = cells
    b, col = cells[0]
    try:
        t = int(str(col).removeprefix("t="))
    except ValueError:
        return
    ids = ex.lab.batch.ids
    if isinstance(b, int) and 0 <= b < ids.shape[0] and 0 <= t < ids.shape[1]:
        ex.select(int(ids[b, t]))
        st.session_state[Keys.OUT_SENTENCE] = b  # the stage shows that sentence's output


def select_cell_from_stage(ex: Explorer) -> None:
    """A cell of the stage's id matrix, clicked: its id becomes the followed token and its sentence
    the one the lookup stage shows. Called before the lookup view is drawn; applied once per click
    (the stage sends each click as a new value). A cell that does not hold that id is ignored."""
    cell = (st.session_state.get(Keys.STAGE) or {}).get("cell")
    if not isinstance(cell, dict) or cell == own().stage_cell_seen:
        return
    own().stage_cell_seen = cell
    b, t, i = cell.get("b"), cell.get("t"), cell.get("id")
    ids = ex.lab.batch.ids
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (b, t, i)) \
            and 0 <= b < ids.shape[0] and 0 <= t < ids.shape[1] and int(ids[b, t]) == i:
        ex.select(i)
        st.session_state[Keys.OUT_SENTENCE] = b


def select_token_from_chart(ex: Explorer) -> None:
    """Callback of the PCA scatter: a clicked point's id (its customdata) becomes the followed token."""
    points = st.session_state.get(Keys.PCA_CHART, {}).get("selection", {}).get("points", [])
    for p in points:
        i = p.get("customdata")
        if isinstance(i, list):
            i = i[0] if i else None
        if isinstance(i, (int, float)) and 0 <= int(i) < ex.vocab.size:
            ex.select(int(i))
            return


def select_token_from_picker(ex: Explorer) -> None:
    ex.select(st.session_state.get(Keys.TOKEN))


def select_token_from_stage(ex: Explorer) -> None:
    """A token clicked anywhere on the stage becomes the followed token. The stage's callback calls it,
    and so do the views before they are drawn, for a state a script set before ``run()`` (AppTest
    fires no component callback). Applied once per new value, so a token picked elsewhere since is
    not taken back by the stage's last click."""
    chosen = (st.session_state.get(Keys.STAGE) or {}).get("selected")
    if chosen is None or chosen == own().stage_selected_seen:
        return
    own().stage_selected_seen = chosen
    ex.select(chosen)


def sync_token_picker(ex: Explorer, default: int) -> None:
    """Before the token picker is drawn: show the followed token (or ``default`` when none is valid)."""
    if ex.selected_token is None:
        ex.select(default)
    st.session_state[Keys.TOKEN] = ex.selected_token


def sentence_shown(n_sentences: int) -> int:
    """The sentence whose output the lookup stage shows (b): the picker's value, kept inside the batch
    (set before the picker is drawn, which sits below the stage)."""
    b = st.session_state.get(Keys.OUT_SENTENCE)
    if not isinstance(b, int) or not 0 <= b < n_sentences:
        b = 0
        st.session_state[Keys.OUT_SENTENCE] = b
    return b
