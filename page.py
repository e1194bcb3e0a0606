"""The page: the composition root. Read the session's workspace, draw components, apply what they return.

``streamlit run app.py`` runs ``main()``. All keys live in session.py; all computation in core/.
"""

from __future__ import annotations

import streamlit as st
import torch

import session
from components import inputs, sidebar
from components.i18n import lang_from_locale, t
from core.batch import parse_sentences
from core.problems import InputError, Problem
from core.training import Config, Lab
from core.vocab import Vocab
from session import Keys, Workspace
from sections import lookup_section, training_section

SECTIONS = ("lookup", "train", "lessons", "share")
# One intra-op thread per torch op in the server. Every session's script runs in its own thread,
# so the cores serve learners side by side; and torch's second thread sleeps between clicks, and
# waking it made a chapter-sized Step ~13 ms instead of ~2 ms (bench/README.md, "threads").
# A 100k×300 step is slower alone (bench_training: ~390 ms instead of ~230 ms), still far under 2 s.
TORCH_THREADS = 1


def main() -> None:
    if torch.get_num_threads() != TORCH_THREADS:
        torch.set_num_threads(TORCH_THREADS)
    st.set_page_config(page_title="nn.Embedding Explorer", page_icon="🧮", layout="wide")
    ws = session.workspace()
    session.ensure(Keys.LANG, lang_from_locale(st.context.locale))
    with st.sidebar:
        lang = sidebar.language()
        sidebar.preset_picker(lang)
        raw_config = sidebar.config_inputs(lang)
    st.title(t(lang, "app.title"))
    st.caption(t(lang, "app.subtitle"))
    left, right = st.columns([1, 1.3])
    with left:
        edited = inputs.vocab_editor(lang, ws.vocab_base, locked=bool(ws.vocab_problems))
    with right:
        text = inputs.sentences_area(lang, ws.classes)
    update_vocab(lang, ws, edited)
    update_sentences(lang, ws, text)
    update_lab(lang, ws, raw_config)
    for key, params in ws.notices:
        st.info(t(lang, key, **params), icon=":material/info:")
    ws.notices.clear()
    if ws.link_problems:
        inputs.show_problems(lang, "err.link_title", ws.link_problems)
        ws.link_problems = []
    if ws.preset_problems:
        inputs.show_problems(lang, "err.preset_title", ws.preset_problems)
        ws.preset_problems = []
    session.ensure(Keys.SECTION, SECTIONS[0])
    section = st.segmented_control(t(lang, "app.section"), SECTIONS, key=Keys.SECTION, required=True,
                                   format_func=lambda s: t(lang, f"section.{s}"), width="stretch")
    if section == "lookup":
        lookup_section.render(lang, ws)
    elif section == "train":
        training_section.render(lang, ws)
    elif section == "lessons":
        from sections import lessons_section
        lessons_section.render(lang, ws)
    else:
        from sections import share_section
        share_section.render(lang, ws)


def update_vocab(lang: str, ws: Workspace, edited: inputs.VocabEdit) -> None:
    """Validate the edited table; on success it becomes the vocabulary, else the last valid one stays.

    A windowed table (large V) folds a valid edit into its base at once and reruns, so the page shows
    the table as it now is, with no pending edits, and the window can move without dropping any.
    """
    state = st.session_state.get(Keys.VOCAB) or {}
    seen = (id(ws.vocab_base), repr(state))
    if seen != ws.vocab_seen:  # only when the table changed
        ws.vocab_seen = seen
        if not any(state.get(k) for k in ("edited_rows", "added_rows", "deleted_rows")):
            ws.vocab, ws.vocab_problems = ws.base_vocab, []  # no edits: the table is the (valid) base
        else:
            try:
                whole = edited.whole(ws.vocab_base)
                ws.vocab = Vocab.from_rows(whole[["token", "id", "role"]].itertuples(index=False, name=None))
                ws.vocab_problems = []
                if edited.start is not None:  # fold, and redraw the table from its new base right away:
                    ws.base_vocab, ws.vocab_base = ws.vocab, session.vocab_frame(ws.vocab)
                    st.rerun()  # an edit made to the old table after this point would be dropped with it
            except InputError as e:
                ws.vocab_problems = e.problems
    inputs.show_problems(lang, "err.vocab_title", ws.vocab_problems)


def update_sentences(lang: str, ws: Workspace, text: str) -> None:
    """Parse the text area; on success it becomes the batch, else the last valid sentences stay."""
    if text != ws.text_seen:
        try:
            ws.lines = parse_sentences(text, ws.classes)
            ws.text_problems = []
        except InputError as e:
            ws.text_problems = e.problems
        ws.text_seen = text
    inputs.show_problems(lang, "err.sent_title", ws.text_problems)


def update_lab(lang: str, ws: Workspace, raw: dict) -> None:
    """Rebuild the lab when anything that decides the weights changed (training restarts at step 0)."""
    try:
        config = Config(**raw)
        problems = config.problems()
    except (TypeError, ValueError):
        problems = [Problem("config_invalid")]
    if problems:
        inputs.show_problems(lang, "err.config_title", problems)
        config = ws.lab.recipe.config
    recipe = ws.recipe(config)
    if recipe == ws.lab.recipe:
        return
    try:
        lab = Lab(recipe)
    except InputError as e:
        inputs.show_problems(lang, "err.config_title", e.problems)
        return
    if ws.lab.steps:
        ws.notices.append(("notice.restarted", {}))
    ws.lab = lab
    ws.frame, ws.frame_steps = None, ()
