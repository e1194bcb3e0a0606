"""Pretrained vectors in a real browser: on a phone (390×844) with presentation mode's larger type,
in Korean and English, a word2vec file picked in `pretrained_file` and applied with
`pretrained_apply` sets E to the file's dimension, the box says how many rows came from the file,
and nothing sticks out past the screen's edge."""

from __future__ import annotations

import pytest

from .helpers import open_editors, unavailable_reason, upload_and_apply, wait_idle, wait_js

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
FILE = "3 5\n영화 0.5 -1.25 2 0.125 1e-3\n<PAD> 1 2 3 4 5\n나쁘다 -0.3 0.7 1e-2 3 -0\n"
STATUS = {"ko": "W의 3행은 파일의 벡터", "en": "3 rows of W come from the file"}


@pytest.mark.parametrize("lang, locale", [("ko", "ko-KR"), ("en", "en-US")])
def test_a_vector_file_applied_on_a_phone_presenting(new_page, tmp_path, lang, locale):
    page = new_page(locale)
    page.set_viewport_size(PHONE)
    page.locator("[data-testid='stSidebarCollapsedControl'] button, [data-testid='stExpandSidebarButton']").first.click()
    page.locator(".st-key-present label").first.click()  # presentation mode folds the sidebar again
    wait_js(page, "() => document.querySelector('.st-key-present input').checked === true", timeout=30_000)
    wait_idle(page)
    open_editors(page)
    page.locator(".st-key-editors summary", has_text="from_pretrained").first.click()
    path = tmp_path / "w.vec"
    path.write_text(FILE, encoding="utf-8")
    upload_and_apply(page, "pretrained_file", "pretrained_apply", path)
    page.get_by_text(STATUS[lang]).first.wait_for(timeout=30_000)
    wait_idle(page)
    assert page.locator(".st-key-pretrained_freeze input").is_checked()
    assert page.locator(".st-key-embedding_dim input").first.input_value() == "5"
    assert page.locator("[data-testid='stException'], .st-key-problems_pretrained_title").count() == 0
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    assert not page.e2e_js_errors
