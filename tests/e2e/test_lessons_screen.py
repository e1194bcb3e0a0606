"""The lessons on a classroom projector: on ③, C4's figure is inside the first screen at 1280×720
and 1440×900, in Korean and English, with presentation mode off and on; in presentation mode the
figure's text is larger. Screenshots: artifacts/screenshots/lessons-first-screen-<lang>-<w>x<h>[-present].png
"""

from __future__ import annotations

import pytest

from .helpers import LAPTOP, PROJECTOR, assert_healthy, screenshot, unavailable_reason, wait_idle, wait_js

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

FIGURE = ".st-key-lesson_figure_C4 .js-plotly-plot"


def open_lesson(page, url: str, lang: str) -> None:
    from components.lessons import lesson_title

    page.goto(f"{url}?section=lessons&lang={lang}")
    page.wait_for_selector(".st-key-lesson input[role=combobox]", timeout=90_000)
    wait_idle(page, timeout=60_000)
    box = page.locator(".st-key-lesson input[role=combobox]")
    box.click()
    box.fill(lesson_title(lang, "C4"))
    page.get_by_role("option", name=lesson_title(lang, "C4")).click()
    figure_drawn(page)


def present_on(page) -> None:
    """Switch presentation mode on, as a teacher does with the lesson open; the figure is drawn again."""
    page.locator(".st-key-present label").first.click()
    wait_js(page, "() => document.querySelector('.st-key-present input').checked")
    figure_drawn(page)


def figure_drawn(page) -> None:
    """Once C4's figure is drawn and the page is idle, scrolled to its top (the first screen)."""
    page.wait_for_selector(FIGURE + " .main-svg", timeout=30_000)
    wait_idle(page, timeout=30_000)
    page.evaluate("() => window.scrollTo(0, 0)")


def tick_px(page) -> float:
    return page.evaluate(f"() => Math.max(...Array.from(document.querySelectorAll('{FIGURE} .yaxislayer-above text'))"
                         ".map(t => parseFloat(getComputedStyle(t).fontSize)))")


@pytest.mark.parametrize("viewport", [PROJECTOR, LAPTOP], ids=["1280x720", "1440x900"])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_C4s_figure_is_on_the_first_screen_and_grows_in_presentation_mode(browser, app_url, lang, viewport):
    sizes = {}
    ctx = browser.new_context(locale="ko-KR" if lang == "ko" else "en-US", viewport=dict(viewport))
    try:
        page = ctx.new_page()
        open_lesson(page, app_url, lang)
        for present in (False, True):
            if present:
                present_on(page)
            assert_healthy(page)
            box = page.locator(FIGURE).bounding_box()
            name = f"lessons-first-screen-{lang}-{viewport['width']}x{viewport['height']}" + ("-present" if present else "")
            screenshot(page, name)
            assert box is not None and box["y"] >= 0, box
            assert box["y"] + box["height"] <= viewport["height"], (present, box)  # inside the first screen
            sizes[present] = tick_px(page)
    finally:
        ctx.close()
    assert sizes[True] >= 18 and sizes[True] > sizes[False], sizes  # tick labels, px
