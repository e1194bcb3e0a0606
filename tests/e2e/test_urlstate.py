"""The address bar is the state, in Chromium: Back and Forward move between views, a copied address
reopens the same view, language and knobs in a fresh browser, and a slow load says what it is doing."""

from __future__ import annotations

import pytest

from .helpers import (assert_healthy, button, chapter_w, label, section, set_number, stage, stage_w, unavailable_reason,
                      wait_idle, wait_js, wait_stage)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e


def shown_section(page) -> str:
    """The view the segmented control marks as chosen, by its label."""
    return page.locator(".st-key-section button[aria-checked='true']").inner_text()


def wait_view(page, lang: str, name: str) -> None:
    """Wait until the control marks ``name`` and its view's own element is drawn (helpers.SECTION_MARKERS)."""
    wait_js(page, "(t) => { const b = document.querySelector(\".st-key-section button[aria-checked='true']\");"
                  " return b !== null && b.innerText === t; }", label(lang, f"section.{name}"))
    wait_stage(page, "(s, m) => s.mode === m", "train" if name == "train" else "lookup") if name in ("lookup", "train") \
        else wait_idle(page)


def test_back_and_forward_move_between_the_views(new_page):
    page = new_page("en-US")
    section(page, "en", "train")
    section(page, "en", "lessons")
    assert "section=lessons" in page.url
    page.go_back()
    wait_view(page, "en", "train")
    assert "section=train" in page.url and button(page, "step").is_visible()
    page.go_back()
    wait_view(page, "en", "lookup")
    page.go_forward()
    wait_view(page, "en", "train")
    assert shown_section(page) == label("en", "section.train")
    assert_healthy(page)


def test_a_copied_address_reopens_the_view_language_and_knobs_in_a_fresh_browser(new_page):
    page = new_page("ko-KR")
    section(page, "ko", "train")
    page.locator(".st-key-lang label", has_text="English").click()
    wait_stage(page, "s => s.lang === 'en'")
    set_number(page, "seed", 5)
    wait_js(page, "() => location.search.includes('seed=5')")
    copied = page.url

    fresh = new_page("ko-KR", url=copied)  # another browser, set to Korean: the address says English
    wait_view(fresh, "en", "train")
    assert stage(fresh)["lang"] == "en"
    assert fresh.locator(".st-key-seed input").input_value() == "5"
    w = stage_w(fresh)
    expected = chapter_w(seed=5)  # torch's table for seed 5, built fresh
    assert all(w[i] == pytest.approx(expected[i].tolist(), abs=0.005) for i in w)  # the stage writes 2 decimals
    assert fresh.url == copied  # opening it rewrote nothing
    assert_healthy(fresh)


def test_loading_the_100k_example_says_so_until_it_is_loaded_and_back_returns_to_the_chapter(new_page):
    page = new_page("en-US")
    text = label("en", "urlstate.loading_preset")
    page.locator(".st-key-preset input[role=combobox]").first.click()
    page.get_by_role("option").filter(has_text="100,000").first.click()
    button(page, "load_preset").click()
    page.get_by_text(text).wait_for(timeout=10_000)  # shown while the table is built (seconds)
    page.get_by_text(text).wait_for(state="detached", timeout=90_000)
    wait_js(page, "() => location.search.includes('preset=large')", timeout=90_000)
    page.go_back()  # the entry before the load: the chapter's example again
    wait_stage(page, "(s, ids) => JSON.stringify(s.ids.map(r => r.map(c => c.id))) === ids", "[[2,0,3],[2,4,1]]",
               timeout=60_000)
    assert "preset=chapter" in page.url
    assert_healthy(page)
