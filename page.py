"""The page: the composition root. Read the session's workspace, draw components, apply what they return.

``streamlit run app.py`` runs ``main()``: read the widgets, call the session's explorer
(core/explorer.py), draw plain data. All keys live in session/keys.py; all computation in core/.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import streamlit as st
import torch

import session
from server import hooks as server_hooks, streamlit_private, upkeep
import components.keeper as keeper
import components.stage as stage_component
from components import inputs, sidebar, style, training
from components.busy import busy
from components.grid_keys import grid_keys
from components.page_lang import page_lang
from components.widget_text import widget_text
from components.i18n import LANGS, lang_from_locale, md, problem_text, t
from core import morphemes, pretrained_apply, torch_build
from core.explorer import Explorer
from core.problems import Problem
from core.url_state import SECTIONS
from session import Keys
from sections import guide_section, keeper_section, lookup_section, pretrained_section, training_section

# One intra-op thread per torch op in the server. Every session's script runs in its own thread,
# so the cores serve learners side by side, and no idle torch worker thread has to be woken at
# each click (bench/README.md, "threads", measures both sizes).
TORCH_THREADS = 1
MORPHEMES_WAIT_S = 120  # the longest a page waits for the morpheme analyzer to load


def main() -> None:
    if torch.get_num_threads() != TORCH_THREADS:
        torch.set_num_threads(TORCH_THREADS)
    upkeep.start_once()
    streamlit_private.cache_theme_messages()  # each run's theme, built once per process
    for c in (stage_component, keeper):  # their JS loaded once a page, not sent with every update
        streamlit_private.serve_component_files(c.NAME, Path(c.__file__).parent, c.HTML, c.CSS, c.JS_FILE)
    server_hooks.install()  # each job is its session's; SIGTERM cancels the jobs, then Streamlit stops
    torch_build.log_once()  # which torch build serves, in the server's log (a CUDA one: how to swap it)
    st.set_page_config(page_title="nn.Embedding Explorer", page_icon="🧮", layout="wide")
    slot = st.empty()  # where a slow load shows what it is doing: the same place on every run
    session.ensure(Keys.LANG, lang_from_locale(st.context.locale))
    session.ensure(Keys.SECTION, SECTIONS[0])
    guide_section.follow()  # the guide moved to a step on another view: show it (before the view selector is drawn)
    ex = session.explorer(lambda key: busy(slot, t(session.get(Keys.LANG), key)), LANGS)
    on_stage = training.STAGE_KNOBS if session.get(Keys.SECTION) == "train" else ()  # the bar draws those
    with st.sidebar:
        st.title(t(session.get(Keys.LANG), "app.title"))
        lang = sidebar.language(Keys.LANG, on_change=session.keep_choices_across_language)
        st.set_page_config(page_title=t(lang, "app.title"))  # the browser's tab, in the page's language
        st.caption(t(lang, "app.subtitle"))
        present = sidebar.presentation(lang, Keys.PRESENT, on_change=session.presentation_switched,
                                       switched_on=session.own().present_switched_on, fold_key=Keys.SIDEBAR_FOLD)
        guide_section.reopen_button(lang)
        sidebar.preset_picker(lang, Keys.PRESET, Keys.LOAD_PRESET, on_load=session.load_chosen_preset)
        current = ex.config_values()
        sidebar_knobs = [key for key in session.config_widgets(current) if key not in on_stage]
        session.show_knobs(current, drawn=sidebar_knobs, new_run=True)  # each knob shows its value, not a default
        raw_config = sidebar.config_inputs(lang, Keys.PAD_MODE,  # the bar's knobs: their state, else the values in effect
                                           elsewhere={name: session.get(name, current[name]) for name in on_stage})
    style.page_style(present)
    page_lang(lang, key=Keys.PAGE_LANG)
    section = st.segmented_control(t(lang, "app.section"), SECTIONS, key=Keys.SECTION, required=True,
                                   format_func=lambda s: t(lang, f"section.{s}"), width="stretch",
                                   label_visibility="collapsed", help=t(lang, "help.section"))
    wait_for_morphemes(lang, slot, ex, raw_config.get("tokenizer"))
    editors(lang, ex)
    if raw_config != ex.config_values() or "config" in ex.problems:
        vocab = ex.vocab
        ex.apply_config(raw_config)
        if ex.vocab is not vocab:  # a new tokenizer setting built the vocabulary again: the table shows it
            session.rebase_editor(ex)
            st.rerun()
    session.write_address(ex)  # the view, language, example and knobs now in effect
    show_address_problems(lang, ex.problems.pop("url", []))
    show_problems(lang, ex)
    inputs.show_notices(lang, ex.notices)
    session.own().undo_offered = ex.before is not None and ex.before.offered_for(ex.lab)  # until they are trained
    if session.own().undo_offered:
        inputs.restart_undo(lang, ex.before.steps, Keys.UNDO_RESTART, on_click=session.undo_restart)
    offer = st.container()  # where the keeper offers work this browser kept
    if section != "train":
        session.own().timeline_follows = False  # back on the training view, the timeline follows the newest step
    if section == "lookup":
        lookup_section.render(lang, ex, present)
    elif section == "train":
        training_section.render(lang, ex, present, after=lambda lang, ex: keeper_section.keep(lang, ex, key=Keys.KEEPER_LIVE))
    elif section == "lessons":
        from sections import lessons_section
        lessons_section.render(lang, ex)
    else:
        from sections import share_section
        share_section.render(lang, ex)
    # The keeper, outside every fragment and after this run's work: it keeps the state the work left
    # (on the training view the stage's fragment keeps it, at every Step), reports what the browser
    # kept, and its report reruns the whole page, so the offer is drawn on any view.
    report = keeper_section.watch(lang, ex, key=Keys.KEEPER, write=section != "train")
    keeper_section.offer(lang, ex, report, where=offer)
    guide_section.show(lang, ex, section)  # last: its empty element adds no gap above the views
    widget_text(lang, key=Keys.WIDGET_TEXT)  # Streamlit's own widget texts in the page's language
    grid_keys(key=Keys.GRID_KEYS)  # a quick Enter in the vocabulary table keeps what was typed into a cell


def editors(lang: str, ex: Explorer) -> None:
    """The vocabulary table and the sentences, folded away under one line that says what they hold.

    Always drawn (folded or not), so what the learner typed is kept; applied through the explorer.
    """
    base = session.editor_base()
    text = session.get(Keys.SENTENCES)  # the text area's value arrives before it is drawn: applied before
    if isinstance(text, str) and (text != ex.text or "text" in ex.problems):  # the box's label counts them
        vocab = ex.vocab
        ex.apply_text(text)
        if ex.vocab is not vocab:  # built from the new sentences' tokens (another tokenizer than whitespace)
            session.rebase_editor(ex)
            base = session.editor_base()
    drawn = (ex.vocab.size, len(ex.recipe.sentences))
    # Its open state is a widget's (the grid is drawn only while the box is open or holds an edit). The
    # widget is named by its label and its default: a new label (new counts) starts as the box is now,
    # so it stays open; the same label keeps its default, so the widget, and the grid in it, stay put.
    kept, label = session.own(), t(lang, "inputs.title", v=f"{drawn[0]:,}", b=drawn[1])
    if kept.editors_label != label:
        kept.editors_label, kept.editors_default = label, session.get(Keys.EDITORS) is True
    box = st.expander(label, icon=":material/edit_note:", key=Keys.EDITORS, on_change="rerun",
                      expanded=kept.editors_default)
    left, right = box.columns([1, 1.3])
    with left:
        edited = vocab_table(lang, base, locked="vocab" in ex.problems, folded=not box.open)
        listed = inputs.token_list_loader(lang, Keys.TOKEN_LIST, Keys.TOKEN_LIST_FILE, Keys.TOKEN_LIST_LOAD)
        pretrained_section.render(lang, ex)  # a vector file's rows into W (from_pretrained)
    with right:
        inputs.sentences_area(lang, ex.classes, Keys.SENTENCES, ex.example_classes)
        warned = st.container()  # under the sentences, in view while they are typed (the box scrolls)
    base.drawn_start = edited.start
    update_vocab(ex, base, edited)
    if listed is not None:
        load_token_list(ex, listed)
    if (ex.vocab.size, len(ex.recipe.sentences)) != drawn:
        st.rerun()  # an edit of the table changed V after the label was drawn: the label says the new count
    for warning in ex.warnings():  # once the table's edit is applied too
        warned.warning(problem_text(lang, warning), icon=":material/visibility:")


def wait_for_morphemes(lang: str, slot, ex: Explorer, wanted: object) -> None:
    """The morpheme tokenizer chosen (or in effect) before its analyzer is loaded: wait for it, once
    per process, saying so in ``slot``. Only this session waits; the first page never loads it."""
    if "morpheme" in (wanted, ex.config.tokenizer) and ex.analyzer() is None:
        with busy(slot, t(lang, "tok.loading")):
            morphemes.wait(MORPHEMES_WAIT_S)


def vocab_table(lang: str, base: session.EditorBase, locked: bool, folded: bool = False) -> inputs.VocabEdit:
    """The vocabulary table, drawn from its state: a large one's window where the learner moved it,
    a pending edit too large to apply refused unread (session/editor.py). In a ``folded`` box the
    grid is left out while it holds no edit: nothing typed is in it, and it is drawn from the same
    base when the box opens (an edit, even a wrong one, keeps it drawn).

    ``locked`` (an edit in the window has a problem) keeps the window where it is, so nothing typed
    is dropped; while the table holds an unapplied edit (``locked``, or one arriving in this very
    message), a request to move the window is not followed either, since Streamlit would drop the
    edit with the old window's rows: it stays where it was drawn last run (``base.drawn_start``).
    """
    window = None
    if inputs.windowed(len(base.frame)):
        held = base.drawn_start is not None and (locked or session.edit_pending())
        first = inputs.window_first(len(base.frame), session.get(Keys.VOCAB_START), base.drawn_start if held else None)
        session.set_value(Keys.VOCAB_START, first)  # before its box is drawn
        window = inputs.Window(first, locked, Keys.VOCAB_START, Keys.VOCAB_FIND,
                               on_find=partial(session.find_in_editor, base.frame))
    return inputs.vocab_editor(lang, base.frame, Keys.VOCAB, window, refuse=session.refuse_edit,
                               problems_prefix=Keys.PROBLEMS_PREFIX, turn=base.turn,
                               draw_grid=lambda: not folded or locked or session.edit_pending())


def load_token_list(ex: Explorer, listed) -> None:
    """The bulk path: a token list becomes the vocabulary (and the editor's new base), or its problems show."""
    if isinstance(listed, Problem):
        ex.problems["vocab"] = [listed]
        return
    if not ex.apply_token_list(listed):
        session.rebase_editor(ex)
        st.rerun()  # the editor was drawn from the old table


# Where each kind of problem is titled; link, preset and import problems are shown once.
PROBLEM_TITLES = (("vocab", "err.vocab_title"), ("text", "err.sent_title"), ("config", "err.config_title"),
                  ("link", "err.link_title"), ("preset", "err.preset_title"), (pretrained_apply.KIND, "err.pretrained_title"))
FILES = (pretrained_apply.KIND,)  # a refused file: nothing was typed, everything is as it was ("err.kept_file")
SHOWN_ONCE = ("link", "preset")


def show_problems(lang: str, ex: Explorer) -> None:
    """One error box per input that is wrong now; the page keeps running on the last valid state."""
    for kind, title in PROBLEM_TITLES:
        inputs.show_problems(lang, title, ex.problems.get(kind, []), key_prefix=Keys.PROBLEMS_PREFIX,
                             kept="err.kept_file" if kind in FILES else "err.kept")
    for kind in SHOWN_ONCE:
        ex.problems.pop(kind, None)


def show_address_problems(lang: str, problems: list[Problem]) -> None:
    """Once, after a page opened from an address with values it could not use: each value, why, and
    what the page shows instead (core/url_state.py)."""
    if not problems:
        return
    lines = [f"- {problem_text(lang, p)} {problem_text(lang, p.params['reason'])} "
             f"{md(lang, 'err.url_kept', kept=_kept(lang, p))}" for p in problems]
    st.container(key=Keys.URL_PROBLEMS).warning(f"**{t(lang, 'err.url_title')}**\n\n" + "\n".join(lines),
                                                icon=":material/link_off:")


def _kept(lang: str, p: Problem) -> str:
    """The value a refused parameter leaves in place, as the page names it: presentation mode's 0 or 1 with what it means."""
    kept = p.params["kept"]
    if p.params["name"] != "present" or kept not in ("0", "1"):
        return kept
    return t(lang, "urlstate.present_1" if kept == "1" else "urlstate.present_0")


def update_vocab(ex: Explorer, base: session.EditorBase, edited: inputs.VocabEdit) -> None:
    """Apply the edited table when the editor's state changed; a bad table keeps the last valid vocabulary.

    A windowed table (large V) folds a valid edit into its base at once and reruns, so the page shows
    the table as it now is, with no pending edits, and the window can move without dropping any.
    """
    state = session.get(Keys.VOCAB) or {}
    seen = (id(base.frame), repr(state))
    if seen == base.seen:  # only when the table changed
        return
    base.seen = seen
    if not any(state.get(k) for k in ("edited_rows", "added_rows", "deleted_rows")):
        ex.apply_vocab(base.vocab)  # no edits: the table is the (valid) base
        return
    whole = edited.whole(base.frame)
    rows = whole[["token", "id", "role"]].itertuples(index=False, name=None)
    if ex.apply_vocab(rows, names=whole.index.tolist()):  # problems name rows by the table's # column
        return
    if edited.start is not None:  # fold, and redraw the table from its new base right away:
        base.vocab, base.frame = ex.vocab, session.vocab_frame(ex.vocab)
        st.rerun()  # an edit made to the old table after this point would be dropped with it
