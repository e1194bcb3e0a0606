"""The lessons panel: one live demonstration per claim (core.lessons), drawn in the learner's language.

Components take data and give intent: `render_lessons` draws and returns the lesson index the
learner moved to (or None); it never touches the lab, nor the session: its widgets' keys are the
caller's (`LessonKeys`: the lesson picker, previous/next, and per lesson the prefixes of its
prediction, reveal, figure, expander and "try a sentence" box), and so is moving the picker
(``on_go``).

The formatting helpers (`fact_label`, `format_value`, `template_params`, `table_frame`) are pure,
so tests check every string a demo can show without running Streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd
import streamlit as st

from components.i18n import md, problem_text, strings, t
from components.charts import chart_config, safe_figure
from components.safe_text import md_escape
from components.lesson_figures import CELL_FONT_PX, PRESENT_PX, draw, number, vector_text
from components.lesson_projector import NORMAL_W, drop_narrow_cells, for_projector, present_height
from components.memo import Memo, no_memo
from core.lessons import HOLDS, LESSON_IDS, NOT_FINITE, Demo, lesson, run_demo
from core.training import Lab
from core.try_sentence import Tried, try_sentence

TRYING = ("C11",)  # lessons that offer a "try a sentence" box on the lab's current W


@dataclass(frozen=True)
class LessonKeys:
    """The lessons' widget keys (the app's: session.Keys). A prefix is completed by a lesson's id."""

    picker: str  # guided mode's lesson picker (its value: a lesson id)
    prev: str  # guided mode's "previous" button
    next: str  # … and "next"
    predict: str  # + id: the lesson's prediction question (C8, C13)
    reveal: str  # + id: the toggle that reveals its answer
    try_box: str  # + id: its "try a sentence" box (TRYING)
    figure: str  # + id: the container of its figure (tests measure it)
    open: str  # + id: its expander in free mode (drawn only while open)
    head: str = "lesson_head"  # presentation mode: the row of the claim, its verdict and previous/next
    body: str = "lesson_body"  # … and the box below it that holds the rest and scrolls inside itself


# ---- pure helpers ------------------------------------------------------------------------------
SHAPE_KEYS = ("batch_in", "batch_out", "sentence_out", "scalar_out", "empty_out", "expected")  # and any *shape*
NAME_LISTS = ("adjacent_tokens", "random_tokens", "oov_tokens", "param_names")  # shown without brackets or quotes


def fact_label(lang: str, lesson_id: str, key: str) -> str:
    """The fact's own label (``lesson.<id>.fact.<key>``), else the shared one (``lesson.fact.<key>``)."""
    for name in (f"lesson.{lesson_id}.fact.{key}", f"lesson.fact.{key}"):
        if name in strings():
            return t(lang, name)
    return key


def _is_error(value: Any) -> bool:
    return isinstance(value, dict) and "type" in value and "message" in value




def _sequence(lang: str, value: list | tuple, key: str) -> str:
    """A shape as a tuple ``(2, 3, 3)``, names as ``영화, 좋다``, anything else as ``[...]`` (floats: 4 digits)."""
    if key in SHAPE_KEYS or "shape" in key:
        return f"({', '.join(map(str, value))}{',' if len(value) == 1 else ''})"
    if key in NAME_LISTS:
        return ", ".join(map(str, value)) or t(lang, "lesson.none")
    items = (number(v) if isinstance(v, float) else _sequence(lang, v, "") if isinstance(v, (list, tuple))
             else str(v) for v in value)
    return f"[{', '.join(items)}]"


def format_value(lang: str, value: Any, key: str = "", codes: tuple[str, ...] = ()) -> str:
    """A fact's value as display text: 4 significant digits, yes/no, shapes, answers, and the
    value of a fact named in ``codes`` (its lesson's `Lesson.codes`) translated."""
    if value is None:  # for an ``*_error`` fact: the call ran
        return t(lang, "lesson.ok" if key.endswith("_error") else "lesson.none")
    if isinstance(value, bool):
        return t(lang, "lesson.yes" if value else "lesson.no")
    if isinstance(value, float):  # a zero is the point where one appears: the page says "exactly 0"
        return t(lang, "lesson.exactly_zero") if value == 0 else number(value)
    if _is_error(value):
        return f"{value['type']}: {value['message']}"
    if key == "grad_rows":
        return " / ".join(t(lang, f"lesson.answer.{a}") for a in value) or t(lang, "lesson.none")
    if key in codes and f"lesson.value.{value}" in strings():
        return t(lang, f"lesson.value.{value}")
    if isinstance(value, (list, tuple)):
        return _sequence(lang, value, key)
    return str(value)


def template_params(lang: str, demo: Demo) -> dict[str, str]:
    """Every scalar fact, formatted, for the ``{placeholders}`` of a lesson's body and check text."""
    codes = lesson(demo.id).codes
    return {k: format_value(lang, v, k, codes) for k, v in demo.facts.items()
            if v is None or isinstance(v, (bool, int, float, str))}


def table_frame(lang: str, rows: list[list]) -> pd.DataFrame:
    """A demo table ``[header, *rows]`` as a DataFrame with translated column names and cells."""
    header, body = rows[0], rows[1:]
    cells = []
    for row in body:
        out = []
        for col, v in zip(header, row):
            if col == "case":
                out.append(t(lang, f"lesson.case.{v}"))
            elif isinstance(v, float):
                out.append(number(v))  # 4 significant digits
            elif isinstance(v, (bool, list, tuple)) or v is None:
                out.append(format_value(lang, v, col))
            else:
                out.append(v)
        cells.append(out)
    return pd.DataFrame(cells, columns=[t(lang, f"lesson.col.{c}") for c in header])


def headline_keys(demo: Demo) -> tuple[str, ...]:
    """The facts of ``demo`` shown as metrics: its lesson's headline numbers that it has."""
    return tuple(k for k in lesson(demo.id).headline if isinstance(demo.facts.get(k), (int, float)) and not isinstance(demo.facts[k], bool))


def table_keys(demo: Demo) -> list[str]:
    """The facts of ``demo`` for its fact table: not headlines, not exceptions, not idle bookkeeping."""
    unit = lesson(demo.id)
    skip = set(headline_keys(demo)) | ({unit.predict[0]} if unit.predict else set())  # the reveal shows it
    return [k for k, v in demo.facts.items() if k not in skip and not _is_error(v)
            and unit.shown_only_if.get(k, lambda _f: True)(demo.facts)]


def lesson_title(lang: str, lesson_id: str) -> str:
    return f"{lesson_id} · {t(lang, f'lesson.{lesson_id}.title')}"


# ---- drawing -------------------------------------------------------------------------------------
def _metrics(lang: str, demo: Demo) -> None:
    """Headline numbers as metrics: one row of up to three, else two rows."""
    keys = headline_keys(demo)
    per_row = max(1, len(keys) if len(keys) <= 3 else math.ceil(len(keys) / 2))
    for start in range(0, len(keys), per_row):
        for col, k in zip(st.columns(per_row), keys[start: start + per_row]):
            v = demo.facts[k]
            value = f"{v:,}" if isinstance(v, int) else format_value(lang, v, k)
            col.metric(md_escape(fact_label(lang, demo.id, k)), md_escape(value))  # label and value are Markdown


def _fact_table(lang: str, demo: Demo) -> None:
    """Every other fact as a two-column table, sized to its rows, its text wrapping (no inner scrolling,
    on a phone either: a static table, where a data grid's columns keep their width and scroll).
    st.table reads every cell as Markdown: each is shown as its text (a fact can be a token)."""
    keys = table_keys(demo)
    if keys:
        values = [format_value(lang, demo.facts[k], k, lesson(demo.id).codes) for k in keys]
        frame = pd.DataFrame({md_escape(t(lang, "lesson.ui.fact_col")): [md_escape(fact_label(lang, demo.id, k))
                                                                          for k in keys],
                              md_escape(t(lang, "lesson.ui.value_col")): [md_escape(v) for v in values]})
        st.table(frame, hide_index=True)


def _table(frame: pd.DataFrame, present: bool, at: Any = st) -> None:
    """A lesson's table: presenting, a static table, whose text grows with the page's (a data grid
    draws on a canvas at its own size); otherwise a data grid. st.table reads every cell as Markdown:
    each is shown as its text."""
    if present:
        at.table(frame.rename(columns=lambda c: md_escape(str(c))).map(lambda v: md_escape(str(v))), hide_index=True)
    else:
        at.dataframe(frame, hide_index=True, width="stretch", height="content")


def _demo_tables(lang: str, demo: Demo, present: bool) -> None:
    """The demo's own tables; a "message" column is left out: the exceptions follow in full as code."""
    for rows in demo.tables.values():
        if len(rows) > 1:
            _table(table_frame(lang, rows).drop(columns=[t(lang, "lesson.col.message")], errors="ignore"), present)


def _picture(lang: str, demo: Demo, params: dict[str, str], view: "View", keys: LessonKeys,
             then: Callable[[], None] = lambda: None) -> None:
    """The lesson's figure (or, for C16, its code beside its run), ``then`` (presentation mode: the
    verdict, right under the figure), and the figure's numbers as a table."""
    drawn = draw(lang, demo, view.selected, view.present)
    if drawn is None:
        then()
        return
    if drawn.code is not None:
        if view.present:
            then()  # the chapter's code is longer than the first screen: the verdict above it
        code_col, run_col = st.columns([3, 2])
        code_col.caption(t(lang, f"lesson.{demo.id}.fig.code"))
        code_col.code(drawn.code, language="python", wrap_lines=True)
        run_col.caption(md(lang, f"lesson.{demo.id}.fig.run", **demo.figure))
        run_col.code(f"inputs = {demo.figure['inputs']}\nvectors.shape = {tuple(demo.facts['vectors_shape'])}",
                     language=None)
        for table in drawn.tables:
            _table(table, view.present, run_col)
        if not view.present:
            then()
        return
    if not view.present:  # presenting, they follow the verdict: the figure and the verdict fill the first screen
        for table in drawn.shown:
            _table(table, False)
    fig = drawn.figure
    config = chart_config(f"lesson_{demo.id}")
    if view.present:  # the class reads it from the back of the room: every text 24 px, the verdict under it
        for_projector(fig, PRESENT_PX, height=present_height(_verdict_text(lang, demo, params)), mode_bar=False)
        config["displayModeBar"] = False  # no zooming from the back of the room: its row above the titles goes to the verdict
    else:
        drop_narrow_cells(fig, CELL_FONT_PX, NORMAL_W)
    with st.container(key=keys.figure + demo.id):  # its own box: on a phone a figure of side-by-side plots scrolls in it (style.py)
        st.plotly_chart(safe_figure(fig), alt=drawn.alt, config=config)
    then()
    for table in drawn.shown if view.present else ():
        _table(table, True)
    with st.expander(t(lang, "lesson.ui.figure_numbers")):
        for table in drawn.tables:
            _table(table, view.present)


def tried_frame(lang: str, tried: Tried, unk_token: str) -> pd.DataFrame:
    """A tried sentence as a table: each token, whether the vocabulary has it, its id and its row of W."""
    return pd.DataFrame({
        t(lang, "lesson.fig.position"): list(range(len(tried.tokens))), t(lang, "lesson.fig.token"): list(tried.tokens),
        t(lang, "lesson.try.known"): [t(lang, "lesson.no" if u else "lesson.yes") for u in tried.unknown],
        t(lang, "lesson.fig.id"): [f"{i} ({unk_token})" if u else str(i) for i, u in zip(tried.ids, tried.unknown)],
        t(lang, "lesson.fig.vector"): [vector_text(v) for v in tried.vectors]})


def try_sentence_box(lang: str, lab: Lab, key: str, split=None, present: bool = False) -> Tried | None:
    """A "try a sentence" box: look a new sentence up in ``lab``'s current W and show the result.

    Nothing about the lab changes (batch, step count, W). The text stays in the box as typed; a
    problem with it is shown as a warning. Returns what was tried (None while the box is empty).
    Used by the lessons in TRYING (key `LessonKeys.try_box` + id) and by the lookup view, under its own key.
    ``split``: the lab's tokenizer (core.try_sentence), None for whitespace; ``present``: presentation
    mode's table (`_table`).
    """
    text = st.text_input(t(lang, "lesson.try.label"), key=key, placeholder=t(lang, "lesson.try.placeholder"),
                         max_chars=2_000, help=t(lang, "help.try_sentence"))
    if not text.strip():
        return None
    tried = try_sentence(lab, text, split)
    for problem in tried.problems:
        st.warning(problem_text(lang, problem))
    if not tried.problems:
        vocab = lab.recipe.vocab
        unk = vocab.tokens[vocab.unk_id]
        st.caption(md(lang, "lesson.try.caption", step=tried.step, n=sum(tried.unknown), unk=unk, unk_id=vocab.unk_id))
        _table(tried_frame(lang, tried, unk), present)
    return tried


def _errors(lang: str, demo: Demo) -> None:
    for k, err in demo.facts.items():
        if _is_error(err):
            st.caption(fact_label(lang, demo.id, k))
            st.code(f"{err['type']}: {err['message']}", language=None, wrap_lines=True)


def _mark(lang: str, demo: Demo) -> None:
    """The verdict in a word, for presentation mode's header row: ✓ held, ✗ did not (no icon font:
    a screen reader reads the mark's text, never an icon's ligature name)."""
    if demo.verdict == HOLDS:
        st.badge(f"✓ {t(lang, 'lesson.verdict.pass')}", color="green")
    elif demo.verdict != NOT_FINITE:
        st.badge(f"✗ {t(lang, 'lesson.verdict.fail')}", color="red")


def _verdict_text(lang: str, demo: Demo, params: dict[str, str]) -> str:
    """The verdict as Markdown: held or not, what was checked (facts shown as text) and, when it did
    not hold, why it may not have."""
    check = t(lang, "lesson.ui.check", check=md(lang, f"lesson.{demo.id}.check", **params))
    if demo.verdict == HOLDS:
        return f"**{t(lang, 'lesson.verdict.pass')}** · {check}"
    hint = f"lesson.{demo.id}.fail" if f"lesson.{demo.id}.fail" in strings() else "lesson.verdict.fail_hint"
    return f"**{t(lang, 'lesson.verdict.fail')}** · {check}\n\n{t(lang, hint)}"


def _verdict(lang: str, demo: Demo, params: dict[str, str]) -> None:
    if demo.verdict == HOLDS:
        st.success(_verdict_text(lang, demo, params), icon=":material/check_circle:")
    else:
        st.error(_verdict_text(lang, demo, params), icon=":material/error:")


def answer_text(lang: str, lesson_id: str, answer: str) -> str:
    """A choice of a lesson's prediction question: its own wording, else the shared one."""
    own = f"lesson.{lesson_id}.answer.{answer}"
    return t(lang, own if own in strings() else f"lesson.answer.{answer}")


def _prediction(lang: str, demo: Demo, params: dict[str, str], keys: LessonKeys) -> bool:
    """The lesson's own predict-then-reveal question; True once the learner reveals the answer."""
    fact, choices = lesson(demo.id).predict
    guess = st.radio(md(lang, f"lesson.{demo.id}.predict", **params), choices, index=None, key=keys.predict + demo.id,
                     format_func=lambda a: answer_text(lang, demo.id, a), help=t(lang, "help.lesson_predict"))
    if not st.toggle(t(lang, "lesson.ui.reveal"), key=keys.reveal + demo.id, help=t(lang, "help.lesson_reveal")):
        st.caption(t(lang, "lesson.ui.reveal_hint"))
        return False
    right = demo.facts.get(fact, [])
    answer = " / ".join(answer_text(lang, demo.id, a) for a in right) or t(lang, "lesson.none")
    (st.success if guess in right else st.warning)(t(lang, "lesson.ui.right" if guess in right else "lesson.ui.wrong",
                                                     answer=answer))
    return True


@dataclass(frozen=True)
class View:
    """How the lessons are shown: ``present`` (presentation mode: larger figures) and the token the
    learner follows on the stage (``selected``), lit where a figure draws it."""

    present: bool = False
    selected: int | None = None
    frame: Callable[[], tuple[Any, int]] | None = None  # the training view's 2-D frame and its version (X7)
    tokens: Callable[[], Any] | None = None  # the learner's sentences as typed and own table (X8: core.lessons.tokens.Source)


def render_lesson(lang: str, demo: Demo, keys: LessonKeys, lab: Lab | None = None, view: View = View(),
                  claim: tuple[Any, Any] | None = None) -> None:
    """One lesson: title, its figure (on the first screen), explanation, facts, tables and the
    verdict of its check. A lesson that asks a prediction shows its figure only once the answer
    is revealed, after the text. A lesson in TRYING also offers a "try a sentence" box on ``lab``'s
    current W. ``claim``: two containers of presentation mode's header row, for the title and the
    verdict's mark; the verdict's full text then follows the figure (both on the first screen)."""
    params = template_params(lang, demo)
    title_at, mark_at = claim if claim is not None else (st, None)
    title_at.header(lesson_title(lang, demo.id))  # h2: the page's h1 is the title in the sidebar
    if mark_at is not None:
        with mark_at:
            _mark(lang, demo)
    if demo.verdict == NOT_FINITE:  # nothing was computed: no numbers for the text, only the reason
        st.warning(md(lang, "lesson.verdict.not_finite", **params), icon=":material/block:")
        return
    asks = lesson(demo.id).predict is not None
    verdict_here = (lambda: _verdict(lang, demo, params)) if claim is not None else (lambda: None)
    if not asks:
        _picture(lang, demo, params, view, keys, verdict_here)
    st.markdown(md(lang, f"lesson.{demo.id}.body", **params))
    terms = lesson(demo.id).terms
    if terms:
        st.caption("  \n".join([f"**{t(lang, 'lesson.ui.terms')}**"] + [t(lang, f"lesson.term.{x}") for x in terms]))
    st.caption(t(lang, "lesson.ui.live"))
    if asks and not _prediction(lang, demo, params, keys):
        return
    _metrics(lang, demo)
    if asks:
        _picture(lang, demo, params, view, keys, verdict_here)
    _fact_table(lang, demo)
    _demo_tables(lang, demo, view.present)
    if demo.id in TRYING and lab is not None:
        try_sentence_box(lang, lab, keys.try_box + demo.id, present=view.present)
    _errors(lang, demo)
    if claim is None:
        _verdict(lang, demo, params)


def _try_demo(lab: Lab, lang: str, lesson_id: str, memo: Memo = no_memo, view: View = View()) -> Demo | str:
    """The demo, or the message to show if it failed (a failing demo must not take the page down).

    ``memo`` (session.memo) keeps a demo until the lab moves: a demo is a pure function of
    the lab's recipe and weights, which change only by a step, a PAD edit or a new lab.
    """
    frame, version = view.frame() if view.frame and lesson(lesson_id).uses_frame else (None, None)
    if lesson_id == "X8":  # it reads the sentences as typed beside the lab, not a frame
        frame, version = (view.tokens() if view.tokens else None), None

    def attempt() -> Demo | str:
        try:
            return run_demo(lesson_id, lab, frame)
        except Exception as exc:  # noqa: BLE001
            return f"{type(exc).__name__}: {exc}"

    demo = memo(f"demo:{lesson_id}", (lab.uid, lab.steps, len(lab.pad_edits), version), attempt)
    return md(lang, "lesson.ui.error", error=demo) if isinstance(demo, str) else demo  # an exception may quote a token


def _show(lang: str, demo: Demo | str, lab: Lab, view: View, keys: LessonKeys, claim: tuple[Any, Any] | None = None) -> None:
    if isinstance(demo, str):
        st.error(demo)
    else:
        render_lesson(lang, demo, keys, lab, view, claim)


def seed(index: int) -> str:
    """The lesson guided mode's picker starts on for a lesson index (kept within the lessons)."""
    return LESSON_IDS[min(max(index, 0), len(LESSON_IDS) - 1)]


def _controls(lang: str, at: int, keys: LessonKeys, seeded: dict, on_go: Callable[[str], None], pick_at, prev_at,
              next_at, label_visibility: str = "visible") -> int:
    """The lesson picker (its label says "n / total"), previous and next, each in the container
    given; returns the index of the lesson picked."""
    progress = t(lang, "lesson.ui.progress", n=at + 1, total=len(LESSON_IDS))
    chosen = pick_at.selectbox(f"{t(lang, 'lesson.ui.select')} · {progress}", LESSON_IDS, key=keys.picker, **seeded,
                               format_func=lambda i: lesson_title(lang, i), help=t(lang, "help.lesson_select"),
                               label_visibility=label_visibility)
    at = LESSON_IDS.index(chosen)
    prev_at.button(t(lang, "lesson.ui.prev"), key=keys.prev, disabled=at == 0, width="stretch",
                   help=t(lang, "help.lesson_prev"), on_click=on_go, args=(LESSON_IDS[max(at - 1, 0)],))
    next_at.button(t(lang, "lesson.ui.next"), key=keys.next, disabled=at == len(LESSON_IDS) - 1, width="stretch",
                   help=t(lang, "help.lesson_next"), on_click=on_go, args=(LESSON_IDS[min(at + 1, len(LESSON_IDS) - 1)],))
    return at


def _guided(lab: Lab, lang: str, index: int, memo: Memo, view: View, mode_picker: Callable[[bool], None],
            keys: LessonKeys, picked: str | None, on_go: Callable[[str], None]) -> int | None:
    """One row of controls (the picker with "n / total" in its label, previous, next, the mode),
    so that the lesson's figure is on the first screen; then the lesson.

    In presentation mode, one screen of a projector holds the whole lesson's point: a header row
    with the claim, its verdict's mark and previous/next, then a box (style: sections/lessons_section.py)
    that scrolls inside itself, the figure and the verdict's text first, the picker and the mode last."""
    index = LESSON_IDS.index(seed(index))
    at = LESSON_IDS.index(picked) if picked in LESSON_IDS else index
    seeded = {} if picked is not None else {"index": at}  # no state yet: the caller's index seeds the picker
    if not view.present:
        pick_col, prev_col, next_col, mode_col = st.columns([4.4, 1.5, 1.5, 3], vertical_alignment="bottom")
        at = _controls(lang, at, keys, seeded, on_go, pick_col, prev_col, next_col)
        with mode_col:
            mode_picker(False)
        _show(lang, _try_demo(lab, lang, LESSON_IDS[at], memo, view), lab, view, keys)
        return at if at != index else None
    claim_col, mark_col, prev_col, next_col = st.container(key=keys.head).columns(
        [6, 2.6, 1.5, 1.5], vertical_alignment="center")
    body = st.container(key=keys.body)
    lesson_at = body.container()
    pick_col, mode_col = body.columns([4.4, 3], vertical_alignment="bottom")
    at = _controls(lang, at, keys, seeded, on_go, pick_col, prev_col, next_col)
    with mode_col:
        mode_picker(False)
    with lesson_at:
        _show(lang, _try_demo(lab, lang, LESSON_IDS[at], memo, view), lab, view, keys, (claim_col, mark_col))
    return at if at != index else None


def _free(lab: Lab, lang: str, memo: Memo, view: View, mode_picker: Callable[[bool], None], keys: LessonKeys) -> None:
    """Every lesson in an expander whose icon says whether its check held; a lesson is drawn only
    while its expander is open (drawing all 23 cost more than running them)."""
    mode_picker(False)
    for group in ("C", "X"):
        st.header(t(lang, f"lesson.ui.group.{group}"))  # h2, after the sidebar's h1
        for lesson_id in (i for i in LESSON_IDS if i.startswith(group)):
            demo = _try_demo(lab, lang, lesson_id, memo, view)
            verdict = demo.verdict if isinstance(demo, Demo) else None
            icon = {HOLDS: ":material/check_circle:", NOT_FINITE: ":material/block:"}.get(verdict, ":material/error:")
            box = st.expander(lesson_title(lang, lesson_id), icon=icon, key=keys.open + lesson_id,
                              on_change="rerun")
            if box.open:
                with box:
                    _show(lang, demo, lab, view, keys)


def render_lessons(lab: Lab, lang: str, mode: str, index: int, keys: LessonKeys, on_go: Callable[[str], None],
                   picked: str | None = None, memo: Memo = no_memo, view: View = View(),
                   mode_picker: Callable[[bool], None] = lambda compact: None) -> int | None:
    """Guided (one lesson, previous/next, a picker) or free (every lesson in an expander).

    Returns the lesson index the learner moved to in guided mode, None otherwise. ``picked``: the
    picker's own state (key `LessonKeys.picker`), which wins over ``index`` once it exists;
    ``index`` seeds it (`seed`). ``on_go(lesson_id)``: the previous/next buttons' callback, which
    moves the picker before the rerun. ``mode_picker(compact)`` draws the guided/free switch where
    the controls are (the section owns it); ``compact``: without its label (presentation mode's one
    row of controls).
    """
    if mode == "guided":
        return _guided(lab, lang, index, memo, view, mode_picker, keys, picked, on_go)
    _free(lab, lang, memo, view, mode_picker, keys)
    return None
