"""The teacher's screen: presentation mode at a projector's 1280×720 and a laptop's 1440×900, in Korean
and English, and W readable at the review examples (issue 25).

Measured from the DOM, with presentation mode on and off, on the lookup and training views:

- switching presentation mode on folds the sidebar, also after the sidebar was opened and closed
  by hand (Streamlit then keeps the browser's own choice over the page's config);
- with it on, the computed font size of every number on the stage (W's values, gradient norms and
  counts, the output's values, the id matrix's ids) is at least 24 px;
- no element of the training bar, the stage's legend or the view switch has
  ``scrollWidth > clientWidth`` (nothing clipped, no "처음…"), and the four views sit on one row;
- at the English reviews (47 tokens, 40 sentences), the rows of W of the sentence the output shows,
  and after a Step the rows it touched, have a visible label and numbers of at least 12 px (24
  presenting); no two counts' boxes overlap; scrolling the id matrix reaches every sentence.

One page per (language, presentation mode), reused across views and both sizes. Screenshots of
presentation mode at 1280×720 go to artifacts/screenshots/ (and to docs/stage-present-*.png with
E2E_DOCS_SCREENSHOTS=1): the Korean training view at the chapter's example and the English lookup
at the reviews.
"""

from __future__ import annotations

import os

import pytest

from .helpers import (LOCALES, JS_LIB, LAPTOP, PROJECTOR, ROOT, SCREENSHOTS, OnePageAtATime, button, click_token, open_app, pause, play_until, section, stage, unavailable_reason,
                      wait_idle, wait_js, wait_stage, wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

SIZES = {"1280x720": PROJECTOR, "1440x900": LAPTOP}
PRESENT_FS = 24  # px: the least type of a number on the stage, presenting
READABLE_FS = 12  # px: the least type of a label or number of a row that matters

# Read in the page with helpers' JS_LIB in scope (`__stage()` is the stage's root in its shadow root).
STAGE_JS = """
const __st = __stage;
const __fs = (n) => parseFloat(getComputedStyle(n).fontSize);
const __shown = (n) => { const r = n.getBoundingClientRect(); return r.width > 0 && r.height > 0 && n.textContent.trim() !== '' && __fs(n) > 0; };
"""


def measure(page, js: str, arg=None):
    """Run one of the functions below in the page (helpers' JS_LIB and STAGE_JS in scope)."""
    return page.evaluate(f"(arg) => {{ {JS_LIB}; {STAGE_JS}; return ({js})(arg); }}", arg)


# Every number the stage writes, with its computed size, where it is drawn.
NUMBERS_JS = """() => {
  const s = __st();
  const sel = {w: '.wpanel .wrow:not(.whead) .wcell', grad: '.wpanel .wgrad .gtext', count: '.wpanel .wcnt',
               out: '.outpanel .wrow:not(.whead) .wcell', ids: '.idspanel .idnum'};
  const found = {};
  for (const [k, q] of Object.entries(sel)) {
    found[k] = [...s.querySelectorAll(q)].filter(__shown).map(n => [n.textContent, __fs(n)]);
  }
  return found;
}"""

# Elements of the bar, the legend and the view switch whose content is wider than their box.
CLIPPED_JS = """() => {
  const s = __st(), out = [];
  const step = document.querySelector('.st-key-step');
  const roots = {bar: step && step.closest('[data-testid="stHorizontalBlock"]'), legend: s && s.querySelector('.legend'),
                 tabs: document.querySelector('.st-key-section')};
  for (const [k, root] of Object.entries(roots)) {
    if (!root) continue;
    for (const n of [root, ...root.querySelectorAll('*')]) {
      if (n.clientWidth > 0 && n.scrollWidth > n.clientWidth) {
        out.push(`${k}: ${n.tagName}.${String(n.className.baseVal ?? n.className).slice(0, 30)} "${n.textContent.slice(0, 24)}" ${n.scrollWidth} > ${n.clientWidth}`);
      }
    }
  }
  const tops = [...document.querySelectorAll('.st-key-section [role="radiogroup"] > button')].map(b => Math.round(b.getBoundingClientRect().top));
  return {clipped: out, tabs: tops.length, rows: new Set(tops).size, hasBar: !!roots.bar};
}"""

# The rows of W with these ids: each one's label and numbers, their size, and whether they are in
# view (inside W's rows' visible box, which may scroll); the counts' text boxes that overlap.
ROWS_JS = """(ids) => {
  const s = __st(), grid = s.querySelector('.wpanel .wgrid'), v = grid.getBoundingClientRect();
  const rows = ids.map(id => {
    const r = s.querySelector(`.wpanel .wrow[data-token="${id}"]`);
    if (!r) return {id, missing: true};
    r.scrollIntoView({block: 'nearest'});
    const box = r.getBoundingClientRect(), gv = grid.getBoundingClientRect();
    const tok = r.querySelector('.wtok'), cells = [...r.querySelectorAll('.wcell')];
    return {id, inView: box.top >= gv.top - 0.5 && box.bottom <= gv.bottom + 0.5, label: tok.textContent,
            labelFs: __shown(tok) ? __fs(tok) : 0, nums: cells.map(c => c.textContent),
            numFs: Math.min(...cells.map(c => __shown(c) ? __fs(c) : 0))};
  });
  const boxes = [...s.querySelectorAll('.wpanel .wcnt')].filter(__shown).map(n => {
    const g = document.createRange(); g.selectNodeContents(n); const b = g.getBoundingClientRect();
    return {t: n.textContent, l: b.left, r: b.right, top: b.top, bottom: b.bottom};
  });
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) overlaps.push([a.t, b.t]);
  }
  grid.scrollTop = 0;
  return {rows, counts: boxes.length, overlaps};
}"""

# Scroll the id matrix to its end, step by step, until it has built every sentence; then the last one in view.
REACH_JS = """async (n) => {
  const s = __st(), grid = s.querySelector('.idspanel .idgrid');
  for (let i = 0; i < 4 * n && Number(grid.dataset.rows) < n; i++) {
    grid.scrollTop = grid.scrollHeight;
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  }
  const last = s.querySelector(`.idspanel .idcell[data-b="${n - 1}"]`);
  let inView = false;
  if (last) {
    last.scrollIntoView({block: 'nearest'});
    const b = last.getBoundingClientRect(), g = grid.getBoundingClientRect();
    inView = b.top >= g.top - 0.5 && b.bottom <= g.bottom + 0.5;
  }
  const built = [...s.querySelectorAll('.idspanel .idh.rowh')].map(e => Number(e.dataset.b));
  grid.scrollTop = 0;
  return {built, inView};
}"""


def sidebar_folded(page) -> bool:
    return page.locator("[data-testid='stSidebar']").get_attribute("data-collapsed") == "true"


def switch_presentation(page) -> None:
    """Flip presentation mode with its toggle in the sidebar (opened first when folded)."""
    if sidebar_folded(page):
        page.locator("[data-testid='stExpandSidebarButton']").click()
        wait_js(page, "() => document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed') === 'false'")
    was = page.locator(".st-key-present input").is_checked()
    page.locator(".st-key-present label").first.click()
    wait_js(page, "(on) => { const s = stage(); return s !== null && document.querySelector('.st-key-present input').checked === on; }",
            not was)
    wait_stage(page)


@pytest.fixture(scope="module")
def pages(browser, app_url):
    held = OnePageAtATime(browser, app_url, PROJECTOR)

    def get(lang: str, present: bool, query: str = ""):
        def prepare(page):
            if query:
                open_app(page, f"{app_url}/?{query}")
            if present:
                switch_presentation(page)
                wait_js(page, "() => document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed') === 'true'")
        return held.get((lang, present, query), LOCALES[lang], prepare=prepare)

    yield get
    held.close()


def shot(page, name: str) -> None:
    """artifacts/screenshots/<name>.png of the page scrolled to its top, no hover (and docs/<name>.png)."""
    page.mouse.move(1, 1)
    wait_js(page, "() => stage().hl.length === 0")
    page.evaluate("() => { const m = document.querySelector('[data-testid=stMain]'); if (m) m.scrollTop = 0; window.scrollTo(0, 0); }")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    if os.environ.get("E2E_DOCS_SCREENSHOTS") == "1":
        page.screenshot(path=str(ROOT / "docs" / f"{name}.png"))


def show(page, lang: str, view: str, size: str) -> None:
    if page.viewport_size != SIZES[size]:
        page.set_viewport_size(SIZES[size])
    section(page, lang, view)
    wait_stage(page, "(s, w) => s.mode === w", "train" if view == "train" else "lookup")
    wait_idle(page, quiet_ms=400)


def test_switching_presentation_on_folds_the_sidebar_even_after_it_was_opened_by_hand(pages):
    page = pages("en", False)
    assert not sidebar_folded(page)
    switch_presentation(page)  # on: folded, though the page's config never asked for it
    wait_js(page, "() => document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed') === 'true'")
    switch_presentation(page)  # opened by hand (the browser keeps that choice), then off: it stays open
    assert not sidebar_folded(page)
    switch_presentation(page)  # on again: folded again
    wait_js(page, "() => document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed') === 'true'")
    wait_js(page, "() => new URLSearchParams(location.search).get('present') === '1'")  # the address says so
    bookmark = page.url
    switch_presentation(page)
    wait_js(page, "() => !new URLSearchParams(location.search).has('present')")
    assert not sidebar_folded(page)

    # The address written while presenting, opened again (a projector's bookmark, or a reload) in this
    # browser, whose own choice is the open sidebar: the page opens presenting, the sidebar folded.
    open_app(page, bookmark)
    wait_js(page, "() => document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed') === 'true'")
    assert page.locator(".st-key-present input").is_checked()
    assert page.evaluate(f"() => {{ {JS_LIB}; return __stage().classList.contains('present'); }}")
    switch_presentation(page)


@pytest.mark.parametrize("size", list(SIZES))  # innermost: one page per (presentation, language)
@pytest.mark.parametrize("view", ["lookup", "train"])
@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("present", [False, True], ids=["normal", "presenting"])
def test_nothing_is_clipped_and_presenting_every_number_is_large(pages, lang, present, view, size):
    page = pages(lang, present)
    show(page, lang, view, size)
    got = measure(page, CLIPPED_JS)
    assert got["clipped"] == [], got
    assert got["tabs"] == 4 and got["rows"] == 1, f"the four views on {got['rows']} rows"
    assert got["hasBar"] == (view == "train")
    if view == "train":  # the bar while playing: Pause's label and the disabled Step and Run N
        play_until(page, lang, 1)
        playing = measure(page, CLIPPED_JS)
        pause(page, lang)
        assert playing["clipped"] == [], playing
    if present:
        assert sidebar_folded(page)
        numbers = measure(page, NUMBERS_JS)
        kinds = ("w", "grad") if view == "train" else ("w", "count", "out", "ids")
        for kind in kinds:
            assert numbers[kind], f"no {kind} numbers on the stage"
            small = [(text, fs) for text, fs in numbers[kind] if fs < PRESENT_FS - 0.01]
            assert small == [], f"{kind} numbers below {PRESENT_FS} px: {small[:5]}"
        if (lang, view, size) == ("ko", "train", "1280x720"):
            shot(page, "stage-present-train-ko")


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presenting"])
def test_at_the_english_reviews_the_rows_that_matter_are_readable_and_every_sentence_is_reached(pages, present):
    page = pages("en", present, "lang=en&preset=reviews_en")
    least = PRESENT_FS if present else READABLE_FS
    show(page, "en", "lookup", "1280x720")
    s = stage(page)
    assert len(s["w"]) == 47, "the reviews' 47 rows of W"
    sentence = sorted({c["id"] for c in s["ids"][0]})
    got = measure(page, ROWS_JS, sentence)
    for row in got["rows"]:
        assert not row.get("missing"), row
        assert row["inView"] and row["label"] and row["labelFs"] >= least - 0.01, row
        assert all(row["nums"]) and row["numFs"] >= least - 0.01, row
    assert got["counts"] >= len(sentence) and got["overlaps"] == [], got
    reach = measure(page, REACH_JS, 40)
    assert reach["built"] == list(range(40)) and reach["inView"], reach
    if present:
        shot(page, "stage-present-lookup-en")

    show(page, "en", "train", "1280x720")
    start = int(stage(page)["step"])
    button(page, "step").click()
    wait_step(page, start + 1)
    touched = sorted(r["id"] for r in stage(page)["w"] if "touched" in r["cls"])
    assert touched, "a Step touches rows"
    got = measure(page, ROWS_JS, touched)
    for row in got["rows"]:
        assert row["labelFs"] >= least - 0.01 and all(row["nums"]) and row["numFs"] >= least - 0.01, row


# The clicked sentence's id cells against the id matrix's visible box (it scrolls under its heads).
CUR_ROW_JS = """() => {
  const g = __stage().querySelector('.idgrid'), r = g.getBoundingClientRect();
  const head = g.querySelector('.idh.colh').getBoundingClientRect().bottom;
  return { top: head, bottom: r.bottom, cells: Array.from(g.querySelectorAll('.idcell.cur'), c => {
    const b = c.getBoundingClientRect(); return [b.top, b.bottom]; }) };
}"""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_cell_clicked_in_the_second_sentence_is_shown_whole_above_the_selection_note(pages, lang):
    """Presenting at 1280×720 the chapter's two sentences and the selection's note do not all fit the
    id matrix's panel: the note takes its room once a token is picked, and the clicked sentence's
    cells must still be whole, not cut under the note."""
    page = pages(lang, True)
    show(page, lang, "lookup", "1280x720")
    click_token(page, '.idcell[data-b="1"][data-t="1"]')
    wait_js(page, "() => { const c = __stage().querySelector('.idh.rowh.cur'); return !!c && c.dataset.b === '1'; }")
    got = measure(page, CUR_ROW_JS)
    assert len(got["cells"]) == 3, got
    assert all(top >= got["top"] - 1 and bottom <= got["bottom"] + 1 for top, bottom in got["cells"]), got
