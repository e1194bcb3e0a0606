"""The stage's legend with 20 classes of 40-character names (issue 36), in Chromium on made-up data
(tests/e2e/stage_app.py ``classes=20``): the head keeps its fixed height, and every class's entry can
still be read there, by scrolling the legend's entries, its whole name in its title."""

from __future__ import annotations

import pytest

from .helpers import PROJECTOR, STAGE, unavailable_reason
from .test_stage import light_url, open_stage  # noqa: F401 - the stage app's fixtures

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

_ENTRIES_JS = """(root) => {
  const items = root.querySelector('.legenditems'), head = root.querySelector('.head');
  const out = [];
  for (const it of root.querySelectorAll('.lg-used')) {
    it.scrollIntoView({block: 'nearest'});
    const r = it.getBoundingClientRect(), v = items.getBoundingClientRect(), h = head.getBoundingClientRect();
    out.push({title: it.getAttribute('title'), inView: r.top >= v.top - 0.5 && r.bottom <= v.bottom + 0.5 && r.bottom <= h.bottom + 0.5,
              scrolls: ['auto', 'scroll'].includes(getComputedStyle(items).overflowY)});
  }
  return {entries: out, head: h_of(head)};
  function h_of(e) { return e.getBoundingClientRect().height; }
}"""


@pytest.mark.parametrize("present", ["0", "1"])
def test_twenty_long_class_names_each_have_a_reachable_legend_entry(open_stage, light_url, present):  # noqa: F811
    page = open_stage(light_url, f"n=60&classes=20&present={present}", **PROJECTOR)
    found = page.locator(STAGE).evaluate(_ENTRIES_JS)
    titles = [e["title"] for e in found["entries"]]
    assert len([t for t in titles if "분류" in t]) == 20, titles  # one entry a class, the whole name in its title
    assert all(e["scrolls"] and e["inView"] for e in found["entries"]), found["entries"]
    assert found["head"] <= (84 if present == "1" else 64) + 0.5  # the fixed head: the plot below does not move
    assert not page.stage_errors
