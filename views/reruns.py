"""Which run of the training view draws what: its rerun rules, written once.

The training view (sections/training_section.py) is one fragment: the bar, then the stage's part,
itself a fragment inside it while nothing below the stage that follows the step is open. Streamlit
reruns the innermost fragment that holds the widget a learner used, and the stage's part on its
timer while Play is on; the bar's Step, Run N and Reset are drawn by the stage's part (in the
bar's slots), so their click is one run of it. These rules say when that is not enough and the
whole page must run (the one run that can set the fragment's timer, or apply a knob and show its
problems), and how many steps a Play tick takes.

| what happened                                   | what runs                                              |
| ----------------------------------------------- | ------------------------------------------------------ |
| Step, Run N, Reset, while nothing below that    | the stage's part alone (`stage_apart`): Step, Run N,    |
|   follows the step is open                      |   Reset, the stage, the timeline, the caption, the      |
|                                                 |   keeper; N, Play, speed, the popovers not again        |
| a timeline move, the same                       | the stage's part alone (the timeline is in it)          |
| Step, Run N, Reset, a timeline move with the    | the view's fragment, the stage's part drawn inline in   |
|   details, the replay or the PAD editor open    |   it, so what is open below shows the same step         |
| a widget below the stage (Set PAD, re-fit, ...) | the view's fragment, the stage's part with it           |
| a token clicked on the stage, the stage apart   | the page (the token picker below shows the new token)   |
| a Play tick                                     | the stage's part, on its timer (`play_steps` steps)     |
| Play, Pause, a new speed                        | the page, before anything is drawn (it sets the timer)  |
| a knob on the bar                               | the page, before anything is drawn (it applies it)      |
| a click stops training, or lets it go on (a     | the page, after the click (the bar, drawn before it,    |
|   divergence; Reset or Back after one)          |   shows the other buttons)                              |
| training stops while Play is on (a divergence)  | the page, at the next tick, before anything is drawn    |
|                                                 |   (it stops the timer)                                  |
| the keeper reports (a reconnected page)         | the page: the keeper sits outside every fragment        |

Under AppTest every click runs the page. Plain values in, a decision out:
tests/test_training_reruns.py checks each row; tests/e2e/test_step_path.py counts a Step's runs in
Chromium.
"""

from __future__ import annotations

from dataclasses import dataclass

PLAY_TICK_S = 0.5  # while playing, one server round trip per tick; the stage glides through its steps
DEFAULT_SPEED = 10  # steps per second


@dataclass(frozen=True)
class Ticks:
    """Whether the stage's fragment ticks, and at how many steps per second (None when it does not)."""

    playing: bool
    speed: int | None = None

    @classmethod
    def of(cls, playing: bool, speed: int | None, can_train: bool) -> "Ticks":
        on = bool(playing) and can_train
        return cls(on, (speed or DEFAULT_SPEED) if on else None)

    @property
    def seconds(self) -> float | None:
        """The fragment's timer: one tick every this many seconds (None: no timer)."""
        return max(PLAY_TICK_S, 1.0 / self.speed) if self.playing else None


def stage_apart(playing: bool, below_open: bool) -> bool:
    """Whether the stage's part of the view is a fragment of its own, so that a Step, Run N, Reset,
    a timeline move or a Play tick reruns it alone (the details below keep what they drew): while
    Play is on (nothing below is drawn then), or while nothing below that follows the step (the
    details, the replay, the PAD editor) is open. Else the view's fragment draws it inline, and
    such a click reruns the whole view."""
    return playing or not below_open


def page_after_selection(stage_apart: bool) -> bool:
    """After a token was clicked on the stage: whether the page must run. The token picker below
    the stage must show it, and when the stage's part is a fragment of its own, nothing else would
    redraw the picker; the page runs (no fragment of the view can rerun another)."""
    return stage_apart


def page_before_drawing(knob_changed: bool, asked: Ticks, ticking: Ticks) -> bool:
    """At the top of a run of the stage's fragment: whether the page must run instead, drawing nothing.

    A knob changed (its callback ran): the page applies it and shows its problems. Play, Pause or
    a new speed asked (``asked``) that the timer this fragment was made with (``ticking``) does not
    match: the run that makes the fragment sets the timer, and draws the Pause label and the stage's
    last step together, so no tick of the old setting takes a step after the click."""
    return knob_changed or asked != ticking


def page_after_click(could_train: bool, can_train: bool) -> bool:
    """After a click is carried out: whether the page must run again. The bar on the page was drawn
    with the buttons of ``could_train``, before the click; one that changed whether training can run
    (a divergence; Reset, or Back to the last finite step, after one) leaves it showing the wrong ones."""
    return could_train != can_train


def play_steps(speed: int, tick: float, now: float, clock: tuple[float, float] | None) -> tuple[int, tuple[float, float]]:
    """How many steps this Play tick takes, and the clock to keep for the next one.

    ``clock`` is (when the last tick ran, the fraction of a step it still owes), or None on the
    first tick. Steps due = the time since the last tick × the speed, plus what it owed, so a late
    tick (a busy server, a slow run) does not lower the rate. A long stall is not made up at once:
    at most two ticks' worth. The first tick takes two ticks' worth: the stage shows them at the
    asked rate, so it holds a tick in hand and a tick that arrives a little late never leaves it
    waiting."""
    due = 2 * speed * tick if clock is None else speed * (now - clock[0]) + clock[1]
    whole = int(due + 1e-9)  # 5.9999999 steps owed by float arithmetic are 6
    n = min(whole, 2 * max(1, round(speed * tick)))
    return n, (now, max(0.0, due - n) if n == whole else 0.0)
