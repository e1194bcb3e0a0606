"""Which run of the training view draws what: its rerun rules, written once.

The training view (sections/training_section.py) is one fragment: Streamlit reruns it alone when a
learner uses a widget in it, and on its timer while Play is on. These rules say when that is not
enough and the whole page must run (the one run that can set the fragment's timer, or apply a
knob and show its problems), and how many steps a Play tick takes.

| what happened                                   | what runs                                              |
| ----------------------------------------------- | ------------------------------------------------------ |
| Step, Run N, Reset, Set PAD, a details widget   | the view's fragment: it applies the click, draws it all |
| a Play tick                                     | the view's fragment, on its timer (`play_steps` steps)  |
| Play, Pause, a new speed                        | the page, before anything is drawn (it sets the timer)  |
| a knob on the bar                               | the page, before anything is drawn (it applies it)      |
| a click stops training, or lets it go on again  | the page, after the click (the bar, drawn before it,    |
|   (a divergence; a Reset after one)             |   shows the other buttons)                              |
| training stops while Play is on (a divergence)  | the page, after the bar (it stops the timer)            |
| the keeper reports (a reconnected page)         | the page: the keeper sits outside every fragment        |

Plain values in, a decision out: tests/test_training_reruns.py checks each row.
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


def page_before_drawing(knob_changed: bool, asked: Ticks, ticking: Ticks) -> bool:
    """At the top of a run of the stage's fragment: whether the page must run instead, drawing nothing.

    A knob changed (its callback ran): the page applies it and shows its problems. Play, Pause or
    a new speed asked (``asked``) that the timer this fragment was made with (``ticking``) does not
    match: the run that makes the fragment sets the timer, and draws the Pause label and the stage's
    last step together, so no tick of the old setting takes a step after the click."""
    return knob_changed or asked != ticking


def page_after_click(could_train: bool, can_train: bool) -> bool:
    """After the bar's click is carried out: whether the page must run again. The bar is drawn before
    its click is known, with the buttons of ``could_train``; a click that changed whether training
    can run (a divergence, a Reset after one) leaves the bar showing the wrong ones."""
    return could_train != can_train


def page_after_bar(now: Ticks, ticking: Ticks) -> bool:
    """After the bar is drawn: whether the page must run instead of drawing on. This run's click
    stopped training while Play was on (a divergence), or the bar's Play or speed differs from the
    timer: the timer must change, and only the run that makes the fragment sets it."""
    return now != ticking


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
