"""A hostile corpus through Streamlit's own Markdown (issue 17): md_escape'd and md_code'd text shows
exactly the input, and nothing in it becomes a link, an image, math, an emoji or a request.

AppTest only carries the Markdown source, so the rendering is checked where it happens: a tiny
Streamlit app draws every sample through each sink (st.markdown alone and inside a sentence,
st.error, st.caption, a widget label, a code span) and Chromium reads back the text it shows.
Every request the page makes outside the app's own server is recorded (and refused).

The same page also draws what the app itself sends when opened from a hostile link (issue 26,
tests/hostile_tour.py): every Markdown field it found, and every Plotly figure as it was sent.
Nothing there may become an image, a link, math or a request; each input the app wrote escaped
must show as itself; and the figures' drawn text (tick labels, titles, cell text) holds each
token as typed, with no link in any of them.
"""

from __future__ import annotations

import json
import re

import pytest

from components.safe_text import code_placeholders, md_code, md_escape, plotly_escape, safe_params
from support.server import NO_WATCHER, Server
from tests.e2e.helpers import ROOT, refuse_outside, unavailable_reason

HOSTILE = [
    "![x](http://evil.example/a.png)", "![](//evil.example/b.png)", "[Re-login](http://evil.example/login)",
    "[a](javascript:alert(1))", "<http://evil.example>", "http://evil.example/x", "www.evil.example",
    "me@evil.example", "<img src=http://evil.example/c.png onerror=alert(1)>", "<script>alert(1)</script>",
    "<b>bold</b>", "<!-- c -->", "<div>x</div>", "&amp; &lt; &#60; &copy; &#x41;",
    "$x^2$", "$$\\frac{1}{2}$$", "\\(x\\)", "\\[x\\]", "$5 and $6",
    "*em* _em_ **strong** __strong__ ~~del~~", "_a_b_", "*",
    "# heading", "## h2", "Title\n===", "- item", "* item", "+ item", "1. item", "1) item", "> quote",
    "---", "***", "___",
    "| a | b |\n|---|---|\n| c | d |", "a | b",
    "`code`", "``a`b``", "```\nfence\n```", "~~~", "`", "a`b", "````",
    "\\", "\\*", "a\\b", "\\$",
    ":smile:", ":+1:", ":red[text]", ":red-background[x]", ":material/home:", ":streamlit:", ":small[x]",
    "[^1]", "[x]: http://evil.example", "[x][y]", "[x]",
    "영화`좋다", "영화 | 좋다", "<PAD>", "<UNK>", "e\u0301 é",
    "    indented", "  two spaces  ", "a   b", "\ttab", "line one\nline two", "a  \nb",
    "%41 %0a", "{token} {0}", "~", "^", "=", "@",
    "-> <- -- >= <= ~= <->", "a -- b", ":material_home:", "www.evil.example/x?y=1", "https://evil.example/a.png",
    "x:color[red]", ":color[x]{foreground=red}",
]


def shown(s: str) -> str:
    """What the learner must see: the text itself, each line break as one space (a message is one line)."""
    return re.sub(r"\r\n|[\r\n]", " ", s)


APP = '''
import json, os, sys
sys.path.insert(0, {root!r})
import pandas as pd
import streamlit as st
from components.safe_text import md_escape, md_code

samples = json.loads(open(os.environ["SAFETY_SAMPLES"], encoding="utf-8").read())
for i, s in enumerate(samples["corpus"]):
    st.container(key=f"alone_{{i}}").markdown(md_escape(s))
    st.container(key=f"inline_{{i}}").markdown("«" + md_escape(s) + "»")
    st.container(key=f"code_{{i}}").markdown("«" + md_code(s) + "»")
    st.container(key=f"error_{{i}}").error("**1:** «" + md_escape(s) + "»", icon=":material/error:")
    st.container(key=f"caption_{{i}}").caption("«" + md_escape(s) + "»")
    st.checkbox("«" + md_escape(s) + "»", key=f"label_{{i}}")
    st.container(key=f"metric_{{i}}").metric("«" + md_escape(s) + "»", "«" + md_escape(s) + "»")
    st.container(key=f"table_{{i}}").table(pd.DataFrame({{"«" + md_escape(s) + "»": ["«" + md_escape(s) + "»"]}}),
                                          hide_index=True)
    st.radio("r", ["«" + md_escape(s) + "»"], key=f"radio_{{i}}")
    st.container(key=f"expander_{{i}}").expander("«" + md_escape(s) + "»")
with st.container(key="app_fields"):
    for i, s in enumerate(samples["fields"]):
        st.container(key=f"field_{{i}}").markdown(s)
with st.container(key="app_figures"):
    for i, spec in enumerate(samples["figures"]):
        st.container(key=f"figure_{{i}}").plotly_chart(spec, key=f"fig_{{i}}")
st.container(key="done").write("done")
'''


def test_md_escape_and_md_code_are_plain_functions_of_the_text():
    assert md_escape("영화") == "영화" and md_escape("a b") == "a b"  # ordinary tokens are unchanged
    assert md_code("a`b") == "``a`b``" and md_code("`") == "`` ` ``"
    assert md_code("x" + "`" * 5) == "`````` x````` ``````"
    template, code = code_placeholders("`{token}` and `{pad:과}`, {row}")
    assert template == "{token} and {pad:과}, {row}" and code == {"token", "pad"}
    params = safe_params({"token": "a`b", "row": 3, "pad": "*"}, code)
    assert params == {"token": "``a`b``", "row": 3, "pad": "`*`"}
    assert plotly_escape('<a href="http://evil.example">x</a> & b') == '&lt;a href="http://evil.example"&gt;x&lt;/a&gt; &amp; b'


@pytest.fixture(scope="module")
def tour_ko():
    from tests.hostile_tour import tour

    return tour("ko")


@pytest.fixture(scope="module")
def page_of_samples(tmp_path_factory, browser, tour_ko):
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("md")
    fields = sorted(tour_ko.markdown)
    figures = _distinct_figures(tour_ko.figures)
    (tmp / "samples.json").write_text(json.dumps({"corpus": HOSTILE, "fields": fields, "figures": figures},
                                                 ensure_ascii=False), encoding="utf-8")
    (tmp / "app.py").write_text(APP.format(root=str(ROOT)), encoding="utf-8")
    try:
        server = Server(tmp / "app.py", timeout=60, env={"SAFETY_SAMPLES": str(tmp / "samples.json")}, extra=NO_WATCHER)
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    url = server.url
    try:
        page = browser.new_page(viewport={"width": 1200, "height": 2000})  # the session's one Chromium
        outside = refuse_outside(page, url)
        page.goto(url)
        page.locator(".st-key-done").wait_for(timeout=120_000)
        page.wait_for_function("(n) => document.querySelectorAll('.st-key-app_figures .js-plotly-plot .main-svg').length >= n",
                               arg=len(figures), timeout=120_000)
        page.wait_for_load_state("networkidle")  # lazy plugins (KaTeX, emoji) load after the first paint
        yield page, outside, fields, figures
        page.close()
    finally:
        server.stop()


def _distinct_figures(figures: list[tuple[str, dict]]) -> list[dict]:
    """One figure per kind and title (the tour sends the same chart from many runs)."""
    seen, out = set(), []
    for _, spec in figures:
        title = json.dumps(spec.get("layout", {}).get("title"), sort_keys=True)
        kinds = tuple(sorted({t.get("type", "scatter") for t in spec.get("data", [])}))
        if (title, kinds) not in seen:
            seen.add((title, kinds))
            out.append(spec)
    return out


MARKDOWN = "[data-testid=stMarkdownContainer]"


def _texts(page, wanted: list[tuple[str, str]]) -> list[str | None]:
    """The text of the first ``inner`` element in each ``.st-key-<key>``, for every (key, inner), read in one go."""
    return page.evaluate("""(wanted) => wanted.map(([key, inner]) => {
        const el = document.querySelector('.st-key-' + key + ' ' + inner);
        return el ? el.textContent : null; })""", [list(w) for w in wanted])


@pytest.mark.e2e
def test_every_hostile_sample_shows_as_its_own_text_in_every_sink(page_of_samples):
    page, outside, _, _ = page_of_samples
    wrong = []
    sinks = {"alone": ("alone", MARKDOWN), "inline": ("inline", MARKDOWN), "code": ("code", MARKDOWN),
             "error": ("error", MARKDOWN), "caption": ("caption", "[data-testid=stCaptionContainer]"),
             "label": ("label", MARKDOWN), "metric label": ("metric", "[data-testid=stMetricLabel]"),
             "metric value": ("metric", "[data-testid=stMetricValue]"), "table header": ("table", "th"),
             "table cell": ("table", "td"), "radio option": ("radio", "[role=radiogroup] label"),
             "expander label": ("expander", "summary " + MARKDOWN)}
    texts = iter(_texts(page, [(f"{key}_{i}", inner) for i in range(len(HOSTILE)) for key, inner in sinks.values()]))
    for i, s in enumerate(HOSTILE):
        want = shown(s)
        got = {sink: next(texts) for sink in sinks}
        expect = {"alone": want, "inline": f"«{want}»", "code": f"«{want}»", "error": f"1: «{want}»",
                  "caption": f"«{want}»", "label": f"«{want}»"}
        expect.update({sink: f"«{want}»" for sink in got if sink not in expect})
        wrong += [(s, sink, got[sink], expect[sink]) for sink in got if got[sink] != expect[sink]]
    assert not wrong, "\n".join(map(repr, wrong))
    assert outside == []


@pytest.mark.e2e
def test_nothing_becomes_a_link_an_image_math_or_an_emoji(page_of_samples):
    page, outside, _, _ = page_of_samples
    counts = page.evaluate("""() => {
        const main = document.querySelector('[data-testid=stMain]') || document.body;
        const n = (sel) => Array.from(main.querySelectorAll(sel))  // the app's own fields have their own test
            .filter(e => !e.closest('.st-key-app_fields, .st-key-app_figures')).length;
        return {img: n('[data-testid=stMarkdownContainer] img'), a: n('[data-testid=stMarkdownContainer] a'),
                katex: n('.katex'), heading: n('[data-testid=stMarkdownContainer] h1, h2, h3, h4'),
                list: n('[data-testid=stMarkdownContainer] li'), table: n('[data-testid=stMarkdownContainer] table'),
                strong: n('[data-testid=stMarkdownContainer] em, del, blockquote, pre'),
                icon: n('[data-testid=stMarkdownContainer] [data-testid=stIconMaterial]')};
    }""")
    assert counts == {"img": 0, "a": 0, "katex": 0, "heading": 0, "list": 0, "table": 0, "strong": 0, "icon": 0}
    assert outside == []


@pytest.mark.e2e
def test_the_app_s_own_markdown_from_a_hostile_link_shows_its_input_and_fetches_nothing(page_of_samples):
    """Each Markdown field the app sent (tests/hostile_tour.py): no image, link, math, embed or
    request, and every input it holds escaped shows as typed."""
    from tests.hostile_tour import CLASSES, HOSTILE as TOKENS, LOOKALIKE, PAD_TOKEN, UNK_TOKEN, UNKNOWN

    page, outside, fields, _ = page_of_samples
    counts = page.evaluate("""() => {
        const box = document.querySelector('.st-key-app_fields');
        const n = (sel) => box.querySelectorAll(sel).length;
        return {img: n('img'), a: n('a'), katex: n('.katex'), embed: n('iframe, video, audio, object, embed, script')};
    }""")
    assert counts == {"img": 0, "a": 0, "katex": 0, "embed": 0}
    inputs = [s for s in TOKENS + (UNK_TOKEN, PAD_TOKEN, LOOKALIKE) + CLASSES + UNKNOWN if len(s) >= 2]
    shown = page.evaluate("(n) => Array.from({length: n}, (_, i) => document.querySelector('.st-key-field_' + i)"
                          ".innerText.replace(/\\s+/g, ' '))", len(fields))
    wrong = [(s, field[:120], text[:160]) for field, text in zip(fields, shown) for s in inputs
             if (md_escape(s) in field or md_code(s) in field) and s not in text]
    assert not wrong, "\n".join(map(repr, wrong[:20]))
    assert outside == []


@pytest.mark.e2e
def test_the_app_s_figures_draw_each_token_as_typed_with_no_link(page_of_samples):
    import html

    from tests.hostile_tour import HOSTILE as TOKENS, PAD_TOKEN, UNK_TOKEN

    page, outside, _, figures = page_of_samples
    drawn = page.evaluate("""() => Array.from(document.querySelectorAll('.st-key-app_figures .js-plotly-plot')).map(p => ({
        links: p.querySelectorAll('svg a').length, text: Array.from(p.querySelectorAll('svg text')).map(t => t.textContent).join('\\n')}))""")
    assert len(drawn) == len(figures) and sum(d["links"] for d in drawn) == 0
    text = "\n".join(d["text"] for d in drawn)
    layouts = [spec.get("layout", {}) for spec in figures]
    ticks = {html.unescape(t) for layout in layouts for axis in layout.values() if isinstance(axis, dict)
             for t in axis.get("ticktext", []) or []}  # row labels, drawn
    ticks |= {html.unescape(t) for spec in figures for trace in spec.get("data", []) if trace.get("type") == "bar"
              for t in trace.get("x", []) if isinstance(t, str)}  # a bar chart's categories, drawn
    ticks |= {html.unescape(a.get("text", "")) for layout in layouts for a in layout.get("annotations", [])}  # titles
    tokens = [t for t in TOKENS + (UNK_TOKEN, PAD_TOKEN) if any(t in tick for tick in ticks)]
    assert len(tokens) >= 5  # the lessons' figures label their rows and panels with the tokens
    assert [t for t in tokens if t not in text] == []  # each drawn as typed, no tag read, no entity left
    assert outside == []
