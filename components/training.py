"""The training area: the bar that hands each click to a callback, and views of what a step did to W.

Nothing here touches the optimizer or the session: the bar hands each click to the caller's
callback, which the caller turns into an Intent and carries out (views/training.py); values come in
as arguments, changes go out through the callbacks the caller passes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa  # st.dataframe sends an Arrow table as it is, with no conversion from pandas
import streamlit as st

from components import charts
from components.i18n import md, t
from components.knob_input import knob_input
from components.training_data import NEWEST, GradData, MovedData
from core import limits
from core.exact import exact_int
from core.knobs import KNOBS
from core.problems import Problem


@dataclass(frozen=True)
class TrainKeys:
    """The training view's widget keys, given by the caller (the app's are session.Keys)."""

    step: str
    n_steps: str
    run: str
    play: str
    speed: str
    reset: str
    knobs: str
    pad_editor: str
    pad_vector: str
    set_pad: str
    loss_chart: str
    timeline: str


PLAY_SPEEDS = (1, 2, 5, 10, 20)  # steps per second the Play control offers
STAGE_KNOBS = ("optimizer", "lr", "weight_decay")  # knobs that matter while training: on the bar, not the sidebar


@dataclass(frozen=True)
class Bar:
    """What the training bar returned: whether Play is on, its speed, N, and the bar's slots where
    ``clicks`` draws Step, Run N and Reset."""
    playing: bool
    speed: int
    n: object  # N's value, as Run N's label shows it
    slots: tuple


def bar(lang: str, keys: TrainKeys, can_train: bool, playing: bool, dark: bool, on_play, knobs,
        beside_step=None) -> Bar:
    """One bar: Step, N, Run N, Play, speed, Reset, and the training knobs in a popover;
    ``beside_step(column)``, when given, draws into a slot right after Step (the guesses).

    Drawn here: N, Play, speed and the knobs. Step, Run N and Reset are left to ``clicks``, called
    by whoever carries out their click (a fragment may fill the slots of a bar drawn outside it: a
    click then reruns that fragment alone). ``playing``: whether Play is on; ``on_play(on)``, the
    button's callback, is told the state its label offers (Play: True, Pause: False).
    ``knobs``: (the callback that gives the knobs the values in effect before they are drawn, the
    knobs' ``on_change``); their popover is built only while open. ``dark``: the page's theme is dark.
    """
    widths = [1, 0.9, 1.1, 1.05, 0.9, 0.9, 1.15]
    if beside_step:  # eight slots: the narrower ones give way so that every label still fits
        # Korean's Run and Reset say what they do ("50단계 학습", "처음으로 되돌리기"): wider, at the
        # cost of the number and the settings, whose Korean is short. Play's slot fits Pause's label.
        widths = [0.95, 0.8, 0.5, 1.2, 1.02, 1.0, 1.5, 0.75] if lang == "ko" else [0.9, 0.95, 0.75, 1.05, 1.1, 0.93, 1.0, 0.92]
    cols = st.columns(widths, vertical_alignment="center")
    if beside_step:
        beside_step(cols.pop(1))
    n = cols[1].number_input(t(lang, "train.n_steps"), key=keys.n_steps, min_value=1.0,
                             max_value=float(limits.MAX_STEPS_PER_CLICK), step=10.0, format="%g",
                             label_visibility="collapsed", help=t(lang, "train.n_steps_help"))
    playing = playing and can_train
    # Primary (filled) only in the light theme: Streamlit writes a primary button's label in white,
    # which no dark theme's primary colour can carry at 4.5:1 (WCAG AA). The click asks for the state
    # its label offers, not a flip: one click can arrive twice (session.play_taken).
    cols[3].button(t(lang, "train.pause_button" if playing else "train.play_button"), key=keys.play,
                   disabled=not can_train, width="stretch", shortcut="p", help=t(lang, "train.play_button_help"),
                   type="primary" if playing and not dark else "secondary", on_click=on_play, args=(not playing,))
    speed = cols[4].selectbox(t(lang, "train.speed"), PLAY_SPEEDS, key=keys.speed, label_visibility="collapsed",
                              format_func=lambda v: t(lang, "train.speed_value", n=v), help=t(lang, "train.speed_help"))
    show_knobs, on_knob_change = knobs
    popover = cols[6].popover(t(lang, "train.knobs"), width="stretch", help=t(lang, "train.knobs_help"),
                              key=keys.knobs, on_change="rerun")
    if popover.open:
        show_knobs()  # its widgets were not drawn while it was closed
        with popover:
            for k in KNOBS:
                if k.name in STAGE_KNOBS:
                    knob_input(lang, k, on_change=on_knob_change)
    return Bar(playing, speed, n, (cols[0], cols[2], cols[5]))


def clicks(lang: str, keys: TrainKeys, shown: Bar, can_train: bool, dark: bool, on_click) -> None:
    """Step, Run N and Reset, in the slots of the bar ``shown``. A click calls
    ``on_click(action)`` ("step", "run", "reset") as the button's callback, before the run that draws
    these again: the caller keeps it and carries it out in that run, where it draws the stage.
    Step and Run N are disabled when training cannot run (with the reason shown by the caller), and
    while Play is on: a click then could reach the server twice (a Play tick carries it, then its own
    message), and Run N would run 2N steps."""
    step, run, reset = shown.slots
    off = not can_train or shown.playing
    # primary in the light theme only, as Play's (``bar``)
    step.button(t(lang, "train.step"), key=keys.step, type="secondary" if dark else "primary",
                disabled=off, width="stretch", shortcut="s",
                help=t(lang, "train.pause_first" if shown.playing else "train.step_help"), on_click=on_click, args=("step",))
    run_n = exact_int(shown.n, "n_steps")
    run.button(t(lang, "train.run", n=run_n if isinstance(run_n, int) else 1), key=keys.run,
               disabled=off, width="stretch", shortcut="n",
               help=t(lang, "train.pause_first" if shown.playing else "train.run_help"), on_click=on_click, args=("run",))
    reset.button(t(lang, "train.reset"), key=keys.reset, width="stretch", shortcut="0",
                 help=t(lang, "train.reset_help"), on_click=on_click, args=("reset",))


def diverged(lang: str, problem: Problem | None, key: str, on_back) -> None:
    """After a divergence (``problem``, or None: none): its likely cause and a button (``key``) that goes
    on from the last finite step, ``on_back(step)``; the lab already stands there."""
    if problem is None:
        return
    st.info(t(lang, f"diverged.cause.{problem.params['cause']}", **problem.params), icon=":material/warning:")
    st.button(t(lang, "train.back_to", step=problem.params["last"]), key=key, help=t(lang, "train.back_to_help"),
              on_click=on_back, args=(problem.params["last"],))


def pad_editor(lang: str, keys: TrainKeys, dim: int, pad_id: int, pad_row, on_open, on_text_change, on_set) -> None:
    """Set the PAD row by hand (C13): a text box and a button, in an expander built only while open.
    ``pad_row()`` gives the row now; ``on_open()`` gives the text box its kept text before it is
    drawn, ``on_text_change(key)`` keeps a new one, and ``on_set`` (the button's callback) sets the
    row before the rerun draws the stage."""
    box = st.expander(t(lang, "train.pad_title", pad=pad_id), key=keys.pad_editor, on_change="rerun")
    if not box.open:
        return
    on_open()
    with box:
        st.caption(t(lang, "train.pad_help", e=dim))
        st.text_input(t(lang, "train.pad_vector"), key=keys.pad_vector, help=t(lang, "help.pad_vector"),
                      on_change=on_text_change, args=(keys.pad_vector,))
        st.markdown(t(lang, "train.pad_now", row=np.array2string(pad_row(), precision=4, separator=", ")))
        st.button(t(lang, "train.pad_set"), key=keys.set_pad, help=t(lang, "help.set_pad"), on_click=on_set)


def loss_and_predictions(lang: str, keys: TrainKeys, losses: list[float],
                         rows: list[tuple[str, str, str, float, bool]]) -> None:
    """The loss curve and, per sentence, (text, label, predicted class, its probability, right?)."""
    cols = st.columns([1.2, 1])
    with cols[0]:
        if losses:
            curve = charts.loss_curve(losses, t(lang, "train.loss_title", step=len(losses)),
                                      (t(lang, "label.axis.step"), t(lang, "label.axis.loss")))
            st.plotly_chart(charts.safe_figure(curve), key=keys.loss_chart, config=charts.chart_config("loss"))
        else:
            st.info(t(lang, "train.no_steps_yet"))
    with cols[1]:
        table = [{t(lang, "pipe.col.sentence"): text, t(lang, "train.col.label"): label,
                  t(lang, "train.col.pred"): f"{pred} ({p:.2f})", "✓": "✓" if right else "✗"}
                 for text, label, pred, p, right in rows]
        st.dataframe(pa.Table.from_pylist(table), hide_index=True, width="stretch", height=min(300, 38 + 35 * len(rows)))


MAX_GRAD_ROWS = 200  # rows of the gradient table: PAD and UNK first, then the largest ‖grad‖
MAX_GRAD_COLS = 12  # numbers shown of each gradient row


def grad_rows_shown(ids: np.ndarray, norms: np.ndarray, special: tuple[int, int]) -> np.ndarray:
    """Positions (into ids) of the rows to show: all when few, else PAD/UNK and the largest norms, in id order."""
    if len(ids) <= MAX_GRAD_ROWS:
        return np.arange(len(ids))
    keep = set(np.flatnonzero(np.isin(ids, special)).tolist())
    for pos in np.argsort(-norms, kind="stable"):
        if len(keep) >= MAX_GRAD_ROWS:
            break
        keep.add(int(pos))
    return np.array(sorted(keep))


def grad_view(lang: str, g: GradData | None) -> None:
    """The last step's dL/dW row by row, with numbers: used rows, the PAD row (exactly 0), unused rows (exactly 0)."""
    if g is None:
        st.info(t(lang, "train.grad_none"))
        return
    norms = np.linalg.norm(g.rows, axis=1)
    pos = grad_rows_shown(g.ids, norms, (g.pad_id, g.unk_id))
    more = g.rows.shape[1] - MAX_GRAD_COLS
    tail = f" … (+{more})" if more > 0 else ""
    # 3 significant digits, not 3 decimals: a late step's gradient is ~1e-5 and must not read as 0
    text = ["[" + ", ".join(f"{x:.3g}" for x in row) + "]" + tail for row in g.rows[pos, :MAX_GRAD_COLS].tolist()]
    grad = t(lang, "label.col.grad")
    table = pa.table({t(lang, "label.col.id"): g.ids[pos], t(lang, "label.col.token"): [g.tokens[i] for i in g.ids[pos].tolist()],
                      t(lang, "train.col.count"): g.counts[g.ids[pos]], t(lang, "label.col.grad_norm"): norms[pos], grad: text})
    st.dataframe(table, hide_index=True, width="stretch", column_config={grad: st.column_config.TextColumn(width="large")})
    if len(pos) < len(g.ids):
        st.caption(t(lang, "train.grad_rows_shown", shown=len(pos), n=len(g.ids)))
    pad_norm = float(np.linalg.norm(g.rows[g.ids == g.pad_id])) if g.pad_id in g.ids.tolist() else 0.0
    st.markdown(t(lang, "train.grad_summary", step=g.step, unused=len(g.tokens) - len(g.ids),
                  unused_max=f"{g.unused_max:.4g}", pad=f"{pad_norm:.4g}"))


def moved_view(lang: str, m: MovedData | None) -> None:
    """How far each row moved in the last step; absent rows that moved are explained by the optimizer."""
    if m is None:
        return
    used = set(m.used.tolist())
    moved_absent = [i for i in np.flatnonzero(m.delta > 0).tolist() if i not in used]
    st.markdown(t(lang, "train.moved_summary", used=len(used), moved=int((m.delta > 0).sum()),
                  absent=len(moved_absent), pad=f"{float(m.delta[m.pad_id]):.4g}"))
    st.caption(t(lang, f"opt.explain.{m.optimizer}") + (" " + t(lang, "opt.explain.wd") if m.weight_decay > 0 else ""))
    if moved_absent:
        names = ", ".join(f"{i} · {m.tokens[i]}" for i in moved_absent[:12])
        st.warning(md(lang, "train.absent_moved", rows=names), icon=":material/search:")


def timeline(lang: str, keys: TrainKeys, steps: list[int], playing: bool = False) -> None:
    """Scrub back through the kept snapshots (the value was settled by views.training.shown_step).

    While Play is on it is disabled and its newest end names no step: the stage walks through each
    tick's steps at the asked rate, a tick behind the newest one the server has taken, so a number
    here would disagree with the stage's counter at every moment. The counter is then the page's
    one step number; Pause draws the timeline with the step the stage stopped at.

    While Play is on it is drawn without its key, over two options that stay the same from tick to
    tick. Streamlit's slider keeps the index it shows and takes new options' index in an effect after
    the render that brought them: each tick's longer list would show, until that effect, the step at
    the old newest end's index (on a busy machine, for a few hundred milliseconds). Its own identity
    while playing makes Play and Pause draw a new slider, with no index kept from the other."""
    if len(steps) < 2:
        return
    if playing:
        options, key, help_ = [steps[0], NEWEST], None, "proj.timeline_playing_help"
        newest = t(lang, "proj.timeline_playing")
    else:
        options, key, help_ = steps[:-1] + [NEWEST], keys.timeline, "proj.timeline_help"
        newest = t(lang, "proj.timeline_newest", step=steps[-1])
    st.select_slider(t(lang, "proj.timeline"), options=options, value=NEWEST, key=key, disabled=playing,
                     format_func=lambda s: newest if s == NEWEST else str(s), help=t(lang, help_))


def neighbours_then_now(lang: str, tokens: tuple[str, ...], near: tuple[int, int, tuple, tuple]) -> pa.Table:
    """The k nearest tokens at the first kept step and at the shown step, side by side (one table).
    ``near``: (first step, shown step, (ids, cos) then, (ids, cos) now), as views.training.Details holds them."""
    first, now, then_, now_ = near
    pairs = {first: then_, now: now_}  # first == now (nothing trained yet): one pair of columns
    rows = max(len(ids) for ids, _ in pairs.values())  # fewer than k when V is small or rows are zero
    cols = {}
    for step, (ids, cos) in pairs.items():
        cols[t(lang, "label.col.neighbour_token", step=step)] = [f"{i} · {tokens[i]}" for i in ids.tolist()] + [""] * (rows - len(ids))
        cols[t(lang, "label.col.neighbour_cos", step=step)] = np.round(cos, 4).tolist() + [None] * (rows - len(ids))
    return pa.table(cols)
