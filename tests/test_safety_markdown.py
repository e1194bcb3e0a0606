"""A hostile corpus through Streamlit's own Markdown (issue 17): md_escape'd and md_code'd text shows
exactly the input, and nothing in it becomes a link, an image, math, an emoji or a request.

AppTest only carries the Markdown source, so the rendering is checked where it happens: a tiny
Streamlit app draws every sample through each sink (st.markdown alone and inside a sentence,
st.error, st.caption, a widget label, a code span) and Chromium reads back the text it shows.
Every request the page makes outside the app's own server is recorded (and refused).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request

import pytest

from components.safe_text import code_placeholders, md_code, md_escape, plotly_escape, safe_params
from tests.e2e.helpers import ROOT, unavailable_reason

PORT = int(os.environ.get("SAFETY_MARKDOWN_PORT", "8612"))

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
import streamlit as st
from components.safe_text import md_escape, md_code

samples = json.loads(open(os.environ["SAFETY_SAMPLES"], encoding="utf-8").read())
for i, s in enumerate(samples):
    st.container(key=f"alone_{{i}}").markdown(md_escape(s))
    st.container(key=f"inline_{{i}}").markdown("«" + md_escape(s) + "»")
    st.container(key=f"code_{{i}}").markdown("«" + md_code(s) + "»")
    st.container(key=f"error_{{i}}").error("**1:** «" + md_escape(s) + "»", icon=":material/error:")
    st.container(key=f"caption_{{i}}").caption("«" + md_escape(s) + "»")
    st.checkbox("«" + md_escape(s) + "»", key=f"label_{{i}}")
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
def page_of_samples(tmp_path_factory, browser):
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("md")
    (tmp / "samples.json").write_text(json.dumps(HOSTILE, ensure_ascii=False), encoding="utf-8")
    (tmp / "app.py").write_text(APP.format(root=str(ROOT)), encoding="utf-8")
    env = dict(os.environ, SAFETY_SAMPLES=str(tmp / "samples.json"))
    cmd = [sys.executable, "-m", "streamlit", "run", str(tmp / "app.py"), "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(PORT), "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{PORT}"
    try:
        _wait_healthy(url, proc)
        page = browser.new_page(viewport={"width": 1200, "height": 2000})  # the session's one Chromium
        outside: list[str] = []

        def route(r):
            if r.request.url.startswith(url):
                r.continue_()
            else:
                outside.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.goto(url)
        page.locator(".st-key-done").wait_for(timeout=60_000)
        page.wait_for_timeout(1500)  # lazy plugins (KaTeX, emoji) load after the first paint
        yield page, outside
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def _wait_healthy(url: str, proc: subprocess.Popen) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with opener.open(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.25)
    pytest.fail(f"streamlit did not start on {url} (port taken? set SAFETY_MARKDOWN_PORT)")


def _text(page, key: str, inner: str = "[data-testid=stMarkdownContainer]") -> str:
    return page.locator(f".st-key-{key}").locator(inner).first.text_content()


@pytest.mark.e2e
def test_every_hostile_sample_shows_as_its_own_text_in_every_sink(page_of_samples):
    page, outside = page_of_samples
    wrong = []
    for i, s in enumerate(HOSTILE):
        want = shown(s)
        got = {"alone": _text(page, f"alone_{i}"), "inline": _text(page, f"inline_{i}"),
               "code": _text(page, f"code_{i}"), "error": _text(page, f"error_{i}"),
               "caption": _text(page, f"caption_{i}", "[data-testid=stCaptionContainer]"), "label": _text(page, f"label_{i}")}
        expect = {"alone": want, "inline": f"«{want}»", "code": f"«{want}»", "error": f"1: «{want}»",
                  "caption": f"«{want}»", "label": f"«{want}»"}
        wrong += [(s, sink, got[sink], expect[sink]) for sink in got if got[sink] != expect[sink]]
    assert not wrong, "\n".join(map(repr, wrong))
    assert outside == []


@pytest.mark.e2e
def test_nothing_becomes_a_link_an_image_math_or_an_emoji(page_of_samples):
    page, outside = page_of_samples
    counts = page.evaluate("""() => {
        const main = document.querySelector('[data-testid=stMain]') || document.body;
        return {img: main.querySelectorAll('[data-testid=stMarkdownContainer] img').length,
                a: main.querySelectorAll('[data-testid=stMarkdownContainer] a').length,
                katex: main.querySelectorAll('.katex').length,
                heading: main.querySelectorAll('[data-testid=stMarkdownContainer] h1, h2, h3, h4').length,
                list: main.querySelectorAll('[data-testid=stMarkdownContainer] li').length,
                table: main.querySelectorAll('[data-testid=stMarkdownContainer] table').length,
                strong: main.querySelectorAll('[data-testid=stMarkdownContainer] em, del, blockquote, pre').length,
                icon: main.querySelectorAll('[data-testid=stMarkdownContainer] [data-testid=stIconMaterial]').length};
    }""")
    assert counts == {"img": 0, "a": 0, "katex": 0, "heading": 0, "list": 0, "table": 0, "strong": 0, "icon": 0}
    assert outside == []
