"""The scatter's labels never cover each other and never leave the plot (issue 37, defect 5): at the 40
reviews, where `<PAD>`, `<UNK>` and the words near them pile up in the middle and a word at the
right edge was cut, at a laptop's 1440×900 and presenting at a projector's 1280×720.

Measured in Chromium from the rendered text boxes (getBoundingClientRect of each shown label)
against the plot's frame: on a settled picture before and after training, at every animation frame
of Play, and while the pointer hovers a point in the crowded middle, whose label then shows; the
selected token's label shows throughout.
"""

from __future__ import annotations

import pytest

from .helpers import (JS_LIB, LAPTOP, PROJECTOR, STAGE, pause, play_until, run_steps, unavailable_reason, wait_js, wait_stage,
                      wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

from .test_presentation import switch_presentation  # noqa: E402  (after the skip: it needs playwright)

pytestmark = pytest.mark.e2e

# Each shown label's box and the plot's frame, then what breaks the two rules: a label outside the
# frame, two labels that meet (by more than a rounding of half a pixel).
CHECK_JS = """() => {
  const s = __stage();
  const frame = s.querySelector('.scatter .axes rect.frame').getBoundingClientRect();
  const shown = [...s.querySelectorAll('.scatter .pt .lbl')].filter(l => getComputedStyle(l).display !== 'none');
  const boxes = shown.map(l => { const r = l.getBoundingClientRect(), g = l.closest('.pt');
    return {t: l.textContent, role: g.dataset.role, sel: g.classList.contains('sel'), hl: g.classList.contains('hl'),
            l: r.left, r: r.right, top: r.top, bot: r.bottom}; });
  const bad = [];
  for (const b of boxes) {
    if (b.l < frame.left - 0.5 || b.r > frame.right + 0.5 || b.top < frame.top - 0.5 || b.bot > frame.bottom + 0.5) {
      bad.push(`${b.t} leaves the plot (${[b.l - frame.left, frame.right - b.r, b.top - frame.top, frame.bottom - b.bot].map(v => v.toFixed(1))})`);
    }
  }
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.top < b.bot - 0.5 && b.top < a.bot - 0.5) bad.push(`${a.t} × ${b.t}`);
  }
  return {n: boxes.length, roles: boxes.map(b => b.role), sel: boxes.filter(b => b.sel).map(b => b.t),
          hl: boxes.filter(b => b.hl).map(b => b.t), bad, step: s.dataset.step};
}"""

# CHECK_JS at every animation frame until stopped: how many frames, and the first few that broke a rule.
RECORD_JS = """() => {
  window.__labels = {frames: 0, bad: []};
  const check = """ + CHECK_JS + """;
  const tick = () => {
    if (!window.__labelsOn) return;
    const got = check();
    window.__labels.frames += 1;
    if (got.bad.length && window.__labels.bad.length < 10) window.__labels.bad.push([got.step, got.bad]);
    requestAnimationFrame(tick);
  };
  window.__labelsOn = true;
  requestAnimationFrame(tick);
}"""


def nearest_pad(page) -> tuple[str, tuple[float, float]]:
    """The token drawn nearest PAD, neither PAD nor the selected one, whose mark's centre is not under
    anything else (the pointer reaches it there), and that centre on the page."""
    return page.locator(STAGE).evaluate("""(s) => {
      const c = (g) => { const r = g.querySelector('.mark').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
      const pad = c(s.querySelector('.pt[data-role="pad"]'));
      const others = [...s.querySelectorAll('.pt:not([data-role="pad"]):not(.sel)')].map(g => [g.dataset.token, c(g), g]);
      others.sort((a, b) => Math.hypot(a[1][0] - pad[0], a[1][1] - pad[1]) - Math.hypot(b[1][0] - pad[0], b[1][1] - pad[1]));
      const top = (p) => { const e = s.getRootNode().elementFromPoint(p[0], p[1]); return e && e.closest('.pt'); };
      const free = others.find(([, p, g]) => top(p) === g);
      return free ? [free[0], free[1]] : null;
    }""")


def check(page) -> dict:
    return page.evaluate(f"() => {{ {JS_LIB}; return ({CHECK_JS})(); }}")


def assert_labels(page, when: str) -> dict:
    got = check(page)
    assert got["bad"] == [], f"{when}: {got['bad']}"
    assert got["sel"], f"{when}: the selected token's label is not shown ({got})"
    assert got["n"] >= 10 and "pad" in got["roles"], f"{when}: {got}"
    return got


@pytest.mark.parametrize("lang, size, present", [("ko", LAPTOP, False), ("en", PROJECTOR, True), ("ko", PROJECTOR, True)],
                         ids=["ko-1440x900", "en-1280x720-presenting", "ko-1280x720-presenting"])
def test_labels_never_meet_nor_leave_the_plot_and_the_selected_and_hovered_ones_show(new_page, app_url, lang, size, present):
    page = new_page("ko-KR" if lang == "ko" else "en-US", url=f"{app_url}/?section=train&lang={lang}&preset=reviews_{lang}")
    page.set_viewport_size(size)
    if present:
        switch_presentation(page)
    wait_step(page, 0)
    chosen, _ = nearest_pad(page)  # selected in the crowded middle, where its label has the least room
    page.locator(f"{STAGE} .pt[data-token='{chosen}']").first.dispatch_event("click")
    wait_js(page, "(t) => { const s = __stage(); return s.querySelector(`.pt.sel[data-token='${t}']`) !== null; }", chosen)
    wait_stage(page, "(s, t) => s.sel.includes(t)", chosen)
    page.mouse.move(1, 1)
    assert_labels(page, "step 0")
    run_steps(page, lang, 50, 0)
    page.mouse.move(1, 1)
    assert_labels(page, "step 50")

    page.evaluate(f"() => {{ {JS_LIB}; ({RECORD_JS})(); }}")
    play_until(page, lang, 75)
    paused = pause(page, lang)
    played = page.evaluate("() => { window.__labelsOn = false; return window.__labels; }")
    assert played["frames"] > 30 and played["bad"] == [], played
    assert_labels(page, f"paused at {paused}")

    # The pointer on the point nearest PAD, in the crowded middle: its label shows, the others make room.
    token, (x, y) = nearest_pad(page)
    page.mouse.move(x, y)
    wait_js(page, "(t) => { const s = __stage(); return s.querySelector(`.pt.hl[data-token='${t}']`) !== null; }", token, idle=False)
    got = assert_labels(page, f"hovering token {token}")
    assert len(got["hl"]) == 1, got
