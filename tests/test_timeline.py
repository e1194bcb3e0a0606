"""The timeline follows the newest step even when the browser sends back an old value (issue 26).

A request the browser sends before it took in the last run's page (a Play tick, the Pause click,
a second quick Step) carries the timeline as the browser still shows it. The page must read that
as "following the newest step", not as the learner scrubbing back: otherwise the stage freezes on
an old step while the lab trains on, and Pause shows a step the lab has left. What the stage shows
is checked against the lab's own step count and the step the learner chose.
"""

from __future__ import annotations

import contextlib

import pytest
from streamlit.testing.v1.element_tree import SelectSlider

from components.i18n import t
from components.training import NEWEST
from tests.apptest_helpers import stage, start


@pytest.fixture
def at():
    at = start("ko")
    at.button_group(key="section").set_value("train").run()
    at.number_input(key="n_steps").set_value(5).run()
    at.button(key="run_steps").click().run()
    assert stage(at)["scatter"]["step"] == 5
    return at


@contextlib.contextmanager
def browser_sends(raw: str):
    """The next run's request carries the timeline as ``raw``, a label the browser still shows."""
    real = SelectSlider._widget_state

    def stale(self):
        ws = real.fget(self)
        ws.string_array_value.data[:] = [raw]
        return ws

    SelectSlider._widget_state = property(stale)
    try:
        yield
    finally:
        SelectSlider._widget_state = real


def sentinel_label(at) -> str:
    return at.select_slider(key="timeline").proto.options[-1]


def test_the_timeline_ends_in_the_newest_step_which_it_follows(at):
    slider = at.select_slider(key="timeline")
    assert list(slider.proto.options) == ["0", "1", "2", "3", "4", "5 (최신)"] and slider.value == NEWEST
    at.button(key="step").click().run()
    assert stage(at)["scatter"]["step"] == 6 == at.session_state["_ws"].lab.steps
    assert sentinel_label(at) == "6 (최신)"


@pytest.mark.parametrize("stale", ["sentinel of the run before", "sentinel of two runs before"])
def test_a_step_sent_with_an_old_timeline_label_still_shows_the_newest_step(at, stale):
    labels = [sentinel_label(at)]
    at.button(key="step").click().run()
    labels.append(sentinel_label(at))
    raw = labels[-1] if stale == "sentinel of the run before" else labels[0]
    with browser_sends(raw):  # the browser has not yet drawn the last run's timeline
        at.button(key="step").click().run()
    lab = at.session_state["_ws"].lab
    assert lab.steps == 7 and stage(at)["scatter"]["step"] == 7  # not 5 or 6: the lab's newest step
    at.button(key="step").click().run()
    assert stage(at)["scatter"]["step"] == 8  # and it goes on following


def test_a_step_the_learner_scrubbed_to_stays_through_new_steps_and_the_end_follows_again(at):
    at.select_slider(key="timeline").set_value(3).run()
    assert stage(at)["scatter"]["step"] == 3
    at.button(key="step").click().run()
    assert stage(at)["scatter"]["step"] == 3 and at.session_state["_ws"].lab.steps == 6  # stays where they put it
    at.select_slider(key="timeline").set_value(NEWEST).run()  # the right end: the newest step, followed
    assert stage(at)["scatter"]["step"] == 6
    at.button(key="step").click().run()
    assert stage(at)["scatter"]["step"] == 7


def test_a_language_switch_keeps_following(at):
    at.radio(key="lang").set_value("en").run()
    assert stage(at)["scatter"]["step"] == 5 and sentinel_label(at) == "5 (newest)"
    at.button(key="step").click().run()
    assert stage(at)["scatter"]["step"] == 6


def test_back_on_the_training_view_the_timeline_follows_again(at):
    at.select_slider(key="timeline").set_value(2).run()
    at.button_group(key="section").set_value("lookup").run()
    at.button_group(key="section").set_value("train").run()
    assert stage(at)["scatter"]["step"] == 5 and at.select_slider(key="timeline").value == NEWEST


def test_while_playing_the_timeline_names_no_step_and_play_follows_the_newest_one(at):
    """Issue 37 (5): during Play the stage walks through each tick's steps a tick behind the newest
    one, so a number on the timeline would disagree with its counter; the timeline is disabled and
    says it follows the newest step. Play lets a scrubbed timeline go; Pause names the step again.
    While playing it is a slider of its own, with no key and options that do not change from tick
    to tick (components/training.timeline): Streamlit's browser would show a longer list's step at
    the old newest end's index for a moment."""
    at.select_slider(key="timeline").set_value(3).run()
    assert stage(at)["scatter"]["step"] == 3
    at.button(key="play").click().run()
    lab = at.session_state["_ws"].lab
    assert lab.steps > 5 and stage(at)["scatter"]["step"] == lab.steps  # not frozen at 3
    assert not [s for s in at.select_slider if s.key == "timeline"]
    played = [s for s in at.select_slider if s.label == t("ko", "proj.timeline")]
    assert len(played) == 1 and played[0].value == NEWEST and played[0].proto.disabled
    options = list(played[0].proto.options)
    assert options == ["0", t("ko", "proj.timeline_playing")], options
    before = lab.steps
    for _ in range(200):  # later ticks, until one has taken a step (each takes the steps its time owes)
        if at.run().session_state["_ws"].lab.steps > before:
            break
    assert lab.steps > before  # more steps, the same two options
    assert [list(s.proto.options) for s in at.select_slider if s.label == t("ko", "proj.timeline")] == [options]
    at.button(key="play").click().run()  # Pause
    slider = at.select_slider(key="timeline")
    assert not slider.proto.disabled and sentinel_label(at) == f"{lab.steps} (최신)" and slider.value == NEWEST
    assert stage(at)["scatter"]["step"] == lab.steps and not stage(at)["play"]["on"]
