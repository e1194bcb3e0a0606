"""Section 2: step a toy training loop and watch W move in one fixed PCA frame (C7–C9, C13, X7).

One run of the stage's part: draw the bar, which returns its click (components.training.bar), carry
it out through the explorer (core/explorer.py → core/training.py), build the view once
(views/training.py), draw it. Which part runs, and when the page must: views/reruns.py alone.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from functools import partial

import streamlit as st

from components import inputs, predict, training
from components.busy import busy, throttled
from components.i18n import md, t
from components.stage import stage
from core.explorer import Explorer
from core.memory import recipe_step_cost
from sections import training_details
from sections.training_keys import PREDICT, TRAIN
import session
from session import Keys
from views import reruns
from views.training import Asked, TrainingView, build

SLOW_STEP_S = 0.3  # a Step estimated slower than this shows a status while it runs
SLOW_TABLE_FLOATS = 1_000_000  # a table this large also costs the picture and the stage's data


def render(lang: str, ex: Explorer, present: bool = False, after=None) -> None:
    """The training view, one fragment (a click in it never reruns the sidebar or the editors). Its
    top, the stage's part (the bar, the stage, the timeline, the caption), is a fragment of its own
    while nothing below that follows the step is open (views/reruns.py): a Step, Run, Reset or Play
    tick then reruns it alone. ``after(lang, ex)`` ends every run of the stage's part (the keeper)."""
    ticking = ticks_asked(ex)
    if not ticking.playing:
        session.forget(Keys.PLAY_CLOCK)

    @st.fragment
    def view() -> None:
        apart = reruns.stage_apart(ticking.playing, below_open=any(bool(session.get(key)) for key in BELOW))

        def part() -> tuple[TrainingView, bool]:
            return stage_part(lang, ex, present, after, ticking, apart)

        shown, dark = (st.fragment(part, run_every=ticking.seconds) if apart else part)()
        training_details.render(lang, ex, shown, ticking.playing, dark)

    view()


def stage_part(lang: str, ex: Explorer, present: bool, after, ticking: reruns.Ticks,
               apart: bool) -> tuple[TrainingView, bool]:
    """One run of the stage's part: the bar, its click carried out, the picture built once and drawn;
    returns it, and whether the theme is dark, for the details below."""
    if reruns.page_before_drawing(bool(session.pop(Keys.FULL_RUN)), ticks_asked(ex), ticking):
        session.carry_clicks(TRAIN.clicks)  # a Step clicked with it is the page run's
        st.rerun()  # the page applies the knob, or sets the fragment's timer, and draws it all
    before, dark = ex.lab.steps, getattr(st.context.theme, "type", None) == "dark"  # the theme, read once a run
    above = st.container()  # above the bar: what the click and the lab have to say, drawn once it is carried out
    could_train = not ex.lab.train_problems()
    shown_bar = bar(lang, ex, could_train, ticking.playing, dark)
    intent = carry_out_click(lang, ex, shown_bar.intent, above)
    if reruns.page_after_click(could_train, not ex.lab.train_problems()):
        st.rerun()  # the click stopped training (a divergence) or let it go on: the bar shows the other buttons
    with above:
        notices(lang, ex)
        if intent.action is None:  # a click's own problems were shown by apply
            inputs.show_problems(lang, "err.train_title", ex.lab.train_problems(), key_prefix=Keys.PROBLEMS_PREFIX)
        diverged(lang, ex)
    predict.marks(lang, PREDICT, ex)
    if reruns.page_after_bar(reruns.Ticks.of(shown_bar.playing, shown_bar.speed, could_train), ticking):
        st.rerun()  # Play stopped (or changed) in this run: the timer is set where the fragment is made
    if ticking.playing and intent.action is None:
        n, clock = reruns.play_steps(ticking.speed, ticking.seconds, time.monotonic(), session.get(Keys.PLAY_CLOCK))
        session.set_value(Keys.PLAY_CLOCK, clock)
        if n:
            apply(lang, ex, training.Intent(), playing=True, steps_per_tick=n)
    asked = Asked(session.get(Keys.TIMELINE, training.NEWEST), bool(session.get(Keys.TIMELINE_FOLLOWS)),
                  session.get(Keys.PCA_DIMS) or 2, bool(session.get(Keys.DETAILS)) and not ticking.playing,
                  before if ex.lab.steps > before else None, ticking.playing, shown_bar.speed, present)
    shown = build(ex, lang, asked)  # the one picture of this run
    draw(lang, ex, shown, dark, page_follows_selection=apart)
    if after is not None:
        after(lang, ex)
    return shown, dark


BELOW = (Keys.DETAILS, Keys.REPLAY, Keys.PAD_EDITOR)  # below the stage, open: they follow each Step


def ticks_asked(ex: Explorer) -> reruns.Ticks:
    """Whether the learner has Play on now (the button's callback has run) and at what speed."""
    return reruns.Ticks.of(bool(session.get(Keys.PLAYING)), session.get(Keys.PLAY_SPEED), not ex.lab.train_problems())


def bar(lang: str, ex: Explorer, can_train: bool, playing: bool, dark: bool) -> training.Bar:
    """The training bar, with the guesses beside Step; the session's values in, its callbacks out."""
    session.ensure(Keys.N_STEPS, 50)
    session.ensure(Keys.PLAY_SPEED, reruns.DEFAULT_SPEED)
    current = ex.config_values()
    show = lambda: session.show_kept({key: guess for key, guess in zip(PREDICT.guesses, guessed(ex))})  # noqa: E731
    return training.bar(lang, TRAIN, can_train, bool(session.get(Keys.PLAYING)), dark, on_play=lambda: session.flip(Keys.PLAYING),
                        knobs=(lambda: session.show_knobs(current), full_run),
                        beside_step=lambda c: predict.guesses(lang, PREDICT, ex, c, not can_train or playing, show, session.keep),
                        carried=session.carried_clicks(TRAIN.clicks))


def guessed(ex: Explorer) -> tuple:
    """The guesses kept from the popover (rows, PAD moves, loss goes down), whether it is open or not."""
    rows, pad, loss = (session.kept(key) for key in PREDICT.guesses)
    return predict.shown_rows(rows, ex.vocab.size), pad, loss


def draw(lang: str, ex: Explorer, view: TrainingView, dark: bool, page_follows_selection: bool = False) -> None:
    """The stage, the timeline, the caption and the 3-D scatter, as built; ``page_follows_selection``:
    a token clicked on the stage runs the page too (views/reruns.py, ``page_after_selection``)."""
    if view.forget_timeline:
        session.forget(Keys.TIMELINE)  # drawn afresh at its default, the newest step
    session.set_value(Keys.TIMELINE_FOLLOWS, True)
    stage(view.stage, key=Keys.STAGE, on_select=partial(selected, ex, page_follows_selection))
    training.timeline(lang, TRAIN, list(view.steps))
    st.caption(view.caption)
    if view.flat:
        st.info(t(lang, "proj.flat"), icon=":material/casino:")
    if view.projection_3d is not None:
        training_details.projection_3d(lang, ex, view.projection_3d, dark)


def carry_out_click(lang: str, ex: Explorer, intent: training.Intent, above) -> training.Intent:
    """Carry out the bar's click of this run (Set PAD is its button's callback), saying so ``above`` the bar."""
    if intent.action == "step":
        ex.predict(*guessed(ex))  # the guesses kept become the guess for this step (none: no guess)
    # a slow Step says it is working at the top of ``above``, a block of its own: nothing below it moves
    with busy(above.empty(), t(lang, "train.stepping")) if intent.action == "step" and slow_step(ex) else nullcontext():
        apply(lang, ex, intent, playing=False, where=above)
    return intent


def slow_step(ex: Explorer) -> bool:
    """Whether a Step of this lab may take SLOW_STEP_S or more (core.memory's estimate, or a large table)."""
    recipe = ex.recipe
    return (recipe.vocab.size * recipe.config.embedding_dim >= SLOW_TABLE_FLOATS
            or recipe_step_cost(recipe).seconds >= SLOW_STEP_S)


def full_run() -> None:
    """Callback of the bar's knobs: the next run of the view asks for a run of the whole page."""
    session.set_value(Keys.FULL_RUN, True)


def selected(ex: Explorer, page_follows: bool) -> None:
    """Callback of the stage: the clicked token is followed, and the page runs when ``page_follows``."""
    session.select_token_from_stage(ex)
    if reruns.page_after_selection(page_follows):
        full_run()


def notices(lang: str, ex: Explorer) -> None:
    """What a callback of this view has to say (a refit); the page shows them on a full run."""
    for key, params in ex.notices:
        st.info(md(lang, key, **params), icon=":material/info:")
    ex.notices.clear()


def diverged(lang: str, ex: Explorer) -> None:
    """After a divergence: its likely cause and how to go on (the lab already stands at the last finite step)."""
    p = ex.lab.diverged
    if p is None:
        return
    st.info(t(lang, f"diverged.cause.{p.params['cause']}", **p.params), icon=":material/warning:")
    st.button(t(lang, "train.back_to", step=p.params["last"]), key=Keys.BACK_TO, help=t(lang, "train.back_to_help"),
              on_click=ex.back_to, args=(p.params["last"],))


def apply(lang: str, ex: Explorer, intent: training.Intent, playing: bool, steps_per_tick: int = 1,
          where=None) -> None:
    """Carry out what the controls asked, through the explorer; a tick of Play is ``steps_per_tick`` steps.
    Its progress and problems are drawn in ``where`` (a container), or here."""
    with where if where is not None else nullcontext():
        problems = [intent.problem] if intent.problem is not None else []
        if intent.action == "reset":
            ex.reset()
            session.forget(Keys.TIMELINE)
        elif intent.action == "step":
            problems = ex.step()
        elif playing and intent.action is None:
            problems = ex.run(steps_per_tick)
        elif intent.action == "set_pad":
            problems = ex.set_pad(intent.pad_vector)
        elif intent.action == "run":
            bar = st.progress(0.0, text=t(lang, "train.running", n=intent.n))
            problems = ex.run(intent.n, on_progress=throttled(
                lambda done, n: bar.progress(done / n, text=t(lang, "train.running", n=n))))
            bar.empty()
        inputs.show_problems(lang, "err.train_title", problems, key_prefix=Keys.PROBLEMS_PREFIX)

