"""Section 2: step a toy training loop and watch W move in one fixed PCA frame (C7–C9, C13, X7).

A Step is one run of the stage's part, which draws the bar's Step (components.training.clicks):
the click its callback kept (``bar_clicked``) becomes an Intent that views/training.py carries out
through the explorer (core/) in that run, and builds the view once; the part draws it. Which part
runs, and when the page must: views/reruns.py alone.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from functools import partial

import streamlit as st

from components import inputs, predict, training
from components.busy import busy, throttled
from components.i18n import t
from components.stage import stage
from core.explorer import Explorer
from core.cost import slow_step
from sections import training_details
from sections.training_keys import PREDICT, TRAIN
import session
from server import streamlit_private
from server.turn import TURN
from session import Keys
from views import reruns
from views.training import Asked, Intent, TrainingView, build, carry_out, intent_of


# A click's own run (a fragment's: Step, Run N, a Play tick) waits for its turn (server/turn.py);
# a full page run takes none.
in_turn = TURN.runs_when(lambda: streamlit_private.fragment_interaction())


def render(lang: str, ex: Explorer, present: bool = False, after=None) -> None:
    """The training view, one fragment (a click in it never reruns the sidebar or the editors): the
    bar, then the stage's part (the bar's Step, Run N and Reset, the stage, the timeline, the
    caption), a fragment of its own while nothing below that follows the step is open
    (views/reruns.py): a Step, Run N, Reset or Play tick then reruns it alone, the rest of the bar
    not drawn again. ``after(lang, ex)`` ends every run of the stage's part (the keeper)."""
    session.play_taken()
    session.select_token_from_stage(ex)  # a token picked on the stage by a script before the run (no callback fires)
    ticking = ticks_asked(ex)
    if not ticking.playing:
        session.own().play_clock = None

    @st.fragment
    @in_turn
    def view() -> None:
        session.play_taken()  # Play's click, brought by the view's own run (a tick's run of the stage's part leaves it)
        page_first(ex, ticking)
        apart = reruns.stage_apart(ticking.playing, below_open=any(bool(session.get(key)) for key in BELOW))
        dark = getattr(st.context.theme, "type", None) == "dark"  # the theme, read once a run
        can_train = not ex.lab.train_problems()
        shown_bar = bar(lang, ex, can_train, ticking.playing, dark)
        part = partial(stage_part, lang, ex, present, after, ticking, shown_bar, dark, apart, can_train)
        shown = (st.fragment(part, key=STAGE_PART, run_every=ticking.seconds) if apart else part)()
        training_details.render(lang, ex, shown, ticking.playing, dark)

    view()


STAGE_PART = "training_stage"  # the stage's part's fragment


def page_first(ex: Explorer, ticking: reruns.Ticks) -> None:
    """At the top of a run of the view or of the stage's part: the page runs instead when a knob
    changed or Play's setting differs from the timer (views/reruns.py, ``page_before_drawing``).
    A click of the bar made for this run stays kept for the page's run."""
    if reruns.page_before_drawing(session.own().take_full_run(), ticks_asked(ex), ticking):
        st.rerun()  # the page applies the knob, or sets the fragment's timer, and draws it all


@in_turn
def stage_part(lang: str, ex: Explorer, present: bool, after, ticking: reruns.Ticks, shown_bar: training.Bar,
               dark: bool, apart: bool, bar_can_train: bool) -> TrainingView:
    """One run of the stage's part: the bar's click buttons drawn in its slots, the click carried out,
    the picture built once and drawn; returns it, for the details below. ``bar_can_train``: the rest
    of the bar on the page was drawn for it."""
    page_first(ex, ticking)
    training.clicks(lang, TRAIN, shown_bar, not ex.lab.train_problems(), dark, on_click=bar_clicked)
    before = ex.lab.steps
    above = st.container()  # under the bar: what the click and the lab have to say, drawn once it is carried out
    intent = carry_out_click(lang, ex, clicked(not ex.lab.train_problems() and not ticking.playing), above)
    if reruns.page_after_click(bar_can_train, not ex.lab.train_problems()):
        st.rerun()  # a click stopped training (a divergence) or let it go on (Reset, Back): the bar shows the other buttons
    with above:
        inputs.show_notices(lang, ex.notices)  # a callback's (a refit); the page shows them on a full run
        if intent.action is None:  # a click's own problems were shown by apply
            inputs.show_problems(lang, "err.train_title", ex.lab.train_problems(), key_prefix=Keys.PROBLEMS_PREFIX)
        training.diverged(lang, ex.lab.diverged, Keys.BACK_TO, on_back=ex.back_to)
    predict.marks(lang, PREDICT, ex)
    if ticking.playing and intent.action is None:
        n, session.own().play_clock = reruns.play_steps(ticking.speed, ticking.seconds, time.monotonic(), session.own().play_clock)
        if n:
            apply(lang, ex, Intent(), play_steps=n)
    if session.own().undo_offered and ex.lab.steps:
        st.rerun()  # the new inputs are trained: the page takes back its offer to undo their restart
    asked = Asked(session.get(Keys.TIMELINE, training.NEWEST), session.own().timeline_follows,
                  session.get(Keys.PCA_DIMS) or 2, bool(session.get(Keys.DETAILS)) and not ticking.playing,
                  before if ex.lab.steps > before else None, ticking.playing, shown_bar.speed, present)
    shown = build(ex, lang, asked)  # the one picture of this run
    draw(lang, ex, shown, dark, page_follows_selection=apart)
    if after is not None:
        after(lang, ex)
    return shown


BELOW = (Keys.DETAILS, Keys.REPLAY, Keys.PAD_EDITOR)  # below the stage, open: they follow each Step


def ticks_asked(ex: Explorer) -> reruns.Ticks:
    """Whether the learner has Play on now (the button's callback has run) and at what speed."""
    return reruns.Ticks.of(session.own().playing, session.get(Keys.PLAY_SPEED), not ex.lab.train_problems())


def bar(lang: str, ex: Explorer, can_train: bool, playing: bool, dark: bool) -> training.Bar:
    """The training bar but its click buttons (``stage_part`` draws them), with the guesses beside
    Step; the session's values in, its callbacks out."""
    session.ensure(Keys.N_STEPS, 50)
    session.ensure(Keys.PLAY_SPEED, reruns.DEFAULT_SPEED)
    show = lambda: session.show_kept({key: guess for key, guess in zip(PREDICT.guesses, guessed(ex))})  # noqa: E731
    return training.bar(lang, TRAIN, can_train, session.own().playing, dark, on_play=session.play_asked,
                        knobs=(lambda: session.show_knobs(ex.config_values(), drawn=training.STAGE_KNOBS), full_run),
                        beside_step=lambda c: predict.guesses(lang, PREDICT, ex, c, not can_train or playing, show, session.keep))


def bar_clicked(action: str) -> None:
    """Callback of Step, Run N and Reset: the click, for the run of the stage's part it starts."""
    session.own().clicked = action


def clicked(can_step: bool) -> Intent:
    """The bar's kept click as an Intent, taken once; Step and Run N only count when ``can_step``:
    training can run and Play is off (``training.clicks`` disables them otherwise)."""
    action = session.own().take_click()
    if action in ("step", "run") and not can_step:
        return Intent()
    return intent_of(action, session.get(Keys.N_STEPS))


def guessed(ex: Explorer) -> tuple:
    """The guesses kept from the popover (rows, PAD moves, loss goes down), whether it is open or not."""
    rows, pad, loss = (session.kept(key) for key in PREDICT.guesses)
    return predict.shown_rows(rows, ex.vocab.size), pad, loss


def draw(lang: str, ex: Explorer, view: TrainingView, dark: bool, page_follows_selection: bool = False) -> None:
    """The stage, the timeline, the caption and the 3-D scatter, as built; ``page_follows_selection``:
    a token clicked on the stage runs the page too (views/reruns.py, ``page_after_selection``)."""
    if view.forget_timeline:
        session.forget(Keys.TIMELINE)  # drawn afresh at its default, the newest step
    session.own().timeline_follows = not view.playing  # Play draws a slider of its own (components/training.timeline)
    stage(view.stage, key=Keys.STAGE, on_select=partial(selected, ex, page_follows_selection))
    training.timeline(lang, TRAIN, list(view.steps), playing=view.playing)
    st.caption(view.caption)
    if view.flat:
        st.info(t(lang, "proj.flat"), icon=":material/casino:")
    if view.projection_3d is not None:
        training_details.projection_3d(lang, ex, view.projection_3d, dark)


def carry_out_click(lang: str, ex: Explorer, intent: Intent, above) -> Intent:
    """Carry out the bar's click, saying so in ``above``."""
    # a slow Step says it is working at the top of ``above``, a block of its own: nothing below it moves
    with busy(above.empty(), t(lang, "train.stepping")) if intent.action == "step" and slow_step(ex.recipe) else nullcontext():
        apply(lang, ex, intent, where=above)
    return intent


def full_run() -> None:
    """Callback of the bar's knobs: the next run of the view asks for a run of the whole page."""
    session.own().full_run = True


def selected(ex: Explorer, page_follows: bool) -> None:
    """Callback of the stage: the clicked token is followed, and the page runs when ``page_follows``."""
    session.select_token_from_stage(ex)
    if reruns.page_after_selection(page_follows):
        full_run()


def apply(lang: str, ex: Explorer, intent: Intent, play_steps: int = 0, where=None) -> None:
    """Carry out what the controls asked (views.training.carry_out), or a Play tick of ``play_steps``
    steps; Run N's progress and the problems are drawn in ``where`` (a container), or here."""
    with where if where is not None else nullcontext():
        bar = st.progress(0.0, text=t(lang, "train.running", n=intent.n)) if intent.action == "run" else None
        progress = None if bar is None else throttled(
            lambda done, n: bar.progress(done / n, text=t(lang, "train.running", n=n)))
        guess = guessed(ex) if intent.action == "step" else None  # only a Step takes the guesses
        problems = carry_out(ex, intent, guess, play_steps, on_progress=progress)
        if bar is not None:
            bar.empty()
        if intent.action == "reset":
            session.forget(Keys.TIMELINE)
        inputs.show_problems(lang, "err.train_title", problems, key_prefix=Keys.PROBLEMS_PREFIX)
