"""The only module that touches ``st.session_state``: every key is named here, once.

Widget keys are a public interface (AppTest scripts and the README use them). Everything else
a session owns — its inputs, lab, projection frame, selection — lives in one
`core.explorer.Explorer` under the private key ``_ws``; the vocabulary editor's base table and
the figure memo sit beside it. Nothing here is shared between sessions: no shared caches of
user state, no module-level mutable state.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
import secrets
from dataclasses import dataclass
from typing import Callable, TypeVar

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from assets import presets
from core import url_state
from core.budget import BUDGET
from core.explorer import Explorer
from core.knobs import KNOBS
from core.memory import load_seconds
from core.problems import InputError, Problem
from core.share_link import SHARE_PARAM, from_query_params
from core.state import AppState, Restored, restore
from core.vocab import Vocab


class Keys:
    """Stable widget keys (documented in README.md, "Scripting the app")."""

    LANG = "lang"
    PRESET = "preset"
    LOAD_PRESET = "load_preset"
    SECTION = "section"
    VOCAB = "vocab"
    VOCAB_START = "vocab_start"  # large vocabularies: the first row of the table's window
    VOCAB_FIND = "vocab_find"  # large vocabularies: jump the window to a token
    TOKEN_LIST, TOKEN_LIST_FILE, TOKEN_LIST_LOAD = "token_list", "token_list_file", "token_list_load"  # bulk vocabulary
    SENTENCES = "sentences"
    EMBEDDING_DIM = "embedding_dim"
    SEED = "seed"
    PAD_MODE = "pad_mode"
    FIXED_LEN = "fixed_len"
    ID_CELL = "id_cell"
    TOKEN = "selected_token"
    STEP = "step"
    RUN_STEPS = "run_steps"
    N_STEPS = "n_steps"
    PLAY = "play"
    RESET = "reset"
    OPTIMIZER = "optimizer"
    LR = "lr"
    WEIGHT_DECAY = "weight_decay"
    POOLING = "pooling"
    BATCH_SIZE = "batch_size"
    TIMELINE = "timeline"
    PCA_DIMS = "pca_dims"
    PCA_CHART = "pca_chart"
    PCA_REPLAY = "pca_anim"  # the replay's chart
    TIMELINE_FOLLOWS = "_timeline_follows"  # True when the last run drew the timeline (its value is the browser's)
    LOSS_CHART = "loss_chart"
    OUT_SENTENCE = "out_sentence"
    REPLAY = "replay"
    PAD_VECTOR = "pad_vector"
    PREDICT_ROWS = "predict_rows"
    SET_PAD = "set_pad"
    MODE = "mode"
    LESSON = "lesson"
    LESSON_PREV = "lesson_prev"
    LESSON_NEXT = "lesson_next"
    PREDICT_PREFIX = "predict_"  # + lesson id (C8, C13)
    REVEAL_PREFIX = "reveal_"  # + lesson id
    LESSON_OPEN_PREFIX = "open_"  # + lesson id: its expander in free mode (drawn only while open)
    EXPORT_STATE = "export_state"
    EXPORT_CODE = "export_code"
    EXPORT_W_CSV = "export_w_csv"
    EXPORT_PROJECTOR_VECTORS = "export_projector_vectors"
    EXPORT_PROJECTOR_METADATA = "export_projector_metadata"
    EXPORT_NOTEBOOK = "export_notebook"
    IMPORT_STATE = "import_state"
    IMPORT_APPLY = "import_apply"


    PRESENT = "present"  # presentation mode: larger type for a projector
    PRESENT_SWITCHED_ON = "_present_switched_on"  # how many times presentation mode was switched on
    SIDEBAR_FOLD = "sidebar_fold"  # the component that folds the sidebar when presentation mode goes on
    PLAY_SPEED = "play_speed"
    KNOBS = "knobs"  # the training bar's popover of knobs (built only while open)
    PLAY_CLOCK = "_play_clock"  # (when the last Play tick ran, the fraction of a step it still owes)
    FULL_RUN = "_full_run"  # set by a callback inside a fragment whose change the whole page must show
    BACK_TO = "back_to"  # after a divergence: go on from the last finite step
    PLAYING = "playing"  # True while Play runs (the Play/Pause button flips it)  # steps per second while playing
    DETAILS = "details"
    EDITORS = "editors"
    PAGE_LANG = "page_lang"  # the component that sets <html lang>
    KEEPER = "keeper"  # the keeper outside every fragment: its state is {"report": what this browser kept}
    KEEPER_LIVE = "keeper_live"  # the keeper inside the training view's stage fragment: it only writes
    KEEPER_OFFER = "keeper_offer"  # the box that offers the kept work back
    KEEPER_RESTORE = "keeper_restore_"  # + the entry's slot: the button that restores it
    KEEPER_FRESH = "keeper_fresh"  # the button that answers the offer without restoring (start fresh)
    LOOKUP_TABLES = "lookup_tables"  # the lookup view's expander of tables (built only while open)  # the training view's expander of the last step's details
    PROBLEMS_PREFIX = "problems_"  # + where: the container of one kind of error box (tests find it by key)
    URL_PROBLEMS = "problems_url"  # the box naming the address's values the page could not use
    STAGE = "stage"  # the stage component: its state is {"selected": id}
    REFIT = "refit_frame"
    AXIS_FROM, AXIS_TO, AXIS_SET = "axis_from", "axis_to", "axis_set"  # a custom axis from one token to another  # re-fit the PCA frame on the steps kept so far
    TRY_SENTENCE = "try_sentence"  # look a new sentence up in the current W (the training batch is unchanged)
    TRY_PREFIX = "try_"  # + lesson id: that lesson's "try a sentence" box (try_C11)


_EXPLORER = "_ws"  # this session's core.explorer.Explorer
_EDITOR = "_editor"  # the vocabulary editor's base table (EditorBase)
_BUILT = "_built"  # name → (inputs, figure): see memo
_PENDING = "_pending_state"
_PENDING_PRESET = "_pending_preset"  # the preset the Load button asked for: loaded at the top of the next run
_FROM_LINK = "_from_link"  # the ?s= value of the link this session's explorer was opened from (it stays in the address)
_CELL_SEEN = "_cell_seen"  # the id-matrix selection last applied
_KEEPER_TOKEN = "_keeper_token"  # this session's token: the browser keeps its work under it (components/keeper)
_KEEPER_OPENED = "_keeper_opened"  # the kept form of the state this session opened with (nothing new to keep)
_KEEPER_ANSWERED = "_keeper_answered"  # the number of the browser's last report the learner answered
T = TypeVar("T")  # what a memoized build returns


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


Busy = Callable[[str], AbstractContextManager]  # a string key → a context that shows it while slow work runs


def explorer(busy: Busy = lambda key: nullcontext(), langs: tuple[str, ...] = ("ko", "en")) -> Explorer:
    """This session's explorer: what the address asks for on the first run (a share link ``?s=…``, an
    example, knobs; see `follow_address`), else the default preset.

    A state queued by an import (`queue_state`) or a preset asked for by the Load button is applied
    here, before any widget is drawn. ``busy`` shows what is being done while it takes time.
    """
    pending = st.session_state.pop(_PENDING, None)
    if pending is not None:
        _install(_from_state(*pending))
    preset = st.session_state.pop(_PENDING_PRESET, None)
    if preset is not None:
        with busy("urlstate.loading_preset"):
            _load_preset(preset)
    first = _EXPLORER not in st.session_state
    if first:
        ex = Explorer.from_preset(presets.load(presets.DEFAULT))
        _install(ex)
        set_widgets(ex)
    if first or _history_navigation():
        follow_address(busy, langs)
    return st.session_state[_EXPLORER]


def _history_navigation() -> bool:
    """Whether the browser's Back or Forward started this run (the address changed under the page)."""
    return bool(getattr(get_script_run_ctx(), "is_history_navigation", False))


def follow_address(busy: Busy, langs: tuple[str, ...]) -> None:
    """Open what the address asks for (core/url_state.py), before any widget is drawn.

    A share link (``?s=…``) first, else the example (``preset``); then the language, the knobs and
    the view on top, as if the learner had changed them after opening it. A value the app cannot
    use is left as it was and named (shown once under "url").
    """
    params = {name: st.query_params.get_all(name) for name in st.query_params}  # every value: a repeat is named
    one = url_state.single(params)
    link, preset = one.get(SHARE_PARAM), one.get("preset")
    if len(url_state.values_of(params, SHARE_PARAM)) > 1:
        st.session_state[_EXPLORER].problems["link"] = [Problem("share_repeated", {"n": len(params[SHARE_PARAM])})]
    elif link is not None and link != st.session_state.get(_FROM_LINK):
        with busy("urlstate.opening_link"):
            _open_share_link(link)
    elif link is None and preset in presets.ORDER and preset != st.session_state[_EXPLORER].preset_id:
        with busy("urlstate.loading_preset"):
            _load_preset(preset)
    ex = st.session_state[_EXPLORER]  # the one opened: a refused value names what it shows
    values, problems = url_state.read(params, _address_now(ex), {"section": url_state.SECTIONS, "lang": langs,
                                                                 "preset": presets.ORDER})
    values.pop("preset", None)
    lang = values.pop("lang", None)
    if lang is not None and lang != st.session_state.get(Keys.LANG):
        st.session_state[Keys.LANG] = lang
        keep_choices_across_language()
    if "fixed_len" in values and "pad_mode" not in values:
        values["pad_mode"] = "fixed"  # a length alone asks for fixed padding
    st.session_state.update(values)  # section, pad_mode and the knobs: every name is its widget's key
    if problems:
        st.session_state[_EXPLORER].problems["url"] = problems


def _address_now(ex: Explorer) -> dict:
    """What the page shows now, by address parameter (a refused value names the one it keeps)."""
    return {"section": st.session_state.get(Keys.SECTION), "lang": st.session_state.get(Keys.LANG),
            "preset": ex.preset_id, **config_widgets(ex.config_values())}


def write_address(ex: Explorer) -> None:
    """Put the view, language, example and knobs in the address, with the share link the page was
    opened from while it still shows that link's lab. The browser makes each change an entry of its
    history, so Back returns to the page before it.

    Not on a Back/Forward run: the address is already the one the learner went to, and writing
    another would drop the entries Forward leads to.
    """
    if _history_navigation():
        return
    now = {name: st.query_params.get_all(name) for name in st.query_params}
    link = st.session_state.get(_FROM_LINK)
    want: dict[str, list[str]] = {SHARE_PARAM: [link]} if link is not None else {}
    want.update((k, v) for k, v in now.items() if k not in url_state.NAMES and k != SHARE_PARAM)  # kept as they came
    view = {"section": st.session_state.get(Keys.SECTION), "lang": st.session_state.get(Keys.LANG),
            "preset": ex.preset_id if ex.preset_id in presets.ORDER else None}
    want.update((k, [v]) for k, v in url_state.write(view, ex.config_values()).items())
    if want != now:
        st.query_params.from_dict(want)


def editor_base() -> EditorBase:
    return st.session_state[_EDITOR]


def _install(ex: Explorer) -> None:
    """Make ``ex`` this session's explorer, with the editor based on its vocabulary."""
    st.session_state[_EXPLORER] = ex
    st.session_state.pop(_FROM_LINK, None)  # a link's lab no longer shown: the link leaves the address
    st.session_state[_EDITOR] = EditorBase(vocab_frame(ex.vocab), ex.vocab)


def rebase_editor(ex: Explorer) -> None:
    """The editor edits ``ex``'s vocabulary from now on (a token list replaced the table): pending
    edits of the old table are dropped with it."""
    st.session_state[_EDITOR] = EditorBase(vocab_frame(ex.vocab), ex.vocab)
    for key in (Keys.VOCAB, Keys.VOCAB_START, Keys.VOCAB_FIND):
        st.session_state.pop(key, None)


def memo(name: str, key: tuple, build: Callable[[], T]) -> T:
    """``build()``, or the value it returned last time under ``name`` when ``key`` is equal.

    ``key`` must hold everything the value is built from (arrays as bytes, a lab by its uid; see
    components/memo.py). A rerun that changed nothing a chart shows then skips rebuilding it.
    Per session, like everything in session state.
    """
    built = st.session_state.setdefault(_BUILT, {})
    hit = built.get(name)
    if hit is not None and hit[0] == key:
        return hit[1]  # type: ignore[return-value]
    value = build()
    built[name] = (key, value)
    return value


def vocab_frame(vocab: Vocab) -> pd.DataFrame:
    """The editor's table for a vocabulary: columns token, id, role."""
    roles = np.full(vocab.size, "normal", dtype=object)
    roles[vocab.unk_id], roles[vocab.pad_id] = "unk", "pad"
    frame = pd.DataFrame({"token": list(vocab.tokens), "id": np.arange(vocab.size), "role": roles})
    frame.index = pd.RangeIndex(1, vocab.size + 1, name="#")  # row numbers as the error messages count them
    return frame


def config_widgets(values: dict) -> dict:
    """Widget key → value for knob values (core.knobs): fixed_len is two widgets, a mode and a length."""
    out = {k.name: values[k.name] for k in KNOBS if k.name != "fixed_len"}
    out[Keys.PAD_MODE] = "fixed" if values["fixed_len"] else "longest"
    out[Keys.FIXED_LEN] = values["fixed_len"] or 4
    return out


def show_knobs(values: dict) -> None:
    """Give each knob widget that has no state (not drawn in the last run) the value in effect,
    before it is drawn, so it never shows Streamlit's default instead."""
    for key, value in config_widgets(values).items():
        ensure(key, value)


def set_widgets(ex: Explorer) -> None:
    """Show ``ex``'s inputs in the widgets (only in a callback or before the widgets are drawn)."""
    st.session_state[Keys.SENTENCES] = ex.text
    st.session_state[Keys.PRESET] = ex.preset_id if ex.preset_id in presets.ORDER else st.session_state.get(
        Keys.PRESET, presets.DEFAULT)
    st.session_state.update(config_widgets(ex.config_values()))
    for key in (Keys.VOCAB, Keys.VOCAB_START, Keys.VOCAB_FIND, Keys.TIMELINE):  # edits of the old table
        st.session_state.pop(key, None)


def _open_share_link(value: str) -> None:
    """Open the example a share link carries, replaying its steps; a bad link leaves the lab as it is and says why."""
    try:
        state = from_query_params({SHARE_PARAM: value})
        restored = restore(state)
    except InputError as e:
        st.session_state[_EXPLORER].problems["link"] = e.problems
        return
    _install(_from_state(state, restored, "share.loaded_from_link"))
    st.session_state[_FROM_LINK] = value


def queue_state(state: AppState, restored: Restored, notice: str) -> None:
    """Apply an imported state on the next run (widgets drawn in this run cannot change now)."""
    st.session_state[_PENDING] = (state, restored, notice)


def _from_state(state: AppState, restored: Restored, notice: str) -> Explorer:
    ex = Explorer.from_lab(restored.lab, state.sentences)
    ex.notices.append((notice, {"steps": restored.lab.steps}))
    ex.notices.extend((f"err.{p.code}", p.params) for p in restored.notices)  # e.g. a non-zero PAD row
    set_widgets(ex)
    st.session_state[Keys.LANG] = state.lang
    return ex


def load_preset(preset_id: str) -> None:
    """Callback of the Load button: the preset is loaded at the top of the next run, where its
    status can be shown while it is built (the 100k example takes seconds)."""
    st.session_state[_PENDING_PRESET] = preset_id


def _load_preset(preset_id: str) -> None:
    """Replace the explorer with a preset (widgets included); if its lab cannot be built (the server
    is short of memory), keep the current one, edits included, and say why."""
    try:
        preset = presets.load(preset_id)
        with BUDGET.job("load", load_seconds(len(preset["vocab"]))):  # a lane of the server's budget, or refused
            ex = Explorer.from_preset(preset)
    except InputError as e:
        st.session_state[_EXPLORER].problems["preset"] = e.problems
        return
    _install(ex)
    set_widgets(ex)


def get(key: str, default=None):
    return st.session_state.get(key, default)


def set_value(key: str, value) -> None:
    """Set a widget's value: only in a callback or before the widget is drawn in this run."""
    st.session_state[key] = value


def flip(key: str) -> None:
    """Callback: turn a flag on or off."""
    st.session_state[key] = not st.session_state.get(key, False)


def presentation_switched() -> None:
    """Callback of the presentation toggle: count the times it is switched on (the sidebar folds each time)."""
    if st.session_state.get(Keys.PRESENT):
        st.session_state[Keys.PRESENT_SWITCHED_ON] = st.session_state.get(Keys.PRESENT_SWITCHED_ON, 0) + 1


def forget(key: str) -> None:
    """Drop a widget's value, so it is drawn afresh (a timeline whose steps are gone)."""
    st.session_state.pop(key, None)


def ensure(key: str, value) -> None:
    """Give a widget its first value without passing ``value=`` (avoids Streamlit's double-default warning)."""
    if key not in st.session_state:
        st.session_state[key] = value


def select_token_from_cell(ex: Explorer) -> None:
    """The id matrix's clicked cell: its id becomes the token followed in every view, its sentence the
    one the lookup stage shows. Called before the lookup view is drawn, and applied once per new
    selection (a cell that stays selected does not override a later pick elsewhere)."""
    cells = (st.session_state.get(Keys.ID_CELL) or {}).get("selection", {}).get("cells", [])
    if not cells or cells == st.session_state.get(_CELL_SEEN):
        return
    st.session_state[_CELL_SEEN] = cells
    b, col = cells[0]
    try:
        t = int(str(col).removeprefix("t="))
    except ValueError:
        return
    ids = ex.lab.batch.ids
    if isinstance(b, int) and 0 <= b < ids.shape[0] and 0 <= t < ids.shape[1]:
        ex.select(int(ids[b, t]))
        st.session_state[Keys.OUT_SENTENCE] = b  # the stage shows that sentence's output


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
    """Callback of the stage: a token clicked anywhere on it becomes the followed token."""
    ex.select((st.session_state.get(Keys.STAGE) or {}).get("selected"))


def sync_token_picker(ex: Explorer, default: int) -> None:
    """Before the token picker is drawn: show the followed token (or ``default`` when none is valid)."""
    if ex.selected_token is None:
        ex.select(default)
    st.session_state[Keys.TOKEN] = ex.selected_token


# Widgets whose options are shown through translated labels: Streamlit matches their selection by
# the shown label, so a language switch must hand them their values again.
TRANSLATED_CHOICES = (Keys.PRESET, Keys.PAD_MODE, Keys.POOLING, Keys.OPTIMIZER, Keys.SECTION, Keys.MODE, Keys.LESSON,
                      Keys.PLAY_SPEED)


def keep_choices_across_language() -> None:
    """Callback of the language radio: re-assign every translated choice so it survives the new labels."""
    for key in TRANSLATED_CHOICES:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


# ---- the keeper's session token (components/keeper) -------------------------------------------
def keeper_token() -> str:
    """This session's random token: the browser keeps this page's work under it (its "slot"), and a
    page that reports an older one was reconnected to this new session."""
    return st.session_state.setdefault(_KEEPER_TOKEN, secrets.token_urlsafe(12))


def keeper_opened(param: str | None) -> str | None:
    """The share parameter of the first state the keeper saw in this session (set on the first call)."""
    if _KEEPER_OPENED not in st.session_state and param is not None:
        st.session_state[_KEEPER_OPENED] = param
    return st.session_state.get(_KEEPER_OPENED)


def keeper_answered() -> int:
    """The number of the last report whose offer the learner answered (restored, or started fresh); -1 if none."""
    return st.session_state.get(_KEEPER_ANSWERED, -1)


def answer_keeper(n: int) -> None:
    st.session_state[_KEEPER_ANSWERED] = n
