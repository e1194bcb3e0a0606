"""During Play and after Pause the page names one step (issue 37, defect 5): the stage's counter, the
timeline and the details below the stage never show two different step numbers at one moment.

A recorder in the page reads every step number shown, once per animation frame, from before Play
to after Pause (the 40 Korean reviews of the report, 1440×900); each recorded moment must hold at
most one number, and after Pause the stage, the timeline and the reopened details all say the step
the lab stopped at.

One Pause click can reach the server twice: Streamlit's browser sends a click on a timer, after the
click, and a Play tick falling due first carries it in the tick's own rerun. Pause takes once.
"""

from __future__ import annotations

import math
import re
import time

import numpy as np

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from .helpers import (JS_LIB, button, label, open_app, open_expander, pause, play_until, step_once, unavailable_reason, wait_idle,
                      wait_js, wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

# The texts that name a step, read at one moment: the stage's counter, the timeline's value, and
# the details' titles (the loss chart's title is SVG text: textContent, not innerText). The timeline
# is found by its label: while playing it is a slider with no key (components/training.timeline). What a run
# is redrawing stays on the screen until its new element arrives: a stale element counts, unless a
# live one has taken its place (a run that moves the stage into another fragment draws a new one).
SHOWN_JS = """(name) => {
  const live = (e) => e && __live(e);
  const firstLive = (els) => [...els.filter(live), ...els.filter(e => !live(e))];
  const roots = firstLive([...document.querySelectorAll('.st-key-stage')]).map(h => {
    const inner = [...h.querySelectorAll('*')].find(e => e.shadowRoot && e.shadowRoot.querySelector('[data-testid="stage"]'));
    return inner ? inner.shadowRoot.querySelector('[data-testid="stage"]') : null;
  });
  const s = roots.find(r => r) || null;
  const thumbs = [...document.querySelectorAll('[data-testid="stSliderThumbValue"]')]
    .filter(e => (e.closest('[aria-label]') || {getAttribute: () => null}).getAttribute('aria-label') === name);
  const thumb = thumbs.some(live) ? thumbs.filter(live) : thumbs;
  const details = document.querySelector('.st-key-details details');
  const open = details && details.open && live(details);
  return {counter: s ? s.querySelector('[data-testid="stage-step"]').textContent : null,
          loss: s ? s.querySelector('.lossnum').textContent : null,
          playing: s ? s.dataset.playing : null,
          w: s ? [...s.querySelectorAll('.wpanel .wrow[data-token]:not(.whead)')].map(r => [Number(r.getAttribute('data-token')),
                 [...r.querySelectorAll('.wcell')].map(c => c.textContent), (r.querySelector('.wgrad') || {}).textContent || '']) : [],
          near: s ? [...s.querySelectorAll('.neigh [data-token]')].map(c => [Number(c.getAttribute('data-token')),
                    (c.querySelector('.ccos') || {}).textContent || null]) : [],
          timeline: thumb.map(e => e.textContent),
          details: open ? [details.textContent] : []};
}"""

# Record what SHOWN_JS reads at every animation frame, whenever it changed.
RECORD_JS = """(name) => {
  window.__shown = [];
  let last = '';
  const read = """ + SHOWN_JS + """;
  const tick = () => {
    if (!window.__recording) return;
    const now = read(name), key = JSON.stringify(now);
    if (key !== last) { last = key; window.__shown.push(now); }
    requestAnimationFrame(tick);
  };
  window.__recording = true;
  requestAnimationFrame(tick);
}"""


# Every text the timeline's thumb takes, each DOM change's included (a busy page paints some of them
# for a moment only, or not at all): a rerun that gives the slider new options renders it once before
# Streamlit's slider takes their index in an effect.
THUMB_TEXTS_JS = """(name) => {
  window.__thumbTexts = new Set();
  const ours = (node) => { const e = node && (node.nodeType === 1 ? node : node.parentElement);
    const th = e && e.closest('[data-testid="stSliderThumbValue"]');
    return th && (th.closest('[aria-label]') || {getAttribute: () => null}).getAttribute('aria-label') === name ? th : null; };
  const watch = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'characterData' && ours(r.target)) window.__thumbTexts.add(r.oldValue);
      const th = ours(r.target); if (th) window.__thumbTexts.add(th.textContent);
    }
    document.querySelectorAll('[data-testid="stSliderThumbValue"]').forEach(e => { if (ours(e)) window.__thumbTexts.add(e.textContent); });
  });
  watch.observe(document.body, {subtree: true, childList: true, characterData: true, characterDataOldValue: true});
  window.__stopThumbTexts = () => { watch.disconnect(); return [...window.__thumbTexts]; };
}"""


def step_patterns(lang: str) -> list[re.Pattern]:
    """A pattern for each text of the timeline and the details that names the shown step, from the
    app's own strings: the literal words around ``{step}``."""
    out = []
    for key in ("proj.timeline_newest", "train.coords_title", "proj.neighbours", "train.loss_title", "train.grad_summary"):
        template = label(lang, key, step="\x00", token="\x01", unused="\x01", unused_max="\x01", pad="\x01")
        before, after = template.split("\x00")
        if "\x01" in before:  # after a token: from the first space on (a Korean particle follows the token)
            before = before.split("\x01")[-1].replace("`", "")
            before = before[before.find(" "):]
        after = after.split("\x01")[0].split("`")[0]
        out.append(re.compile(re.escape(before) + r"(\d+)" + re.escape(after)))
    return out


def numbers(moment: dict, patterns: list[re.Pattern]) -> dict[str, set[int]]:
    """Every step number one recorded moment shows, by where it is shown."""
    found = {"stage": {int(moment["counter"])} if moment["counter"] else set()}
    for where in ("timeline", "details"):
        found[where] = {int(m) for text in moment[where] for p in patterns for m in p.findall(text)}
        if where == "timeline":  # the slider's value is a bare number once the learner scrubbed
            found[where] |= {int(text) for text in moment[where] if text.strip().isdigit()}
    return found


def details_at(page, lang: str, step: int) -> None:
    """Open the details below the stage and wait until they, and the stage, show ``step``."""
    open_expander(page, "details")
    wait_js(page, "(t) => { const d = document.querySelector('.st-key-details details'); return d && d.open && __live(d)"
                  " && d.textContent.includes(t); }", label(lang, "train.coords_title", step=step))
    wait_step(page, step)


def fresh_losses(preset: str, steps: int) -> list[float]:
    """The loss of each step 1…``steps`` of ``preset``, computed afresh by torch in this process."""
    from assets import presets
    from core.explorer import Explorer

    ex = Explorer.from_preset(presets.load(preset))
    ex.run(steps)
    return list(ex.lab.losses)


def reads_as(text: str, value: float) -> bool:
    """Whether the stage's loss text (4 significant digits, U+2212 for minus) is ``value`` rounded."""
    shown = float(text.replace("\u2212", "-"))
    return abs(shown - value) <= 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 3) * (1 + 1e-9)


def fresh_run(preset: str, steps: int):
    """A plain torch loop of ``preset``'s recipe run ``steps`` steps, keeping W and ‖dL/dW‖ at each step."""
    from assets import presets
    from core.explorer import Explorer
    from support.torch_reference import PlainLoop

    return PlainLoop(Explorer.from_preset(presets.load(preset)).recipe, keep_snapshots=True).run(steps)


def w_misreads(moment: dict, ref) -> list:
    """Where the W grid of one recorded moment does not show the counter's step: each cell's number
    (its decimals as written) against W at that step, each ‖grad‖ (2 significant digits) against
    that step's gradient."""
    step, out = int(moment["counter"]), []
    w, g = ref.snapshots[step], ref.grad_norms.get(step)
    for row, cells, grad in moment["w"]:
        for j, text in enumerate(cells):
            if text.strip():
                shown, dec = float(text.replace("\u2212", "-")), len(text.split(".")[1]) if "." in text else 0
                if abs(shown - float(w[row, j])) > 0.5 * 10 ** -dec * (1 + 1e-6):
                    out.append((step, row, j, text, float(w[row, j])))
        if grad.strip() and g is not None:
            shown, v = float(grad.replace("\u2212", "-")), float(g[row])
            unit = 10 ** (math.floor(math.log10(v)) - 1) if v > 0 else 0.0
            if abs(shown - v) > 0.5 * unit * (1 + 1e-6) + (0.5 if v >= 10 else 0.0):
                out.append((step, row, "grad", grad, v))
    return out


def near_misreads(moment: dict, ref) -> list:
    """Where the neighbours row of one moment is not the counter's step's: the followed token's nearest
    rows by cosine in W at that step, each cosine as written (2 decimals)."""
    if not moment["near"]:
        return []
    step, (of, _), chips = int(moment["counter"]), moment["near"][0], moment["near"][1:]
    w = ref.snapshots[step].astype(np.float64)
    norms = np.linalg.norm(w, axis=1)
    cos = (w @ w[of]) / np.where(norms > 0, norms * norms[of], np.inf)
    order = [i for i in np.argsort(-cos, kind="stable") if i != of and norms[i] > 0][:len(chips)]
    out = [(step, "ids", [c[0] for c in chips], order)] if sorted(c[0] for c in chips) != sorted(order) else []
    return out + [(step, i, text, round(cos[i], 4)) for i, text in chips
                  if abs(float(text.replace("\u2212", "-")) - cos[i]) > 0.005 + 1e-6]


# Each shown row of W: its id and every cell's background, as the stage painted it.
W_COLOURS_JS = """() => { const s = __stage();
  return [...s.querySelectorAll('.wpanel .wrow[data-token]')].map(r => [Number(r.dataset.token),
    [...r.querySelectorAll('.wcell')].map(c => c.style.background)]); }"""


def w_colour_misreads(page, w) -> list:
    """The cells of W's grid whose background is not the colour of W's value there (the stage's scale,
    components/palette.heat_rgb, over the largest |W| of the data's rows: every row of these presets),
    within 1 per channel: JavaScript's Math.pow and Python's ** may differ in the last bit at a half."""
    from components.palette import heat_rgb

    absmax = float(np.abs(w).max())
    out = []
    for row, colours in page.evaluate(f"() => {{ {JS_LIB}; return ({W_COLOURS_JS})(); }}"):
        for j, painted in enumerate(colours):
            want = heat_rgb(float(w[row, j]) / absmax)
            got = tuple(int(x) for x in re.findall(r"\d+", painted))
            if len(got) != 3 or max(abs(a - b) for a, b in zip(got, want)) > 1:
                out.append((row, j, painted, want))
    return out


def read(page, lang: str = "ko") -> dict:
    return page.evaluate(f"(name) => {{ {JS_LIB}; return ({SHOWN_JS})(name); }}", label(lang, "proj.timeline"))


def test_every_step_number_on_the_page_agrees_at_every_moment_of_play_and_after_pause(new_page, app_url):
    lang = "ko"
    page = new_page("ko-KR", url=f"{app_url}/?section=train&lang={lang}&preset=reviews_{lang}")
    page.set_viewport_size({"width": 1440, "height": 900})
    patterns = step_patterns(lang)
    wait_step(page, 0)
    step_once(page, 1)  # the timeline is drawn from two kept steps on
    details_at(page, lang, 1)
    before = numbers(read(page), patterns)
    assert before["stage"] == before["timeline"] == {1} and 1 in before["details"], before

    page.evaluate(f"(name) => {{ {JS_LIB}; ({RECORD_JS})(name); }}", label(lang, "proj.timeline"))
    page.evaluate(THUMB_TEXTS_JS, label(lang, "proj.timeline"))
    play_until(page, lang, 40)  # 40 Korean reviews at 10 steps a second: the report's 39 against 52
    thumb_texts = page.evaluate("() => window.__stopThumbTexts()")
    paused = pause(page, lang)
    details_at(page, lang, paused)  # Play draws no details (the expander closes): opened again
    moments = page.evaluate("() => { window.__recording = false; return window.__shown; }")

    # Enough moments to mean something: a busy machine paints fewer of the walk's steps (about 40 here).
    assert any(m["playing"] == "1" for m in moments) and len(moments) > 10, len(moments)
    # While Play is on, the timeline's thumb never names a step, not even for one render.
    assert set(thumb_texts) <= {label(lang, "proj.timeline_newest", step=1), label(lang, "proj.timeline_playing")}, thumb_texts
    assert label(lang, "proj.timeline_playing") in thumb_texts, thumb_texts
    clashes, handover = [], []
    for k, m in enumerate(moments):
        found = numbers(m, patterns)
        if len(set().union(*found.values())) <= 1:
            continue
        # Pause's run hands the stage its data a few frames after the timeline drawn with it:
        # Streamlit calls a component whose module it serves on that script's load event, which comes
        # after the rest of the run is drawn. Until then the stage still walks a Play tick's steps up
        # to the one Pause stopped at, and the timeline names that step; nothing else may differ.
        if m["playing"] == "1" and found["timeline"] == {paused} and max(found["stage"]) <= paused and not found["details"]:
            handover.append(k)
        else:
            clashes.append({**{w: sorted(v) for w, v in found.items()}, "playing": m["playing"], "at": k})
    assert not clashes, (f"{len(clashes)} of {len(moments)} moments showed two steps at once (paused at {paused}), "
                         f"e.g. {clashes[:3]}; around the first: {moments[max(clashes[0]['at'] - 2, 0):clashes[0]['at'] + 3]}")
    if handover:  # one stretch, right before the stage takes Pause's data
        assert handover == list(range(handover[0], handover[-1] + 1)), handover
        # It ends with the stage at Pause's step: Pause's data has come, or (a loaded machine) the
        # tick's walk reached that step first, with the stage still saying it plays.
        settled = numbers(moments[handover[-1] + 1], patterns)
        assert settled["stage"] == settled["timeline"] == {paused}, settled
    after = numbers(read(page), patterns)
    assert after["stage"] == after["timeline"] == {paused}, after
    assert after["details"] == {paused}, after  # the coordinates, the neighbours, the loss and the gradient
    # The loss beside the counter is the loss of the step the counter names, at every moment: during
    # Play's walk too, not the newest step's that came with the data.
    losses = fresh_losses(f"reviews_{lang}", paused)
    named = [(int(m["counter"]), m["loss"]) for m in moments + [read(page)] if m["counter"] and int(m["counter"]) >= 1
             and m["loss"] and m["loss"] != "\u2013"]
    wrong = [(step, text, f"{losses[step - 1]:.4g}") for step, text in named if not reads_as(text, losses[step - 1])]
    assert len(named) > 10 and not wrong, f"{len(wrong)} of {len(named)} moments: (step, loss shown, its loss) {wrong[:5]}"
    # W's grid (its numbers and its ‖grad‖ column) and the neighbours row are the counter's step's, at every moment too.
    ref = fresh_run(f"reviews_{lang}", paused)
    graded = [m for m in moments + [read(page)] if m["counter"] and int(m["counter"]) >= 1 and m["w"]]
    assert sum(bool(m["near"]) for m in graded) > 10, "the neighbours row was not drawn: this test reads none"
    misread = [(k, miss) for k, m in enumerate(graded) if (miss := w_misreads(m, ref) + near_misreads(m, ref))]
    assert len(graded) > 10 and not misread, (f"{len(misread)} of {len(graded)} moments show W or the neighbours at another step: "
                                              f"(step, row, column, shown, W there) {[m[1][:2] for m in misread[:3]]}")
    # Once Play has stopped, every cell of W wears its value's own colour (the walk lets a colour lag a
    # little behind its number; the walk's end writes them all exactly).
    wrong_colour = w_colour_misreads(page, ref.snapshots[paused])
    assert not wrong_colour, f"{len(wrong_colour)} cells: (row, column, painted, its colour) {wrong_colour[:3]}"


# Click a button while the browser's timers of no delay wait longer than a Play tick, as on a busy
# page: the tick's rerun, sent meanwhile, carries the click before the click's own rerun does.
LATE_CLICK_JS = """(key) => { const plain = window.setTimeout;
  window.setTimeout = (f, ms, ...rest) => plain(f, ms === 0 ? 900 : ms, ...rest);
  try { document.querySelector(`.st-key-${key} button`).click(); } finally { window.setTimeout = plain; } }"""


class Talk:
    """In order: each rerun the page asked for that carries a click of Play's button (whether a tick
    asked for it), and each run the server finished (its status)."""

    def __init__(self, page):
        self.events = []
        page.on("websocket", lambda ws: (ws.on("framesent", self._sent), ws.on("framereceived", self._received)))

    def _sent(self, payload) -> None:
        if isinstance(payload, bytes) and (msg := BackMsg.FromString(payload)).WhichOneof("type") == "rerun_script":
            states = msg.rerun_script.widget_states.widgets
            if any(w.id.endswith("-play") and w.WhichOneof("value") == "trigger_value" and w.trigger_value for w in states):
                self.events.append(("play", msg.rerun_script.is_auto_rerun))

    def _received(self, payload) -> None:
        if isinstance(payload, bytes) and (msg := ForwardMsg.FromString(payload)).WhichOneof("type") == "script_finished":
            self.events.append(("finished", msg.script_finished))

    def handled(self, since: int) -> bool:
        """Since event ``since``: the click's own rerun was sent, and a run that drew to its end followed."""
        own = [k for k, e in enumerate(self.events) if k >= since and e == ("play", False)]
        return bool(own) and any(e[0] == "finished" and e[1] != ForwardMsg.FINISHED_EARLY_FOR_RERUN
                                 for e in self.events[own[0]:])


def test_a_pause_click_that_a_play_tick_carries_first_pauses_once(new_page, app_url):
    """Pause sets Play off, whichever rerun brings the click and however often: it stays off."""
    lang = "en"
    page = new_page("en-US", load=False)
    talk = Talk(page)
    open_app(page, f"{app_url}/?section=train&lang={lang}")
    wait_step(page, 0)
    play_until(page, lang, 8)
    # while Play is on, Step and Run N wait (a click could come twice, as this test's Pause does)
    assert button(page, "step").is_disabled() and button(page, "run_steps").is_disabled()
    since = len(talk.events)
    page.evaluate(LATE_CLICK_JS, "play")
    deadline = time.monotonic() + 30
    while not talk.handled(since):
        assert time.monotonic() < deadline, talk.events[since:]
        page.wait_for_timeout(50)
    sent = [e for e in talk.events[since:] if e[0] == "play"]
    assert sent[0] == ("play", True), sent  # a tick's rerun brought the click first
    wait_idle(page)
    wait_js(page, "(t) => { const s = stage(); return document.querySelector('.st-key-play button').innerText.includes(t)"
                  " && s !== null && s.playing === '0'; }", label(lang, "train.play_button"), timeout=10_000)
    wait_js(page, "() => ['step', 'run_steps'].every(k => !document.querySelector(`.st-key-${k} button`).disabled)")
