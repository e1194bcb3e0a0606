"""The lessons as a learner sees them in Chromium: C4, C7, C9 and X7 draw their figure, with alt text, in both languages.

After loading a review preset and training a run, each lesson's chart must be on the page with the
data its builder gave (the builders themselves are checked against torch in tests/test_lessons.py),
its alt text on the chart, and no exception. Screenshots go to artifacts/screenshots/lesson-<id>-<lang>.png
(docs/lesson-<id>-<lang>.png are presentation mode's, from test_lesson_tour.py).
"""

from __future__ import annotations

import pytest

from .helpers import assert_healthy, button, figures, label, screenshot, section, wait_idle, wait_js, unavailable_reason

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

SHOWN = ("C4", "C7", "C9", "X7")


def pick(page, key: str, text: str) -> None:
    box = page.locator(f".st-key-{key} input[role=combobox]")
    box.click()
    box.fill(text)
    page.get_by_role("option", name=text).click()
    wait_idle(page, timeout=120_000)


@pytest.mark.parametrize("lang, preset", [("ko", "reviews_ko"), ("en", "reviews_en")])
def test_lessons_draw_their_figures_with_alt_text(new_page, lang, preset):
    from assets import presets
    from components.lessons import lesson_title

    page = new_page("ko-KR" if lang == "ko" else "en-US")
    pick(page, "preset", presets.titles(lang)[preset])
    button(page, "load_preset").click()
    wait_idle(page, timeout=60_000)
    section(page, lang, "train")
    button(page, "run_steps").click()
    wait_idle(page, timeout=120_000)
    section(page, lang, "lessons")
    for lesson_id in SHOWN:
        pick(page, "lesson", lesson_title(lang, lesson_id))
        wait_js(page, "(t) => Array.from(document.querySelectorAll('h2')).some(h => h.innerText.includes(t))",
                lesson_title(lang, lesson_id))
        assert_healthy(page)
        drawn = figures(page)
        assert len(drawn) == 1 and drawn[0]["data"], lesson_id
        alt_prefix = label(lang, f"lesson.{lesson_id}.fig.alt").split("{")[0][:20]
        has_alt = page.evaluate("(p) => Array.from(document.querySelectorAll('[aria-label]'))"
                                ".some(e => e.getAttribute('aria-label').startsWith(p))", alt_prefix)
        assert has_alt, lesson_id
        page.evaluate("() => Array.from(document.querySelectorAll('h2')).pop().scrollIntoView({block: 'start'})")
        screenshot(page, f"lesson-{lesson_id}-{lang}", viewport={"width": 1400, "height": 2400})
