"""The lookup stage's missing step, in Chromium: a raw sentence → its tokens → their ids, with one
token highlighted in all three (issue 36).

With ``tokenizer=morpheme``, "영화가 정말 좋았다 | 긍정" shows its text with each morpheme's
characters marked, the chips 영화, 가, … over the id cells, and a click on a token's chip or on its
characters selects it: the text piece, the chip and the id cell (and W's row) carry ``sel``, and
nothing of another token does. Kiwi, loaded in the test's own process, is the answer key for the
pieces. Screenshots go to artifacts/screenshots/app-stage-tokens-*.png.
"""

from __future__ import annotations

import re

import pytest

from .helpers import LOCALES, PROJECTOR, STAGE, assert_healthy, screenshot, set_sentences, stage, wait_idle, wait_stage, unavailable_reason

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

SENTENCE = "영화가 정말 좋았다"
SEL = re.compile(r"(^|\s)sel(\s|$)")


@pytest.fixture(scope="module")
def kiwi_pieces():
    from kiwipiepy import Kiwi

    return [(m.form, SENTENCE[m.start:m.start + m.len]) for m in Kiwi().tokenize(SENTENCE)]


def _three(b: int, t: int) -> dict[str, str]:
    where = f"[data-b='{b}'][data-t='{t}']"
    return {"text": f"{STAGE} .rawrow .rawtok{where}", "chip": f"{STAGE} .tokchip{where}", "cell": f"{STAGE} .idcell{where}"}


def _selected(page) -> dict[str, list[str]]:
    """Of each of the three forms, the (t) of the nodes that carry ``sel``."""
    out = {}
    for form, sel in _three(0, 0).items():
        base = sel.split("[data-b")[0]
        nodes = page.locator(base + ".sel")
        out[form] = sorted(nodes.nth(i).get_attribute("data-t") for i in range(nodes.count()))
    return out


@pytest.mark.parametrize("lang", list(LOCALES))
def test_a_token_clicked_lights_its_text_its_chip_and_its_id(new_page, app_url, lang, kiwi_pieces):
    page = new_page(LOCALES[lang], url=app_url + "/?tokenizer=morpheme")
    page.set_viewport_size(PROJECTOR)
    set_sentences(page, SENTENCE + " | 긍정")
    forms = [f for f, _ in kiwi_pieces]
    s = wait_stage(page, "(s, forms) => s.ids.length === 1 && s.ids[0].length >= 2 && s.ids[0][1].tok === forms[1]",
                   forms, timeout=120_000)
    assert forms[:2] == ["영화", "가"]
    # Each token's characters in the raw text are Kiwi's span of it; the chips are Kiwi's forms.
    for t, (form, piece) in enumerate(kiwi_pieces):
        three = _three(0, t)
        assert page.locator(three["text"]).first.text_content() == piece
        if t < len(s["ids"][0]):
            assert page.locator(three["chip"]).text_content() == form
    assert page.locator(f"{STAGE} .rawrow[data-b='0']").text_content() == SENTENCE

    page.locator(_three(0, 1)["chip"]).click()  # 가's chip
    wait_stage(page, "s => s.sel.length > 0 && s.wires > 0")
    wait_idle(page)
    assert _selected(page) == {"text": ["1"], "chip": ["1"], "cell": ["1"]}
    ga = page.locator(_three(0, 1)["cell"]).get_attribute("data-token")
    assert page.locator(f"{STAGE} .wpanel .wrow.sel").get_attribute("data-token") == ga  # id → W row, as before
    assert page.locator(f"{STAGE} .outpanel .wrow.sel").get_attribute("data-t") == "1"  # W row → output
    screenshot(page, f"app-stage-tokens-{lang}")

    page.locator(_three(0, 0)["text"]).first.click()  # 영화's characters in the raw text
    wait_stage(page, "(s, id) => s.sel.length > 0 && !s.sel.includes(id)", ga)
    wait_idle(page)
    assert _selected(page) == {"text": ["0"], "chip": ["0"], "cell": ["0"]}
    assert stage(page)["outTitle"]
    assert_healthy(page)


def test_in_a_long_batch_each_raw_sentence_keeps_a_line_of_its_own(new_page):
    page = new_page(LOCALES["ko"])
    page.set_viewport_size(PROJECTOR)
    set_sentences(page, "\n".join(f"영화 좋다 {i} | 긍정" for i in range(40)))
    wait_stage(page, "s => s.ids.length >= 2 && s.ids[0].length === 3", timeout=60_000)
    wait_idle(page)
    for b in (0, 1):
        row = page.locator(f"{STAGE} .rawrow[data-b='{b}']")
        assert row.text_content() == f"영화 좋다 {b}"
        height, line = row.evaluate("e => [e.getBoundingClientRect().height, parseFloat(getComputedStyle(e).lineHeight)]")
        assert height >= line, f"sentence {b}'s raw text is squeezed to {height:.1f} px"


def _output_rows(page) -> list[dict]:
    """The output panel's rows: position, token id, height, whether it shows numbers, its numbers'
    type size, and whether the grid can show it (in its box, or the grid scrolls)."""
    return page.locator(f"{STAGE} .outpanel .wgrid").evaluate("""g => {
      const gb = g.getBoundingClientRect();
      const scrolls = g.scrollHeight > g.clientHeight + 1 && getComputedStyle(g).overflowY === 'auto';
      return [...g.querySelectorAll('.wrow[data-t]')].map(r => {
        const b = r.getBoundingClientRect(), c = r.querySelector('.wcell');
        return {t: Number(r.dataset.t), id: Number(r.dataset.token), h: b.height,
                nums: !!(c && c.textContent), fs: c ? parseFloat(getComputedStyle(c).fontSize) : 0,
                reachable: scrolls || (b.top >= gb.top - 0.5 && b.bottom <= gb.bottom + 0.5)};
      });
    }""")


def _assert_output_readable(page, selected: int | None) -> None:
    """Every output row is reachable; a row with numbers is at least as tall as their type; with a
    token selected, its positions show numbers (the others may be strips of colour)."""
    rows = _output_rows(page)
    assert len(rows) == 30 and all(r["reachable"] for r in rows), rows
    for r in rows:
        assert not r["nums"] or r["h"] >= r["fs"], f"t={r['t']}: numbers of {r['fs']} px in a row of {r['h']:.1f} px"
    if selected is None:
        assert all(r["nums"] for r in rows), rows
    else:
        assert all(r["nums"] for r in rows if r["id"] == selected), rows


def _assert_math_is_torch(page, sel: int) -> None:
    """The selected token's note ("out[0, ids[0] == 2] == W[2]") is PyTorch that holds: evaluated on a
    fresh embedding of the batch's ids, every element is True, and it names every position."""
    import torch

    math = page.locator(f"{STAGE} .selnote .selmath").inner_text()
    assert re.fullmatch(r"out\[\d+, (\d+|\[[\d, ]+\]|ids\[\d+\] == \d+)\] == W\[\d+\]", math), math
    # The batch here is one sentence, and the output panel has a row for each of its positions.
    row = page.locator(f"{STAGE} .outpanel .wrow[data-t]").evaluate_all("rs => rs.map(r => Number(r.dataset.token))")
    ids = torch.tensor([row], dtype=torch.long)
    W = torch.nn.Embedding(int(ids.max()) + 1, 3).weight.detach()
    out = W[ids]
    names = {"out": out, "ids": ids, "W": W}
    assert eval(math, {"__builtins__": {}}, names).all(), math  # noqa: S307 (a pattern-checked expression)
    picked = eval(math.split(" == W[")[0], {"__builtins__": {}}, names)  # noqa: S307
    assert math.endswith(f"W[{sel}]")
    assert (1 if picked.dim() == 1 else picked.shape[0]) == int((ids[0] == sel).sum()), math


@pytest.mark.parametrize("lang", list(LOCALES))
def test_a_token_past_the_columns_that_fit_is_brought_into_view_when_selected(new_page, app_url, lang):
    """Thirty tokens in one sentence at a projector's size (presenting in Korean, not in English):
    the id matrix shows the first columns and counts the rest ("… +k"). Selecting the last token (its
    characters in the raw text) moves the columns so its cell is among them, whole and selected, with
    "… +k" on both sides; selecting a token already in view moves nothing, and a clicked cell stays in view; the "… +k"
    heads page the columns. The
    output's thirty rows stay readable: every position with numbers scrolls into reach, and the
    selected token's positions keep their numbers."""
    page = new_page(LOCALES[lang], url=app_url + ("/?present=1" if lang == "ko" else "/"))
    page.set_viewport_size(PROJECTOR)
    set_sentences(page, " ".join(["영화"] * 29 + ["나쁘다"]) + " | 부정")
    wait_stage(page, "s => s.ids.length === 1 && s.ids[0].length > 0 && s.ids[0].every(c => c.tok === '영화')", timeout=60_000)
    wait_idle(page)
    heads = lambda: [h for h in page.locator(f"{STAGE} .idgrid .idh.colh").all_text_contents() if h]  # noqa: E731 (the corner is empty)
    _assert_output_readable(page, None)
    first_heads = heads()
    fits = sum(h.startswith("t=") for h in first_heads)
    assert 1 <= fits < 30 and first_heads[-1] == f"\u2026 +{30 - fits}", first_heads

    page.locator(f"{STAGE} .rawrow .rawtok[data-b='0'][data-t='29']").click()
    cell = page.locator(f"{STAGE} .idcell[data-b='0'][data-t='29']")
    cell.wait_for(state="visible")
    wait_stage(page, "s => s.sel.length > 0")
    wait_idle(page)
    assert "sel" in cell.get_attribute("class").split()
    grid, box = page.locator(f"{STAGE} .idgrid").bounding_box(), cell.bounding_box()
    assert grid["x"] <= box["x"] and box["x"] + box["width"] <= grid["x"] + grid["width"] + 0.5, (grid, box)
    shifted = heads()
    shown = [int(h[2:]) for h in shifted if h.startswith("t=")]
    _assert_output_readable(page, int(cell.get_attribute("data-token")))
    _assert_math_is_torch(page, int(cell.get_attribute("data-token")))
    assert 29 in shown and shifted[0] == f"\u2026 +{shown[0]}" and len(shown) == max(1, fits - 1), shifted
    assert shown == list(range(shown[0], shown[-1] + 1))
    assert shifted[-1] == (f"\u2026 +{29 - shown[-1]}" if shown[-1] < 29 else "t=29")
    # The raw sentence above is scrolled with the columns: the token's characters are in view.
    line = page.locator(f"{STAGE} .rawrow[data-b='0']").bounding_box()
    piece = page.locator(f"{STAGE} .rawrow .rawtok[data-b='0'][data-t='29']").bounding_box()
    assert line["x"] - 0.5 <= piece["x"] and piece["x"] + piece["width"] <= line["x"] + line["width"] + 0.5, (line, piece)

    marker = lambda side: page.locator(f"{STAGE} .idgrid .idh.colh.idmore[data-side='{side}']")  # noqa: E731
    # 영화's row of W: 영화 is in view (t=27, 28), so the columns stay where they are.
    page.locator(f"{STAGE} .wpanel .wrow[data-token='2']").click()
    wait_stage(page, "s => s.sel.includes('2')")
    wait_idle(page)
    assert heads() == shifted
    _assert_math_is_torch(page, 2)

    # The column heads' "… +k" page through the columns, by click and by keyboard, with no server run.
    while marker("prev").count():
        marker("prev").click()
    assert heads() == first_heads
    marker("next").click()
    page.locator(f"{STAGE} .idcell[data-b='0'][data-t='{fits}']").wait_for(state="visible")
    paged = heads()
    on_page = [int(h[2:]) for h in paged if h.startswith("t=")]
    assert on_page[0] == fits and paged[0] == f"\u2026 +{fits}", paged
    assert page.locator(f"{STAGE} .idcell.sel[data-b='0'][data-t='{fits}']").count() == 1  # 영화, still selected
    marker("next").focus()
    page.keyboard.press("Enter")
    page.locator(f"{STAGE} .idcell[data-b='0'][data-t='{on_page[-1] + 1}']").wait_for(state="visible")
    assert page.evaluate("() => document.activeElement.closest('.st-key-stage') !== null")  # focus stays on the stage
    # A cell clicked on a paged window stays in view (it is a later place of 영화 than the first), and
    # keeps the keyboard's focus through the page's rerun.
    paged = heads()
    later = page.locator(f"{STAGE} .idcell[data-b='0'][data-t='{on_page[-1] + 1}']")
    later.focus()
    page.keyboard.press("Enter")
    wait_idle(page)
    assert heads() == paged and "sel" in later.get_attribute("class").split()
    assert later.evaluate("c => c.getRootNode().activeElement === c"), "the cell lost the keyboard's focus"
    # 나쁘다's row of W, out of view on this page: its place (t=29) comes into view.
    page.locator(f"{STAGE} .wpanel .wrow[data-token='4']").click()
    page.locator(f"{STAGE} .idcell[data-b='0'][data-t='29']").wait_for(state="visible")
    while marker("prev").count():
        marker("prev").click()
    assert heads() == first_heads
    assert_healthy(page)
