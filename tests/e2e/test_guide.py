"""The first-visit guide in Chromium (components/guide): it opens on a first visit, its five steps
advance with a ring around the element each names, closing it is remembered across a reload, the
sidebar's button opens it again, and what localStorage holds is not trusted.

These tests use their own server (`guided_app_url`): the shared one runs with the guide turned off,
as a teacher would for a class.
"""

from __future__ import annotations

import pytest

from .helpers import (LAPTOP, PROJECTOR, button, grid_rows, label, open_app, open_editors, section, stage_ids,
                      unavailable_reason, wait_idle, wait_js, wait_step)

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

STORAGE = "nn-embedding-explorer.guide"
# The guide's dialog (in its component's shadow root), its ring, and the element the ring is around:
# resolved from the step's own host key and selector, as the guide names them in data-target.
GUIDE_JS = r"""() => {
  const roots = [...document.querySelectorAll('.st-key-guide *')].map(e => e.shadowRoot).filter(Boolean);
  const root = roots.find(r => r.querySelector('[data-testid="guide"]'));
  if (!root) return null;
  const box = root.querySelector('[data-testid="guide"]'), ring = root.querySelector('.guide-ring');
  const shown = !box.hidden && box.getClientRects().length > 0;
  const out = {shown, step: Number(box.dataset.step), target: box.dataset.target || '',
               title: (root.querySelector('.guide-title') || {}).textContent, count: root.querySelector('.guide-count').textContent};
  if (!shown || !out.target) return out;
  const [host, ...inner] = out.target.split(' ');
  const hostEl = [...document.querySelectorAll('.st-key-' + host)].find(h => h.getClientRects().length);
  let el = null;
  const sel = inner.join(' ');
  if (hostEl) {
    el = sel && hostEl.querySelector(sel);
    if (!el && sel) for (const e of hostEl.querySelectorAll('*')) { if (e.shadowRoot && (el = e.shadowRoot.querySelector(sel))) break; }
    el = el || hostEl;
  }
  const r = el ? el.getBoundingClientRect() : null, q = ring.getBoundingClientRect();
  out.ringAround = !!r && !ring.hidden && r.width > 0 && q.left <= r.left && q.top <= r.top && q.right >= r.right && q.bottom >= r.bottom
    && q.width <= r.width + 20 && q.height <= r.height + 20;
  out.inWindow = !!r && r.bottom > 0 && r.top < innerHeight;
  const b = box.getBoundingClientRect();
  out.boxInWindow = b.left >= 0 && b.top >= 0 && b.right <= innerWidth && b.bottom <= innerHeight;
  return out;
}"""
TARGETS = ["stage .idspanel", 'stage .wpanel .wrow[data-token="2"]', "stage .outpanel", "step button",
           'stage [data-role="pad"]']
VIEWS = ["lookup", "lookup", "lookup", "train", "train"]


def guide(page) -> dict | None:
    return page.evaluate(GUIDE_JS)


def wait_guide(page, shown: bool, step: int | None = None) -> dict:
    """The guide once it is (not) shown and, at ``step``, its ring is around its target with the ring
    and the box in the window: the reading that met the condition (a later reading could catch the
    ring following a layout that moved in between)."""
    held = "true" if step is None else f"g.step === {step} && g.ringAround && g.inWindow && g.boxInWindow"
    wait_idle(page)
    handle = page.wait_for_function(f"""() => {{ const g = ({GUIDE_JS})();
        return g && g.shown === {str(shown).lower()} && ({held}) ? g : false; }}""", timeout=30_000, polling=100)
    return handle.json_value()


VIEW_JS = """() => { const b = [...document.querySelectorAll('.st-key-section button')]
  .find(b => b.getAttribute('aria-checked') === 'true' && b.getClientRects().length); return b ? b.textContent : ''; }"""


def view(page) -> str:
    return page.evaluate(VIEW_JS)


def shows_view(page, text: str, timeout: float = 30_000) -> bool:
    """Whether the view switch shows ``text`` chosen, once it is drawn (a rerun may be redrawing it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"(t) => ({VIEW_JS})() === t", arg=text, timeout=timeout, polling=100)
    except PlaywrightTimeout:
        return False
    return True


def context(browser, locale: str, viewport: dict, init: str | None = None):
    ctx = browser.new_context(locale=locale, viewport=dict(viewport))
    ctx.set_default_timeout(30_000)
    if init is not None:
        ctx.add_init_script(init)
    return ctx


@pytest.mark.parametrize("lang, viewport", [("ko", PROJECTOR), ("en", LAPTOP)])
def test_the_guide_opens_on_a_first_visit_walks_five_steps_and_stays_closed_after_a_reload(
        browser, guided_app_url, lang, viewport):
    ctx = context(browser, "ko-KR" if lang == "ko" else "en-US", viewport)
    try:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        open_app(page, guided_app_url)
        for i in range(5):
            g = wait_guide(page, True, i)
            assert g["target"] == TARGETS[i] and g["ringAround"] and g["inWindow"] and g["boxInWindow"], g
            assert g["title"] == label(lang, f"guide.{['ids', 'row', 'out', 'step', 'pad'][i]}.title")
            assert g["count"] == label(lang, "guide.of", i=i + 1, n=5)
            assert shows_view(page, label(lang, f"section.{VIEWS[i]}")), view(page)  # the page shows the step's view
            page.locator(".st-key-guide").locator(".guide-next").click()
        wait_guide(page, False)
        assert page.evaluate(f"() => localStorage.getItem('{STORAGE}')") == '{"v":1,"done":true}'
        open_app(page, guided_app_url + "/?section=lookup")
        wait_idle(page)
        g = guide(page)
        assert g is not None and not g["shown"]  # mounted, and remembered closed
        button(page, "guide_open").click()  # the learner opens it again
        g = wait_guide(page, True, 0)
        assert shows_view(page, label(lang, "section.lookup")), view(page)
        assert not errors
    finally:
        ctx.close()


@pytest.mark.parametrize("stored", ['{"v":1,"done":"yes"}', "{not json", '{"v":2,"done":true}', '[1]',
                                    '{"v":1,"done":true,"x":"' + "a" * 300 + '"}'])
def test_what_local_storage_holds_is_not_trusted(browser, guided_app_url, stored):
    init = f"localStorage.setItem({STORAGE!r}, {stored!r});"
    ctx = context(browser, "ko-KR", PROJECTOR, init)
    try:
        page = ctx.new_page()
        open_app(page, guided_app_url)
        wait_guide(page, True, 0)  # not a closed guide: it opens
    finally:
        ctx.close()


def test_a_teacher_turns_it_off_in_the_address_and_the_close_button_closes_it(browser, guided_app_url):
    ctx = context(browser, "ko-KR", PROJECTOR)
    try:
        page = ctx.new_page()
        open_app(page, guided_app_url + "/?guide=off")
        wait_idle(page)
        g = guide(page)
        assert g is not None and not g["shown"]
        button(page, "guide_open").click()  # still there for a learner who asks
        wait_guide(page, True, 0)
        page.locator(".st-key-guide").locator(".guide-close").click()
        wait_guide(page, False)
        assert page.evaluate(f"() => localStorage.getItem('{STORAGE}')") == '{"v":1,"done":true}'
    finally:
        ctx.close()


def test_the_guide_waits_out_of_the_way_on_a_view_that_is_not_its_step(browser, guided_app_url):
    """A learner who leaves the guide's view for another (here ②, with the guide on its first step,
    which is on ①) gets the page to themselves: no dialog over the bar, every click lands, Step after
    Step. Back on ①, the guide is where they left it; it was not closed, so nothing is remembered."""
    ctx = context(browser, "ko-KR", PROJECTOR)
    try:
        page = ctx.new_page()
        open_app(page, guided_app_url)
        wait_guide(page, True, 0)
        section(page, "ko", "train")
        wait_guide(page, False)
        for n in (1, 2, 3):
            button(page, "step").click()
            wait_step(page, n)
        section(page, "ko", "lookup")
        assert wait_guide(page, True, 0)["step"] == 0
        assert page.evaluate(f"() => localStorage.getItem('{STORAGE}')") is None
    finally:
        ctx.close()


# What the page holds of the learner's input, read without touching it: the sentences box (drawn
# inside the folded inputs box), the knobs (in the sidebar, or in the training bar's popover: null
# where not drawn), the inputs box's title (its counts) and whether any input's error box is shown.
INPUTS_JS = r"""() => {
  const value = (k, sel) => { const e = document.querySelector('.st-key-' + k + ' ' + sel); return e ? e.value : null; };
  const title = document.querySelector('.st-key-editors summary');
  return {sentences: value('sentences', 'textarea'), embedding_dim: value('embedding_dim', 'input'),
          seed: value('seed', 'input'), lr: value('lr', 'input'), title: title ? title.innerText : null,
          errors: [...document.querySelectorAll('[class*="st-key-problems_"]')].map(e => e.innerText)};
}"""


def slow_network(ctx, page, latency_ms: int = 400) -> None:
    """Every request of ``page`` answered ``latency_ms`` late (Chromium's own network emulation): the
    widgets whose code Streamlit loads on demand show skeletons for longer after the first run, as on
    a slow school network. That is when a run asked for too early finds the browser without their values."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": latency_ms,
                                                  "downloadThroughput": -1, "uploadThroughput": -1})


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_walking_the_guide_from_the_bare_address_keeps_every_input(browser, guided_app_url, lang):
    """A first visit on the bare address (no ``?lang=``), on a slow network: the learner clicks Next as
    soon as the guide shows, through all five steps. Before and after each step the sentences, the
    knobs and the vocabulary are what the example gave, and no input reports a problem."""
    import json
    from pathlib import Path

    chapter = json.loads((Path(__file__).resolve().parents[2] / "assets/presets/chapter.json").read_text("utf-8"))
    ctx = context(browser, "ko-KR" if lang == "ko" else "en-US", LAPTOP)
    try:
        page = ctx.new_page()
        slow_network(ctx, page)
        page.goto(guided_app_url)
        first = None
        for i in range(5):
            wait_guide(page, True, i)
            held = page.evaluate(INPUTS_JS)
            assert held["errors"] == [], (i, held)
            assert held["embedding_dim"] in (None, str(chapter["config"]["embedding_dim"])), (i, held)
            assert held["sentences"] in (None, chapter["sentences"]), (i, held)  # None: not drawn while folded
            first = first or held
            assert all(v is None or first[k] is None or v == first[k] for k, v in held.items()), (i, held, first)
            page.locator(".st-key-guide").locator(".guide-next").click()
        wait_guide(page, False)
        wait_idle(page)
        held = page.evaluate(INPUTS_JS)
        assert held["errors"] == [] and held["embedding_dim"] == str(chapter["config"]["embedding_dim"]), held
        assert all(v is None or first[k] is None or v == first[k] for k, v in held.items()), (held, first)
        section(page, lang, "lookup")
        assert stage_ids(page) == [[2, 0, 3], [2, 4, 1]]  # C16: the example's ids, still
        open_editors(page)
        assert page.locator(".st-key-sentences textarea").input_value() == chapter["sentences"]
        rows = grid_rows(page, "vocab")
        assert [r[1:4] for r in rows[1:]] == [[t, str(i), r or "normal"] for t, i, r in chapter["vocab"]], rows
    finally:
        ctx.close()
