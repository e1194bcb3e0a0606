"""Section 2: step a toy training loop and watch W move in one fixed PCA frame (C7–C9, C13, X7).

Reads the controls, calls the explorer (core/explorer.py), draws plain data."""

from __future__ import annotations

import time
from contextlib import nullcontext

import numpy as np
import pyarrow as pa  # st.dataframe sends an Arrow table as it is
import streamlit as st

from assets import presets
from components import charts, inputs, stage_data, training
from components.busy import busy
from components.stage import stage
from components.i18n import md, t
from core.explorer import PREVIEW_STEPS, Explorer
from core.memory import recipe_step_cost
from core.projection import thin_steps
from core.training import Lab
import session
from session import Keys

PLAY_TICK_S = 0.5  # while playing, one server round trip per tick; the stage glides through its steps
STAGE_HEIGHT = 470  # px: below the bar, the stage fits a 1280×720 projector screen
MAX_TRAILS = 60  # tokens that get a trail in the 3-D scatter
PROGRESS_EVERY_S = 0.2  # the Run N progress bar moves at most this often


def render(lang: str, ex: Explorer, present: bool = False, after=None) -> None:
    """The training view: a fragment, so nothing here reruns the sidebar and the editors (they
    cannot change what those show), and inside it the stage's own fragment.

    The stage's fragment holds the bar (Step / Run N / Play / speed / Reset / the knobs that matter
    while training), the stage (W, the scatter in the lab's one frame, the loss) and what a Step
    changes; a Step, Run or Reset reruns only it. While Play is on it reruns every tick, taking as
    many steps as the chosen speed asks; the stage glides through each of them. Below it, the
    details: the frame's controls and the tables of the last step. ``after(lang, ex)`` is called at
    the end of every run of the stage's fragment (the page keeps the learner's work with it).
    """

    @st.fragment
    def view() -> None:
        problems = ex.lab.train_problems()
        playing = bool(session.get(Keys.PLAYING)) and not problems
        speed = session.get(Keys.PLAY_SPEED) or training.DEFAULT_SPEED
        tick = max(PLAY_TICK_S, 1.0 / speed)
        if not playing:
            session.forget(Keys.PLAY_CLOCK)
        in_view = {"now": True}  # False once this run of the view is over: a later run of live is live's alone

        @st.fragment(run_every=tick if playing else None)
        def live() -> None:
            if session.get(Keys.FULL_RUN):  # a knob changed: the page applies it and shows its problems
                session.forget(Keys.FULL_RUN)
                st.rerun()
            if asked_play(ex) != (playing, speed if playing else None):
                st.rerun()  # Play, Pause or a new speed (its callback ran): the run that sets the ticks draws it all
            before = ex.lab.steps
            intent = clicked_intent(lang, ex)
            notices(lang, ex)
            problems = ex.lab.train_problems()
            if intent.action is None:  # a click's own problems were shown by apply
                inputs.show_problems(lang, "err.train_title", problems)
            diverged(lang, ex)
            now_playing, now_speed = training.bar(lang, can_train=not problems, current=ex.config_values(),
                                                   on_knob_change=full_run)
            now_playing = now_playing and not problems
            if now_playing != playing or (playing and now_speed != speed):
                st.rerun()  # Play, Pause or a new speed: the ticks are set where this fragment is made
            n = play_steps(speed, tick) if playing and intent.action is None else 0
            if n:
                apply(lang, ex, training.Intent(), playing=True, steps_per_tick=n)
            since = before if ex.lab.steps > before else None
            stage_view(lang, ex, since=since, playing=playing, speed=speed, present=present)
            guess_result(lang, ex)
            if after is not None:
                after(lang, ex)
            if intent.action is not None and session.get(Keys.DETAILS) and not in_view["now"]:
                st.rerun()  # the details are open: their tables show the new step too

        live()
        in_view["now"] = False
        details(lang, ex, playing)

    view()


def asked_play(ex: Explorer) -> tuple[bool, int | None]:
    """Whether the learner has Play on now (the button's callback has run) and at what speed.

    Read before anything is drawn: a run that finds it changed draws nothing and reruns the view,
    so the Pause button's label and the stage's last step arrive from one run, and no tick of the
    old setting takes a step after it."""
    playing = bool(session.get(Keys.PLAYING)) and not ex.lab.train_problems()
    return playing, (session.get(Keys.PLAY_SPEED) or training.DEFAULT_SPEED) if playing else None


def clicked_intent(lang: str, ex: Explorer) -> training.Intent:
    """Read the buttons of this run (the bar's and Set PAD) and carry the click out."""
    slot = st.empty()  # where a slow Step says it is working: the same place on every run
    intent = training.clicked(ex.recipe.config.embedding_dim)
    if intent.problem is not None and intent.problem.code == "pad_vector_shape":
        ex.problems["pad"], intent = [intent.problem], training.Intent()  # said beside the PAD editor
    if intent.action == "step":
        ex.predict(session.get(Keys.PREDICT_ROWS) or [])
    with busy(slot, t(lang, "train.stepping")) if intent.action == "step" and slow_step(ex) else nullcontext():
        apply(lang, ex, intent, playing=False)
    return intent


def guess_result(lang: str, ex: Explorer) -> None:
    """The learner's guess of the rows the step would touch, beside the truth, after that step."""
    lab = ex.lab
    if ex.guess and lab.last is not None and ex.guess[0] == lab.last.step:
        training.prediction_result(lang, ex.vocab.tokens, ex.guess[1], lab.last)


def play_steps(speed: int, tick: float) -> int:
    """How many steps this Play tick takes: the time since the last tick × the speed asked, with the
    fraction carried to the next tick, so a late tick (a busy server, a slow run) does not lower the
    rate. A long stall is not made up at once: at most two ticks' worth. The first tick takes two
    ticks' worth: the stage shows them at the asked rate, so it holds a tick in hand and a tick that
    arrives a little late never leaves it waiting."""
    now = time.monotonic()
    last = session.get(Keys.PLAY_CLOCK)
    due = 2 * speed * tick if last is None else speed * (now - last[0]) + last[1]
    whole = int(due + 1e-9)  # 5.9999999 steps owed by float arithmetic are 6
    n = min(whole, 2 * max(1, round(speed * tick)))
    session.set_value(Keys.PLAY_CLOCK, (now, max(0.0, due - n) if n == whole else 0.0))
    return n


SLOW_STEP_S = 0.3  # a Step estimated slower than this shows a status while it runs
SLOW_TABLE_FLOATS = 1_000_000  # a table this large also costs the picture and the stage's data


def slow_step(ex: Explorer) -> bool:
    """Whether a Step of this lab may take over ~300 ms (core.memory's estimate, or a large table)."""
    recipe = ex.recipe
    return (recipe.vocab.size * recipe.config.embedding_dim >= SLOW_TABLE_FLOATS
            or recipe_step_cost(recipe).seconds >= SLOW_STEP_S)


def full_run() -> None:
    """Callback of the bar's knobs: the next run of the view asks for a run of the whole page."""
    session.set_value(Keys.FULL_RUN, True)


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


def stage_view(lang: str, ex: Explorer, since: int | None, playing: bool, speed: int, present: bool) -> None:
    """The stage in training mode: the timeline picks the step shown; it follows the newest step."""
    lab = ex.lab
    steps = sorted(lab.snapshots)
    shown = training.timeline_step(steps, bool(session.get(Keys.TIMELINE_FOLLOWS)))
    session.set_value(Keys.TIMELINE_FOLLOWS, True)
    dims = session.get(Keys.PCA_DIMS) or 2
    data = stage_data.train_data(ex, lang, dims=2, shown=shown, since=since if shown == steps[-1] else None,
                                 playing=playing, steps_per_second=speed, height=STAGE_HEIGHT, present=present)
    stage(data, key=Keys.STAGE, on_select=lambda: session.select_token_from_stage(ex))
    training.timeline(lang, steps)
    pic = ex.picture(2, shown)
    captions(lang, ex, pic, steps)
    if dims == 3 and lab.recipe.config.embedding_dim >= 3:
        projection_3d(lang, ex, shown)


def captions(lang: str, ex: Explorer, pic, steps: list[int]) -> None:
    """What to watch for while training, what the picture's frame is and where PAD sits (true for every
    kept step, drawn or not). One caption, a paragraph each: one element, not one per paragraph, on every Step."""
    lab, vocab = ex.lab, ex.vocab
    pad_rows = np.stack([lab.snapshots[s][vocab.pad_id] for s in steps])  # (S, E)
    xy_text = ", ".join(f"{x:.4f}" for x in pic.pad_xy)
    if (pad_rows == pad_rows[0]).all():  # one frame: the same row projects to the same point
        lines = [t(lang, "proj.pad_fixed", xy=xy_text, n=len(steps))]
    else:
        lines = [t(lang, "proj.pad_moved", xy=xy_text, steps=", ".join(str(s) for s, _ in lab.pad_edits) or "—")]
    lines += [basis_text(lang, pic, vocab.tokens), t(lang, "proj.colour")]
    key, params = presets.watch(ex.preset_id, ex.text, vocab, ex.config, len(lab.step_rows(1)), len(lab.recipe.sentences))
    lines.insert(0, t(lang, key, **params))  # what to watch for, first
    plain = ~(lab.batch.id_counts(vocab.size).numpy() > 0)  # (V,) never looked up
    plain[[vocab.pad_id, vocab.unk_id]] = False
    plain = int(plain.sum())
    plain_drawn = len(charts.plain_shown(np.arange(plain)))  # the stage's scatter thins them the same way
    if plain_drawn < plain:
        lines.append(t(lang, "proj.thinned", n=plain, shown=plain_drawn))
    thinned = thin_steps(steps)
    if len(thinned) < len(steps):
        lines.append(t(lang, "proj.trails_thinned", n=len(steps), shown=len(thinned)))
    st.caption("\n\n".join(lines))
    if pic.flat and pic.shown == 0:
        st.info(t(lang, "proj.flat"), icon=":material/casino:")


def details(lang: str, ex: Explorer, playing: bool) -> None:
    """Below the stage: the frame's controls, then each view of the last step in an expander that is
    built only while open."""
    lab = ex.lab
    c1, c2, c4, c3 = st.columns([1.1, 1, 1.1, 2], vertical_alignment="bottom")
    c1.radio(t(lang, "proj.dims"), [2, 3], key=Keys.PCA_DIMS, horizontal=True,
             disabled=lab.recipe.config.embedding_dim < 3, help=t(lang, "help.pca_dims"))
    c2.button(t(lang, "proj.refit"), key=Keys.REFIT, help=t(lang, "proj.refit_help"), disabled=playing,
              on_click=refit, args=(ex,))
    vocab = lab.recipe.vocab
    with c4.popover(t(lang, "proj.axis"), help=t(lang, "proj.axis_help"), width="stretch", disabled=playing):
        axis_picker(lang, ex)
    with c3:
        training.predict_rows(lang, vocab.tokens)  # read before a Step applies it (render)
    if playing:
        return  # the details wait for Pause: each Play tick redraws only the stage
    training.pad_editor(lang, lab.recipe.config.embedding_dim, vocab.pad_id,
                        lab.weight.detach()[vocab.pad_id].numpy().copy())
    inputs.show_problems(lang, "err.pad_title", ex.problems.pop("pad", []))
    box = st.expander(t(lang, "train.details"), key=Keys.DETAILS, on_change="rerun")
    if box.open:
        with box:
            training.loss_and_predictions(lang, lab.losses, prediction_rows(lab))
            st.markdown(f"**{t(lang, 'train.grad_title')}**")
            training.grad_view(lang, grad_data(lab))
            st.markdown(f"**{t(lang, 'train.moved_title')}**")
            training.moved_view(lang, moved_data(lab))
            coords_view(lang, ex)
            neighbours_view(lang, ex)
    token_picker(lang, ex)
    replay_view(lang, ex)


def axis_picker(lang: str, ex: Explorer) -> None:
    """Two tokens and a button: the horizontal axis from one to the other (core.explorer.custom_axis)."""
    vocab = ex.vocab
    if vocab.size > 5000:
        return
    options = list(range(vocab.size))
    label = lambda i: f"{i} · {vocab.tokens[i]}"  # noqa: E731
    st.selectbox(t(lang, "proj.axis_from"), options, key=Keys.AXIS_FROM, format_func=label, help=t(lang, "help.axis_from"))
    st.selectbox(t(lang, "proj.axis_to"), options, key=Keys.AXIS_TO, format_func=label, index=min(1, vocab.size - 1), help=t(lang, "help.axis_to"))
    st.button(t(lang, "proj.axis_set"), key=Keys.AXIS_SET, on_click=make_axis, args=(ex,), help=t(lang, "help.axis_set"))
    inputs.show_problems(lang, "err.axis_title", ex.problems.pop("axis", []))


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


def apply(lang: str, ex: Explorer, intent: training.Intent, playing: bool, steps_per_tick: int = 1) -> None:
    """Carry out what the controls asked, through the explorer; a tick of Play is ``steps_per_tick`` steps."""
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


MAX_COORD_ROWS = 5000  # rows of the coordinates table: PAD, UNK and the looked-up rows first


def coords_view(lang: str, ex: Explorer) -> None:
    """The scatter's numbers as a table (the stage's text alternative points here): each drawn
    point's token, role and coordinates at the shown step, in the lab's one frame."""
    lab, vocab = ex.lab, ex.vocab
    steps = sorted(lab.snapshots)
    shown = session.get(Keys.TIMELINE) if session.get(Keys.TIMELINE) in lab.snapshots else steps[-1]
    data = stage_data.scatter_data(ex, 2, shown)  # not the whole stage's data: W, neighbours and text are not needed
    st.markdown(f"**{t(lang, 'train.coords_title', step=data['step'])}**")
    order = sorted(range(len(data["ids"])), key=lambda i: (data["role"][i] == "unused", data["ids"][i]))
    if len(order) > MAX_COORD_ROWS:
        st.caption(t(lang, "train.coords_more", n=len(order), shown=MAX_COORD_ROWS))
        order = order[:MAX_COORD_ROWS]
    names = [a.rsplit(" (", 1)[0] or f"PC{j + 1}" for j, a in enumerate(data["axes"][:2])]  # "PC1 (90%)" → "PC1"
    table = {t(lang, "train.col.id"): [data["ids"][i] for i in order],
             t(lang, "train.col.token"): [vocab.tokens[data["ids"][i]] for i in order],
             t(lang, "train.col.role"): [t(lang, f"stage.{data['role'][i]}") for i in order],
             names[0]: [data["x"][i] for i in order], names[1]: [data["y"][i] for i in order]}
    st.dataframe(pa.table(table), hide_index=True, height=min(300, 38 + 35 * len(order)))


def token_picker(lang: str, ex: Explorer) -> None:
    """Which token the stage follows (its neighbours, its ring); a click on the stage picks one too."""
    lab, vocab = ex.lab, ex.vocab
    if vocab.size > 5000:
        return
    used = lab.batch.id_counts(vocab.size).numpy() > 0
    normal = [i for i in np.flatnonzero(used).tolist() if i not in (vocab.pad_id, vocab.unk_id)]
    session.sync_token_picker(ex, normal[0] if normal else 0)
    st.selectbox(t(lang, "proj.token"), list(range(vocab.size)), key=Keys.TOKEN,
                 on_change=lambda: session.select_token_from_picker(ex),
                 format_func=lambda i: f"{i} · {vocab.tokens[i]}", help=t(lang, "help.token"))


def neighbours_view(lang: str, ex: Explorer) -> None:
    """The followed token's nearest rows at the first kept step and at the shown one, as a table
    (the stage shows the shown step's neighbours; this puts them beside where they started)."""
    lab, vocab = ex.lab, ex.vocab
    token = ex.selected_token
    if token is None:
        return
    steps = sorted(lab.snapshots)
    shown = session.get(Keys.TIMELINE) if session.get(Keys.TIMELINE) in lab.snapshots else steps[-1]
    st.markdown(md(lang, "proj.neighbours", token=vocab.tokens[token], step=shown))
    st.dataframe(training.neighbours_then_now(lang, lab.snapshots, steps[0], shown, vocab.tokens, token,
                                              memo=session.memo, pin=(lab.uid, len(lab.pad_edits))), hide_index=True)


def projection_3d(lang: str, ex: Explorer, shown: int) -> None:
    """PC1–PC3 in the lab's 3-D frame (the stage draws two axes)."""
    lab, vocab = ex.lab, ex.vocab
    pic = ex.picture(3, shown)
    used = lab.batch.id_counts(vocab.size).numpy() > 0
    axis_titles = [f"PC{j + 1} ({pic.explained[j]:.0%})" for j in range(pic.dims)]
    fig = charts.pca_scatter({s: pic.points[s] for s in pic.steps}, pic.shown, list(vocab.tokens), vocab.pad_id,
                             vocab.unk_id, used, ex.selected_token, list(pic.ranges),
                             np.flatnonzero(used)[:MAX_TRAILS], t(lang, "proj.scatter_title", step=pic.shown),
                             axis_titles)
    st.plotly_chart(charts.safe_figure(fig), key=Keys.PCA_CHART, config=charts.chart_config("pca"),
                    on_select=lambda: session.select_token_from_chart(ex), selection_mode="points")


def replay_view(lang: str, ex: Explorer) -> None:
    """Every kept step as a client-side animation (plotly frames), built only while its expander is open."""
    lab, vocab = ex.lab, ex.vocab
    if len(lab.snapshots) < 2:
        return
    replay = st.expander(t(lang, "proj.replay"), key=Keys.REPLAY, on_change="rerun")
    if not replay.open:
        return
    dims = session.get(Keys.PCA_DIMS) or 2
    pic = ex.picture(dims)
    used = lab.batch.id_counts(vocab.size).numpy() > 0
    axis_titles = [f"PC{j + 1} ({pic.explained[j]:.0%})" for j in range(pic.dims)]
    points = {s: pic.points[s] for s in pic.steps}
    token = ex.selected_token
    fig = session.memo("replay", (lab.uid, pic.version, pic.steps, token, lang),
                       lambda: charts.pca_animation(points, list(vocab.tokens), vocab.pad_id, vocab.unk_id, used,
                                                    token, list(pic.ranges), t(lang, "proj.replay_title"),
                                                    axis_titles))
    replay.plotly_chart(charts.safe_figure(fig), key=Keys.PCA_REPLAY, config=charts.chart_config("pca_replay"))


def basis_text(lang: str, pic, tokens: tuple[str, ...]) -> str:
    """How this frame was chosen: a preview of this training, the fresh table, a refit or a custom
    axis the learner asked for."""
    if pic.basis == "custom":
        return md(lang, "proj.basis.custom", a=tokens[pic.tokens[0]], b=tokens[pic.tokens[1]], step=pic.fitted_steps[0])
    cut = "" if pic.cut is None else " " + t(lang, f"proj.cut.{pic.cut}", steps=pic.fitted_steps[-1], full=PREVIEW_STEPS)
    if pic.basis == "preview":
        return t(lang, "proj.basis.preview", steps=pic.fitted_steps[-1]) + cut
    if pic.basis == "initial":
        return t(lang, "proj.basis.initial") + cut
    return t(lang, "proj.basis.refit", first=pic.fitted_steps[0], last=pic.fitted_steps[-1])
