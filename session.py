"""The only module that touches ``st.session_state``: every key is named here, once.

Widget keys are a public interface (AppTest scripts and the README use them). Everything else
a session owns — its vocabulary, lab, projection frame — lives in one `Workspace` object under
the private key ``_ws``. Nothing here is shared between sessions: no shared caches of user state, no
module-level mutable state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from assets import presets
from core.batch import Line, parse_sentences
from core.problems import InputError, Problem
from core.projection import Frame
from core.share_link import SHARE_PARAM, from_query_params
from core.state import AppState, Restored, restore
from core.training import Config, Lab, Recipe
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
    SENTENCES = "sentences"
    EMBEDDING_DIM = "embedding_dim"
    SEED = "seed"
    PAD_MODE = "pad_mode"
    FIXED_LEN = "fixed_len"
    ID_CELL = "id_cell"
    MASK = "mask"
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


_WS = "_ws"
_PENDING = "_pending_state"
T = TypeVar("T")  # what a memoized build returns


@dataclass
class Workspace:
    """One session's non-widget state: the last *valid* inputs and what was built from them."""

    preset_id: str
    classes: tuple[str, ...]
    vocab_base: pd.DataFrame  # what the vocabulary editor edits (its edits live under Keys.VOCAB)
    vocab: Vocab  # last valid vocabulary
    base_vocab: Vocab  # the vocabulary vocab_base shows (what the editor holds with no edits)
    lines: list[Line]  # last valid sentences
    lab: Lab
    frame: Frame | None = None
    frame_steps: tuple[int, ...] = ()  # the snapshot steps the frame was fitted on
    frame_version: int = 0  # bumped at every fit: names the frame in memo keys (a refit may mirror an axis)
    newest_shown: int | None = None  # the newest step when the projection was last drawn (timeline follows it)
    frame_flat: bool = False  # the frame's spectrum is no more structured than a random table's (C9)
    vocab_seen: object = None  # the editor state the current vocab was validated from
    text_seen: str | None = None  # the text the current lines were parsed from
    vocab_problems: list[Problem] = field(default_factory=list)  # what is wrong with the table now
    text_problems: list[Problem] = field(default_factory=list)  # what is wrong with the text now
    notices: list[tuple[str, dict]] = field(default_factory=list)  # (string key, params) to show once
    link_problems: list[Problem] = field(default_factory=list)  # why a share link could not be opened
    import_problems: list[Problem] = field(default_factory=list)  # why the last imported file was refused
    preset_problems: list[Problem] = field(default_factory=list)  # why the last preset could not be loaded
    guess: tuple[int, tuple[int, ...]] | None = None  # (step, rows) the learner predicted before that step
    lesson_mode: str = "guided"  # "guided" (one lesson, previous/next) or "free" (all lessons)
    lesson_index: int = 0  # the lesson shown in guided mode
    selected_token: int | None = None  # the token followed everywhere (id cell, PCA point, token picker)
    points: dict[int, np.ndarray] = field(default_factory=dict)  # step → (V, k) in `frame`
    built: dict[str, tuple[object, object]] = field(default_factory=dict)  # name → (inputs, figure): see memo

    def memo(self, name: str, key: tuple, build: Callable[[], T]) -> T:
        """``build()``, or the figure it returned last time under ``name`` when ``key`` is equal.

        ``key`` must hold everything the figure is built from (arrays as bytes, a lab by its uid; see
        components/memo.py). A rerun that changed nothing a chart shows (another section, a widget
        elsewhere) then skips rebuilding it. Per session, like everything in the Workspace.
        """
        hit = self.built.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]  # type: ignore[return-value]
        value = build()
        self.built[name] = (key, value)
        return value

    def recipe(self, config: Config) -> Recipe:
        return Recipe(self.vocab, tuple(l.tokens for l in self.lines), tuple(l.label for l in self.lines),
                      self.classes, config)


def vocab_frame(vocab: Vocab) -> pd.DataFrame:
    """The editor's table for a vocabulary: columns token, id, role."""
    roles = np.full(vocab.size, "normal", dtype=object)
    roles[vocab.unk_id], roles[vocab.pad_id] = "unk", "pad"
    frame = pd.DataFrame({"token": list(vocab.tokens), "id": np.arange(vocab.size), "role": roles})
    frame.index = pd.RangeIndex(1, vocab.size + 1, name="#")  # row numbers as the error messages count them
    return frame


def config_defaults(preset: dict) -> dict:
    """Widget values for a preset's config (Config's defaults for whatever it leaves out)."""
    return config_widgets(Config(**preset.get("config", {})))


def config_widgets(cfg: Config) -> dict:
    """Widget key → value for every knob of a Config."""
    return {Keys.EMBEDDING_DIM: cfg.embedding_dim, Keys.SEED: cfg.seed, Keys.OPTIMIZER: cfg.optimizer,
            Keys.LR: cfg.lr, Keys.WEIGHT_DECAY: cfg.weight_decay, Keys.POOLING: cfg.pooling,
            Keys.BATCH_SIZE: cfg.batch_size, Keys.PAD_MODE: "fixed" if cfg.fixed_len else "longest",
            Keys.FIXED_LEN: cfg.fixed_len or 4}


def workspace() -> Workspace:
    """This session's workspace: from a share link (``?s=…``) on the first run, else the default preset.

    A state queued by an import (`queue_state`) is applied here, before any widget is drawn.
    """
    pending = st.session_state.pop(_PENDING, None)
    if pending is not None:
        st.session_state[_WS] = _from_state(*pending)
    ws = st.session_state.get(_WS)
    if ws is None:
        ws = _from_preset(presets.load(presets.DEFAULT), set_widgets=True)
        st.session_state[_WS] = ws
        if SHARE_PARAM in st.query_params:
            _open_share_link(ws)
    return st.session_state[_WS]


def _open_share_link(ws: Workspace) -> None:
    """Open the example a share link carries, replaying its steps; a bad link leaves the default and says why."""
    try:
        state = from_query_params(st.query_params.to_dict())
        restored = restore(state)
    except InputError as e:
        ws.link_problems = e.problems
        return
    st.session_state[_WS] = _from_state(state, restored, "share.loaded_from_link")


def queue_state(state: AppState, restored: Restored, notice: str) -> None:
    """Apply an imported state on the next run (widgets drawn in this run cannot change now)."""
    st.session_state[_PENDING] = (state, restored, notice)


def _from_state(state: AppState, restored: Restored, notice: str) -> Workspace:
    lab = restored.lab
    st.session_state[Keys.SENTENCES] = state.sentences
    st.session_state[Keys.LANG] = state.lang
    for key, value in config_widgets(lab.recipe.config).items():
        st.session_state[key] = value
    for key in (Keys.VOCAB, Keys.VOCAB_START, Keys.VOCAB_FIND, Keys.TIMELINE):
        st.session_state.pop(key, None)
    vocab = lab.recipe.vocab
    ws = Workspace("import", lab.recipe.classes, vocab_frame(vocab), vocab, vocab,
                   parse_sentences(state.sentences, lab.recipe.classes), lab, text_seen=state.sentences)
    ws.notices.append((notice, {"steps": lab.steps}))
    return ws


def _from_preset(preset: dict, set_widgets: bool) -> Workspace:
    """The workspace of a preset; its lab is built before any widget is set, so a lab that cannot be
    built (InputError) leaves the page as it was."""
    vocab = Vocab.from_rows(preset["vocab"])
    classes = tuple(preset["classes"])
    lines = parse_sentences(preset["sentences"], classes)
    cfg = Config(**preset.get("config", {}))
    lab = Lab(Recipe(vocab, tuple(l.tokens for l in lines), tuple(l.label for l in lines), classes, cfg))
    if set_widgets:
        st.session_state[Keys.SENTENCES] = preset["sentences"]
        st.session_state[Keys.PRESET] = preset["id"]
        for key, value in config_defaults(preset).items():
            st.session_state[key] = value
        for key in (Keys.VOCAB, Keys.VOCAB_START, Keys.VOCAB_FIND):  # forget edits and the window of the previous table
            st.session_state.pop(key, None)
    return Workspace(preset["id"], classes, vocab_frame(vocab), vocab, vocab, lines, lab, text_seen=preset["sentences"])


def load_preset(preset_id: str) -> None:
    """Callback: replace the workspace with a preset (widgets included); if its lab cannot be built
    (the server is short of memory), keep the current one, edits included, and say why."""
    try:
        st.session_state[_WS] = _from_preset(presets.load(preset_id), set_widgets=True)
    except InputError as e:
        st.session_state[_WS].preset_problems = e.problems


def get(key: str, default=None):
    return st.session_state.get(key, default)


def set_value(key: str, value) -> None:
    """Set a widget's value: only in a callback or before the widget is drawn in this run."""
    st.session_state[key] = value


def ensure(key: str, value) -> None:
    """Give a widget its first value without passing ``value=`` (avoids Streamlit's double-default warning)."""
    if key not in st.session_state:
        st.session_state[key] = value


def select_token_from_cell(ws: Workspace) -> None:
    """Callback of the id matrix: the clicked cell's id becomes the token followed in every view."""
    cells = st.session_state.get(Keys.ID_CELL, {}).get("selection", {}).get("cells", [])
    if cells:
        b, col = cells[0]
        t = int(str(col).removeprefix("t="))
        ids = ws.lab.batch.ids
        if 0 <= b < ids.shape[0] and 0 <= t < ids.shape[1]:
            ws.selected_token = int(ids[b, t])


def select_token_from_chart(ws: Workspace) -> None:
    """Callback of the PCA scatter: a clicked point's id (its customdata) becomes the followed token."""
    points = st.session_state.get(Keys.PCA_CHART, {}).get("selection", {}).get("points", [])
    for p in points:
        i = p.get("customdata")
        if isinstance(i, list):
            i = i[0] if i else None
        if isinstance(i, (int, float)) and 0 <= int(i) < ws.lab.recipe.vocab.size:
            ws.selected_token = int(i)
            return


def select_token_from_picker(ws: Workspace) -> None:
    ws.selected_token = st.session_state.get(Keys.TOKEN)


def sync_token_picker(ws: Workspace, default: int) -> None:
    """Before the token picker is drawn: show the followed token (or ``default`` when none is valid)."""
    if ws.selected_token is None or not 0 <= ws.selected_token < ws.lab.recipe.vocab.size:
        ws.selected_token = default
    st.session_state[Keys.TOKEN] = ws.selected_token


# Widgets whose options are shown through translated labels: Streamlit matches their selection by
# the shown label, so a language switch must hand them their values again.
TRANSLATED_CHOICES = (Keys.PRESET, Keys.PAD_MODE, Keys.POOLING, Keys.OPTIMIZER, Keys.SECTION, Keys.MODE, Keys.LESSON)


def keep_choices_across_language() -> None:
    """Callback of the language radio: re-assign every translated choice so it survives the new labels."""
    for key in TRANSLATED_CHOICES:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
