"""Every sink escaped (issue 26): the page opened from a link whose every token, class and sentence
is hostile shows each as text, in every Markdown field and every Plotly string it sends.

The sinks are found, not listed: tests/hostile_tour.py walks every view, lesson and box and reads
every string field of every element the page draws (the protobuf messages themselves), every
``st.table`` cell and every Plotly spec (data, layout and frames, recursively). A new element, a
new field or a new figure is collected the day it is added, and taken as Markdown unless it is one
of the few fields known to be plain text.

What must hold:
- Markdown: no hostile string appears outside a code span as it is. Escaped
  (components.safe_text.md_escape) every punctuation mark carries a backslash, so the raw string
  cannot occur; inside a code span (md_code) it is inert. tests/test_safety_markdown.py renders
  these same fields in Chromium and checks what is shown and fetched.
- Plotly: no raw ``<``, ``>``, ``{`` or ``$`` and no ``&`` that does not start an entity, outside the
  places Plotly draws plain glyphs (3-D labels and axis titles); templates keep only their own
  ``%{…}`` and ``<extra>`` and hold no input; and unescaped, the strings hold each token as itself.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from components.charts import SafeFigure, safe_figure
from components.safe_text import md_code, md_escape, plotly_escape, plotly_spec, plotly_template
from tests.hostile_tour import CLASSES, HOSTILE, LOOKALIKE, PAD_TOKEN, UNK_TOKEN, UNKNOWN, Collected, tour

ROOT = Path(__file__).resolve().parent.parent
ENTITY = re.compile(r"&(amp|lt|gt|#\d+|#x[0-9a-fA-F]+);")
TEMPLATE_PART = re.compile(r"%\{[^{}]*\}")
GLYPH = re.compile(r"^layout\.scene\d*\.[xyz]axis\.(title\.text|ticktext)$|^(data|frames\[\d+\]\.data)\[\d+\]\.text$")


def app_text() -> str:
    """Everything the app itself writes on the page: its strings (a probe found there says nothing)."""
    return "\n".join(json.dumps(json.loads(p.read_text(encoding="utf-8")), ensure_ascii=False)
                     for p in (ROOT / "assets" / "strings").glob("*.json"))


INPUTS = HOSTILE + (UNK_TOKEN, PAD_TOKEN, LOOKALIKE) + CLASSES + UNKNOWN
_APP = app_text()
PROBES = tuple(s for s in INPUTS if len(s) >= 3 and s not in _APP)


@pytest.fixture(scope="module", params=["ko", "en"])
def toured(request) -> Collected:
    return tour(request.param)


def outside_code_spans(text: str) -> str:
    """``text`` with every CommonMark code span replaced by a space (a backslash-escaped backtick
    opens none; a run of n backticks closes at the next run of exactly n)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            out.append(text[i: i + 2])
            i += 2
        elif c == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            close = re.compile(r"(?<!`)" + "`" * (j - i) + r"(?!`)").search(text, j)
            out.append(" " if close else text[i:j])
            i = close.end() if close else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_the_probes_are_most_of_the_corpus():
    assert len(PROBES) >= len(INPUTS) - 3, sorted(set(INPUTS) - set(PROBES))  # "-", "1.", "<PAD>"


def test_the_code_span_scanner_reads_spans_as_commonmark_does():
    assert outside_code_spans("a `<b>` c") == "a   c"
    assert outside_code_spans(md_code("x`<b>`y")) == " "
    assert outside_code_spans(md_escape("`<b>`")) == md_escape("`<b>`")  # escaped backticks open no span
    assert "<b>" in outside_code_spans("``<b>` c")  # an unclosed run is text


def test_the_tour_reached_every_kind_of_sink(toured):
    kinds = {w.split(": ", 1)[1].split(".")[0] for where in toured.markdown.values() for w in where}
    for kind in ("Markdown", "Alert", "Heading", "Metric", "Table", "Expandable", "Checkbox", "Radio",
                 "Selectbox", "Button", "ButtonGroup", "Block"):
        assert kind in kinds, (kind, sorted(kinds))
    escaped = [h for h in PROBES if any(md_escape(h) in t or md_code(h) in t for t in toured.markdown)]
    assert len(escaped) >= len(PROBES) * 0.8, sorted(set(PROBES) - set(escaped))  # the inputs did reach the page
    assert len(toured.figures) >= 20 and toured.runs >= 15


def test_no_markdown_field_holds_input_unescaped(toured):
    raw = [(h, sorted(where)[0], text[:200]) for text, where in toured.markdown.items()
           for h in PROBES if h in outside_code_spans(text)]
    assert not raw, "\n".join(map(repr, raw[:20]))


def test_the_page_s_own_html_holds_no_input(toured):
    assert not [h for body in toured.html for h in PROBES if h in body]


def _strings(value, path: str):
    if isinstance(value, dict):
        if "bdata" in value:
            return
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]" if isinstance(v, (dict, list)) else path)
    elif isinstance(value, str):
        yield path, value


def _glyph(spec: dict, path: str) -> bool:
    """A place Plotly draws as plain WebGL glyphs (never HTML): a 3-D trace's text, a 3-D axis title."""
    if not GLYPH.match(path):
        return False
    if path.startswith("layout"):
        return True
    i = int(re.findall(r"\[(\d+)\]", path)[-1])
    return (spec["data"][i] if i < len(spec["data"]) else {}).get("type") == "scatter3d"


def test_every_plotly_string_is_escaped_and_no_template_holds_input(toured):
    wrong = []
    for where, spec in toured.figures:
        for path, s in _strings(spec, ""):
            if path.rsplit(".", 1)[-1].endswith("template"):
                literal = TEMPLATE_PART.sub("", re.sub(r"<extra>(.*)</extra>$", r"\1", s))
                if re.search(r"[<>{$]", literal) or "&" in ENTITY.sub("", literal) or any(h in literal for h in PROBES):
                    wrong.append((where, path, s[:80]))
            elif not _glyph(spec, path) and (re.search(r"[<>{$]", s) or "&" in ENTITY.sub("", s)):
                wrong.append((where, path, s[:80]))
    assert not wrong, "\n".join(map(repr, wrong[:20]))


def test_plotly_shows_each_token_as_itself(toured):
    shown = {html.unescape(s) for _, spec in toured.figures for path, s in _strings(spec, "") if not _glyph(spec, path)}
    text = "\n".join(shown)
    tokens = [t for t in HOSTILE + (UNK_TOKEN, PAD_TOKEN) if len(t) >= 3]
    assert [t for t in tokens if t not in text] == []  # hover texts, tick labels, names: each token as typed
    glyphs = {s for _, spec in toured.figures for path, s in _strings(spec, "") if _glyph(spec, path)}
    assert set(tokens) <= glyphs  # and the 3-D labels carry them as they are


# ---- the escaping itself ----------------------------------------------------------------------------

def test_plotly_escape_writes_every_active_character_as_an_entity_plotly_decodes():
    for s in INPUTS + ("a & b", "{x}", "$", "&#123;"):
        e = plotly_escape(s)
        assert not re.search(r"[<>{$]", e) and "&" not in ENTITY.sub("", e) and html.unescape(e) == s


def test_a_template_keeps_its_placeholders_and_box_and_escapes_its_text():
    assert plotly_template("%{x}: %{y:.4g}<extra></extra>") == "%{x}: %{y:.4g}<extra></extra>"
    assert plotly_template("<b>%{text}</b> & $<extra>%{fullData.name}</extra>") == \
        "&lt;b&gt;%{text}&lt;/b&gt; &amp; &#36;<extra>%{fullData.name}</extra>"


def test_a_spec_is_escaped_everywhere_but_where_plotly_draws_glyphs():
    spec = {"data": [{"type": "scatter3d", "x": {"dtype": "f4", "bdata": "AAAA"}, "text": ["<b>"], "name": "<n>"},
                     {"type": "heatmap", "text": [["<c>"]], "hovertemplate": "%{z}<extra></extra>"}],
            "layout": {"title": {"text": "{t}"}, "scene": {"xaxis": {"title": {"text": "<x>"}}},
                       "yaxis": {"ticktext": ["$y$"]}, "annotations": [{"text": "a&b"}]},
            "frames": [{"name": "1", "data": [{"text": ["<f>"], "name": "<g>"}]}]}
    out = plotly_spec(spec)
    assert out["data"][0]["text"] == ["<b>"] and out["data"][0]["hovertext"] == ["&lt;b&gt;"]  # glyphs; HTML hover
    assert out["data"][0]["name"] == "&lt;n&gt;" and out["data"][0]["x"] == spec["data"][0]["x"]
    assert out["data"][1]["text"] == [["&lt;c&gt;"]] and out["data"][1]["hovertemplate"] == "%{z}<extra></extra>"
    assert out["layout"]["title"]["text"] == "&#123;t}" and out["layout"]["scene"]["xaxis"]["title"]["text"] == "<x>"
    assert out["layout"]["yaxis"]["ticktext"] == ["&#36;y&#36;"] and out["layout"]["annotations"][0]["text"] == "a&amp;b"
    assert out["frames"][0]["data"][0] == {"text": ["<f>"], "name": "&lt;g&gt;", "hovertext": ["&lt;f&gt;"]}  # its figure's kind
    assert spec["data"][0]["name"] == "<n>"  # the input is not changed


def test_a_safe_figure_is_escaped_once_when_sent_and_holds_the_strings_as_given():
    import copy

    import plotly.graph_objects as go
    import plotly.io as pio

    fig = safe_figure(go.Figure(go.Scatter(x=[1], y=[2], text=["<b>x</b>"], name="a&b")))
    assert isinstance(fig, SafeFigure) and fig.data[0].text == ("<b>x</b>",)
    for sent in (fig.to_dict(), json.loads(pio.to_json(fig)), copy.deepcopy(fig).to_dict(), safe_figure(fig).to_dict()):
        assert sent["data"][0]["text"] == ["&lt;b&gt;x&lt;/b&gt;"] and sent["data"][0]["name"] == "a&amp;b"


def test_every_plotly_chart_the_code_draws_is_handed_a_safe_figure():
    """Beside the tour (which sees what was sent): each st.plotly_chart call in the code wraps its
    figure in safe_figure, so a chart the tour does not reach is escaped too."""
    import ast

    calls = []
    for path in [ROOT / "page.py", *(ROOT / "components").rglob("*.py"), *(ROOT / "sections").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "plotly_chart":
                first = node.args[0] if node.args else None
                wrapped = isinstance(first, ast.Call) and getattr(first.func, "attr", getattr(first.func, "id", "")) == "safe_figure"
                calls.append((path.name, node.lineno, wrapped))
    assert len(calls) >= 4 and all(wrapped for *_, wrapped in calls), calls
