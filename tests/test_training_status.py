"""A Step that may take over ~300 ms says so while it runs (issue 16: a status on every slow action)."""

from __future__ import annotations

from assets import presets
from core.explorer import Explorer
from sections.training_section import slow_step


def test_a_step_of_the_large_table_is_announced_and_a_chapter_step_is_not():
    chapter = Explorer.from_preset(presets.load("chapter"))
    assert not slow_step(chapter)
    assert slow_step(Explorer.from_preset(presets.load("large")))


def test_play_takes_the_steps_the_elapsed_time_asks_for(monkeypatch):
    """Play's rate is steps per second of wall time: a late tick takes more steps, fractions carry."""
    import session
    import sections.training_section as ts

    store, clock = {}, [100.0]
    monkeypatch.setattr(session, "get", lambda k, d=None: store.get(k, d))
    monkeypatch.setattr(session, "set_value", lambda k, v: store.__setitem__(k, v))
    monkeypatch.setattr(ts.time, "monotonic", lambda: clock[0])
    taken = [ts.play_steps(10, 0.5)]  # the first tick: two ticks' worth, one of them held in hand
    for dt in (0.55, 0.55, 0.55, 0.55, 0.3, 5.0):  # ticks that arrive late, one early, then a stall
        clock[0] += dt
        taken.append(ts.play_steps(10, 0.5))
    assert taken[:5] == [10, 5, 6, 5, 6]  # then 5.5 steps a tick on average: the half steps carry over
    assert taken[5] == 3  # 0.3 s after the last tick, with nothing owed
    assert taken[6] == 10  # a 5 s stall is made up by at most two ticks' worth
    assert sum(taken[1:5]) == round(10 * 4 * 0.55)
