"""Section 2: step a toy training loop and watch W move in one fixed PCA frame (C7–C9, C13, X7)."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from components import charts, inputs, training
from components.i18n import t
from core.problems import InputError
from core.projection import axis_ranges, fit_frame, spectrum_is_flat, thin_steps
from core.training import Lab
import session
from session import Keys, Workspace

PLAY_SECONDS = 0.6  # one training step per tick while playing
MAX_TRAILS = 60  # tokens that get a trail in the scatter
PROGRESS_EVERY_S = 0.2  # the Run N progress bar moves at most this often


def render(lang: str, ws: Workspace) -> None:
    problems = ws.lab.train_problems()
    inputs.show_problems(lang, "err.train_title", problems)
    st.caption(t(lang, "train.intro"))
    playing = training.play_toggle(lang, can_train=not problems) and not problems

    @st.fragment(run_every=PLAY_SECONDS if playing else None)
    def area() -> None:
        guess = training.predict_rows(lang, ws.lab.recipe.vocab.tokens)
        intent = training.controls(lang, can_train=not problems)
        if intent.action == "step" and guess:
            ws.guess = (ws.lab.steps + 1, tuple(guess))
        apply(lang, ws, intent, playing)
        lab = ws.lab
        vocab = lab.recipe.vocab
        if ws.guess and lab.last is not None and ws.guess[0] == lab.last.step:
            training.prediction_result(lang, vocab.tokens, ws.guess[1], lab.last)
        pad = training.pad_editor(lang, lab.recipe.config.embedding_dim, vocab.pad_id, lab.weight.detach()[vocab.pad_id].numpy().copy())
        if isinstance(pad, list):
            inputs.show_problems(lang, "err.pad_title", pad)
        else:
            apply(lang, ws, pad, playing=False)
        training.loss_and_predictions(lang, lab, lab.predict().numpy())
        st.markdown(f"#### {t(lang, 'train.grad_title')}")
        training.grad_view(lang, lab)
        st.markdown(f"#### {t(lang, 'train.moved_title')}")
        training.moved_view(lang, lab)
        projection(lang, ws, frozen=playing)

    area()


def apply(lang: str, ws: Workspace, intent: training.Intent, playing: bool) -> None:
    """Carry out what the controls asked, through core; a tick of Play is one step."""
    try:
        if intent.action == "reset":
            ws.lab = Lab(ws.lab.recipe)
            ws.frame, ws.frame_steps, ws.points = None, (), {}
            st.session_state.pop(Keys.TIMELINE, None)
        elif intent.action == "step" or (playing and intent.action is None):
            ws.lab.step()
        elif intent.action == "set_pad":
            ws.lab.set_pad_row(list(intent.pad_vector))
            ws.frame, ws.frame_steps, ws.points = None, (), {}  # the latest snapshot changed in place
        elif intent.action == "run":
            bar = st.progress(0.0, text=t(lang, "train.running", n=intent.n))
            ws.lab.run(intent.n, on_progress=throttled(lambda done, n: bar.progress(done / n, text=t(lang, "train.running", n=n))))
            bar.empty()
    except InputError as e:
        inputs.show_problems(lang, "err.train_title", e.problems)


def throttled(report, every_s: float = PROGRESS_EVERY_S):
    """``report(done, n)`` at most once per ``every_s`` seconds: each bar update is a message to the
    browser, and 50 of them cost more than 50 chapter-sized steps."""
    last = [time.perf_counter()]

    def call(done: int, n: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= every_s:
            last[0] = now
            report(done, n)
    return call


def projection(lang: str, ws: Workspace, frozen: bool) -> None:
    """PCA of every row of W in one frame for every kept step (fitted on at most MAX_DRAWN_STEPS of
    them); the PAD row never moves."""
    lab = ws.lab
    st.markdown(f"#### {t(lang, 'proj.title')}")
    e = lab.recipe.config.embedding_dim
    dims = st.radio(t(lang, "proj.dims"), [2, 3], key=Keys.PCA_DIMS, horizontal=True, disabled=e < 3)
    k = min(dims, e)
    steps = sorted(lab.snapshots)
    # The frame is fitted on, and the picture draws, at most MAX_DRAWN_STEPS of the kept steps (plus
    # the one shown): after 5,000 steps a Step took ~205 ms on the server and sent 420 kB of charts.
    drawn = thin_steps(steps)
    if ws.frame is None or ws.frame.dims != k or (not frozen and ws.frame_steps != tuple(drawn)):
        ws.frame = fit_frame([lab.snapshots[s] for s in drawn], k, previous=ws.frame if ws.frame and ws.frame.dims == k else None)
        ws.frame_steps, ws.points, ws.frame_version = tuple(drawn), {}, ws.frame_version + 1
        ws.frame_flat = spectrum_is_flat(ws.frame, lab.recipe.vocab.size, seed=lab.recipe.config.seed)
    shown = training.timeline(lang, steps, ws.newest_shown)
    ws.newest_shown = steps[-1]
    ws.points = {s: ws.points[s] if s in ws.points else ws.frame.transform(lab.snapshots[s])
                 for s in sorted(set(drawn) | {shown})}
    vocab = lab.recipe.vocab
    used = lab.batch.id_counts(vocab.size).numpy() > 0
    normal = [i for i in np.flatnonzero(used).tolist() if i not in (vocab.pad_id, vocab.unk_id)]
    session.sync_token_picker(ws, normal[0] if normal else 0)
    token = st.selectbox(t(lang, "proj.token"), list(range(vocab.size)), key=Keys.TOKEN,
                         on_change=lambda: session.select_token_from_picker(ws),
                         format_func=lambda i: f"{i} · {vocab.tokens[i]}") if vocab.size <= 5000 else ws.selected_token
    ranges = axis_ranges(list(ws.points.values()))
    axis_titles = [f"PC{j + 1} ({ws.frame.explained[j]:.0%})" for j in range(k)]
    trail_ids = np.flatnonzero(used)[:MAX_TRAILS]
    fig = charts.pca_scatter(ws.points, shown, list(vocab.tokens), vocab.pad_id, vocab.unk_id, used, token, ranges,
                             trail_ids, t(lang, "proj.scatter_title", step=shown), axis_titles)
    st.plotly_chart(fig, key=Keys.PCA_CHART, config=charts.chart_config("pca"), on_select=lambda: session.select_token_from_chart(ws),
                    selection_mode="points")
    if vocab.size > charts.MAX_PLAIN_POINTS:
        plain = next((ids for name, ids, _ in charts.point_groups(vocab.size, vocab.pad_id, vocab.unk_id, used, token)
                      if name == "plain"), np.array([], int))
        plain_drawn = len(charts.plain_shown(plain))
        if plain_drawn < len(plain):
            st.caption(t(lang, "proj.thinned", n=len(plain), shown=plain_drawn))
    if len(drawn) < len(steps):
        st.caption(t(lang, "proj.steps_thinned", n=len(steps), shown=len(drawn)))
    pad_rows = np.stack([lab.snapshots[s][vocab.pad_id] for s in steps])  # (S, E): every kept step, drawn or not
    xy_text = ", ".join(f"{x:.4f}" for x in ws.points[steps[-1]][vocab.pad_id])
    if (pad_rows == pad_rows[0]).all():  # one frame: the same row projects to the same point
        st.caption(t(lang, "proj.pad_fixed", xy=xy_text, n=len(steps)))
    else:
        st.caption(t(lang, "proj.pad_moved", xy=xy_text, steps=", ".join(str(s) for s, _ in lab.pad_edits) or "—"))
    if ws.frame_flat:
        st.info(t(lang, "proj.flat"), icon=":material/casino:")
    if token is not None:
        st.markdown(t(lang, "proj.neighbours", token=vocab.tokens[token], step=shown))
        st.dataframe(training.neighbours_then_now(lang, lab.snapshots, steps[0], shown, vocab.tokens, token, memo=ws.memo,
                                                  pin=(lab.uid, len(lab.pad_edits))), hide_index=True)
    if len(steps) > 1 and not frozen:
        replay = st.expander(t(lang, "proj.replay"), key=Keys.REPLAY, on_change="rerun")
        if replay.open:  # built only when opened: one frame per kept step is the page's heaviest figure
            fig = ws.memo("replay", (lab.uid, ws.frame_version, tuple(ws.points), token, lang),
                          lambda: charts.pca_animation(ws.points, list(vocab.tokens), vocab.pad_id, vocab.unk_id, used,
                                                       token, ranges, t(lang, "proj.replay_title"), axis_titles))
            replay.plotly_chart(fig, key="pca_anim", config=charts.chart_config("pca_replay"))
