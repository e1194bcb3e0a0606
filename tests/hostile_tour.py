"""The page as a stranger's link makes it: every token, class and sentence a hostile string, every
view, lesson, box and chart opened, and every string the page sends collected (issue 26).

`tour` drives AppTest through a share link whose vocabulary, classes and sentences are `HOSTILE`
(plus the problems such input brings: a duplicate token, an unknown label, a bad PAD vector, a
tried sentence, bad address values), and collects from every run:

- every string field of every element and block the page draws, found by walking the protobuf
  messages themselves (no list of sinks: a new element or field is collected too), split into
  Markdown fields and the few fields known to be shown as plain text (`PLAIN`);
- the cells and headers of every ``st.table`` (Markdown) and the column help of data grids;
- every Plotly figure's spec.

tests/test_safety_sinks.py checks what it collects; tests/test_safety_markdown.py renders the
Markdown fields in Chromium.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Iterator

from streamlit.testing.v1 import AppTest

from core.lessons import LESSON_IDS, lesson
from core.share_link import to_query_params
from core.state import export_state, parse_state
from tests.apptest_helpers import APP
from support.labs import make_lab

# Tokens no vocabulary check refuses (no space, no "|", printable, visible, ≤ 20 characters),
# each a construct of Markdown, Streamlit's Markdown extensions, HTML, Plotly's text HTML or
# Plotly's templates. Addresses are made up (e.x) and never resolve.
HOSTILE = (
    "![i](http://e.x/i.png)", "[l](http://e.x/l)", "<img/src=//e.x/h>", "<b>b</b>", "<a/href=//e.x>a",
    "**s**", "_e_", "`c`", "``d`", "$x^2$", "$$y$$", ":red[r]", ":smile:", ":material/home:", ":streamlit:",
    "www.e.xx/w", "m@e.xx", "http://e.x/u", "&lt;&amp;", "&#60;q", "%{x}", "%{meta[0]}", "{0}",
    "\\*x\\*", "#hx#", ">qx>", "~~d~~", "<!--c-->", "-", "1.", "==x==", "<PAD>", "<script>", "[^1]", "-x->", "a\\b",
    "<é>", "{tokx}",
)
UNK_TOKEN, PAD_TOKEN = "<img/src=//e.x/unk>", "![p](http://e.x/p)"
LOOKALIKE = "<e\u0301>"  # "<é>" with a combining accent: a look-alike warning names both
CLASSES = ("<b>부정</b>", "![c](http://e.x/c)")
UNKNOWN = ("[z](http://e.x/z)", "<img/src=//e.x/z>")  # sentence words not in the vocabulary: shown as typed
ROWS = [(UNK_TOKEN, 0, "unk"), (PAD_TOKEN, 1, "pad")] + [(tok, i + 2, "") for i, tok in enumerate(HOSTILE + (LOOKALIKE,))]


def sentences() -> str:
    words = list(HOSTILE) + [LOOKALIKE]
    lines = []
    for i in range(0, len(words), 4):
        chunk = words[i: i + 4] + ([UNKNOWN[(i // 4) % 2]] if i % 8 == 0 else [])
        lines.append(" ".join(chunk) + f" | {CLASSES[(i // 4) % 2]}")
    lines.append(f"{HOSTILE[0]} | {CLASSES[0]}")  # a short sentence: padded with PAD
    return "\n".join(lines)


def hostile_link(lang: str = "ko", steps: int = 3) -> dict[str, str]:
    """A share link to a lab of hostile tokens, classes and sentences, trained ``steps`` steps."""
    text = sentences()
    lab = make_lab(ROWS, text, CLASSES, embedding_dim=3, seed=0)
    lab.run(steps)
    return to_query_params(parse_state(export_state(lab.recipe, text, lang, lab)))


# String fields shown as plain text, or that are not text at all (the frontend never reads them as
# Markdown). Everything else a proto holds is taken as Markdown: a new field is checked, not missed.
PLAIN = re.compile(r"""(^|\.)(id|type|format|shortcut|theme|tag|icon|form_id|component_name|css_content|css_source_path
    |html_content|js_content|js_source_path|raw_value|default|placeholder|value|data|url|width|height|key|
    color|vertical_alignment|gap|justify|align|direction|wrap|scale|language|alt|page_script_hash|deploy_params)$"""
                   .replace("\n", "").replace(" ", ""))
PLAIN_FIELDS = frozenset({
    "Selectbox.options", "MultiSelect.options", "Slider.options",  # option lists drawn as plain text
    "Code.code_text", "Text.body", "Json.body", "TextArea.default", "TextInput.default",
    "BidiComponent.json", "BidiComponent.bytes",  # the components' data (the stage's as JSON bytes): drawn with textContent
    "Dataframe.columns",  # column config JSON: its labels are plain text, its help is collected below
    "PlotlyChart.spec", "PlotlyChart.config",  # checked as Plotly specs
    "Html.body",  # the page's own CSS (st.html): checked to hold no input at all
})


@dataclass
class Collected:
    markdown: dict[str, set[str]] = field(default_factory=dict)  # text → where it was seen
    plain: dict[str, set[str]] = field(default_factory=dict)
    html: set[str] = field(default_factory=set)
    figures: list[tuple[str, dict]] = field(default_factory=list)  # (where, spec)
    runs: int = 0

    def add(self, kind: dict[str, set[str]], text: str, where: str) -> None:
        if text:
            kind.setdefault(text, set()).add(where)


def _walk(node) -> Iterator:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def _strings(msg, path: str) -> Iterator[tuple[str, str]]:
    """(field path, value) of every string in a protobuf message, nested messages and lists included."""
    for fd, value in msg.ListFields():
        p = f"{path}.{fd.name}"
        values = value if _repeated(value) else [value]
        for v in values:
            if fd.type == fd.TYPE_MESSAGE:
                yield from _strings(v, p)
            elif fd.type == fd.TYPE_STRING:
                yield p, v
            elif fd.type == fd.TYPE_BYTES:  # text sent as bytes is text too (the stage's data)
                yield p, v.decode("utf-8", "replace")


def _repeated(value) -> bool:
    return type(value).__name__ in ("RepeatedScalarContainer", "RepeatedCompositeContainer") or isinstance(value, list)


def collect(at: AppTest, where: str, into: Collected) -> None:
    """Every string the page of ``at``'s last run sends, sorted into ``into``."""
    into.runs += 1
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        name = type(proto).__name__
        for path, text in _strings(proto, name):
            short = path.split(".", 1)[1] if "." in path else path
            if path == "PlotlyChart.spec":
                into.figures.append((where, json.loads(text)))
            elif path == "Html.body":
                into.html.add(text)
            elif path == "Dataframe.columns":
                for col in json.loads(text).values():
                    if isinstance(col, dict) and col.get("help"):
                        into.add(into.markdown, col["help"], f"{where}: {path} help")
            elif path in PLAIN_FIELDS or PLAIN.search(short):
                into.add(into.plain, text, f"{where}: {path}")
            else:
                into.add(into.markdown, text, f"{where}: {path}")
        if getattr(node, "type", None) == "table":  # st.table: every cell and header is Markdown
            frame = node.value
            for text in [str(c) for c in frame.columns] + [str(v) for v in frame.to_numpy().ravel()]:
                into.add(into.markdown, text, f"{where}: Table.cell")


def open_link(params: dict, lang: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({**params, "lang": lang})
    return at.run()


def tour(lang: str) -> Collected:
    """Every view, lesson and box of the page opened on the hostile link, in ``lang``."""
    got = Collected()
    at = open_link(hostile_link(lang), lang)
    step = lambda what: collect(at, what, got)  # noqa: E731
    step("opened")

    # ① the lookup view: its tables, a selected cell, the editors with problems in them
    at.session_state["lookup_tables"] = True
    at.session_state["editors"] = True
    at.session_state["id_cell"] = {"selection": {"cells": [[0, "t=1"]], "rows": [], "columns": []}}
    at.run()
    step("lookup, tables and a cell")
    text = at.text_area(key="sentences").value
    at.text_area(key="sentences").set_value(text + f"\n{HOSTILE[1]} | {HOSTILE[2]}").run()  # an unknown label
    step("a sentence with an unknown label")
    at.text_area(key="sentences").set_value(text + f"\n{HOSTILE[3]} \u3164 | {CLASSES[0]}").run()  # an invisible token
    step("a sentence with an invisible token")
    at.text_area(key="sentences").set_value(text).run()
    at.session_state["vocab"] = {"edited_rows": {"3": {"token": HOSTILE[4]}}, "added_rows": [], "deleted_rows": []}
    at.run()
    step("a duplicate token in the table")
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}
    at.text_area(key="token_list").set_value(f"{HOSTILE[0]}\n{HOSTILE[0]}\n{HOSTILE[5]} {HOSTILE[6]}").run()
    at.button(key="token_list_load").click().run()
    step("a token list with problems")

    # ② the training view: steps, the details, the knobs, a guess, the 3-D scatter, the replay, an axis
    at.button_group(key="section").set_value("train").run()
    at.session_state["predict_step"] = True  # the popover of guesses, built only while open
    at.run()
    at.multiselect(key="predict_rows").set_value([0, 1, 2]).run()
    at.button(key="step").click().run()
    step("train, a step with a guess")
    for key in ("details", "knobs", "replay", "axis_picker", "pad_editor"):
        at.session_state[key] = True
    at.run()
    at.radio(key="pca_dims").set_value(3).run()
    step("train, the details, the knobs, the replay, 3-D")
    at.selectbox(key="axis_from").set_value(2).run()
    at.selectbox(key="axis_to").set_value(3).run()
    at.button(key="axis_set").click().run()
    at.selectbox(key="selected_token").set_value(4).run()
    step("train, a custom axis and a followed token")
    at.text_input(key="pad_vector").input(f"1, {HOSTILE[2]}, 3").run()
    at.button(key="set_pad").click().run()
    step("train, a bad PAD vector")

    # ③ the lessons: every one open in free mode, then guided with the questions answered
    at.button_group(key="section").set_value("lessons").run()
    at.radio(key="mode").set_value("free").run()
    for lesson_id in LESSON_IDS:
        at.session_state[f"open_{lesson_id}"] = True
    at.session_state["try_C11"] = " ".join((HOSTILE[0], UNKNOWN[0], HOSTILE[2]))
    at.run()
    step("lessons, all open")
    at.session_state["try_C11"] = f"{HOSTILE[0]} \u3164"
    at.run()
    step("lessons, a tried sentence with a problem")
    at.radio(key="mode").set_value("guided").run()
    for lesson_id in ("C1", "C8", "C13"):
        at.selectbox(key="lesson").set_value(lesson_id).run()
        if lesson(lesson_id).predict:
            at.radio(key=f"predict_{lesson_id}").set_value(lesson(lesson_id).predict[1][0]).run()
            at.toggle(key=f"reveal_{lesson_id}").set_value(True).run()
        step(f"lessons, guided {lesson_id}")

    # ④ share and export
    at.button_group(key="section").set_value("share").run()
    step("share")

    # an address with values the page cannot use
    bad = open_link({"lr": HOSTILE[2], "section": HOSTILE[0], "seed": HOSTILE[3], "pooling": HOSTILE[7]}, lang)
    collect(bad, "an address with bad values", got)
    return got
