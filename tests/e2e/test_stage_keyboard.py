"""The stage by keyboard and screen reader (issue 37, #9): arrow keys move between the id matrix's
cells, focus stays where the action was after the server's answer redraws the stage, and each cell
is a button with a name that says what it holds (read from the accessibility tree)."""

from __future__ import annotations

import pytest

from .helpers import STAGE, assert_healthy, label, wait_idle, wait_stage

pytestmark = pytest.mark.e2e

# The focused node inside the stage's shadow root, as (b, t) of a cell, or its tag when it is not one.
FOCUSED_JS = """() => {
  const host = document.querySelector('.st-key-stage');
  for (const e of host.querySelectorAll('*')) {
    if (!e.shadowRoot) continue;
    const a = e.shadowRoot.activeElement;
    if (!a) return document.activeElement ? document.activeElement.tagName : null;
    return a.classList.contains('idcell') ? [Number(a.dataset.b), Number(a.dataset.t)] : a.tagName;
  }
  return null;
}"""


@pytest.mark.parametrize("lang,locale", [("ko", "ko-KR"), ("en", "en-US")])
def test_cells_are_named_buttons_that_arrow_keys_move_between_and_focus_survives_the_answer(new_page, lang, locale):
    page = new_page(locale)
    cell = page.locator(f"{STAGE} .idcell[data-b='0'][data-t='1']")
    name = label(lang, "stage.cell_name").format(b=0, t=1, typed="정말", id=0, token="<UNK>")
    assert name.startswith("b=0, t=1: 정말, ") and "<UNK>" in name
    snapshot = cell.aria_snapshot()
    assert f'button "{name}"' in snapshot, snapshot
    cell.focus()
    assert page.evaluate(FOCUSED_JS) == [0, 1]
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED_JS) == [0, 2]
    page.keyboard.press("ArrowDown")
    assert page.evaluate(FOCUSED_JS) == [1, 2]
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(FOCUSED_JS) == [1, 1]
    page.keyboard.press("Enter")  # selects 나쁘다 (id 4) in sentence b=1: the server redraws the stage
    wait_stage(page, "s => s.outTitle && s.outTitle.includes('b=1') && s.sel.includes('4')")
    wait_idle(page)
    assert page.evaluate(FOCUSED_JS) == [1, 1]  # not <body>
    page.keyboard.press("ArrowUp")
    assert page.evaluate(FOCUSED_JS) == [0, 1]
    # Every cell has a name of its own in the accessibility tree.
    tree = page.locator(f"{STAGE} .idspanel").aria_snapshot()
    assert tree.count("button \"b=") == 6, tree
    assert_healthy(page)


def test_no_image_on_the_training_stage_is_nameless_and_no_field_name_has_backticks(new_page):
    """Issue 37, #9: the legend's six shape images had no name; a field name read '`W`에서'."""
    from .helpers import section

    page = new_page("ko-KR")
    section(page, "ko", "train")
    nameless = page.evaluate("""() => {
      const host = document.querySelector('.st-key-stage');
      let root = null;
      for (const e of host.querySelectorAll('*')) if (e.shadowRoot && e.shadowRoot.querySelector('[data-testid="stage"]')) { root = e.shadowRoot; break; }
      return Array.from(root.querySelectorAll('svg, img, [role="img"]')).filter(n =>
        !n.closest('[aria-hidden="true"]') && !(n.getAttribute('aria-label') || n.getAttribute('alt') || n.querySelector('title'))
        && (n.getAttribute('role') === 'img' || n.tagName.toLowerCase() === 'img' || n.classList.contains('icon') || n.classList.contains('spark')))
        .map(n => n.outerHTML.slice(0, 80));
    }""")
    assert nameless == [], nameless
    section(page, "ko", "lookup")
    labels = page.evaluate("() => Array.from(document.querySelectorAll('textarea, input')).map(e => e.getAttribute('aria-label') || '')")
    assert not [x for x in labels if "`" in x], labels
