"""A phone (390×844): on every view, in Korean and English, nothing is cut off and nothing overlaps.

Measured from the DOM after each view is drawn:

- the page is no wider than the screen, and no element of the main area sticks out past its right
  edge unless a box of its own scrolls it (a code block, a data grid);
- no word of a heading, a button, a paragraph or a table cell is broken across two lines (Korean
  breaks between words, "탐험기" never as "탐 / 험기"), nor of the sidebar's title when opened;
- the stage's panels and its step, loss and legend boxes do not overlap one another, and no panel
  title is clipped.

The same again in the dark theme with presentation mode's larger type (lookup and training).
The training view is measured after 20 steps, the lookup view with the editors open and a token
selected. Screenshots of those two go to artifacts/screenshots/phone-*.png (and docs/phone-*.png
with E2E_DOCS_SCREENSHOTS=1; tests/e2e/test_stage_app.py takes the 1280×720 ones, docs/stage-*.png).
"""

from __future__ import annotations

import os

import pytest

from .helpers import (LOCALES, ROOT, SCREENSHOTS, OnePageAtATime, click_token, label, open_editors, section, set_number, stage, unavailable_reason,
                      wait_idle, wait_js, wait_stage, wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
VIEWS = ("lookup", "train", "lessons", "share")
SHOTS = ("lookup", "train")

# Elements of the main area whose box reaches past the screen's right edge, with no clipping or
# scrolling box between them and the main area.
STICKING_OUT_JS = """() => {
  const W = window.innerWidth, main = document.querySelector('[data-testid="stMain"]'), out = [];
  const clipped = (e) => {
    for (let a = e.parentElement; a && a !== main; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= W + 1) return true;
    }
    return false;
  };
  for (const e of main.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || (r.right <= W + 1 && r.left >= -1) || clipped(e)) continue;
    out.push(`${e.tagName}.${String(e.className.baseVal ?? e.className).slice(0, 40)} ${Math.round(r.left)}..${Math.round(r.right)}`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: W, out: out.slice(0, 10)};
}"""

# Words of headings, buttons, paragraphs and table cells whose glyphs lie on more than one line. A word
# ends at a space, after a dash or slash or before an opening bracket, where a line may break in both
# languages ("C1–C16", "함정(X1–X7)을").
BROKEN_WORDS_JS = """(sel) => {
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    if (e.offsetParent === null) continue;
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const re = /[(\\[]?[^\\s\\-\u2013\u2014\\/(\\[]+[\\-\u2013\u2014\\/]?/g;
      for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out;
}"""
WORDS = "[data-testid='stMain'] :is(h1, h2, h3, h4, button, summary, p, li, label, td, th)"

# On the stage: boxes that must not overlap, and panel titles that must show whole.
STAGE_JS = """() => {
  const host = document.querySelector('.st-key-stage');
  if (!host) return null;
  let s = null;
  for (const e of host.querySelectorAll('*')) if (e.shadowRoot && e.shadowRoot.querySelector('[data-testid="stage"]')) s = e.shadowRoot;
  const boxes = Array.from(s.querySelectorAll('.panel, .head > *')).map(e => [e.className, e.getBoundingClientRect()]);
  const overlaps = [];
  boxes.forEach(([a, ra], i) => boxes.slice(i + 1).forEach(([b, rb]) => {
    if (Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 1 && Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 1)
      overlaps.push(a + ' / ' + b);
  }));
  const clippedTitles = Array.from(s.querySelectorAll('.ptitle > span:first-child'))
    .filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.textContent);
  const W = window.innerWidth;
  const outside = boxes.filter(([, r]) => r.right > W + 1 || r.left < -1).map(([c]) => c);
  return {n: boxes.length, overlaps, clippedTitles, outside};
}"""


@pytest.fixture(scope="module")
def phone(browser, app_url):
    """One page per (language, theme, presentation mode) at 390×844; the previous one is closed."""
    pages = OnePageAtATime(browser, app_url, PHONE)

    def present_on(page) -> None:  # the switch is in the sidebar, folded away on a phone
        page.locator("[data-testid='stExpandSidebarButton']").click()
        page.locator(".st-key-present label").first.click()  # switching it on folds the sidebar again
        wait_js(page, "() => document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed') === 'true'"
                      " && stage() !== null && stage().text.length > 0")

    yield lambda lang, scheme="light", present=False: pages.get(
        (lang, scheme, present), LOCALES[lang], scheme, prepare=present_on if present else None)
    pages.close()


def check_view(page, lang: str, view: str) -> None:
    """Show ``view`` (training: after 20 steps; lookup: editors open, a token selected) and measure it."""
    section(page, lang, view)
    if view == "train":  # a trained stage: loss, sparkline and moved points take their room too
        start = int(stage(page)["step"])
        set_number(page, "n_steps", 20)
        wait_js(page, "(s) => document.querySelector('.st-key-run_steps').innerText.includes(s)", label(lang, "train.run", n=20))
        page.locator(".st-key-run_steps button:visible").click()  # (a hidden copy of the button comes first)
        wait_step(page, start + 20)
    if view == "lookup":  # the editors unfolded, and a selection: its outlines on the stacked panels
        open_editors(page)
        click_token(page, ".idcell[data-b='0'][data-t='0']")
        wait_stage(page, "s => s.sel.length > 0")
    wait_idle(page)
    wide = page.evaluate(STICKING_OUT_JS)
    assert wide["scrollWidth"] <= wide["innerWidth"], f"the page scrolls sideways: {wide}"
    assert not wide["out"], f"past the right edge of a {PHONE['width']} px screen: {wide['out']}"
    broken = page.evaluate(BROKEN_WORDS_JS, WORDS)
    assert not broken, f"words broken across lines: {broken}"
    if view in ("lookup", "train"):
        s = page.evaluate(STAGE_JS)
        assert s and s["n"] >= 3, s
        assert not s["overlaps"], f"stage boxes overlap: {s['overlaps']}"
        assert not s["clippedTitles"], f"panel titles cut off: {s['clippedTitles']}"
        assert not s["outside"], f"stage boxes past the screen's edge: {s['outside']}"


@pytest.mark.parametrize("lang, view", [(lang, view) for lang in LOCALES for view in VIEWS],
                         ids=[f"{view}-{lang}" for lang in LOCALES for view in VIEWS])
def test_nothing_cut_off_or_overlapping(phone, lang, view):
    page = phone(lang)
    check_view(page, lang, view)
    if view in SHOTS:  # the stage's top at the top of the screen (the train view: the bar above it)
        page.mouse.move(1, 1)
        wait_js(page, "() => stage().hl.length === 0")
        top = ".st-key-step" if view == "train" else ".st-key-stage"
        page.evaluate("(sel) => { const m = document.querySelector('[data-testid=stMain]'); const e = document.querySelector(sel);"
                      " m.scrollTop += e.getBoundingClientRect().top - 70; }", top)  # below the header bar
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = f"phone-{view}-{lang}.png"
        page.screenshot(path=str(SCREENSHOTS / name))
        if os.environ.get("E2E_DOCS_SCREENSHOTS") == "1":
            page.screenshot(path=str(ROOT / "docs" / name))


@pytest.mark.parametrize("view", ["lookup", "train"])
def test_presentation_mode_in_the_dark_theme(phone, view):
    """Larger type (presentation mode) and the dark theme on a phone: still nothing cut off or overlapping."""
    page = phone("ko", scheme="dark", present=True)
    check_view(page, "ko", view)


def test_the_korean_title_keeps_its_words(phone):
    """The sidebar's title, opened on a phone: "nn.Embedding 탐험기" breaks, if at all, between words."""
    page = phone("ko")
    page.locator("[data-testid='stExpandSidebarButton']").click()
    page.locator("[data-testid='stSidebar'] h1").wait_for(state="visible")
    wait_idle(page)
    try:
        title = page.locator("[data-testid='stSidebar'] h1").inner_text()
        assert "탐험기" in title
        assert page.evaluate(BROKEN_WORDS_JS, "[data-testid='stSidebar'] :is(h1, h2, label)") == []
    finally:
        page.locator("[data-testid='stSidebarCollapseButton'] button").first.click()
        wait_idle(page)
