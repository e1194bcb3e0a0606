"""The vocabulary table in a real browser (issue 37): an id cell keeps exactly what was typed and the
message quotes it; a new row's empty cells are blank; messages name rows by the table's # column."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from .helpers import (HEADER_H, ROW_H, ROW_MARKER_W, VOCAB_INDEX_W, alerts, assert_healthy, edit_vocab_token, grid_rows,
                      label, open_editors, open_vocab_editor, stage_ids, wait_idle, wait_js)

from tests.apptest_helpers import shown

pytestmark = pytest.mark.e2e

CHAPTER_IDS = [[2, 0, 3], [2, 4, 1]]


def vocab_error(page, lang: str) -> str:
    title = label(lang, "err.vocab_title")
    wait_js(page, "(t) => texts('stAlertContentError').some(x => x.includes(t))", title)
    return next(m for m in alerts(page, "Error") if title in m)


# The grid's top, read twice 100 ms apart by the polling: equal once the inputs box stopped scrolling.
GRID_STILL_JS = """() => { const g = document.querySelector('.st-key-vocab [data-testid="stDataFrame"]');
  if (!g) return false; const top = g.getBoundingClientRect().top, still = window.__gridTop === top;
  window.__gridTop = top; return still; }"""


def delete_row(page, row: int, lang: str = "ko", tries: int = 3) -> None:
    """Select table row ``row`` (1-based, as the # column counts) by its row marker and delete it. The
    marker is clicked where the grid is once it holds still; a click that landed while the inputs box
    was still scrolling selects nothing, so it is tried again (``tries`` times) until the table's
    error box shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    grid = page.locator(".st-key-vocab [data-testid='stDataFrame']")
    for attempt in range(tries):
        grid.scroll_into_view_if_needed()
        wait_js(page, GRID_STILL_JS)
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 17, box["y"] + 35 + (row - 0.5) * 35)  # header 35 px, rows 35 px
        page.keyboard.press("Delete")
        try:
            wait_js(page, "(t) => texts('stAlertContentError').some(x => x.includes(t))", label(lang, "err.vocab_title"),
                    timeout=10_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise


@pytest.mark.parametrize("typed", ["2.5", "abc"])
def test_an_id_that_is_not_an_integer_stays_as_typed_and_is_quoted(ko_page, typed):
    page = ko_page
    assert edit_vocab_token(page, 2, typed, right=1) == "2"  # row #3 (영화), its id
    message = vocab_error(page, "ko")
    assert f"3행의 번호가 정수가 아닙니다(‘{typed}’)" in message, message
    assert "25" not in message
    assert grid_rows(page, "vocab")[3][2] == typed  # the cell keeps the text (column 0: the row number)
    assert stage_ids(page) == CHAPTER_IDS  # the last valid vocabulary still drives the page
    assert_healthy(page)


def test_an_emptied_id_is_said_to_be_empty_and_a_huge_one_out_of_range(en_page):
    page = en_page
    edit_vocab_token(page, 2, "", right=1)
    message = vocab_error(page, "en")
    assert "Row 3: the id is empty" in message and "''" not in message, message
    edit_vocab_token(page, 2, "99999999999999999999", right=1)
    wait_js(page, "() => texts('stAlertContentError').some(x => x.includes('99999999999999999999'))")
    message = vocab_error(page, "en")
    assert "Row 3: id 99999999999999999999 is out of range" in message, message
    assert grid_rows(page, "vocab")[3][2] == "99999999999999999999"
    assert_healthy(page)


# Glide's overlay editor commits on a zero-delay timer that every key schedules, and a plain key's
# timer cancels the edit when it runs after Enter's (glideapps/glide-data-grid#1201): on a busy
# laptop, a quick Enter after the last letter. Here both keys are sent in one task, so the plain
# key's timer always runs last; components/grid_keys.py keeps plain keys from scheduling one.
TYPE_THEN_ENTER_JS = """(text) => { const e = document.querySelector('textarea.gdg-input');
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(e, text);
  e.dispatchEvent(new InputEvent('input', {bubbles: true, data: text.slice(-1), inputType: 'insertText'}));
  for (const key of [text.slice(-1), 'Enter'])
    e.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));
}"""


def test_enter_right_after_the_last_letter_keeps_the_edit(en_page):
    page = en_page
    editor = open_vocab_editor(page, 2, right=1)
    assert editor.input_value() == "2"
    editor.evaluate("(e) => e.select()")
    page.evaluate(TYPE_THEN_ENTER_JS, "2.5")
    message = vocab_error(page, "en")
    assert "Row 3: the id '2.5' is not a whole number" in message, message
    assert grid_rows(page, "vocab")[3][2] == "2.5"


def test_a_new_row_shows_blank_cells_and_is_named_as_the_table_numbers_it(ko_page):
    page = ko_page
    open_editors(page)
    grid = page.locator(".st-key-vocab [data-testid='stDataFrame']")
    grid.hover()
    page.locator(".st-key-vocab [data-testid='stElementToolbarButton'] button").first.click()  # add a row
    wait_idle(page)
    page.keyboard.press("Escape")
    message = vocab_error(page, "ko")
    assert "7행의 토큰이 비어 있습니다" in message and "7행의 번호가 비어 있습니다" in message, message
    last = grid_rows(page, "vocab")[-1]
    assert last[:3] == ["", "", ""], last
    # Painted blank too: glide paints a null cell with the editor's placeholder (Streamlit's: "None").
    # The new row's token and id cells hold no glyph: only the background and the column borders.
    box = grid.bounding_box()
    rows = len(grid_rows(page, "vocab")) - 1
    top = box["y"] + HEADER_H + (rows - 1) * ROW_H
    left = box["x"] + ROW_MARKER_W + VOCAB_INDEX_W
    png = page.screenshot(clip={"x": left + 4, "y": top + 4, "width": 150, "height": ROW_H - 8})
    colours = Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 16)
    # Glyphs are neutral grey or black ("None" is ~(160, 160, 160)); a border is (231, 231, 231); the
    # selected cell's ring and a refused row's tint are coloured, not glyphs.
    inked = [(n, c) for n, c in colours if min(c) < 190 and max(c) - min(c) < 30]
    assert not inked, f"the new row's empty cells are painted with text: {inked[:5]}"
    assert_healthy(page)


def test_after_deleting_the_pad_row_the_message_names_rows_by_their_number(ko_page):
    page = ko_page
    open_editors(page)
    delete_row(page, 2)  # #2: <PAD>
    message = vocab_error(page, "ko")
    assert "6행의 번호 5" in shown(message) and "5행" not in message, message
    assert label("ko", "vocab.role.pad") in message and "pad로" not in message
    assert_healthy(page)
