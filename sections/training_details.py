"""Beside and below the training stage: the 3-D scatter, the frame's controls, the PAD editor, the last
step's tables, the token picker and the replay. Draws what views.training built; computes nothing but
the figures of the replay and the 3-D scatter."""

from __future__ import annotations

import numpy as np
import pyarrow as pa  # st.dataframe sends an Arrow table as it is
import streamlit as st

from components import charts, inputs, stage_data, training
from components.i18n import md, t
from core.explorer import Explorer
import session
from session import Keys
from sections.training_keys import TRAIN
from views.training import MAX_TRAILS, TrainingView, axis_names, pad_intent

MAX_PICKER_V = 5000  # above this many rows, no selectbox of every token (the axis picker, the token picker)


def render(lang: str, ex: Explorer, view: TrainingView, playing: bool, dark: bool) -> None:
    """The frame's controls, then each view of the last step in an expander built only while open
    (and the axis picker's popover, the PAD editor: built only while open too)."""
    lab = ex.lab
    c1, c2, c4, _ = st.columns([1.1, 1, 1.1, 2], vertical_alignment="bottom")
    c1.radio(t(lang, "proj.dims"), [2, 3], key=Keys.PCA_DIMS, horizontal=True,
             disabled=lab.recipe.config.embedding_dim < 3, help=t(lang, "help.pca_dims"))
    c2.button(t(lang, "proj.refit"), key=Keys.REFIT, help=t(lang, "proj.refit_help"), disabled=playing,
              on_click=refit, args=(ex,))
    axis = c4.popover(t(lang, "proj.axis"), help=t(lang, "proj.axis_help"), width="stretch", disabled=playing,
                      key=Keys.AXIS_PICKER, on_change="rerun")
    if axis.open:
        with axis:
            axis_picker(lang, ex)
    if playing:
        return  # the details wait for Pause: each Play tick redraws only the stage
    vocab = ex.vocab
    dim = lab.recipe.config.embedding_dim
    training.pad_editor(lang, TRAIN, dim, vocab.pad_id, lambda: lab.weight.detach()[vocab.pad_id].numpy().copy(),
                        on_open=lambda: session.show_kept({Keys.PAD_VECTOR: session.kept(Keys.PAD_VECTOR, ", ".join(["1.0"] * dim))}),
                        on_text_change=session.keep, on_set=lambda: set_pad(ex))
    inputs.show_problems(lang, "err.pad_title", ex.problems.pop("pad", []), key_prefix=Keys.PROBLEMS_PREFIX)
    box = st.expander(t(lang, "train.details"), key=Keys.DETAILS, on_change="rerun")
    if box.open and view.details is not None:  # its state, read when the view was built, says it is open
        d = view.details
        with box:
            training.loss_and_predictions(lang, TRAIN, d.losses, d.predictions)
            st.markdown(f"**{t(lang, 'train.grad_title')}**")
            training.grad_view(lang, d.grad)
            st.markdown(f"**{t(lang, 'train.moved_title')}**")
            training.moved_view(lang, d.moved)
            coords_view(lang, ex, d.coords)
            if d.neighbours is not None:
                st.markdown(md(lang, "proj.neighbours", token=vocab.tokens[ex.selected_token], step=view.shown))
                st.dataframe(training.neighbours_then_now(lang, vocab.tokens, d.neighbours), hide_index=True)
    token_picker(lang, ex, view.token_default)
    replay_view(lang, ex, dark)


def axis_picker(lang: str, ex: Explorer) -> None:
    """Two tokens and a button: the horizontal axis from one to the other (core.explorer.Explorer.custom_axis).
    Drawn only while its popover is open: the tokens chosen last are kept (session/kept.py)."""
    vocab = ex.vocab
    if vocab.size > MAX_PICKER_V:
        return
    options = list(range(vocab.size))
    chosen = {key: session.kept(key, default) for key, default in ((Keys.AXIS_FROM, 0), (Keys.AXIS_TO, min(1, vocab.size - 1)))}
    session.show_kept({key: i if isinstance(i, int) and 0 <= i < vocab.size else 0 for key, i in chosen.items()})
    label = lambda i: f"{i} · {vocab.tokens[i]}"  # noqa: E731
    st.selectbox(t(lang, "proj.axis_from"), options, key=Keys.AXIS_FROM, format_func=label, help=t(lang, "help.axis_from"),
                 on_change=session.keep, args=(Keys.AXIS_FROM,))
    st.selectbox(t(lang, "proj.axis_to"), options, key=Keys.AXIS_TO, format_func=label, help=t(lang, "help.axis_to"),
                 on_change=session.keep, args=(Keys.AXIS_TO,))
    st.button(t(lang, "proj.axis_set"), key=Keys.AXIS_SET, on_click=make_axis, args=(ex,), help=t(lang, "help.axis_set"))
    inputs.show_problems(lang, "err.axis_title", ex.problems.pop("axis", []), key_prefix=Keys.PROBLEMS_PREFIX)


def set_pad(ex: Explorer) -> None:
    """Callback of Set PAD (before the rerun draws the stage): the row typed in the text box, or why not."""
    intent = pad_intent(session.get(Keys.PAD_VECTOR) or "", ex.recipe.config.embedding_dim)
    problems = [intent.problem] if intent.problem is not None else ex.set_pad(intent.pad_vector)
    if problems:
        ex.problems["pad"] = problems  # said beside the PAD editor
def refit(ex: Explorer) -> None:
    """Callback (before the rerun draws the stage): fit the frame again, in 2-D and, if shown, in 3-D."""
    pic = ex.refit(2)
    if session.get(Keys.PCA_DIMS) == 3:
        ex.refit(3)
    ex.notices.append(("proj.refitted", {"first": pic.fitted_steps[0], "last": pic.fitted_steps[-1]}))


def make_axis(ex: Explorer) -> None:
    """Callback (before the rerun draws the stage): the horizontal axis from one chosen token to the other."""
    out = ex.custom_axis(int(session.get(Keys.AXIS_FROM) or 0), int(session.get(Keys.AXIS_TO) or 0))
    if isinstance(out, list):
        ex.problems["axis"] = out


def coords_view(lang: str, ex: Explorer, coords: dict) -> None:
    """The scatter's numbers as a table (the stage's text alternative points here): each drawn
    point's token, role and coordinates at the shown step, in the lab's one frame."""
    st.markdown(f"**{t(lang, 'train.coords_title', step=coords['step'])}**")
    if coords["of"] > len(coords["ids"]):
        st.caption(t(lang, "train.coords_more", n=coords["of"], shown=len(coords["ids"])))
    x_name, y_name = coords["names"]
    table = {t(lang, "train.col.id"): coords["ids"],
             t(lang, "train.col.token"): [ex.vocab.tokens[i] for i in coords["ids"]],
             t(lang, "train.col.role"): [t(lang, f"stage.{r}") for r in coords["role"]],
             x_name: coords["x"], y_name: coords["y"]}
    st.dataframe(pa.table(table), hide_index=True, height=min(300, 38 + 35 * len(coords["ids"])))


def token_picker(lang: str, ex: Explorer, default: int) -> None:
    """Which token the stage follows (its neighbours, its ring); a click on the stage picks one too."""
    vocab = ex.vocab
    if vocab.size > MAX_PICKER_V:
        return
    session.sync_token_picker(ex, default)
    st.selectbox(t(lang, "proj.token"), list(range(vocab.size)), key=Keys.TOKEN,
                 on_change=lambda: session.select_token_from_picker(ex),
                 format_func=lambda i: f"{i} · {vocab.tokens[i]}", help=t(lang, "help.token"))


def replay_view(lang: str, ex: Explorer, dark: bool) -> None:
    """Every kept step as a client-side animation (plotly frames), built only while its expander is open."""
    lab, vocab = ex.lab, ex.vocab
    if len(lab.snapshots) < 2:
        return
    replay = st.expander(t(lang, "proj.replay"), key=Keys.REPLAY, on_change="rerun")
    if not replay.open:
        return
    dims = session.get(Keys.PCA_DIMS) or 2
    pic = ex.picture(dims)
    used = ex.facts.used
    axis_titles = [f"PC{j + 1} ({pic.explained[j]:.0%})" for j in range(pic.dims)]
    points = {s: pic.points[s] for s in pic.steps}
    token = ex.selected_token
    looks = marks(lang, ex, dark)
    fig = session.memo("replay", (lab.uid, pic.version, pic.steps, token, lang, looks["dark"]),
                       lambda: charts.pca_animation(points, list(vocab.tokens), vocab.pad_id, vocab.unk_id, used,
                                                    token, list(pic.ranges), t(lang, "proj.replay_title"),
                                                    axis_titles, **looks))
    replay.plotly_chart(charts.safe_figure(fig), key=Keys.PCA_REPLAY, config=charts.chart_config("pca_replay"))


def marks(lang: str, ex: Explorer, dark: bool) -> dict:
    """The stage's marks for a Plotly scatter: each token's class, the legend's words, the theme (``dark``)."""
    return {"cls": ex.facts.classes, "names": charts.legend_names(stage_data.stage_text(lang), list(ex.classes)),
            "dark": dark}


def projection_3d(lang: str, ex: Explorer, pic, dark: bool) -> None:
    """PC1–PC3 in the lab's 3-D frame (the stage draws two axes)."""
    vocab, used = ex.vocab, ex.facts.used
    axis_titles = [f"{name} ({pic.explained[j]:.0%})" for j, name in enumerate(axis_names(ex, pic))]
    fig = charts.pca_scatter({s: pic.points[s] for s in pic.steps}, pic.shown, list(vocab.tokens), vocab.pad_id,
                             vocab.unk_id, used, ex.selected_token, list(pic.ranges),
                             np.flatnonzero(used)[:MAX_TRAILS],
                             t(lang, "proj.scatter_title", step=pic.shown), axis_titles,
                             **marks(lang, ex, dark))
    st.plotly_chart(charts.safe_figure(fig), key=Keys.PCA_CHART, config=charts.chart_config("pca"),
                    on_select=lambda: session.select_token_from_chart(ex), selection_mode="points")
