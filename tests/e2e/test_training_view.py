"""The training view reruns on its own (a Streamlit fragment): what it must still do for the page.

A Step, Run or Reset reruns only the training view, not the sidebar and the editors. These check,
in Chromium, what that must not lose:

- a knob changed in the bar's settings popover is applied by the whole page: a bad value shows
  the page's configuration error box, and the last valid configuration keeps training;
- the browser keeps the work after each Step (the keeper's localStorage entry follows the step), and
  nothing once Reset has brought the page back to what it opened with;
- a Step with nothing open below the stage redraws the stage's part alone (read from the messages
  the server sends), one with the details open redraws them too, and a token clicked on the stage
  is shown by the token picker below it (views/reruns.py).

AppTest always runs the whole script, so only a browser can check these.
"""

from __future__ import annotations

import time

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from .helpers import (STAGE, alerts, button, label, open_app, open_expander, section, set_number, step_once, unavailable_reason,
                      shown_step, wait_idle, wait_js, wait_step)

_reason = unavailable_reason()
if _reason:
    pytest.skip(_reason, allow_module_level=True)

pytestmark = pytest.mark.e2e

KEPT_STEPS_JS = """() => { const out = [];  // the steps of every entry the keeper holds (one per page session)
  for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i);
    if (k.startsWith('nn-embedding-explorer.work.')) out.push(JSON.parse(localStorage.getItem(k)).steps); }
  return out.join(','); }"""


def open_settings(page) -> None:
    """Open the bar's settings popover (optimizer, lr, weight decay)."""
    if not page.locator(".st-key-lr input").is_visible():
        page.get_by_role("button", name=label("ko", "train.knobs"), exact=True).click()
    page.locator(".st-key-lr input").wait_for()


def test_a_knob_on_the_bar_is_applied_by_the_whole_page_and_open_details_follow_each_step(ko_page):
    """A bad lr set in the bar's popover shows the page's configuration error box and the last valid
    configuration keeps training; a Step reruns only the stage's part, and the details, when open,
    follow it (they are drawn with the step's coordinates)."""
    page = ko_page
    section(page, "ko", "train")
    open_expander(page, "details")
    for n in (1, 2):
        step_once(page, n)
        coords = label("ko", "train.coords_title", step=n)
        wait_js(page, "(t) => document.querySelector('.st-key-details').innerText.includes(t)", coords)
    open_settings(page)
    set_number(page, "lr", 20)  # above the largest learning rate
    title = label("ko", "err.config_title")
    wait_js(page, "(t) => texts('stAlertContentError').some(x => x.includes(t))", title)
    assert any(title in text for text in alerts(page, "Error")), alerts(page, "Error")
    page.keyboard.press("Escape")
    step_once(page, 3)  # the last valid configuration keeps training
    open_settings(page)
    set_number(page, "lr", 0.05)
    wait_idle(page)
    assert not any(title in text for text in alerts(page, "Error")), "the error box stayed after a valid lr"


def kept_after(page, n: int | str) -> None:
    """Until the keeper's one entry in this browser holds step ``n`` ('' : no entry)."""
    page.wait_for_function(f"() => ({KEPT_STEPS_JS})() === '{n}'", timeout=10_000)


def test_a_learners_steps_keep_their_guess_token_and_view_and_the_browser_keeps_each(ko_page):
    """One learner's way through the view, on one page:

    - the guesses' popover builds its widgets only while open; a guess made there, the popover
      closed, then Step: the line under the bar marks that guess (the page kept it);
    - a token clicked on the stage is shown by the token picker below it (views/reruns.py,
      page_after_selection: the stage's part reruns alone on a click on it, and the page runs too),
      and the next Step keeps it;
    - back from another view, the timeline follows the newest step again (the browser had sent a
      stale value of the slider it no longer showed, and the stage stayed at step 0 while Step trained);
    - the browser keeps the work after each Step (the keeper's localStorage entry follows the step),
      and nothing once Reset has brought the page back to what it opened with."""
    page = ko_page
    section(page, "ko", "train")
    button(page, "predict_step").click()
    no = page.locator(".st-key-predict_pad label", has_text=label("ko", "predict.no")).first
    no.wait_for()
    no.click()
    wait_js(page, "() => !!document.querySelector('.st-key-predict_pad input:checked')")
    wait_idle(page)
    page.keyboard.press("Escape")  # closed: its widgets are not drawn in the Step's run
    wait_js(page, "() => !document.querySelector('.st-key-predict_pad')")
    step_once(page, 1)
    marks = page.locator(".st-key-predict_marks")
    marks.wait_for()
    text = marks.inner_text()
    assert "1단계 예측" in text and "PAD 행은" in text and "맞음" in text, text  # the PAD row never moves
    kept_after(page, 1)

    picked = "() => document.querySelector('.st-key-selected_token input').value"
    assert page.evaluate(picked) != "4 · 나쁘다"
    page.locator(f"{STAGE} .pt[data-token='4']").first.dispatch_event("click")  # a point may sit under the header
    wait_js(page, f"() => ({picked})() === '4 · 나쁘다'")
    step_once(page, 2)  # and the next Step keeps it
    wait_js(page, f"() => ({picked})() === '4 · 나쁘다'")
    kept_after(page, 2)

    section(page, "ko", "lookup")
    section(page, "ko", "train")
    wait_step(page, 2)
    step_once(page, 3)
    kept_after(page, 3)

    button(page, "reset").click()  # back to what the page opened with: nothing left to keep
    kept_after(page, "")


class Drawn:
    """The widget keys each finished run drew, read from the websocket messages the page receives."""

    def __init__(self, page):
        self.page, self.runs, self._keys = page, [], set()
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if not isinstance(payload, bytes):
            return
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el = msg.delta.new_element
            wid = getattr(getattr(el, el.WhichOneof("type") or "", None), "id", "")
            if isinstance(wid, str) and "-" in wid:
                self._keys.add(wid.rsplit("-", 1)[1])
        elif kind == "script_finished":
            self.runs.append(self._keys)
            self._keys = set()

    def after(self, action, timeout_s: float = 60) -> set[str]:
        """Do ``action``, wait for the runs it caused to finish and the page to settle; the keys they drew."""
        before = len(self.runs)
        action()
        deadline = time.monotonic() + timeout_s
        while len(self.runs) == before or self._keys:  # a condition: a run finished and none is half sent
            assert time.monotonic() < deadline, "no run finished after the action"
            self.page.wait_for_timeout(50)  # lets Playwright deliver the frames it holds
        wait_idle(self.page)
        return set().union(*self.runs[before:])


LABEL_CLASHES_JS = """(root) => {
  const shown = [...root.querySelectorAll('.pt .lbl')].filter(l => getComputedStyle(l).display !== 'none');
  const boxes = shown.map(l => [l.closest('.pt').dataset.token, l.closest('.pt').dataset.role, l.getBoundingClientRect()]);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [ti, ri, a] = boxes[i], [tj, rj, b] = boxes[j];
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(`${ti}(${ri}) × ${tj}(${rj})`);
  }
  return {n: boxes.length, roles: boxes.map(b => b[1]), out};
}"""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_shown_labels_never_cover_each_other_pad_and_unk_included(new_page, app_url, lang):
    """The 40 reviews after 5 steps at 1440×900: UNK sits next to PAD in the crowded middle, and its
    label used to be drawn on PAD's."""
    page = new_page("ko-KR" if lang == "ko" else "en-US", url=f"{app_url}/?lang={lang}&section=train&preset=reviews_{lang}")
    page.set_viewport_size({"width": 1440, "height": 900})
    wait_step(page, 0)
    for n in range(1, 6):
        step_once(page, n)
    page.mouse.move(2, 2)
    got = page.locator(STAGE).evaluate(LABEL_CLASHES_JS)
    assert "pad" in got["roles"] and "unk" in got["roles"] and got["n"] > 10, got
    assert got["out"] == [], got["out"]


def test_after_a_divergence_back_to_the_last_finite_step_gives_the_bar_its_buttons_again(new_page, app_url):
    """views/reruns.py, page_after_click: Back sits in the stage's part, which reruns alone, and the
    bar above it was drawn with Step disabled; the page runs, so Step works again. A Step that
    diverges (the knobs are unchanged) disables it again, from the stage's part alone as well."""
    page = new_page("en-US", url=f"{app_url}/?section=train&lang=en&optimizer=adamw&lr=10&weight_decay=10")
    wait_step(page, 0)
    step_disabled = "() => document.querySelector('.st-key-step button').disabled"
    button(page, "run_steps").click()
    button(page, "back_to").wait_for()
    wait_js(page, step_disabled)
    button(page, "back_to").click()
    wait_js(page, f"() => !({step_disabled})() && !document.querySelector('.st-key-back_to')")
    button(page, "step").click()
    button(page, "back_to").wait_for()
    wait_js(page, step_disabled)


def test_a_step_sends_the_stage_its_data_alone_and_redraws_the_stage_part_alone_unless_something_below_is_open(
        new_page, app_url):
    """The stage's and the keeper's JS is loaded once, from their folders (page.py,
    streamlit_private.serve_component_files); a Step's messages carry the data and the CSS (15 KB).

    views/reruns.py, stage_apart: with nothing open below the stage a Step's run draws the
    timeline and the bar's Step, Run N and Reset (the stage's part draws them), but neither the rest
    of the bar nor the widgets below; with the details open it draws the whole view, bar included."""
    page = new_page("ko-KR", load=False)
    drawn, loaded, frames = Drawn(page), [], []
    page.on("response", lambda r: loaded.append(r.url) if "/_stcore/bidi-components/" in r.url and r.ok else None)
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, bytes) else b"")))
    open_app(page, f"{app_url}/?section=train&lang=ko")
    wait_step(page, 0)
    names = {u.split("/_stcore/bidi-components/")[1] for u in loaded}
    assert {"embedding_stage/js/index.mjs", "embedding_stage/js/state.mjs", "work_keeper/keeper.js"} <= names, names
    below, bar = {"pca_dims", "refit_frame", "selected_token"}, {"n_steps", "play", "play_speed"}
    clicks = {"step", "run_steps", "reset"}  # drawn by the stage's part
    for n in (1, 2):  # and again: the Step button the part drew still works
        wait_idle(page)
        before = len(frames)
        keys = drawn.after(lambda: step_once(page, n))
        assert {"timeline"} | clicks <= keys and not keys & (below | bar), keys
        sent = b"".join(frames[before:])
        assert b"export default function" not in sent and 0 < len(sent) < 40_000, len(sent)
    open_expander(page, "details")
    keys = drawn.after(lambda: step_once(page, 3))
    assert {"timeline"} | clicks | below | bar <= keys, keys
