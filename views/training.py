"""The training view as data: what the stage, the caption, the timeline and the last step's details
draw, from the explorer and what the learner asked, computed once per run with no streamlit.

sections/training_section.py applies the learner's click through the explorer, calls `build` once,
and draws what it returns; sections/training_details.py draws its `Details`.

    >>> view = build(ex, "ko", Asked(timeline=None, timeline_drawn=True))
    >>> view.stage["scatter"]["x"][ex.vocab.pad_id]   # the picture's PAD point, drawn by the stage
    >>> view.caption                                  # what to watch, the frame, where PAD sits
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assets import presets
from components import charts, stage_data
from components.i18n import md, t
from core.explorer import PREVIEW_STEPS, Explorer, Picture
from core.projection import thin_steps
from core.training import Lab

NEWEST = -1  # the timeline's last option: the newest step, whichever it is now (the timeline follows it)
STAGE_HEIGHT = 470  # px: below the bar, the stage fits a 1280×720 projector screen
MAX_COORD_ROWS = 5000  # rows of the coordinates table: PAD, UNK and the looked-up rows first


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
class GradData:
    """The last step's gradient, as plain arrays: what components.training.grad_view draws."""

    step: int
    tokens: tuple[str, ...]
    pad_id: int
    unk_id: int
    ids: np.ndarray  # (K',) ids looked up in the step, sorted
    rows: np.ndarray  # (K', E) dL/dW at those ids
    counts: np.ndarray  # (V,) how many times the step looked each id up
    unused_max: float  # max |dL/dW| over every other row: exactly 0.0 (C8)


@dataclass(frozen=True)
class MovedData:
    """How far each row moved in the last step, and why rows absent from it could move."""

    tokens: tuple[str, ...]
    pad_id: int
    used: np.ndarray  # (K',) ids the step looked up
    delta: np.ndarray  # (V,) ‖W_after − W_before‖ per row
    optimizer: str
    weight_decay: float


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
    data = stage_data.train_data(ex, lang, dims=2, shown=shown, since=since, playing=asked.playing,
                                 steps_per_second=asked.speed, height=STAGE_HEIGHT, present=asked.present, pic=pic)
    facts = ex.facts
    wants_3d = asked.dims == 3 and lab.recipe.config.embedding_dim >= 3
    return TrainingView(tuple(steps), shown, forget, data, caption(lang, ex, pic, steps), pic.flat and pic.shown == 0,
                        facts.normal[0] if facts.normal else 0, ex.picture(3, shown) if wants_3d else None,
                        details(ex, data["scatter"], stage_data.axis_names(ex, pic), steps) if asked.details else None)


def caption(lang: str, ex: Explorer, pic: Picture, steps: list[int]) -> str:
    """What to watch for while training, where PAD sits (true for every kept step, drawn or not), what
    the picture's frame is, and what the scatter thinned: one paragraph each."""
    lab, vocab = ex.lab, ex.vocab
    key, params = presets.watch(ex.preset_id, ex.text, vocab, ex.config, len(lab.step_rows(1)), len(lab.recipe.sentences))
    pad_rows = np.stack([lab.snapshots[s][vocab.pad_id] for s in steps])  # (S, E)
    xy_text = ", ".join(f"{x:.4f}" for x in pic.pad_xy)
    if (pad_rows == pad_rows[0]).all():  # one frame: the same row projects to the same point
        pad = t(lang, "proj.pad_fixed", xy=xy_text, n=len(steps))
    else:
        pad = t(lang, "proj.pad_moved", xy=xy_text, steps=", ".join(str(s) for s, _ in lab.pad_edits) or "—")
    lines = [t(lang, key, **params), pad, basis_text(lang, pic, vocab.tokens), t(lang, "proj.colour")]
    plain = ex.facts.plain
    plain_drawn = len(charts.plain_shown(np.arange(plain)))  # the stage's scatter thins them the same way
    if plain_drawn < plain:
        lines.append(t(lang, "proj.thinned", n=plain, shown=plain_drawn))
    thinned = thin_steps(steps)
    if len(thinned) < len(steps):
        lines.append(t(lang, "proj.trails_thinned", n=len(steps), shown=len(thinned)))
    return "\n\n".join(lines)


def basis_text(lang: str, pic: Picture, tokens: tuple[str, ...]) -> str:
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
