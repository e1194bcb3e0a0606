"""The training view's rerun rules (views/reruns.py), one test per row of its table, and the view as
data: one picture per Step, no streamlit in the view's builder, facts computed once per lab."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

from assets import presets
from core.explorer import Explorer
from views import reruns
from views.reruns import Ticks

ROOT = Path(__file__).resolve().parent.parent
OFF, AT_10 = Ticks(False), Ticks(True, 10)


# ---- the rules, a test per row -------------------------------------------------------------
def test_a_click_with_nothing_else_changed_is_drawn_by_the_fragment_alone():
    assert not reruns.page_before_drawing(knob_changed=False, asked=OFF, ticking=OFF)
    assert not reruns.page_after_click(could_train=True, can_train=True)


def test_the_stage_part_is_a_fragment_of_its_own_unless_something_below_follows_the_step():
    """A Step with the details, the replay and the PAD editor closed reruns the stage's part alone;
    with any open (and no Play: nothing below is drawn while playing), it reruns the whole view."""
    assert reruns.stage_apart(playing=False, below_open=False)
    assert not reruns.stage_apart(playing=False, below_open=True)
    assert reruns.stage_apart(playing=True, below_open=True) and reruns.stage_apart(playing=True, below_open=False)


def test_what_is_open_below_the_stage_is_read_from_the_expanders_that_follow_the_step():
    from session import Keys
    from sections.training_section import BELOW

    assert set(BELOW) == {Keys.DETAILS, Keys.REPLAY, Keys.PAD_EDITOR}


def test_a_token_clicked_on_the_stage_runs_the_page_when_the_stage_part_reruns_alone():
    assert reruns.page_after_selection(stage_apart=True)  # the picker below would show the old token
    assert not reruns.page_after_selection(stage_apart=False)  # the view's run draws the picker


def test_a_play_tick_is_the_fragment_alone():
    assert not reruns.page_before_drawing(False, AT_10, AT_10)
    assert AT_10.seconds == reruns.PLAY_TICK_S and Ticks(True, 20).seconds == reruns.PLAY_TICK_S
    assert Ticks(True, 1).seconds == 1.0 and OFF.seconds is None  # a slow speed ticks once a step; off: no timer


def test_play_pause_or_a_new_speed_runs_the_page_before_anything_is_drawn():
    assert reruns.page_before_drawing(False, asked=AT_10, ticking=OFF)  # Play
    assert reruns.page_before_drawing(False, asked=OFF, ticking=AT_10)  # Pause
    assert reruns.page_before_drawing(False, asked=Ticks(True, 20), ticking=AT_10)  # a new speed


def test_a_knob_on_the_bar_runs_the_page_before_anything_is_drawn():
    assert reruns.page_before_drawing(knob_changed=True, asked=OFF, ticking=OFF)


def test_training_that_stops_while_play_is_on_runs_the_page_at_the_next_tick():
    """A tick that diverged: the next tick asks for no timer, so the page runs and stops it."""
    stopped = Ticks.of(playing=True, speed=10, can_train=False)
    assert stopped == OFF and reruns.page_before_drawing(False, asked=stopped, ticking=AT_10)


def test_a_click_that_stops_or_frees_training_runs_the_page_after_it():
    """The bar is drawn before its click is carried out: a divergence, or a Reset after one, changes
    which of its buttons work, so the page runs again; any other click is the fragment's alone."""
    assert reruns.page_after_click(could_train=True, can_train=False)  # the click diverged
    assert reruns.page_after_click(could_train=False, can_train=True)  # Reset after a divergence
    assert not reruns.page_after_click(True, True) and not reruns.page_after_click(False, False)


def test_under_apptest_the_bar_after_a_diverging_click_and_after_reset_shows_the_buttons_that_work():
    from tests.apptest_helpers import start

    at = start("en")
    at.session_state["knobs"] = True
    at.button_group(key="section").set_value("train").run()
    at.selectbox(key="optimizer").set_value("adamw").run()
    at.number_input(key="lr").set_value(10.0).run()
    at.number_input(key="weight_decay").set_value(10.0).run()
    assert not at.button(key="step").disabled
    at.button(key="run_steps").click().run()
    assert at.session_state["_ws"].lab.diverged is not None
    assert at.button(key="step").disabled and at.button(key="run_steps").disabled  # in the run of the click
    at.button(key="reset").click().run()
    assert at.session_state["_ws"].lab.diverged is None and not at.button(key="step").disabled


def test_under_apptest_a_step_clicked_with_a_knob_change_is_taken_by_the_page_run():
    """A knob's change hands the run over to the page before the bar is drawn; a Step clicked in the
    same run (a browser sends both when the popover closes just before the click) is still taken,
    with the new knob, by the page's run: not lost with the run that drew nothing."""
    from tests.apptest_helpers import start

    at = start("en")
    at.session_state["knobs"] = True
    at.button_group(key="section").set_value("train").run()
    at.button(key="step").click().run()
    assert at.session_state["_ws"].lab.steps == 1
    at.number_input(key="lr").set_value(0.05)  # a new knob starts training afresh, then the Step
    at.button(key="step").click().run()
    ex = at.session_state["_ws"]
    assert not at.exception and ex.recipe.config.lr == 0.05 and ex.lab.steps == 1
    at.number_input(key="lr").set_value(20.0)  # above the largest: the last valid configuration trains on
    at.button(key="step").click().run()
    ex = at.session_state["_ws"]
    assert ex.recipe.config.lr == 0.05 and ex.lab.steps == 2
    assert at.error and not at.button(key="step").disabled


def test_play_is_off_while_training_cannot_run_and_speed_defaults():
    assert Ticks.of(True, None, True) == Ticks(True, reruns.DEFAULT_SPEED)
    assert Ticks.of(True, 5, False) == OFF and Ticks.of(False, 5, True) == OFF


def test_play_ticks_take_the_steps_the_elapsed_time_asks_for_and_carry_fractions():
    n, clock = reruns.play_steps(10, 0.5, 100.0, None)
    assert n == 10 and clock == (100.0, 0.0)  # the first tick: two ticks' worth
    n, clock = reruns.play_steps(10, 0.5, 100.55, clock)
    assert n == 5 and abs(clock[1] - 0.5) < 1e-9  # half a step owed
    n, _ = reruns.play_steps(10, 0.5, 100.55 + 60, clock)
    assert n == 10  # a stall is made up by two ticks' worth at most


# ---- the view as data -----------------------------------------------------------------------
def test_the_view_builder_imports_no_streamlit():
    code = "import sys, views.training, views.lookup, views.reruns, components.stage_data, components.training_data; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_view_is_torch_s_numbers_at_the_shown_step():
    """The view's stage and details against a fresh torch computation on the same lab."""
    from views.training import Asked, build

    ex = Explorer.from_preset(presets.load("reviews_en"))
    ex.run(3)
    ex.select(ex.vocab.index["great"])
    view = build(ex, "en", Asked(details=True))
    w = ex.lab.weight.detach().numpy()
    rows = view.stage["w"]["rows"]
    np.testing.assert_array_equal(np.asarray(view.stage["w"]["values"], np.float32), w[rows])
    d = view.details
    probs = torch.softmax(ex.lab.model(ex.lab.batch.ids, ex.lab.batch.lengths), -1).detach().numpy()
    assert [round(p, 5) for *_, p, _ in d.predictions] == [round(float(probs[b].max()), 5) for b in range(len(probs))]
    token = ex.selected_token
    cos = w @ w[token] / (np.linalg.norm(w, axis=1) * np.linalg.norm(w[token]) + 1e-30)
    cos[token] = -np.inf
    ids_now = d.neighbours[3][0]
    assert ids_now[0] == int(np.argmax(cos))
    assert view.shown == 3 and view.steps == (0, 1, 2, 3) and d.coords["step"] == 3


def test_a_click_carried_out_is_torch_s_steps_and_a_refused_one_changes_nothing():
    """views.training.carry_out, each action against a fresh torch loop of the same recipe."""
    from support.torch_reference import PlainLoop
    from views.training import Intent, carry_out, intent_of

    ex = Explorer.from_preset(presets.load("chapter"))
    guess = ((2,), False, True)
    assert carry_out(ex, intent_of("step", 50), guess) == []
    assert ex.lab.steps == 1 and ex.guess.step == 1 and ex.guess.rows == (2,)  # the guess is for this step
    assert [v.question for v in ex.verdicts()]  # and it was answered by it
    assert carry_out(ex, intent_of("run", 4.0), on_progress=lambda done, n: None) == []
    assert carry_out(ex, Intent(), play_steps=2) == []  # a Play tick
    np.testing.assert_array_equal(ex.lab.weight.detach().numpy(), PlainLoop(ex.recipe).run(7).weight)
    refused = intent_of("run", 2.5)  # N must be a whole number
    assert refused.action == "refused" and carry_out(ex, refused) == [refused.problem] and ex.lab.steps == 7
    assert carry_out(ex, Intent()) == [] and ex.lab.steps == 7  # no click, no tick: nothing happens
    assert carry_out(ex, intent_of("reset", 50)) == [] and ex.lab.steps == 0
    np.testing.assert_array_equal(ex.lab.weight.detach().numpy(), PlainLoop(ex.recipe).weight)
    assert intent_of(None, 50) == Intent() and intent_of("step", "x") == Intent("step", 1)


def test_facts_that_cannot_change_within_a_lab_are_computed_once_per_lab(monkeypatch):
    from core import lab_facts
    from views.training import Asked, build

    calls = []
    real = lab_facts.token_classes
    monkeypatch.setattr(lab_facts, "token_classes", lambda recipe: calls.append(1) or real(recipe))
    ex = Explorer.from_preset(presets.load("chapter"))
    for _ in range(3):
        ex.step()
        build(ex, "ko", Asked(details=True))
    assert len(calls) == 1
    ex.reset()  # a new lab
    build(ex, "ko", Asked())
    assert len(calls) == 2
    counts = np.bincount(ex.lab.batch.ids.reshape(-1).numpy(), minlength=ex.vocab.size)
    np.testing.assert_array_equal(ex.facts.counts, counts)


def test_under_apptest_a_step_computes_the_picture_once(monkeypatch):
    """Button → explorer → torch → the stage: the picture of the shown step is computed once per Step
    (with the details open too: their tables read the view built for the stage)."""
    from tests.apptest_helpers import stage_w, start

    at = start("en")
    at.button_group(key="section").set_value("train").run()
    at.session_state["details"] = True
    at.run()
    pictures = []
    real = Explorer.picture
    monkeypatch.setattr(Explorer, "picture", lambda self, *a, **k: pictures.append(a) or real(self, *a, **k))
    for n in (1, 2):
        pictures.clear()
        at.button(key="step").click().run()
        assert not at.exception
        assert len(pictures) == 1, pictures
        lab = at.session_state["_ws"].lab
        assert lab.steps == n
        np.testing.assert_array_equal(stage_w(at)[1], lab.weight.detach().numpy()[stage_w(at)[0]])
