"""A teacher's lesson tour on a projector (issue 37, #2): presentation mode at 1280×720, in Korean and
English, from C1 through every lesson to the last (X9), by clicking 다음 ▶ / Next ▶ each time.

At every lesson, measured in the page:

- the page does not scroll: the main area's and the document's scroll height fit the window (the
  lesson's box scrolls inside itself: sections/lessons_section.py);
- the claim (the lesson's heading), the verdict's mark and the previous/next buttons are inside the
  window;
- the lesson's box is not scrolled and shows the whole figure, where a lesson draws one, and the
  whole verdict under it (a lesson that asks a prediction first shows its verdict once answered);
- every text of the figure (Plotly's SVG text: tick labels, a heatmap's numbers, titles, legends,
  colour bars) and every cell of the lesson's tables (its facts, its own tables, the figure's
  numbers, folded or not) is at least 24 px, and no table is a data grid (a canvas, whose text
  neither grows with the page nor can be measured).

Without presentation mode, in Korean, on a review preset trained for one run (as a learner gets there:
the preset loaded, Run N on the training view), C1, C4, C7, C9, C15 and X7 each draw their figure with
the data its builder gave (the builders are checked against torch in tests/test_lessons.py) and its
alt text, and the same texts are at least 14 px.
Screenshots: artifacts/screenshots/lesson-present-<id>-<lang>.png of five lessons presenting at 1280×720
(copied to docs/lesson-<id>-<lang>.png with E2E_DOCS_SCREENSHOTS=1), and lesson-<id>-<lang>.png of
the figures without presentation mode.
"""

from __future__ import annotations

import os
import shutil

import pytest

from .helpers import (LOCALES, PROJECTOR, ROOT, SCREENSHOTS, assert_healthy, button, choose, click_until_sent, figures, label,
                      open_app, pressed, record_sent, screenshot, section, unavailable_reason, wait_idle, wait_js)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

PRESENT_PX = 24
NORMAL_PX = 14
SHOWN = ("C1", "C4", "C7", "C9", "X7")  # the lessons whose screenshots are kept in docs/

# The lesson on the screen, measured: scroll heights, where the controls are, the figure's smallest texts.
MEASURE_JS = """(verdicts) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
  const visible = (sel) => [...document.querySelectorAll(sel)].find(e => e.offsetParent !== null) || null;
  const head = document.querySelector('.st-key-lesson_head');
  const mark = head ? [...head.querySelectorAll('[data-testid="stMarkdownContainer"] span')].find(s => !s.closest('h2')
                                                                                   && /[✓✗]/.test(s.textContent)) : null;
  const texts = [...document.querySelectorAll('.st-key-lessons .js-plotly-plot svg text')]
    .filter(t => t.textContent.trim() !== '' && t.getBoundingClientRect().width > 0)
    .map(t => [t.textContent.slice(0, 24), parseFloat(getComputedStyle(t).fontSize)]);
  const tableTexts = [...document.querySelectorAll('.st-key-lessons [data-testid="stTable"] :is(td, th)')]
    .filter(c => c.textContent.trim() !== '')
    .map(c => [c.textContent.trim().slice(0, 24), parseFloat(getComputedStyle(c).fontSize)]);
  const body = document.querySelector('.st-key-lesson_body');
  const verdict = body ? [...body.querySelectorAll('[data-testid="stAlert"]')]
    .find(a => { const m = a.querySelector('[data-testid="stMarkdownContainer"]');
                 return m && verdicts.some(v => m.innerText.trim().startsWith(v)); }) || null : null;
  return {main: [main.scrollHeight, main.clientHeight], doc: [document.scrollingElement.scrollHeight, innerHeight],
          title: head ? (head.querySelector('h2') || {}).innerText : null, heading: box(head && head.querySelector('h2')),
          mark: box(mark), markText: mark ? mark.textContent : null, next: box(visible('.st-key-lesson_next button')),
          prev: box(visible('.st-key-lesson_prev button')), figure: box(document.querySelector('.st-key-lessons .js-plotly-plot')),
          texts, tableTexts, grids: document.querySelectorAll('.st-key-lessons [data-testid="stDataFrame"]').length,
          body: box(body), bodyScrolled: body ? body.scrollTop : null, verdict: box(verdict)};
}"""


def switch_presentation(page) -> None:
    """Presentation mode on with its toggle in the sidebar (opened first when folded)."""
    if page.locator("[data-testid='stSidebar']").get_attribute("data-collapsed") == "true":
        page.locator("[data-testid='stExpandSidebarButton']").click()
    page.locator(".st-key-present label").first.click()
    wait_js(page, "() => document.querySelector('.st-key-present input').checked")


# The lesson's heading is drawn and every figure of it has drawn its SVG.
DRAWN_JS = """(t) => [...document.querySelectorAll('.st-key-lessons h2')].some(h => h.innerText.trim() === t)
  && [...document.querySelectorAll('.st-key-lessons .js-plotly-plot')].every(p => p.querySelector('.main-svg'))"""

# The boxes MEASURE_JS reads, once the page's fonts have loaded and two animation frames have passed:
# Plotly sizes a figure to its container a frame after drawing it, and the box below moves with it.
BOXES_JS = """async () => {
  await document.fonts.ready;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const body = document.querySelector('.st-key-lesson_body');
  return [...document.querySelectorAll('.st-key-lessons .js-plotly-plot, .st-key-lesson_body, .st-key-lesson_body [data-testid="stAlert"]')]
    .map(e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.width].map(Math.round).join(','); })
    .join(';') + (body ? '|' + body.scrollHeight : '');
}"""


def lesson_drawn(page, lesson_id: str, lang: str, timeout: float = 120_000) -> dict:
    """Once ``lesson_id``'s heading and figure (if any) are drawn, the page is idle and the lesson's
    boxes read the same twice in a row: what MEASURE_JS then reads of it."""
    from components.lessons import lesson_title

    wait_js(page, DRAWN_JS, lesson_title(lang, lesson_id), timeout=timeout, idle=False)
    wait_idle(page, timeout=timeout, quiet_ms=400)
    boxes, reads = None, 0
    while (now := page.evaluate(BOXES_JS)) != boxes:  # a condition: each read waits two frames
        boxes, reads = now, reads + 1
        assert reads < 50, (lesson_id, lang, "the lesson's layout never held still", now)
    return page.evaluate(MEASURE_JS, [label(lang, "lesson.verdict.pass"), label(lang, "lesson.verdict.fail")])


def open_lessons(browser, app_url: str, lang: str, present: bool):
    ctx = browser.new_context(locale=LOCALES[lang], viewport=dict(PROJECTOR))
    ctx.set_default_timeout(30_000)
    page = ctx.new_page()
    page.e2e_js_errors = []
    page.on("pageerror", lambda err: page.e2e_js_errors.append(str(err)))
    record_sent(page)
    page.goto(f"{app_url}/?section=lessons&lang={lang}")
    page.wait_for_selector(".st-key-lesson_next button", timeout=120_000)
    wait_idle(page, timeout=120_000)
    if present:
        switch_presentation(page)
        page.wait_for_selector(".st-key-lesson_head h2", timeout=60_000)
    return ctx, page


def inside(box: dict | None, height: int) -> bool:
    return box is not None and box["top"] >= -0.5 and box["bottom"] <= height + 0.5


def within(box: dict | None, outer: dict | None) -> bool:
    """``box`` is wholly inside ``outer`` (both as the page measures them)."""
    return box is not None and outer is not None and box["top"] >= outer["top"] - 0.5 and box["bottom"] <= outer["bottom"] + 0.5


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_presenting_tour_never_scrolls_the_page_and_every_figure_text_is_24px(browser, app_url, lang):
    from core.lessons import LESSON_IDS, lesson

    ctx, page = open_lessons(browser, app_url, lang, present=True)
    try:
        height = PROJECTOR["height"]
        for i, lesson_id in enumerate(LESSON_IDS):
            if i:
                click_until_sent(page, button(page, "lesson_next"), pressed("lesson_next"))
            got = lesson_drawn(page, lesson_id, lang)
            assert_healthy(page)
            where = f"{lesson_id} ({lang})"
            assert got["main"][0] <= got["main"][1] + 1 and got["doc"][0] <= got["doc"][1] + 1, (where, got["main"], got["doc"])
            assert inside(got["heading"], height), (where, "claim", got["heading"])
            assert inside(got["mark"], height) and got["markText"], (where, "verdict", got["mark"])
            assert inside(got["next"], height) and inside(got["prev"], height), (where, got["next"], got["prev"])
            assert got["bodyScrolled"] == 0, (where, "the lesson's box is scrolled", got["bodyScrolled"])
            if lesson(lesson_id).predict is None:
                assert within(got["verdict"], got["body"]), (where, "verdict outside the lesson's box", got["verdict"], got["body"])
            if got["figure"] is not None:
                assert within(got["figure"], got["body"]), (where, "figure outside the lesson's box", got["figure"], got["body"])
                small = [t for t in got["texts"] if t[1] < PRESENT_PX - 0.01]
                assert small == [], (where, small[:6])
            assert got["grids"] == 0, (where, "a data grid in a presenting lesson")
            small = [t for t in got["tableTexts"] if t[1] < PRESENT_PX - 0.01]
            assert small == [], (where, "table", small[:6])
            if lesson_id in SHOWN:
                path = screenshot(page, f"lesson-present-{lesson_id}-{lang}")
                if os.environ.get("E2E_DOCS_SCREENSHOTS") == "1":
                    shutil.copy(path, ROOT / "docs" / f"lesson-{lesson_id}-{lang}.png")
        assert got["next"] is not None and button(page, "lesson_next").is_disabled()  # the last lesson: nothing after it
    finally:
        ctx.close()


NORMAL = ("C1", "C4", "C7", "C9", "C15", "X7")  # the lessons checked without presentation mode
FIGURED = ("C4", "C7", "C9", "X7")  # … of which these draw a figure with alt text
PRESETS = {"ko": "reviews_ko", "en": "reviews_en"}


def test_without_presentation_mode_the_figures_are_drawn_with_alt_text_and_every_text_is_at_least_14px(new_page, app_url):
    """In Korean: the sizes measured here and the way an alt text reaches the page do not depend on
    the language (each lesson's alt text in both languages: tests/test_lessons.py), and the English
    page's lessons are measured by the presenting tour above."""
    from assets import presets
    from components.lessons import lesson_title

    lang = "ko"
    page = new_page(LOCALES[lang], load=False)
    page.set_viewport_size(PROJECTOR)  # opened at the projector's size, as the tour presenting is
    open_app(page, app_url)
    choose(page, "preset", presets.titles(lang)[PRESETS[lang]])
    button(page, "load_preset").click()
    wait_idle(page, timeout=60_000)
    section(page, lang, "train")
    button(page, "run_steps").click()
    wait_idle(page, timeout=120_000)
    section(page, lang, "lessons")
    for lesson_id in NORMAL:
        choose(page, "lesson", lesson_title(lang, lesson_id))
        got = lesson_drawn(page, lesson_id, lang)
        assert_healthy(page)
        assert got["texts"] and got["tableTexts"], lesson_id
        small = [t for t in got["texts"] + got["tableTexts"] if t[1] < NORMAL_PX - 0.01]
        assert small == [], (lesson_id, small[:6])
        if lesson_id in FIGURED:
            drawn = figures(page)
            assert len(drawn) == 1 and drawn[0]["data"], lesson_id
            alt_prefix = label(lang, f"lesson.{lesson_id}.fig.alt").split("{")[0][:20]
            has_alt = page.evaluate("(p) => [...document.querySelectorAll('[aria-label]')]"
                                    ".some(e => e.getAttribute('aria-label').startsWith(p))", alt_prefix)
            assert has_alt, lesson_id
            page.evaluate("() => [...document.querySelectorAll('h2')].pop().scrollIntoView({block: 'start'})")
            screenshot(page, f"lesson-{lesson_id}-{lang}", viewport={"width": 1400, "height": 2400})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"lesson-normal-X7-{lang}.png"))
