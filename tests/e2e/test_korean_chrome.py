"""Streamlit's own widget texts in Korean (components/widget_text.py), in Chromium: on every view of a
Korean page, no Latin word is left in the visible chrome Streamlit draws (the file uploader, the
dropdowns' "No results", "Press Enter to apply", the number inputs' buttons, the "Help for …" labels,
the table and chart toolbars), except true terms. Switching to English brings the English back, and
a learner's token that reads like chrome ("Upload") is never rewritten.
"""

from __future__ import annotations

import re

import pytest

from .helpers import PROJECTOR, button, label, open_editors, section, unavailable_reason, wait_idle, wait_js

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

# Words that are the same in a Korean page: the app's terms, file types, key names, code.
TERMS = {"PAD", "UNK", "W", "PCA", "JSON", "CSV", "TXT", "TSV", "VEC", "MB", "PNG", "Enter", "Ctrl", "Language",
         "English", "json", "csv", "py", "ipynb", "tsv", "metadata", "vectors", "nn", "Embedding", "PyTorch",
         "torch", "padding_idx", "id", "PC1", "PC2", "PC3", "LSTM", "Adam", "AdamW", "SGD", "TensorFlow",
         "Projector", "Load", "pad", "unk", "freeze", "True"}  # freeze=True: the argument of from_pretrained
# Visible text and labels Streamlit's chrome carries; the app's own strings (Markdown, captions), the
# stage, tables, code and the material icons' ligature names are not chrome.
CHROME_JS = r"""() => {
  const out = [];
  const content = '[data-testid="stMarkdownContainer"]:not([data-testid="stFileUploaderDropzone"] *), '
    + '[data-testid="stCaptionContainer"], .st-key-stage, .st-key-guide, [data-testid="stDataFrame"] table, '
    + '[data-testid="stTable"], code, pre, [data-testid="stIconMaterial"], [data-testid="stExpanderIcon"], '
    + '[data-testid="stAlertDynamicIcon"], noscript, .main-svg, [data-testid="stHeadingWithActionElements"] h1';
  const visible = (el) => { const r = el.getClientRects(); const s = getComputedStyle(el);
    return r.length > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const tw = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  let n;
  while ((n = tw.nextNode())) {
    if (n.nodeType === 3) {
      const p = n.parentElement;
      if (!p || p.closest(content) || p.closest('script,style') || !visible(p)) continue;
      const t = n.nodeValue.trim();
      if (t) out.push(['text', t]);
    } else {
      if (n.closest('.st-key-stage, .st-key-guide, noscript')) continue;
      for (const a of ['aria-label', 'title', 'placeholder', 'data-title']) {
        const v = n.getAttribute(a);
        if (v) out.push([a, v]);
      }
    }
  }
  return out;
}"""


def latin_left(page) -> list[tuple[str, str]]:
    found = []
    for where, text in page.evaluate(CHROME_JS):
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", text) if w not in TERMS and not re.fullmatch(r"[A-Z]|[CX]\d+", w)]
        if words:
            found.append((where, text))
    return found


def goto(page, url: str, view: str) -> None:
    page.goto(f"{url}/?lang=ko&section={view}")
    page.wait_for_selector("[data-testid='stApp']")
    wait_js(page, "() => !!document.querySelector('.st-key-section button')", timeout=90_000)  # a first run imports torch
    wait_idle(page)


def test_no_latin_word_is_left_in_streamlits_chrome_on_a_korean_page(new_page, app_url):
    page = new_page("ko-KR", load=False)
    page.set_viewport_size(PROJECTOR)
    left = []
    goto(page, app_url, "lookup")
    open_editors(page)
    page.locator(".st-key-try_sentence input").fill("영화 좋다")  # "Press Enter to apply" shows while typing
    wait_js(page, "() => !!document.querySelector('[data-testid=\"InputInstructions\"]')", idle=False)
    left += latin_left(page)
    page.keyboard.press("Escape")
    section(page, "ko", "train")  # as a learner moves: the same page, another view
    button(page, "predict_step").click()
    rows = page.locator(".st-key-predict_rows input").first
    rows.click()
    rows.type("zzz")  # the dropdown's "No results"
    wait_js(page, "() => [...document.querySelectorAll('[role=listbox] [role=option]')].some(o => o.textContent.trim())",
            idle=False)
    left += latin_left(page)
    page.keyboard.press("Escape")
    for view in ("lessons", "share"):
        section(page, "ko", view)
        left += latin_left(page)
    assert not sorted(set(left)), sorted(set(left))
    # Korean is where the English was: the uploader and the help labels.
    dropzone = page.locator("[data-testid='stFileUploaderDropzone']:visible").first
    assert "파일 하나에 20MB까지" in dropzone.inner_text() and label("ko", "chrome.upload") in dropzone.inner_text()


def test_english_comes_back_and_a_learners_token_is_never_rewritten(new_page, app_url):
    page = new_page("ko-KR", load=False)
    goto(page, app_url, "share")
    assert "올리기" in page.locator("[data-testid='stFileUploaderDropzone']:visible").first.inner_text()
    page.locator(".st-key-lang label", has_text="English").click()  # the same page, now in English
    wait_js(page, "() => document.documentElement.lang === 'en'")
    wait_js(page, "() => /Upload/.test([...document.querySelectorAll('[data-testid=stFileUploaderDropzone]')].map(d => d.innerText).join(' '))")
    assert "20MB per file" in page.locator("[data-testid='stFileUploaderDropzone']:visible").first.inner_text()
    page.locator(".st-key-lang label", has_text="한국어").click()
    wait_js(page, "() => document.documentElement.lang === 'ko'")
    section(page, "ko", "lookup")
    open_editors(page)
    area = page.locator(".st-key-sentences textarea")
    area.fill("Upload Open Search | 긍정\n영화 나쁘다 | 부정")
    page.keyboard.press("Control+Enter")
    wait_js(page, "() => /Upload/.test(__stage() ? __stage().textContent : '')")
    box = page.locator(".st-key-out_sentence input[role=combobox]").first
    box.scroll_into_view_if_needed()
    box.click()
    wait_js(page, "() => [...document.querySelectorAll('[role=listbox] [role=option]')].some(o => /Upload Open Search/.test(o.textContent))",
            idle=False)
    page.keyboard.press("Escape")
