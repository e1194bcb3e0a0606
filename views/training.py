"""The training view as data: a click of the bar carried out through the explorer, then what the
stage, the caption, the timeline and the last step's details draw, computed once per run with no
streamlit.

A Step, end to end: the bar's button (components/training.py) hands its click to
sections/training_section.py, which turns it into an `Intent` and calls `carry_out` here; the
explorer runs it as a budgeted job (core/explorer.py), and torch takes the step (core/training.py).
The section then calls `build` once and draws what it returns: the stage's data (`train_data`,
components/stage/README.md), the caption, the timeline; sections/training_details.py draws its
`Details`.

    >>> problems = carry_out(ex, Intent("step", 1))
    >>> view = build(ex, "ko", Asked(timeline=NEWEST, timeline_drawn=True))
    >>> view.stage["scatter"]["x"][ex.vocab.pad_id]   # the picture's PAD point, drawn by the stage
    >>> view.caption                                  # what to watch, the frame, where PAD sits
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from assets import presets
from components import charts
from components.i18n import md, t
from components.stage_data import BIG_V, common, floats, tokens_of, w_cells, w_grid
from components.training_data import NEWEST, GradData, MovedData
from core.exact import exact_int
from core.explorer import PREVIEW_STEPS, Explorer, Picture
from core.problems import Problem
from core.projection import thin_steps
from core.training import Lab

STAGE_HEIGHT = 470  # px: below the bar, the stage fits a 1280×720 projector screen
MAX_COORD_ROWS = 5000  # rows of the coordinates table: PAD, UNK and the looked-up rows first
MAX_TRAILS = 60  # looked-up tokens that get a trail
MAX_FRAMES = 12  # intermediate steps a Play tick glides through
MAX_FRAME_W_FLOATS = 40_000  # numbers of W a Play tick's frames carry at most (each frame's grid)
MAX_LOSS_POINTS = 1000  # the sparkline's points (an even stride of a longer history)
PICTURE_STEPS = 1 << 14  # trail and glide coordinates: 1/16384 of the axis, far below a pixel


@dataclass(frozen=True)
class Intent:
    """What a click of the training view asks: nothing, or one of its actions."""

    action: str | None = None  # "step" | "run" | "reset" | "set_pad" | "refused"
    n: int = 0
    pad_vector: tuple[float, ...] = ()
    problem: Problem | None = None  # "refused": why the click could not be carried out


def intent_of(action: str | None, n_steps: object) -> Intent:
    """A click of the bar (its callback's action, or None) as an Intent: ``n_steps`` is N's value."""
    if action == "reset":
        return Intent("reset")
    if action == "step":
        return Intent("step", 1)
    if action == "run":
        n = exact_int(n_steps, "n_steps")
        return Intent("run", n) if isinstance(n, int) else Intent("refused", problem=n)
    return Intent()


def pad_intent(text: str, dim: int) -> Intent:
    """A PAD row typed as ``dim`` numbers (commas or spaces) → Intent("set_pad"), or refused naming the length."""
    try:
        values = tuple(float(x) for x in text.replace(",", " ").split())
    except ValueError:
        values = ()
    if len(values) != dim or not all(np.isfinite(values)):
        return Intent("refused", problem=Problem("pad_vector_shape", {"e": dim}))
    return Intent("set_pad", pad_vector=values)


def carry_out(ex: Explorer, intent: Intent, guess: tuple | None = None, play_steps: int = 0,
              on_progress: Callable[[int, int], None] | None = None) -> list[Problem]:
    """Carry out a click of the bar (``intent``), or, with none, a Play tick of ``play_steps`` steps,
    through the explorer; returns its problems. ``guess``: the learner's guesses for a Step
    (core.explorer.Explorer.predict), recorded before it; ``on_progress(done, n)`` follows Run N."""
    if intent.problem is not None:
        return [intent.problem]
    if intent.action == "reset":
        ex.reset()
    elif intent.action == "step":
        ex.predict(*(guess or ()))  # none: no guess for this step
        return ex.step()
    elif intent.action == "run":
        return ex.run(intent.n, on_progress=on_progress)
    elif intent.action is None and play_steps:
        return ex.run(play_steps)
    return []


@dataclass(frozen=True)
class Asked:
    """What the learner's widgets ask of this run's picture (read by the section, plain values)."""

    timeline: object = NEWEST  # the timeline's value: NEWEST, a kept step, or what a stale page sent
    timeline_drawn: bool = True  # whether the last run drew the timeline (else its value is stale)
    dims: int = 2  # 2 or 3: the 3-D scatter below the stage
    details: bool = False  # the details expander is open: build its tables
    since: int | None = None  # the newest step before this run's steps: the stage glides from it
    playing: bool = False
    speed: int = 10
    present: bool = False


@dataclass(frozen=True)
class Details:
    """The last step's tables, built only while their expander is open."""

    losses: list[float]
    predictions: list[tuple[str, str, str, float, bool]]  # (sentence, label, predicted class, its probability, right?)
    grad: GradData | None
    moved: MovedData | None
    coords: dict  # the scatter's points at the shown step: step, names (of the axes), ids, role, x, y, of (how many)
    neighbours: tuple[int, int, tuple, tuple] | None  # (first kept step, shown step, (ids, cos) then, (ids, cos) now)


@dataclass(frozen=True)
class TrainingView:
    """Everything the training view draws in one run."""

    steps: tuple[int, ...]  # kept steps: the timeline's options
    shown: int  # the step the stage and the tables show
    forget_timeline: bool  # the timeline's value was stale: drawn afresh at NEWEST
    stage: dict  # the stage's data (components/stage/README.md)
    caption: str  # what to watch, where PAD sits, the frame, what was thinned: one paragraph each
    flat: bool  # the frame's spectrum is no more structured than noise's, and nothing is trained yet
    token_default: int  # the token the picker follows when none is chosen
    projection_3d: Picture | None  # the 3-D scatter's picture, when asked for
    details: Details | None
    playing: bool = False  # a Play tick's view: the stage walks through its steps, the timeline names none


def shown_step(steps: list[int], value: object, drawn_last_run: bool) -> tuple[int, bool]:
    """The step the timeline shows, and whether its value must be dropped, decided before anything
    draws it (the stage sits above it).

    Its last option is `NEWEST`, not a number: while it sits there it follows each new step without
    the server ever writing its value. A value the server wrote each step would race the browser:
    a request sent before the browser took in the last run's value (a Play tick, a Pause, a second
    quick Step) carries the previous newest step back, and would read as the learner scrubbing to
    it, freezing the stage on an old step. The browser only ever sends `NEWEST` (or a label from an
    older run that no option has any more, which reads as the default, `NEWEST`) or a step the
    learner chose. When the last run did not draw it (the learner was on another view), the browser
    may still send back a value it no longer shows: it follows the newest step again.
    """
    if not drawn_last_run and value != NEWEST:
        return steps[-1], True
    return (value if value in steps[:-1] else steps[-1]), False


def build(ex: Explorer, lang: str, asked: Asked) -> TrainingView:
    """The training view of ``ex`` as ``asked``: the picture is computed once, here."""
    lab = ex.lab
    steps = sorted(lab.snapshots)
    shown, forget = shown_step(steps, asked.timeline, asked.timeline_drawn)
    pic = ex.picture(2, shown)
    since = asked.since if shown == steps[-1] else None
    data = train_data(ex, lang, dims=2, shown=shown, since=since, playing=asked.playing,
                      steps_per_second=asked.speed, height=STAGE_HEIGHT, present=asked.present, pic=pic)
    facts = ex.facts
    wants_3d = asked.dims == 3 and lab.recipe.config.embedding_dim >= 3
    return TrainingView(tuple(steps), shown, forget, data, caption(lang, ex, pic, steps), pic.flat and pic.shown == 0,
                        facts.normal[0] if facts.normal else 0, ex.picture(3, shown) if wants_3d else None,
                        details(ex, data["scatter"], axis_names(ex, pic), steps) if asked.details else None, asked.playing)


def caption(lang: str, ex: Explorer, pic: Picture, steps: list[int]) -> str:
    """What to watch for while training, where PAD sits (true for every kept step, drawn or not), what
    the picture's frame is, and what the scatter thinned: one paragraph each."""
    lab, vocab = ex.lab, ex.vocab
    key, params = presets.watch(ex.preset_id, ex.text, vocab, ex.config, len(lab.step_rows(1)), len(lab.recipe.sentences))
    pretrained = lab.recipe.pretrained
    if pretrained is not None and pretrained.freeze:  # W takes no step: nothing of it moves
        key = "watch.frozen"
    pad_rows = np.stack([lab.snapshots[s][vocab.pad_id] for s in steps])  # (S, E)
    xy_text = ", ".join(f"{x:.4f}" for x in pic.pad_xy)
    if (pad_rows == pad_rows[0]).all():  # one frame: the same row projects to the same point
        pad = t(lang, "proj.pad_fixed", xy=xy_text, n=len(steps))
    else:
        pad = t(lang, "proj.pad_moved", xy=xy_text, steps=", ".join(str(s) for s, _ in lab.pad_edits) or "—")
    lines = [t(lang, key, **params), pad, basis_text(lang, pic, vocab.tokens, pretrained), t(lang, "proj.colour")]
    plain = ex.facts.plain
    plain_drawn = len(charts.plain_shown(np.arange(plain)))  # the stage's scatter thins them the same way
    if plain_drawn < plain:
        lines.append(t(lang, "proj.thinned", n=plain, shown=plain_drawn))
    thinned = thin_steps(steps)
    if len(thinned) < len(steps):
        lines.append(t(lang, "proj.trails_thinned", n=len(steps), shown=len(thinned)))
    return "\n\n".join(lines)


def basis_text(lang: str, pic: Picture, tokens: tuple[str, ...], pretrained=None) -> str:
    """How this frame was chosen: a preview of this training, the fresh table, a refit or a custom
    axis the learner asked for. Rows from a vector file (``pretrained``) mean something at step 0,
    and frozen ones never move: the preview's words would not hold for them."""
    if pic.basis == "custom":
        return md(lang, "proj.basis.custom", a=tokens[pic.tokens[0]], b=tokens[pic.tokens[1]], step=pic.fitted_steps[0])
    if pretrained is not None and pretrained.freeze:
        return t(lang, "proj.basis.frozen")
    cut = "" if pic.cut is None else " " + t(lang, f"proj.cut.{pic.cut}", steps=pic.fitted_steps[-1], full=PREVIEW_STEPS)
    if pic.basis == "preview":
        key = "proj.basis.preview" if pretrained is None else "proj.basis.preview_pretrained"
        return t(lang, key, steps=pic.fitted_steps[-1]) + cut
    if pic.basis == "initial":
        return t(lang, "proj.basis.initial") + cut
    return t(lang, "proj.basis.refit", first=pic.fitted_steps[0], last=pic.fitted_steps[-1])


def details(ex: Explorer, scatter: dict, names: list[str], steps: list[int]) -> Details:
    """The last step's tables, and the scatter's points and the followed token's neighbours at the shown step."""
    lab, token, shown = ex.lab, ex.selected_token, scatter["step"]
    near = None
    if token is not None:
        near = (steps[0], shown, ex.neighbours(steps[0], token), ex.neighbours(shown, token))
    return Details(list(lab.losses), prediction_rows(lab), grad_data(lab), moved_data(lab), coords(scatter, names), near)


def coords(scatter: dict, names: list[str]) -> dict:
    """The scatter's points as the coordinates table lists them: PAD, UNK and looked-up rows first."""
    order = sorted(range(len(scatter["ids"])), key=lambda i: (scatter["role"][i] == "unused", scatter["ids"][i]))
    kept = order[:MAX_COORD_ROWS]
    return {"step": scatter["step"], "names": (names + ["PC2"])[:2], "of": len(order),
            **{k: [scatter[k][i] for i in kept] for k in ("ids", "role", "x", "y")}}


def prediction_rows(lab: Lab) -> list[tuple[str, str, str, float, bool]]:
    """(sentence, label, predicted class, its probability, right?) per sentence, with the current weights."""
    probs = lab.predict().numpy()  # (B, C)
    classes, rows = lab.recipe.classes, []
    for b, toks in enumerate(lab.batch.tokens):
        label, pred = lab.recipe.labels[b], int(np.argmax(probs[b]))
        rows.append((" ".join(toks), classes[label] if label is not None else "—",
                     classes[pred] if pred < len(classes) else str(pred), float(probs[b, pred]), label == pred))
    return rows


def grad_data(lab: Lab) -> GradData | None:
    """The last step's gradient rows as plain arrays (None before the first step)."""
    rec = lab.last
    if rec is None:
        return None
    vocab = lab.recipe.vocab
    counts = np.bincount(lab.batch.ids[rec.rows].reshape(-1).numpy(), minlength=vocab.size)  # this step's lookups
    return GradData(rec.step, vocab.tokens, vocab.pad_id, vocab.unk_id, rec.grad_ids.numpy(),
                    rec.grad_rows.numpy(), counts, rec.unused_grad_max)


def moved_data(lab: Lab) -> MovedData | None:
    rec = lab.last
    if rec is None:
        return None
    vocab, cfg = lab.recipe.vocab, lab.recipe.config
    return MovedData(vocab.tokens, vocab.pad_id, rec.grad_ids.numpy(), rec.delta.numpy(), cfg.optimizer, cfg.weight_decay)


# The training stage's data (components/stage/README.md): plain JSON only.


def _picture(a, span: float) -> list:
    """Coordinates that are only drawn (trails, the glide's in-between frames), rounded to the
    decimal place that keeps them within 1/PICTURE_STEPS of the axis ``span``. Exact float32
    values print with ~19 characters, and trails are most of a Step's message: rounding them
    more than halves a long trail's message (bench/RESULTS.md). The points of the shown step stay exact
    (they are what the tables and the tests compare)."""
    q = max(float(span), 1e-12) / PICTURE_STEPS
    return np.round(np.asarray(a, dtype=np.float64), max(0, int(np.ceil(-np.log10(q))))).tolist()


def _frame(a: np.ndarray, shown: np.ndarray, sent: list, span: float) -> list:
    """A glide's in-between frame, rounded as `_picture`, except that a point the frame has where
    the shown step has it gets the very value sent for the shown step: rounding must not make a
    point that stays put (PAD, a row no step touched) wobble during the glide."""
    out = _picture(a, span)
    for i in np.flatnonzero(np.asarray(a) == np.asarray(shown)).tolist():
        out[i] = sent[i]
    return out


def _scatter_ids(ex: Explorer, used: np.ndarray) -> np.ndarray:
    """Every row when V is small; else the looked-up and special rows and an even stride of the rest."""
    v = ex.vocab.size
    if v <= charts.MAX_PLAIN_POINTS:
        return np.arange(v)
    special = np.array([ex.vocab.pad_id, ex.vocab.unk_id])
    plain = np.flatnonzero(~used)
    plain = np.setdiff1d(plain, special)
    return np.union1d(np.union1d(np.flatnonzero(used), special), charts.plain_shown(plain))


def axis_names(ex: Explorer, pic: Picture) -> list[str]:
    """Each axis's name: PC1, PC2, …, or, for a custom axis, "from → to"."""
    names = [f"PC{j + 1}" for j in range(pic.dims)]
    if pic.tokens is not None:
        names[0] = f"{ex.vocab.tokens[pic.tokens[0]]} → {ex.vocab.tokens[pic.tokens[1]]}"
    return names


def _scatter(ex: Explorer, pic: Picture, used: np.ndarray, since: int | None) -> dict:
    vocab = ex.vocab
    big = vocab.size > BIG_V
    ids = _scatter_ids(ex, used)
    xy = pic.points[pic.shown][ids]
    k = pic.dims
    role = np.where(used[ids], "used", "unused").astype(object)
    role[ids == vocab.unk_id], role[ids == vocab.pad_id] = "unk", "pad"
    cls = ex.facts.classes[ids]
    names = axis_names(ex, pic)
    out = {"step": pic.shown, "axes": [f"{names[j]} ({pic.explained[j]:.0%})" for j in range(min(k, 2))],
           "range": [list(r) for r in pic.ranges[:2]], "ids": ids.tolist(),
           "x": floats(xy[:, 0], big), "y": floats(xy[:, 1] if k > 1 else np.zeros(len(ids)), big),
           "role": role.tolist(), "cls": cls.tolist()}
    if k == 1:
        out["axes"].append("")
        out["range"].append([-1.0, 1.0])
    past = [s for s in pic.steps if s < pic.shown]
    trail_ids = [i for i in np.flatnonzero(used).tolist() if i != vocab.pad_id][:MAX_TRAILS]
    (x0, x1), (y0, y1) = out["range"][0], out["range"][1]
    sx, sy = x1 - x0, y1 - y0
    if past and trail_ids and vocab.size <= BIG_V:
        trail = np.stack([pic.points[s][trail_ids] for s in past], axis=1)  # (trails, past steps, k)
        out["trail"] = {"ids": trail_ids, "x": _picture(trail[..., 0], sx),
                        "y": _picture(trail[..., 1] if k > 1 else np.zeros(trail.shape[:2]), sy)}
    if since is not None:
        between = [s for s in sorted(ex.lab.snapshots) if since < s < pic.shown][-MAX_FRAMES:]
        frames = [ex.picture(k, s) for s in between]
        out["frames"] = [{"step": f.shown, "x": _frame(f.points[f.shown][ids, 0], xy[:, 0], out["x"], sx),
                          "y": _frame(f.points[f.shown][ids, 1], xy[:, 1], out["y"], sy) if k > 1 else out["y"],
                          "loss": ex.lab.losses[f.shown - 1]}  # the head names the glide's step with its loss
                         for f in frames]
    return out


def _neighbours(ex: Explorer, step: int) -> dict:
    near, cos = ex.neighbours(step, ex.selected_token)
    return {"of": ex.selected_token, "ids": near.tolist(), "cos": floats(cos)}


def _frames_tables(ex: Explorer, data: dict) -> None:
    """Each Play frame's W grid and neighbours, at the frame's own step, so the panels beside the
    plot name the step the points and the counter show while the glide walks (a frame without them,
    past MAX_FRAME_W_FLOATS or BIG_V, leaves the panel at the step it showed last)."""
    frames, rows = data["scatter"].get("frames", []), np.asarray(data["w"]["rows"])
    lab = ex.lab
    if not frames or len(frames) * rows.size * lab.recipe.config.embedding_dim > MAX_FRAME_W_FLOATS:
        return
    for f in frames:
        f["w"] = w_cells(ex, lab.snapshots[f["step"]][rows], rows, lab.grad_norms.get(f["step"]))
        if ex.selected_token is not None and ex.vocab.size <= BIG_V:
            f["neighbours"] = _neighbours(ex, f["step"])


def _loss(losses: list[float]) -> list[float]:
    if len(losses) <= MAX_LOSS_POINTS:
        return floats(losses)
    stride = -(-len(losses) // MAX_LOSS_POINTS)
    return floats(losses[::stride] + ([losses[-1]] if (len(losses) - 1) % stride else []))


def train_data(ex: Explorer, lang: str, dims: int = 2, shown: int | None = None, since: int | None = None,
               playing: bool = False, steps_per_second: int = 10, height: int = 560, present: bool = False,
               pic: Picture | None = None) -> dict:
    """The training stage: scatter at ``shown`` (gliding through the steps after ``since``), W, loss.
    ``pic``: the picture at ``shown`` when the caller has it already (views/training.py)."""
    lab = ex.lab
    pic = pic if pic is not None else ex.picture(dims, shown)
    counts, used = ex.facts.counts, ex.facts.used
    data = common(ex, lang, "train", height, present)
    data["scatter"] = _scatter(ex, pic, used, since)
    data["w"] = w_grid(ex, lab.snapshots[pic.shown], counts, last_step=pic.shown == lab.steps)
    data["loss"] = _loss(lab.losses[:pic.shown] if pic.shown < lab.steps else lab.losses)
    data["play"] = {"on": playing, "steps_per_second": steps_per_second}
    if ex.selected_token is not None:
        data["neighbours"] = _neighbours(ex, pic.shown)
    _frames_tables(ex, data)
    listed = [data["scatter"]["ids"] if ex.vocab.size <= BIG_V else [], data["w"]["rows"],
              *[n.get("neighbours", {}).get("ids", []) for n in [data, *data["scatter"].get("frames", [])]]]
    data["tokens"] = tokens_of(ex, *listed)
    data["alt"] = _train_alt(ex, lang, data, pic)
    return data


def _xy(v: float) -> str:
    return f"{v:.2f}".replace("-", "\u2212")


def _train_alt(ex: Explorer, lang: str, data: dict, pic: Picture) -> dict[str, str]:
    """What a screen reader hears for each panel (the stage sets them as aria-labels)."""
    s, w, loss = data["scatter"], data["w"], data["loss"]
    pad = s["ids"].index(ex.vocab.pad_id)
    where = t(lang, "train.details")
    return {"scatter": t(lang, "stage.alt.scatter", n=len(s["ids"]), step=pic.shown, x=_xy(s["x"][pad]),
                         y=_xy(s["y"][pad]), where=where),
            "w": t(lang, "stage.alt.w", rows=len(w["rows"]), v=ex.vocab.size, e=ex.recipe.config.embedding_dim,
                   touched=len(w["touched"])),
            "loss": t(lang, "stage.alt.loss", n=len(ex.lab.losses[:pic.shown]), loss=f"{loss[-1]:.4f}") if loss
            else t(lang, "stage.alt.loss_none")}
