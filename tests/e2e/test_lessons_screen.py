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


def resize(page, viewport: dict) -> None:
    """Resize the window, as a projector's resolution does; until the figure is drawn at its container's new width."""
    page.set_viewport_size(viewport)
    wait_js(page, """(f) => { const plot = document.querySelector(f), svg = plot && plot.querySelector('.main-svg');
                              return svg && Math.abs(svg.getBoundingClientRect().width - plot.getBoundingClientRect().width) < 1; }""",
            FIGURE)
    figure_drawn(page)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_C4s_figure_is_on_the_first_screen_and_grows_in_presentation_mode(browser, app_url, lang):
    """One page per language, resized to each size in turn; presentation mode off, then on."""
    sizes = {}
    ctx = browser.new_context(locale="ko-KR" if lang == "ko" else "en-US", viewport=dict(PROJECTOR))
    try:
        page = ctx.new_page()
        open_lesson(page, app_url, lang)
        for present, viewports in ((False, (PROJECTOR, LAPTOP)), (True, (LAPTOP, PROJECTOR))):
            if present:
                present_on(page)
            for viewport in viewports:
                if page.viewport_size != viewport:
                    resize(page, viewport)
                assert_healthy(page)
                box = page.locator(FIGURE).bounding_box()
                name = f"lessons-first-screen-{lang}-{viewport['width']}x{viewport['height']}" + ("-present" if present else "")
                screenshot(page, name)
                assert box is not None and box["y"] >= 0, box
                assert box["y"] + box["height"] <= viewport["height"], (present, viewport, box)  # inside the first screen
                sizes[present, viewport["width"]] = tick_px(page)
    finally:
        ctx.close()
    for width in (PROJECTOR["width"], LAPTOP["width"]):  # tick labels, px
        assert sizes[True, width] >= 18 and sizes[True, width] > sizes[False, width], sizes
