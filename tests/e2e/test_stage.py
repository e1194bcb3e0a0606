"""The stage in Chromium: linked hover, click → server, a still PAD point, fitting one screen, Play.

Runs tests/e2e/stage_app.py (made-up data from support.stage_sample) on a loopback port of its
own; the stage lives in a shadow root, which Playwright's CSS locators enter by themselves.
Screenshots go to artifacts/screenshots/stage-*.png. Frames per second are printed, not asserted.
"""

from __future__ import annotations

import time

import pytest

from support.server import Server, free_port

from .helpers import ARTIFACTS, SCREENSHOTS, unavailable_reason

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

STAGE = ".st-key-stage [data-testid='stage']"


@pytest.fixture(scope="module")
def light_url():
    """`streamlit run tests/e2e/stage_app.py` on a free loopback port; its URL."""
    port = free_port()
    with Server("tests/e2e/stage_app.py", timeout=60, port=port, log=ARTIFACTS / f"e2e-stage-{port}.log") as server:
        yield server.url


@pytest.fixture
def open_stage(browser):
    contexts = []

    def make(url: str, query: str = "", width: int = 1280, height: int = 720, settle: bool = True):
        ctx = browser.new_context(viewport={"width": width, "height": height})
        ctx.set_default_timeout(30_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.stage_errors = []
        page.on("pageerror", lambda err: page.stage_errors.append(str(err)))
        page.goto(f"{url}/?{query}")
        page.locator(STAGE).wait_for(timeout=60_000)
        if settle:
            wait_settled(page, 0)
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def wait_settled(page, step: int, timeout: float = 30_000) -> None:
    """Until the stage shows ``step`` and nothing on it moves."""
    page.wait_for_function("([el, s]) => el.dataset.step === s && el.dataset.animating === '0'",
                           arg=[page.locator(STAGE).element_handle(), str(step)], timeout=timeout, polling=50)


def next_step(page, step: int) -> None:
    page.locator(".st-key-next button").click()
    wait_settled(page, step)


def box(page, selector: str) -> dict:
    return page.locator(f"{STAGE} {selector}").first.bounding_box()


def spot(page, selector: str) -> tuple[float, float, float, float]:
    """Where ``selector`` is drawn inside the stage (the page itself may scroll when a button is clicked)."""
    a, r = box(page, selector), page.locator(STAGE).bounding_box()
    return a["x"] - r["x"], a["y"] - r["y"], a["width"], a["height"]


def classes(page, selector: str) -> list[list[str]]:
    return page.locator(f"{STAGE} {selector}").evaluate_all("els => els.map(e => Array.from(e.classList))")


def caption(page) -> str:
    return " ".join(page.locator("[data-testid='stCaptionContainer']").all_inner_texts())


def test_hovering_a_scatter_point_highlights_its_w_row_and_nothing_else(open_stage, light_url):
    page = open_stage(light_url)
    page.locator(f"{STAGE} .pt[data-token='4'] .mark").hover()
    assert "hl" in classes(page, ".wrow[data-token='4']")[0]
    lit = page.locator(f"{STAGE} .hl").evaluate_all("els => els.map(e => e.getAttribute('data-token'))")
    assert set(lit) == {"4"} and len(lit) >= 2  # the point and the row (and its trail), no other token
    page.mouse.move(2, 2)
    assert page.locator(f"{STAGE} .hl").count() == 0
    assert "selected=None" in caption(page)  # a hover never reaches the server
    assert not page.stage_errors


def test_a_click_sends_the_selection_to_the_server(open_stage, light_url):
    page = open_stage(light_url)
    pad0 = spot(page, ".pt[data-role='pad'] .mark")
    page.locator(f"{STAGE} .wrow[data-token='3']").click()
    page.wait_for_function("() => Array.from(document.querySelectorAll('[data-testid=stCaptionContainer]'))"
                           ".some(e => e.innerText.startsWith('selected=3 '))", timeout=15_000)
    assert "sel" in classes(page, ".pt[data-token='3']")[0]  # and the server's answer draws it selected
    chips = page.locator(f"{STAGE} .chip[data-token]")
    chips.first.wait_for()  # the app answered with the selection's neighbours
    other = chips.first.get_attribute("data-token")
    chips.first.hover()
    assert "hl" in classes(page, f".wpanel .wrow[data-token='{other}']")[0]
    assert "hl" in classes(page, f".pt[data-token='{other}']")[0]
    assert spot(page, ".pt[data-role='pad'] .mark") == pad0  # the neighbours row took no room from the plot
    page.locator(f"{STAGE} .wpanel .wrow[data-token='5']").focus()  # the keyboard does what the mouse does
    assert "hl" in classes(page, ".pt[data-token='5']")[0]
    page.keyboard.press("Enter")
    page.wait_for_function("() => Array.from(document.querySelectorAll('[data-testid=stCaptionContainer]'))"
                           ".some(e => e.innerText.startsWith('selected=5 '))", timeout=15_000)
    assert not page.stage_errors


def test_pad_does_not_move_by_a_pixel_while_the_others_glide(open_stage, light_url):
    page = open_stage(light_url)
    pad0, other0 = spot(page, ".pt[data-role='pad'] .mark"), spot(page, ".pt[data-token='4'] .mark")
    label0 = spot(page, ".pt[data-role='pad']")
    transforms = []
    for step in range(1, 6):
        next_step(page, step)
        transforms.append(page.locator(f"{STAGE} .pt[data-role='pad']").get_attribute("transform"))
        assert spot(page, ".pt[data-role='pad'] .mark") == pad0, f"PAD moved at update {step}"
        assert spot(page, ".pt[data-role='pad']") == label0, f"PAD's label moved at update {step}"
    assert len(set(transforms)) == 1
    assert spot(page, ".pt[data-token='4'] .mark") != other0  # the data did change
    assert page.locator(f"{STAGE} .points .pt, {STAGE} .top .pt").last.get_attribute("data-role") == "pad"  # on top
    assert not page.stage_errors


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("mode", ["train", "lookup"])
def test_the_stage_fits_one_projector_screen(open_stage, light_url, lang, mode):
    page = open_stage(light_url, f"lang={lang}&mode={mode}")
    panels = [".scatter", ".wpanel"] if mode == "train" else [".idspanel", ".wpanel", ".outpanel"]
    for sel in panels:
        b = box(page, sel)
        assert b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["width"] <= 1280 and b["y"] + b["height"] <= 720, (sel, b)
    rows = page.locator(f"{STAGE} .wpanel .wrow[data-token]")
    last = rows.nth(rows.count() - 1).bounding_box()
    assert last["y"] + last["height"] <= box(page, ".wpanel")["y"] + box(page, ".wpanel")["height"]  # every W row shown


def test_many_points_go_on_a_canvas_and_still_link(open_stage, light_url):
    page = open_stage(light_url, "n=5000&e=8")
    assert page.locator(f"{STAGE} .pt").count() <= 3  # only PAD, UNK (and a selection) are SVG nodes
    plot = box(page, ".psvg")
    probe = page.locator(f"{STAGE} .probe")
    for k in range(80):  # sweep across the cloud until the pointer is near a point
        x, y = plot["x"] + plot["width"] * (0.3 + 0.005 * k), plot["y"] + plot["height"] * 0.45
        page.mouse.move(x, y)
        page.wait_for_timeout(40)  # hover is resolved on the next animation frame
        if probe.count():
            break
    page.wait_for_timeout(150)
    assert probe.count() == 1, "no point found under the pointer"
    token = probe.get_attribute("data-token")
    page.mouse.click(x, y)
    page.wait_for_function("(t) => Array.from(document.querySelectorAll('[data-testid=stCaptionContainer]'))"
                           ".some(e => e.innerText.startsWith('selected=' + t + ' '))", arg=token, timeout=30_000)
    assert not page.stage_errors


# Each step the counter shows, with when (performance.now()), and the time of every animation frame.
COUNT_JS = """(el) => {
    window.__steps = []; window.__frames = [];
    new MutationObserver(() => window.__steps.push([el.querySelector('.stepnum').textContent, performance.now()]))
        .observe(el.querySelector('.stepnum'), {childList: true, characterData: true, subtree: true});
    const count = (t) => { window.__frames.push(t); requestAnimationFrame(count); }; requestAnimationFrame(count);
}"""
MISSED_FRAME_MS = 34  # motion.mjs's CATCH_UP_MS: Play's quickest step, two frames at 60 Hz


def stalls_behind_skips(steps: list, frames: list) -> list:
    """Each step the counter passed over without showing it, with the longest time the page drew no
    frame between the steps shown on either side. Play keeps to its clock (motion.mjs, frameAt), and
    walks late data no quicker than a step per MISSED_FRAME_MS: a step is passed over only where the
    page drew no frame for that long; a shorter gap is a step the stage dropped while it was drawing."""
    out = []
    for (a, ta), (b, tb) in zip(steps, steps[1:]):
        if b > a + 1:
            start = max((t for t in frames if t <= ta), default=ta)  # the frame that showed step a
            inside = [start] + [t for t in frames if start < t <= tb]
            gap = max((y - x for x, y in zip(inside, inside[1:])), default=tb - ta)
            out.append((list(range(a + 1, b)), round(gap, 1)))
    return out


def test_play_glides_through_every_step_and_pad_stays(open_stage, light_url):
    """3 s of Play as an app runs it (a timed fragment sends 10 steps per second while the stage glides)."""
    page = open_stage(light_url, "play=1&auto=1&frames=10&sps=10", settle=False)
    pad0 = spot(page, ".pt[data-role='pad'] .mark")
    page.evaluate(COUNT_JS, page.locator(STAGE).element_handle())
    page.wait_for_function("() => window.__steps.some(([s]) => Number(s) >= 12)", timeout=30_000)
    page.evaluate("() => { window.__frames = []; window.__steps = []; }")
    drawn0 = int(page.locator(STAGE).get_attribute("data-frames"))
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 3:
        assert spot(page, ".pt[data-role='pad'] .mark") == pad0, "PAD moved during Play"
        page.wait_for_timeout(100)
    seconds = time.perf_counter() - t0
    steps = [(int(x), t) for x, t in page.evaluate("() => window.__steps")]
    frames = page.evaluate("() => window.__frames")
    shown, raf = [x for x, _ in steps], len(frames)
    drawn = int(page.locator(STAGE).get_attribute("data-frames")) - drawn0
    print(f"\nPlay for {seconds:.1f} s at 10 steps/s asked: {len(set(shown)) / seconds:.1f} steps shown per s, "
          f"{raf / seconds:.1f} rAF/s, {drawn / seconds:.1f} frames drawn per s")
    assert len(set(shown)) >= 10  # it played
    skipped = stalls_behind_skips(steps, frames)  # no step skipped while frames were drawn, though batches overlapped
    assert all(gap >= MISSED_FRAME_MS - 1 for _, gap in skipped), skipped
    assert shown == sorted(shown)  # and never backwards
    assert not page.stage_errors


def test_a_browser_that_asks_for_less_motion_sees_each_step_at_once(open_stage, light_url):
    """With the system's "reduce motion" setting (prefers-reduced-motion), neither a Step nor Play
    glides: nothing is ever marked moving, no glide frame is drawn, and the counter names each
    update's step as it arrives (Play's batches of ten land whole), PAD where it was."""
    page = open_stage(light_url, "play=1&frames=10&sps=10", settle=False)
    page.emulate_media(reduced_motion="reduce")
    wait_settled(page, 0)
    pad0 = spot(page, ".pt[data-role='pad'] .mark")
    page.evaluate(COUNT_JS, page.locator(STAGE).element_handle())
    page.evaluate("""(el) => { window.__moving = 0;
        new MutationObserver(() => { if (el.dataset.animating === '1') window.__moving += 1; })
          .observe(el, {attributes: true, attributeFilter: ['data-animating']}); }""", page.locator(STAGE).element_handle())
    for step in (10, 20, 30):
        next_step(page, step)
    shown = [int(s) for s, _ in page.evaluate("() => window.__steps")]
    assert page.evaluate("() => window.__moving") == 0
    assert page.locator(STAGE).get_attribute("data-frames") in (None, "0")
    assert shown and set(shown) <= {10, 20, 30} and shown == sorted(shown), shown
    assert spot(page, ".pt[data-role='pad'] .mark") == pad0
    page.emulate_media(reduced_motion="no-preference")  # the same page without the setting glides again
    next_step(page, 40)
    assert int(page.locator(STAGE).get_attribute("data-frames") or 0) > 0
    assert not page.stage_errors


def test_screenshots_light(open_stage, light_url):
    """At the projector's size (the layout at both sizes is measured by the panel tests below): each
    view in each language, hovered or selected; artifacts/screenshots/stage-<view>-<lang>-1280x720-light.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    w, h = 1280, 720
    for lang in ("ko", "en"):
        for mode in ("train", "lookup"):
            page = open_stage(light_url, f"lang={lang}&mode={mode}&height={h - 190}", w, h)
            if mode == "train":
                for step in (1, 2, 3):
                    next_step(page, step)
                page.locator(f"{STAGE} .pt[data-token='4'] .mark").hover()
            else:
                page.locator(f"{STAGE} .wpanel .wrow[data-token='4']").click()
                page.wait_for_function("(el) => el.querySelectorAll('.wire').length > 0",
                                       arg=page.locator(STAGE).element_handle(), timeout=15_000)
                page.locator(f"{STAGE} .idcell[data-token='3']").first.hover()
            path = SCREENSHOTS / f"stage-{mode}-{lang}-{w}x{h}-light.png"
            page.screenshot(path=str(path))
            assert not page.stage_errors
            assert path.stat().st_size > 10_000
            page.context.close()


# ---- what a reader sees: numbers that fit, exact zeros, labels clear of marks, a still plot ----

NARROW = (850, 720)  # the main area at 1280×720 with the sidebar open is about 790 px wide

# Every text whose own (unrounded) width is more than its box's: clipped or "…". Read once the page's
# fonts have loaded and the stage's redraw for them (on the next animation frame) is done: a face
# that arrives late (the italic of <UNK>) is measured again then, and a read before would see its
# text in a box sized for the fallback font.
READ_CELLS = """async (root) => {
    await document.fonts.ready;
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    const over = [];
    root.querySelectorAll('.wcell, .gtext, .ptitle > span:first-child, .idtok, .idtyped, .wtok, .lossnum, .wmore, .selmath')
        .forEach(e => {
            const cs = getComputedStyle(e), box = e.getBoundingClientRect();
            const room = box.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
            const range = document.createRange(); range.selectNodeContents(e);
            const text = range.getBoundingClientRect().width;
            const clip = e.closest('.wgrad, .wcell, .wlab, .idcell, .ptitle, .selnote') || e.parentElement;
            const cb = clip.getBoundingClientRect();
            if (box.width > 0 && (text > room + 0.5 || box.right > cb.right + 0.5))
                over.push(e.className + ': ' + e.textContent + ` ${text.toFixed(1)}>${room.toFixed(1)}`);
        });
    return over;
}"""


def shown_number(text: str) -> float:
    return float(text.replace("\u2212", "-"))


@pytest.mark.parametrize("e", [4, 8, 16])
def test_every_number_fits_its_cell_and_reads_the_value_sent(open_stage, light_url, e):
    from support.stage_sample import sample_data

    page = open_stage(light_url, f"lang=en&mode=lookup&e={e}&height=490", *NARROW)
    assert page.locator(STAGE).evaluate(READ_CELLS) == []  # nothing clipped: titles, tokens, numbers
    data = sample_data(0, e=e, lang="en", mode="lookup", height=490)
    rows = page.locator(f"{STAGE} .wpanel .wrow[data-token]")
    shown = rows.first.locator(".wcell").count()
    assert 1 <= shown <= e
    more = page.locator(f"{STAGE} .wpanel .whead .wmore")
    assert more.count() == (1 if shown < e else 0)
    if shown < e:
        assert more.inner_text() == f"\u2026 +{e - shown}"
    for r, id_ in enumerate(data["w"]["rows"]):
        texts = rows.nth(r).locator(".wcell").all_inner_texts()
        assert len(texts) == shown
        for j, text in enumerate(texts):
            dec = len(text.split(".")[1]) if "." in text else 0
            assert dec >= 1 and abs(shown_number(text) - data["w"]["values"][r][j]) <= 0.5 * 10 ** -dec + 1e-9, (id_, j, text)
    out = page.locator(f"{STAGE} .outpanel .wrow[data-token]")
    assert out.first.locator(".wcell").count() == shown  # the output shows the same columns as W
    fs = page.locator(STAGE).evaluate("r => [r.querySelector('.wpanel .wcell'), r.querySelector('.outpanel .wcell')]"
                                      ".map(c => getComputedStyle(c).fontSize)")
    assert fs[0] == fs[1] and float(fs[0][:-2]) >= 11  # a row of W and its copy look alike, readable


def test_w_after_each_step_shows_that_steps_numbers_and_marks_in_the_same_cells(open_stage, light_url):
    """A Step writes its numbers, colours and marks into the cells already there (the rows and columns
    are the same): after each of three steps every cell reads the value sent for that step in its
    colour (components/palette.heat_rgb), the rows the step touched are marked, and the cells are
    the same nodes as before."""
    from components.palette import heat_rgb
    from support.stage_sample import sample_data

    page = open_stage(light_url, "lang=en&height=490", 1280, 720)
    page.locator(STAGE).evaluate("r => { window.__cell0 = r.querySelector('.wpanel .wrow[data-token] .wcell'); }")
    for step in (1, 2, 3):
        next_step(page, step)
        data = sample_data(step, lang="en", height=490)
        got = page.locator(STAGE).evaluate("""(r) => [...r.querySelectorAll('.wpanel .wrow[data-token]')].map(w => ({
            id: Number(w.dataset.token), touched: w.classList.contains('touched'),
            cells: [...w.querySelectorAll('.wcell')].map(c => [c.textContent, c.style.background])}))""")
        assert [g["id"] for g in got] == data["w"]["rows"][:len(got)] and got
        touched = set(data["w"]["touched"])
        for g, values in zip(got, data["w"]["values"]):
            assert g["touched"] == (g["id"] in touched), (step, g["id"])
            for (text, bg), v in zip(g["cells"], values):
                dec = len(text.split(".")[1]) if "." in text else 0
                assert dec >= 1 and abs(shown_number(text) - v) <= 0.5 * 10 ** -dec + 1e-9, (step, g["id"], text, v)
                assert bg == "rgb({}, {}, {})".format(*heat_rgb(v / data["w"]["absmax"])), (step, g["id"], bg, v)
        assert page.locator(STAGE).evaluate("r => r.querySelector('.wpanel .wrow[data-token] .wcell') === window.__cell0")


def test_gradient_norms_show_two_significant_digits_and_exact_zeros(open_stage, light_url):
    from support.stage_sample import sample_data

    page = open_stage(light_url, "lang=en&play=1&frames=30&sps=120", *NARROW)
    for step in (30, 60):  # after 60 steps the sample's norms are around 1e-3
        next_step(page, step)
    data = sample_data(60, lang="en")
    for r, id_ in enumerate(data["w"]["rows"]):
        cell = page.locator(f"{STAGE} .wpanel .wrow[data-token='{id_}'] .wgrad")
        g = data["w"]["grad_norm"][r]
        text = cell.inner_text().strip()
        if g == 0:
            assert text == "0" and "zero" in cell.get_attribute("class")  # exact, and styled as such
            assert ("padzero" in cell.get_attribute("class")) == (id_ == data["pad"])
        else:
            assert text != "0" and "zero" not in cell.get_attribute("class")
            mantissa = text.replace("\u2212", "-").split("e")[0].lstrip("-0.")
            assert len(mantissa.replace(".", "")) == 2, text  # two significant digits
            assert abs(shown_number(text) - g) <= 0.051 * g, (text, g)
            bar, num = cell.locator(".gbar").bounding_box(), cell.locator(".gtext").bounding_box()
            assert bar["y"] >= num["y"] + num["height"] - 1, "the bar covers the number"
    assert page.locator(STAGE).evaluate(READ_CELLS) == []


def test_the_plot_does_not_move_when_the_loss_appears(open_stage, light_url):
    from support.stage_sample import sample_data

    page = open_stage(light_url, "lang=ko&height=490", *NARROW)
    head0, pad0, plot0 = box(page, ".head"), spot(page, ".pt[data-role='pad'] .mark"), spot(page, ".psvg")
    assert page.locator(f"{STAGE} .lossnum").inner_text() == "\u2013"
    next_step(page, 1)
    assert box(page, ".head")["height"] == head0["height"]
    assert spot(page, ".psvg") == plot0 and spot(page, ".pt[data-role='pad'] .mark") == pad0
    loss = sample_data(1)["loss"][-1]
    assert page.locator(f"{STAGE} .lossnum").inner_text() == f"{loss:#.4g}"  # 4 significant digits, trailing zeros kept


def test_labels_keep_clear_of_every_mark_and_name_tokens_as_the_vocabulary_does(open_stage, light_url):
    from support.stage_sample import sample_data

    page = open_stage(light_url, "lang=en&height=490", *NARROW)
    for step in (1, 2, 3):
        next_step(page, step)
    page.mouse.move(2, 2)
    hits = page.locator(STAGE).evaluate("""(root) => {
        const marks = [...root.querySelectorAll('.pt .mark')].map(m => [m.closest('.pt'), m.getBoundingClientRect()]);
        const out = [];
        for (const lab of root.querySelectorAll('.pt .lbl')) {
            if (getComputedStyle(lab).display === 'none') continue;
            const g = lab.closest('.pt'), a = lab.getBoundingClientRect();
            for (const [p, b] of marks) {
                if (g.dataset.role === 'pad' && p !== g) continue;  // PAD's label never moves: only its own mark counts
                const gap = 1;
                if (a.left < b.right + gap && b.left < a.right + gap && a.top < b.bottom + gap && b.top < a.bottom + gap)
                    out.push(g.dataset.token + ' touches ' + p.dataset.token);
            }
        }
        return out;
    }""")
    assert hits == []
    data = sample_data(3, lang="en")
    pad, unk = str(data["pad"]), str(data["unk"])
    for token in (pad, unk):
        assert page.locator(f"{STAGE} .pt[data-token='{token}'] .lbl").text_content() == data["tokens"][token]
        assert page.locator(f"{STAGE} .wrow[data-token='{token}'] .wtok").inner_text() == data["tokens"][token]


def test_a_hollow_ring_answers_on_its_whole_disc(open_stage, light_url):
    page = open_stage(light_url, "lang=en", *NARROW)
    ring = page.locator(f"{STAGE} .pt[data-role='unused']").first
    token = ring.get_attribute("data-token")
    b = ring.locator(".mark").bounding_box()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)  # the centre: inside the ring, not on it
    assert "hl" in classes(page, f".wrow[data-token='{token}']")[0]


@pytest.mark.parametrize("cols", [3, 50])
def test_the_id_matrix_shows_the_columns_that_fit_and_says_how_many_more(open_stage, light_url, cols):
    """Fifty tokens a sentence in a third of a projector's width: the columns that fit, every id whole
    and on one line, and "… +k" for the rest; three columns all fit."""
    page = open_stage(light_url, f"lang=en&mode=lookup&cols={cols}&rows=6", 1280, 720)
    got = page.locator(STAGE).evaluate("""(root) => {
        const grid = root.querySelector('.idgrid');
        const heads = [...grid.querySelectorAll('.idh:not(.rowh)')].map(h => h.textContent).filter(Boolean);
        const first = [...grid.querySelectorAll('.idcell[data-b="0"]')];
        const cut = [...grid.querySelectorAll('.idnum')].filter(n => {
            const c = n.closest('.idcell').getBoundingClientRect(), r = document.createRange();
            r.selectNodeContents(n);
            const t = r.getBoundingClientRect();
            return t.left < c.left || t.right > c.right || t.height > 1.6 * parseFloat(getComputedStyle(n).fontSize);
        }).length;
        const sizes = new Set([...grid.querySelectorAll('.idnum')].map(n => getComputedStyle(n).fontSize));
        return {heads, shown: first.length, cut, sizes: sizes.size};
    }""")
    more = [h for h in got["heads"] if h.startswith("… +")]  # the header's; each row ends in a plain "…"
    if cols == 3:
        assert got["shown"] == 3 and not more, got
    else:
        assert 1 <= got["shown"] < 50 and more == [f"… +{50 - got['shown']}"], got
        assert got["heads"][:got["shown"]] == [f"t={j}" for j in range(got["shown"])]
    assert got["cut"] == 0 and got["sizes"] == 1, got


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900), NARROW])
@pytest.mark.parametrize("mode", ["train", "lookup"])
def test_every_panel_is_inside_the_stage_at_the_apps_height(open_stage, light_url, size, mode):
    page = open_stage(light_url, f"lang=ko&mode={mode}&height=490", *size)
    if mode == "train":
        next_step(page, 1)
    outside = page.locator(STAGE).evaluate("""(root) => {
        const r = root.getBoundingClientRect(), bad = [];
        root.querySelectorAll('.head, .panel, .psvg, .axtitle, .tick, .wgrid, .idgrid, .selnote, .pfoot').forEach(e => {
            const b = e.getBoundingClientRect();
            if (b.width && (b.left < r.left - 0.5 || b.top < r.top - 0.5 || b.right > r.right + 0.5 || b.bottom > r.bottom + 0.5))
                bad.push(e.className.baseVal ?? e.className);
        });
        root.querySelectorAll('.panel').forEach(p => {  // and nothing inside a panel is cut by its edge
            const pb = p.getBoundingClientRect();
            p.querySelectorAll('.wrow, .idcell, .axtitle, .pfoot, .selnote').forEach(e => {
                const b = e.getBoundingClientRect();
                if (b.width && (b.bottom > pb.bottom + 0.5 || b.right > pb.right + 0.5)) bad.push('cut: ' + (e.className.baseVal ?? e.className));
            });
        });
        return bad;
    }""")
    assert page.locator(STAGE).bounding_box()["height"] == 490
    assert outside == []
    assert page.locator(STAGE).evaluate(READ_CELLS) == []


@pytest.mark.parametrize("cur", [0, 38])
def test_a_long_batch_builds_every_id_row_the_panel_shows_and_the_current_one(open_stage, light_url, cur):
    page = open_stage(light_url, f"lang=en&mode=lookup&rows=40&cur={cur}&height=490")
    got = page.locator(STAGE).evaluate("""(root) => {
        const p = root.querySelector('.idspanel'), g = p.querySelector('.idgrid');
        const cells = Array.from(g.querySelectorAll('.idcell'));
        return {built: Array.from(g.querySelectorAll('.idh.rowh')).map(e => Number(e.dataset.b)),
                clip: p.getBoundingClientRect().top + p.clientTop + p.clientHeight,
                lastBottom: Math.max(...cells.map(c => c.getBoundingClientRect().bottom)),
                cur: cells.filter(c => c.classList.contains('cur')).map(c => [Number(c.dataset.b), Number(c.dataset.t)])};
    }""")
    n = len(got["built"])
    # From the first row on; rows more than a screen below the view are not built (they are as it scrolls).
    assert got["built"] == list(range(n)) and (n < 40 if cur == 0 else n <= 40)
    assert got["lastBottom"] >= got["clip"]  # every row the panel shows is there, the last one cut by its edge
    assert got["cur"] == [[cur, t] for t in range(4)]  # the output's sentence is built, wherever it is


def test_hundreds_of_dimensions_show_the_colour_columns_that_are_seen_and_rows_stay_above_the_footer(open_stage, light_url):
    page = open_stage(light_url, "lang=en&mode=lookup&n=100&e=300&height=240")
    got = page.locator(STAGE).evaluate("""(root) => {
        const panel = (sel) => {
            const p = root.querySelector(sel), rows = Array.from(p.querySelectorAll('.wrow[data-token]'));
            const foot = p.querySelector('.pfoot');
            return {shown: rows[0].querySelectorAll('.wcell').length,
                    widths: rows.flatMap(r => Array.from(r.querySelectorAll('.wcell')).map(c => c.getBoundingClientRect().width)),
                    more: (p.querySelector('.whead .wmore') || {}).textContent,
                    gridBottom: p.querySelector('.wgrid').getBoundingClientRect().bottom,
                    footTop: foot ? foot.getBoundingClientRect().top : null, rows: rows.length};
        };
        return {w: panel('.wpanel'), out: panel('.outpanel')};
    }""")
    w, out = got["w"], got["out"]
    assert 1 <= w["shown"] < 300 and w["more"] == f"\u2026 +{300 - w['shown']}"
    assert min(w["widths"]) >= 3.99  # every colour column is seen; the rest are counted in "… +k"
    assert out["shown"] == w["shown"]  # the output shows the same columns as W
    # Every row is built; those that do not fit scroll inside W's rows, which end above the colour key.
    from support.stage_sample import sample_data

    assert w["rows"] == len(sample_data(0, n=100, e=300, lang="en", mode="lookup")["w"]["rows"])
    assert w["gridBottom"] <= w["footTop"] + 0.5

    page = open_stage(light_url, "lang=en&mode=lookup&n=100&e=300&height=240&selected=39")
    assert "sel" in classes(page, ".wpanel .wrow[data-token='39']")[0]
    height = page.locator(f"{STAGE} .wpanel .wrow[data-token='39']").evaluate("r => r.getBoundingClientRect().height")
    assert height >= 15  # the selected row is in focus: as tall as a readable row, among strips of context
