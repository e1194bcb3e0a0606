"""A stranger's link in a real browser (issue 26): the app opened from a share link whose every
token, class and sentence is hostile (tests/hostile_tour.py) fetches nothing outside its own
server and draws no image or link of the link's making, on every view: the lookup stage, the
training view after a Step, lesson C1's fact table (``st.table``), the share view.

Every request the page makes is routed: one outside 127.0.0.1 is recorded and refused.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.hostile_tour import hostile_link

from .helpers import button, open_app, refuse_outside, section, unavailable_reason, wait_idle, wait_js, wait_step

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

MADE_BY_THE_LINK = "e.x"  # every address in the hostile corpus is on this made-up host

COUNT_JS = """(host) => {
  const main = document.querySelector('[data-testid=stMain]');
  const inTree = (root, sel) => {  // the page and the components' shadow roots
    let found = Array.from(root.querySelectorAll(sel));
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) found = found.concat(inTree(e.shadowRoot, sel));
    return found;
  };
  return {
    images: inTree(main, 'img, image, source, video, audio, iframe, object, embed').filter(e =>
      (e.getAttribute('src') || e.getAttribute('href') || e.getAttribute('data') || '').includes(host)).length,
    links: inTree(main, 'a').filter(a => (a.getAttribute('href') || '').includes(host)).length,
    markdownImages: main.querySelectorAll('[data-testid=stMarkdownContainer] img, [data-testid=stTable] img').length,
    plotlyLinks: main.querySelectorAll('.js-plotly-plot svg a').length,
    tables: main.querySelectorAll('[data-testid=stTable]').length,
  };
}"""


def test_a_hostile_link_fetches_nothing_outside_and_draws_no_image_or_link_of_its_own(new_page, app_url):
    page = new_page("ko-KR", load=False)
    outside = refuse_outside(page, app_url)
    open_app(page, f"{app_url}/?{urlencode({**hostile_link('ko'), 'lang': 'ko'})}")
    seen = {}
    for name in ("lookup", "train", "lessons", "share"):
        section(page, "ko", name)
        if name == "train":
            wait_step(page, 3)
            button(page, "step").click()
            wait_step(page, 4)
        if name == "lessons":
            wait_js(page, "() => document.querySelector('[data-testid=stTable]') !== null")  # C1's facts, guided
        wait_idle(page)
        seen[name] = page.evaluate(COUNT_JS, MADE_BY_THE_LINK)
    drawn = {name: {k: v for k, v in c.items() if k != "tables"} for name, c in seen.items()}
    assert all(not any(c.values()) for c in drawn.values()), drawn
    assert seen["lessons"]["tables"] > 0  # lesson C1's fact table was drawn, and drew no image
    assert outside == []
    assert not page.e2e_js_errors
