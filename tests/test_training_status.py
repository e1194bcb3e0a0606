"""A Step that may take over ~300 ms says so while it runs (issue 16: a status on every slow action)."""

from __future__ import annotations

from assets import presets
from core.explorer import Explorer
from core.cost import slow_step


def test_a_step_of_the_large_table_is_announced_and_a_chapter_step_is_not():
    chapter = Explorer.from_preset(presets.load("chapter"))
    assert not slow_step(chapter.recipe)
    assert slow_step(Explorer.from_preset(presets.load("large")).recipe)


def test_play_takes_the_steps_the_elapsed_time_asks_for():
    """Play's rate is steps per second of wall time: a late tick takes more steps, fractions carry."""
    from views.reruns import play_steps

    now, clock, taken = 100.0, None, []
    for dt in (0.0, 0.55, 0.55, 0.55, 0.55, 0.3, 5.0):  # the first tick, ticks that arrive late, one early, a stall
        now += dt
        n, clock = play_steps(10, 0.5, now, clock)
        taken.append(n)
    assert taken[0] == 10  # the first tick: two ticks' worth, one of them held in hand
    assert taken[1:5] == [5, 6, 5, 6]  # then 5.5 steps a tick on average: the half steps carry over
    assert taken[5] == 3  # 0.3 s after the last tick, with nothing owed
    assert taken[6] == 10  # a 5 s stall is made up by at most two ticks' worth
    assert sum(taken[1:5]) == round(10 * 4 * 0.55)
