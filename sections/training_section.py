"""Section 2: step a toy training loop and watch W move in one fixed PCA frame (C7–C9, C13, X7).

Reads the controls, calls the explorer (core/explorer.py), draws plain data."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from components import charts, inputs, training
from components.i18n import t
from core.explorer import Explorer
from core.projection import thin_steps
from core.training import Lab
import session
from session import Keys

PLAY_SECONDS = 0.6  # one training step per tick while playing
MAX_TRAILS = 60  # tokens that get a trail in the scatter
PROGRESS_EVERY_S = 0.2  # the Run N progress bar moves at most this often


def render(lang: str, ex: Explorer) -> None:
    problems = ex.lab.train_problems()
    inputs.show_problems(lang, "err.train_title", problems)
    st.caption(t(lang, "train.intro"))
    playing = training.play_toggle(lang, can_train=not problems) and not problems

    @st.fragment(run_every=PLAY_SECONDS if playing else None)
    def area() -> None:
        guess = training.predict_rows(lang, ex.vocab.tokens)
        intent = training.controls(lang, can_train=not problems)
        if intent.action == "step":
            ex.predict(guess)
        apply(lang, ex, intent, playing)
        lab = ex.lab
        vocab = lab.recipe.vocab
        if ex.guess and lab.last is not None and ex.guess[0] == lab.last.step:
            training.prediction_result(lang, vocab.tokens, ex.guess[1], lab.last)
        pad = training.pad_editor(lang, lab.recipe.config.embedding_dim, vocab.pad_id,
                                  lab.weight.detach()[vocab.pad_id].numpy().copy())
        if isinstance(pad, list):
            inputs.show_problems(lang, "err.pad_title", pad)
        else:
            apply(lang, ex, pad, playing=False)
        training.loss_and_predictions(lang, lab.losses, prediction_rows(lab))
        st.markdown(f"#### {t(lang, 'train.grad_title')}")
        training.grad_view(lang, grad_data(lab))
        st.markdown(f"#### {t(lang, 'train.moved_title')}")
        training.moved_view(lang, moved_data(lab))
        projection(lang, ex, playing)

    area()


def apply(lang: str, ex: Explorer, intent: training.Intent, playing: bool) -> None:
    """Carry out what the controls asked, through the explorer; a tick of Play is one step."""
    problems = []
    if intent.action == "reset":
        ex.reset()
        session.forget(Keys.TIMELINE)
    elif intent.action == "step" or (playing and intent.action is None):
        problems = ex.step()
    elif intent.action == "set_pad":
        problems = ex.set_pad(intent.pad_vector)
    elif intent.action == "run":
        bar = st.progress(0.0, text=t(lang, "train.running", n=intent.n))
        problems = ex.run(intent.n, on_progress=throttled(
            lambda done, n: bar.progress(done / n, text=t(lang, "train.running", n=n))))
        bar.empty()
    inputs.show_problems(lang, "err.train_title", problems)


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


def prediction_rows(lab: Lab) -> list[tuple[str, str, str, float, bool]]:
    """(sentence, label, predicted class, its probability, right?) per sentence, with the current weights."""
    probs = lab.predict().numpy()  # (B, C)
    classes, rows = lab.recipe.classes, []
    for b, toks in enumerate(lab.batch.tokens):
        label, pred = lab.recipe.labels[b], int(np.argmax(probs[b]))
        rows.append((" ".join(toks), classes[label] if label is not None else "—",
                     classes[pred] if pred < len(classes) else str(pred), float(probs[b, pred]), label == pred))
    return rows


def grad_data(lab: Lab) -> training.GradData | None:
    """The last step's gradient rows as plain arrays (None before the first step)."""
    rec = lab.last
    if rec is None:
        return None
    vocab = lab.recipe.vocab
    counts = np.bincount(lab.batch.ids[rec.rows].reshape(-1).numpy(), minlength=vocab.size)  # this step's lookups
    return training.GradData(rec.step, vocab.tokens, vocab.pad_id, vocab.unk_id, rec.grad_ids.numpy(),
                             rec.grad_rows.numpy(), counts, rec.unused_grad_max)


def moved_data(lab: Lab) -> training.MovedData | None:
    rec = lab.last
    if rec is None:
        return None
    vocab, cfg = lab.recipe.vocab, lab.recipe.config
    return training.MovedData(vocab.tokens, vocab.pad_id, rec.grad_ids.numpy(), rec.delta.numpy(),
                              cfg.optimizer, cfg.weight_decay)


def projection(lang: str, ex: Explorer, playing: bool) -> None:
    """Every row of W in this lab's one PCA frame, at every kept step (core.explorer: the frame rule)."""
    lab = ex.lab
    st.markdown(f"#### {t(lang, 'proj.title')}")
    e = lab.recipe.config.embedding_dim
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    dims = c1.radio(t(lang, "proj.dims"), [2, 3], key=Keys.PCA_DIMS, horizontal=True, disabled=e < 3)
    if c2.button(t(lang, "proj.refit"), key=Keys.REFIT, help=t(lang, "proj.refit_help"), disabled=playing):
        pic = ex.refit(dims)
        st.info(t(lang, "proj.refitted", first=pic.fitted_steps[0], last=pic.fitted_steps[-1]), icon=":material/center_focus_strong:")
    steps = sorted(lab.snapshots)
    shown = training.timeline(lang, steps, session.get(Keys.TIMELINE_FOLLOWS))
    session.set_value(Keys.TIMELINE_FOLLOWS, steps[-1])
    pic = ex.picture(dims, shown)
    vocab = lab.recipe.vocab
    used = lab.batch.id_counts(vocab.size).numpy() > 0
    normal = [i for i in np.flatnonzero(used).tolist() if i not in (vocab.pad_id, vocab.unk_id)]
    session.sync_token_picker(ex, normal[0] if normal else 0)
    token = st.selectbox(t(lang, "proj.token"), list(range(vocab.size)), key=Keys.TOKEN,
                         on_change=lambda: session.select_token_from_picker(ex),
                         format_func=lambda i: f"{i} · {vocab.tokens[i]}") if vocab.size <= 5000 else ex.selected_token
    axis_titles = [f"PC{j + 1} ({pic.explained[j]:.0%})" for j in range(pic.dims)]
    trail_ids = np.flatnonzero(used)[:MAX_TRAILS]
    points = {s: pic.points[s] for s in pic.steps}
    fig = charts.pca_scatter(points, pic.shown, list(vocab.tokens), vocab.pad_id, vocab.unk_id, used, token,
                             list(pic.ranges), trail_ids, t(lang, "proj.scatter_title", step=pic.shown), axis_titles)
    st.plotly_chart(fig, key=Keys.PCA_CHART, config=charts.chart_config("pca"),
                    on_select=lambda: session.select_token_from_chart(ex), selection_mode="points")
    basis_caption(lang, pic)
    if vocab.size > charts.MAX_PLAIN_POINTS:
        plain = next((ids for name, ids, _ in charts.point_groups(vocab.size, vocab.pad_id, vocab.unk_id, used, token)
                      if name == "plain"), np.array([], int))
        plain_drawn = len(charts.plain_shown(plain))
        if plain_drawn < len(plain):
            st.caption(t(lang, "proj.thinned", n=len(plain), shown=plain_drawn))
    thinned = thin_steps(steps)
    if len(thinned) < len(steps):
        st.caption(t(lang, "proj.trails_thinned", n=len(steps), shown=len(thinned)))
    pad_rows = np.stack([lab.snapshots[s][vocab.pad_id] for s in steps])  # (S, E): every kept step, drawn or not
    xy_text = ", ".join(f"{x:.4f}" for x in pic.pad_xy)
    if (pad_rows == pad_rows[0]).all():  # one frame: the same row projects to the same point
        st.caption(t(lang, "proj.pad_fixed", xy=xy_text, n=len(steps)))
    else:
        st.caption(t(lang, "proj.pad_moved", xy=xy_text, steps=", ".join(str(s) for s, _ in lab.pad_edits) or "—"))
    if pic.flat and pic.shown == 0:
        st.info(t(lang, "proj.flat"), icon=":material/casino:")
    if token is not None:
        st.markdown(t(lang, "proj.neighbours", token=vocab.tokens[token], step=pic.shown))
        st.dataframe(training.neighbours_then_now(lang, lab.snapshots, steps[0], pic.shown, vocab.tokens, token,
                                                  memo=session.memo, pin=(lab.uid, len(lab.pad_edits))), hide_index=True)
    if len(steps) > 1 and not playing:
        replay = st.expander(t(lang, "proj.replay"), key=Keys.REPLAY, on_change="rerun")
        if replay.open:  # built only when opened: one frame per kept step is the page's heaviest figure
            fig = session.memo("replay", (lab.uid, pic.version, pic.steps, token, lang),
                               lambda: charts.pca_animation(points, list(vocab.tokens), vocab.pad_id, vocab.unk_id,
                                                            used, token, list(pic.ranges),
                                                            t(lang, "proj.replay_title"), axis_titles))
            replay.plotly_chart(fig, key=Keys.PCA_REPLAY, config=charts.chart_config("pca_replay"))


def basis_caption(lang: str, pic) -> None:
    """How this frame was chosen: a preview of this training, the fresh table, or a refit the learner asked for."""
    if pic.basis == "preview":
        st.caption(t(lang, "proj.basis.preview", steps=pic.fitted_steps[-1]))
    elif pic.basis == "initial":
        st.caption(t(lang, "proj.basis.initial"))
    else:
        st.caption(t(lang, "proj.basis.refit", first=pic.fitted_steps[0], last=pic.fitted_steps[-1]))
