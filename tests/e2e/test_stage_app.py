"""The stage inside the app, in Chromium, as issue 14 says a learner and a teacher see it.

- One screen: at 1280×720 (a classroom projector) and 1440×900, in Korean and English, the Step
  button, W and the scatter are fully inside the viewport on the training view, and the id matrix,
  W and the output on the lookup view, with the page scrolled to its top.
- Linked highlighting: pointing at a scatter point lights up the same token's row of W (the DOM's
  ``hl`` class), and nothing else.
- The fixed frame: the PAD point's pixel position does not change across 5 Steps, Play and Pause,
  Run 20 and timeline moves.
- Screenshots of the stage at 1280×720 in both languages go to artifacts/screenshots/app-stage-*.png
  (and to docs/stage-*.png with E2E_DOCS_SCREENSHOTS=1).

The stage's own tests on made-up data are test_stage.py; these run the real app.
"""

from __future__ import annotations

import os

import pytest

from .helpers import (LOCALES, LAPTOP, PROJECTOR, ROOT, SCREENSHOTS, STAGE, button, click_token, label, run_steps,
                      section, pause, play_until, stage, step_once, unavailable_reason, wait_idle, wait_js, wait_stage, wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

SIZES = {"1280x720": PROJECTOR, "1440x900": LAPTOP}

# What must be on the first screen of each view: a name → (where: "page" or "stage", CSS selector).
ON_SCREEN = {
    "train": {"Step button": ("page", ".st-key-step button"), "W heatmap": ("stage", ".panel.wpanel"),
              "scatter": ("stage", ".panel.scatter")},
    "lookup": {"id matrix": ("stage", ".panel.idspanel"), "W": ("stage", ".panel.wpanel"),
               "output": ("stage", ".panel.outpanel")},
}

_BOXES_JS = """(items) => {
  const host = document.querySelector('.st-key-stage');
  let root = null;
  for (const e of host.querySelectorAll('*')) if (e.shadowRoot && e.shadowRoot.querySelector('[data-testid="stage"]')) { root = e.shadowRoot; break; }
  const out = {};
  for (const [name, [where, sel]] of Object.entries(items)) {
    const el = (where === 'page' ? document : root).querySelector(sel);
    if (!el) { out[name] = null; continue; }
    const r = el.getBoundingClientRect();
    out[name] = {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  }
  return {boxes: out, w: window.innerWidth, h: window.innerHeight};
}"""


def overflow(page, view: str) -> dict[str, str]:
    """Each element not fully inside the viewport → by how many px it sticks out, and where."""
    found = page.evaluate(_BOXES_JS, ON_SCREEN[view])
    w, h, out = found["w"], found["h"], {}
    for name, b in found["boxes"].items():
        if b is None:
            out[name] = "not drawn"
            continue
        sides = {"left": -b["left"], "top": -b["top"], "right": b["right"] - w, "bottom": b["bottom"] - h}
        past = {side: round(px) for side, px in sides.items() if px > 0.5}
        if past:
            out[name] = ", ".join(f"{px} px past the {side} edge" for side, px in past.items())
    return out


# Measured on 2026-11-30 (Debian's Chromium, fonts-noto-cjk, the chapter's example): the stage is 540 px
# (training) / 520 px (lookup) tall below the controls, which does not fit under 720 px. Strict: a fix turns these into failures
# that ask for the marker to go.
KNOWN_OVERFLOW: dict[tuple[str, str, str], str] = {}  # (size, lang, view) → why it still overflows


@pytest.mark.parametrize("lang, view", [(lang, view) for lang in LOCALES for view in ON_SCREEN])
def test_each_view_fits_one_screen_and_is_pictured_at_the_projectors_size(new_page, lang, view):
    """At each size in turn, the page resized to it as a window or a projector's resolution is. Then
    the picture at projector size: training after 20 steps, lookup with 영화 selected (docs/stage-*.png)."""
    page = new_page(LOCALES[lang])
    if view == "train":
        section(page, lang, "train")
        step_once(page, 1)  # a learner trains: from the first step on, the timeline sits above the stage
    for size in SIZES:
        page.set_viewport_size(SIZES[size])
        wait_stage(page, "(s, m) => s.mode === m", view)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        wait_idle(page)
        problems = overflow(page, view)
        reason = KNOWN_OVERFLOW.get((size, lang, view))
        if reason:  # strict: a fix asks for the marker to go
            assert problems, f"{view} view, {lang}, {size} fits now: remove its KNOWN_OVERFLOW marker ({reason})"
        else:
            assert not problems, f"{view} view, {lang}, {size}: " + "; ".join(f"{k}: {v}" for k, v in problems.items())
    picture(page, view, lang)


def picture(page, view: str, lang: str) -> None:
    page.set_viewport_size(PROJECTOR)
    if view == "train":
        s = run_steps(page, lang, 19, start=1)
        assert s["step"] == "20"
    else:
        click_token(page, ".idcell[data-b='0'][data-t='0']")
        s = wait_stage(page, "s => s.sel.length > 0")
        assert s["wires"] >= 2
    page.mouse.move(1, 1)  # no hover highlight in the picture
    wait_js(page, "() => stage().hl.length === 0")
    page.evaluate("() => { const m = document.querySelector('[data-testid=stMain]'); if (m) m.scrollTop = 0; window.scrollTo(0, 0); }")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = f"stage-{'train' if view == 'train' else 'lookup'}-{lang}.png"
    page.screenshot(path=str(SCREENSHOTS / f"app-{name}"))
    if os.environ.get("E2E_DOCS_SCREENSHOTS") == "1":
        page.screenshot(path=str(ROOT / "docs" / name))


def test_hovering_a_scatter_point_lights_up_its_w_row(ko_page):
    page = ko_page
    section(page, "ko", "train")
    selected = step_once(page, 1)["sel"]  # the training view follows 영화 from the start (the token picker)
    for token in ("2", "4"):  # 영화 and 나쁘다 (never-looked-up rows are hollow rings: only their outline takes the pointer)
        page.locator(f"{STAGE} .pt[data-token='{token}'] .mark").hover()
        wait_js(page, "(t) => stage().hl.includes(t)", token, idle=False)
        s = stage(page)
        assert "hl" in next(r["cls"] for r in s["w"] if r["id"] == int(token)), f"W row {token} is not lit"
        assert set(s["hl"]) == {token}, f"hovering {token} lit {sorted(set(s['hl']))}"
    page.mouse.move(2, 2)
    wait_js(page, "() => stage().hl.length === 0", idle=False)
    assert stage(page)["sel"] == selected, "a hover changed the selection"


def _pad_spot(page) -> tuple[float, float]:
    """Where the PAD point's mark is drawn (its top-left corner), relative to the stage (the page itself may scroll)."""
    a = page.locator(f"{STAGE} .pt[data-role='pad'] .mark").bounding_box()
    r = page.locator(STAGE).bounding_box()
    return round(a["x"] - r["x"], 2), round(a["y"] - r["y"], 2)


def _why(page) -> str:
    """What moves it: the point's own transform in the plot, and the plot's place in the stage."""
    t = page.locator(f"{STAGE} .pt[data-role='pad']").get_attribute("transform")
    p, r = page.locator(f"{STAGE} .plot").bounding_box(), page.locator(STAGE).bounding_box()
    return f"{t}, plot at y={p['y'] - r['y']:.1f}"


def _ticks(page) -> list[str]:
    """The scatter's tick labels and where they stand: they change when the axis ranges do."""
    return page.locator(f"{STAGE} .plot .tick").evaluate_all(
        "ts => ts.map(t => t.textContent + '@' + t.getAttribute('x') + ',' + t.getAttribute('y'))")


def test_the_pad_point_does_not_move_by_a_pixel(ko_page):
    page = ko_page
    section(page, "ko", "train")
    wait_step(page, 0)
    spots = [("step 0", _pad_spot(page), _why(page))]
    for n in range(1, 6):
        step_once(page, n)
        spots.append((f"Step → {n}", _pad_spot(page), _why(page)))
    play_until(page, "ko", 5 + 10)
    spots.append(("playing", _pad_spot(page), _why(page)))
    paused = pause(page, "ko")
    spots.append((f"Pause at {paused}", _pad_spot(page), _why(page)))
    run_steps(page, "ko", 20, start=paused)
    spots.append((f"Run 20 → {paused + 20}", _pad_spot(page), _why(page)))
    slider = page.locator(".st-key-timeline input[type=range]")
    for key, where in (("Home", "0"), ("ArrowRight", None), ("End", str(paused + 20))):
        slider.focus()
        page.keyboard.press(key)
        s = wait_stage(page, "(s, n) => n === null ? s.step !== '0' : s.step === n", where)
        spots.append((f"timeline {key} → {s['step']}", _pad_spot(page), _why(page)))
    # Past the preview's steps the points leave the first ranges and the view zooms out: about PAD.
    ticks = _ticks(page)
    end = run_steps(page, "ko", 100, start=paused + 20)["step"]
    assert _ticks(page) != ticks, f"the axes did not widen by step {end}: this test no longer sees a zoom"
    spots.append((f"Run 100 → {end} (the view zoomed out)", _pad_spot(page), _why(page)))
    first = spots[0][1]
    moved = [f"{what}: {spot} ({why})" for what, spot, why in spots if spot != first]
    assert not moved, f"PAD at {first} (x, y relative to the stage; {spots[0][2]}) at step 0, then " + "; ".join(moved)


@pytest.mark.parametrize("b,t", [(1, 1), (0, 2)])
def test_a_cell_of_any_sentence_shows_its_output_rows_the_wire_and_the_card(ko_page, b, t):
    """Issue 37, #3: selecting a token of the second sentence lit only its W row; the output stayed on
    sentence 0, with no wire and no card. Every sentence's cell now brings its sentence's output."""
    import numpy as np
    import torch

    from .helpers import chapter_w

    page = ko_page
    ids = [[2, 0, 3], [2, 4, 1]]
    i = ids[b][t]
    click_token(page, f".idcell[data-b='{b}'][data-t='{t}']")
    s = wait_stage(page, "(s, a) => s.outTitle && s.outTitle.includes('b=' + a[0]) && s.wires >= 2", [b, i])
    emb = torch.nn.Embedding.from_pretrained(torch.from_numpy(chapter_w()), padding_idx=1)
    want = emb(torch.tensor(ids))[b].detach().numpy()
    assert [r["id"] for r in s["out"]] == ids[b]  # that sentence's rows, in order
    for row, ref in zip(s["out"], want):
        np.testing.assert_allclose([float(c.replace("\u2212", "-")) for c in row["cells"]], ref, atol=0.005 + 1e-6)
    assert s["wires"] == 2 * ids[b].count(i)  # cell → W row, W row → output row, for each place it sits
    card = page.locator(f"{STAGE} .selnote .selline")
    assert card.count() == 1 and f"out[{b}, {t}]" in card.inner_text()
    assert str(i) in s["sel"]


@pytest.mark.parametrize("size", ["1440x900", "1280x720"])
def test_with_the_inputs_open_the_id_matrix_stays_in_view_while_typing(new_page, size):
    """Issue 37, #7: at 1440×900 the open inputs box pushed the stage below the screen; a learner could
    not watch the id matrix change while typing. The box now scrolls inside itself."""
    from .helpers import open_editors, set_sentences

    page = new_page("ko-KR")
    page.set_viewport_size(SIZES[size])
    open_editors(page)
    set_sentences(page, "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정\n재미있다 영화 | 긍정")
    wait_stage(page, "s => s.ids.length === 3")
    wait_idle(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    seen = page.evaluate("""() => {
      const host = document.querySelector('.st-key-stage');
      let root = null;
      for (const e of host.querySelectorAll('*')) if (e.shadowRoot && e.shadowRoot.querySelector('[data-testid="stage"]')) { root = e.shadowRoot; break; }
      const box = (el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; };
      const cells = Array.from(root.querySelectorAll('.idcell[data-b="0"]'));
      return {cells: cells.map(box), area: box(document.querySelector('.st-key-sentences textarea')), h: window.innerHeight,
              open: document.querySelector('.st-key-editors details').open};
    }""")
    assert seen["open"]
    assert seen["area"][0] >= 0 and seen["area"][1] <= seen["h"], seen  # the sentences being typed
    assert seen["cells"] and all(0 <= top and bottom <= seen["h"] for top, bottom in seen["cells"]), seen  # and the ids they make
