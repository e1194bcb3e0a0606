"""Untrusted text (tokens, class names, labels, anything from a file or a link) shown as text in Markdown.

Streamlit renders ``st.markdown``, ``st.caption``, ``st.error`` and widget labels as Markdown
(CommonMark + GFM, KaTeX math, directives such as ``:red[…]``, emoji shortcodes). A token such
as ``![x](http://evil.example/a.png)`` would otherwise make every browser that opens a shared
link fetch that address, and a token with a backtick breaks out of the code span around it.

    >>> md_escape("영화 좋다")               # ordinary words are unchanged
    '영화 좋다'
    >>> md_escape("*b*")                   # each punctuation mark escaped, alone in its text node
    '\\\\*:color[]b:color[]\\\\*'
    >>> md_code("a`b")
    '``a`b``'

Plotly text has its own rules (`plotly_escape`, `plotly_spec`): components/charts.py sends every
figure through `plotly_spec`.

``tests/test_safety_markdown.py`` renders a hostile corpus through Streamlit's own Markdown in
Chromium and checks that the text shown equals the input and that nothing is fetched or linked.
"""

from __future__ import annotations

import re
import string
from types import MappingProxyType
from typing import Any, Mapping

_PUNCT = frozenset(string.punctuation)  # every ASCII punctuation character may be backslash-escaped (CommonMark 2.4)
_RUNS = re.compile(r"[!-/:-@\[-`{-~]|[^!-/:-@\[-`{-~]+")  # one punctuation character, or a run of anything else
_SPLIT = ":color[]"  # an empty Streamlit colour directive: an empty <span>, a boundary between text nodes
_EDGE_SPACE = re.compile(r"^[ \t]+|[ \t]+$")
_LINE_BREAK = re.compile(r"\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
_CODE_PLACEHOLDER = re.compile(r"`(\{([A-Za-z_][A-Za-z0-9_]*)(?::[^{}`]*)?\})`")
_MATERIAL = ":material/"  # Streamlit rewrites this in the raw source, even inside code spans


def md_escape(s: str) -> str:
    """``s`` as Markdown that renders exactly ``s`` (line breaks become spaces: a message is one line).

    Every ASCII punctuation character is backslash-escaped, so no construct can start: links,
    images, HTML, entities, KaTeX ``$``, emphasis, headings, lists, quotes, tables, code spans and
    ``:red[…]`` directives. That is not enough: after parsing, Streamlit and GFM rewrite the text
    itself (autolinks of ``http://…``, ``www.…`` and ``a@b.c``; ``:streamlit:`` as an image;
    ``:material_home:`` as an icon; emoji shortcodes; ``->`` as an arrow), one text node at a time.
    So each punctuation character is also put in a text node of its own, between empty
    ``:color[]`` directives (Streamlit draws each as an empty ``<span>``, no style): no rewrite
    pattern fits in a node. Leading and trailing spaces are written as ``&#32;``, which Markdown
    neither strips nor reads as an indented code block.

    For Markdown sinks only (st.markdown, st.caption, st.error/warning/info, widget labels and
    help); plain-text sinks (dataframe cells, st.text, st.code, selectbox options) need nothing.
    """
    s = _LINE_BREAK.sub(" ", str(s))
    out = _SPLIT.join("\\" + run if run in _PUNCT else run for run in _RUNS.findall(s))
    return _EDGE_SPACE.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group()), out)


def md_code(s: str) -> str:
    """``s`` as an inline code span that shows exactly ``s``: fenced by one more backtick than the
    longest run inside, padded with a space where ``s`` starts or ends with a backtick or a space
    (CommonMark strips one such pair). Inside a code span nothing is interpreted, but Streamlit
    rewrites ``:material/`` in the raw source, so the span is split there into adjacent spans."""
    s = _LINE_BREAK.sub(" ", str(s))
    if not s:
        return ""
    chunks, cut = [], len(_MATERIAL) - 1  # cut between ":material" and "/"
    while (i := s.find(_MATERIAL)) >= 0:
        chunks.append(s[:i + cut])
        s = s[i + cut:]
    chunks.append(s)
    out = _one_code_span(chunks[0]) if chunks[0] else ""
    for c in chunks[1:]:  # each starts with the "/", written as escaped text between two spans
        out += "\\/" + (_one_code_span(c[1:]) if c[1:] else "")
    return out


def _one_code_span(s: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s[0] in "` " or s[-1] in "` " else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def safe_params(params: Mapping[str, Any], code: frozenset[str] | set[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """``params`` for a Markdown template: each str value through `md_escape`, or through `md_code`
    when its name is in ``code`` (a placeholder the template shows as code); other values as they are.

    Numbers stay numbers, so format specs such as ``{n:,}`` still work. Use with `code_placeholders`:

    >>> template, code = code_placeholders("Row {row}: `{token}` is a duplicate of **{other}**")
    >>> template.format(**safe_params({"row": 3, "token": "a`b", "other": "*x*"}, code))
    'Row 3: ``a`b`` is a duplicate of **\\\\*:color[]x:color[]\\\\***'
    """
    return {k: (md_code(v) if k in code else md_escape(v)) if isinstance(v, str) else v for k, v in params.items()}


def code_placeholders(template: str) -> tuple[str, frozenset[str]]:
    """The template with the backticks around whole placeholders (`` `{token}` ``) removed, and
    those placeholders' names: their values must come as `md_code` spans, which carry their own fence."""
    names = frozenset(m.group(2) for m in _CODE_PLACEHOLDER.finditer(template))
    return _CODE_PLACEHOLDER.sub(r"\1", template), names


# A line break in plain text ("\n", which Plotly would draw as a space) is Plotly's <br>: a title
# wrapped to its panel (components/lesson_projector.py) stays plain text until it is escaped here.
_PLOTLY_TEXT = MappingProxyType(str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "{": "&#123;", "$": "&#36;",
                                               "\n": "<br>"}))
_TEMPLATE_PART = re.compile(r"(%\{[^{}]*\})")  # a placeholder of Plotly's templates: %{x}, %{y:.4g}, %{fullData.name}
_EXTRA = re.compile(r"^(.*)<extra>(.*)</extra>$", re.S)  # hovertemplate's secondary box
# Strings Plotly draws in WebGL as plain glyphs (vectorize-text): never read as HTML, so never escaped
# (an entity would show as typed). A 3-D point's label and a 3-D axis's title and tick labels.
_GLYPH_PATH = re.compile(r"^layout\.scene\d*\.[xyz]axis\.(title\.text|ticktext)$")
_GLYPH_TRACE_KEYS = MappingProxyType({"scatter3d": frozenset({"text"})})


def plotly_escape(s: str) -> str:
    """``s`` for Plotly text (titles, point labels, hover text, tick labels, legend names, annotations):
    Plotly reads a subset of HTML there (``<a href>`` becomes a clickable link, ``<b>``, ``<br>``),
    decodes entities, fills ``%{…}`` from its data in titles and names, and hands ``$…$`` to MathJax
    where a page has it. So ``&``, ``<``, ``>``, ``{`` and ``$`` are written as entities, which
    Plotly shows as the characters themselves; a newline becomes ``<br>``, a line break.

    >>> plotly_escape("<b>영화</b> & %{x} $y$")
    '&lt;b&gt;영화&lt;/b&gt; &amp; %&#123;x} &#36;y&#36;'
    """
    return str(s).translate(_PLOTLY_TEXT)


def plotly_template(s: str) -> str:
    """A Plotly template (``hovertemplate``, ``texttemplate``) with its literal text escaped: its
    ``%{…}`` placeholders and a closing ``<extra>…</extra>`` box stay what they are. Values filled
    into a placeholder are not read as a template again; as HTML they are, so they come escaped
    from the figure's data (`plotly_spec`)."""
    m = _EXTRA.match(s)
    body, extra = (m.group(1), m.group(2)) if m else (s, None)
    out = "".join(part if _TEMPLATE_PART.fullmatch(part) else plotly_escape(part) for part in _TEMPLATE_PART.split(body))
    if extra is not None:
        out += "<extra>" + "".join(part if _TEMPLATE_PART.fullmatch(part) else plotly_escape(part)
                                   for part in _TEMPLATE_PART.split(extra)) + "</extra>"
    return out


def plotly_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A Plotly figure's plain data (``fig.to_dict()``: data, layout, frames) with every string in it
    shown as text: `plotly_template` for a ``*template`` key, left as it is where Plotly draws plain
    glyphs (3-D labels), `plotly_escape` everywhere else. Enumerated values and colours hold none of
    the escaped characters, so escaping every string costs nothing there. A 3-D trace that labels its
    points but has no hover text gets its labels, escaped, as hover text (the hover box is HTML).
    Typed arrays (``{"dtype", "bdata"}``) are passed through untouched."""
    out: dict[str, Any] = dict(spec)
    data = [_trace(t) for t in spec.get("data") or []]
    if "data" in spec:
        out["data"] = data
    if "layout" in spec:
        out["layout"] = _escaped(spec["layout"], "layout")
    if spec.get("frames"):
        types = [t.get("type", "scatter") for t in data]
        out["frames"] = [{**_escaped({k: v for k, v in f.items() if k != "data"}, "frame"),
                          **({"data": [_trace(t, types[i] if i < len(types) else None) for i, t in enumerate(f["data"])]}
                             if "data" in f else {})} for f in spec["frames"]]
    return out


def _trace(trace: Mapping[str, Any], inherited: str | None = None) -> dict[str, Any]:
    kind = trace.get("type", inherited or "scatter")
    glyphs = _GLYPH_TRACE_KEYS.get(kind, frozenset())
    out = {k: (v if k in glyphs else _escaped(v, f"trace.{k}", k)) for k, v in trace.items()}
    if "text" in glyphs and "text" in trace and "hovertext" not in trace and trace.get("hoverinfo") not in ("skip", "none"):
        out["hovertext"] = _escaped(trace["text"], "trace.hovertext", "hovertext")
    return out


def _escaped(value: Any, path: str, key: str = "") -> Any:
    if isinstance(value, str):
        if _GLYPH_PATH.match(path):
            return value
        return plotly_template(value) if key.endswith("template") else plotly_escape(value)
    if isinstance(value, Mapping):
        if "bdata" in value:
            return value
        return {k: _escaped(v, f"{path}.{k}", k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_escaped(v, path, key) for v in value]
    return value
