"""The stage's data (components/stage/README.md) built from one learner's explorer: plain JSON only.

No streamlit here, so tests build and check it directly (support/stage_contract.py checks what
the stage's JS relies on). Every coordinate comes from the explorer's one frame (core.explorer).

    >>> data = train_data(ex, "ko", dims=2, shown=None, since=None, playing=False, height=560)
    >>> data["scatter"]["x"][ex.vocab.pad_id]      # the same at every step of this lab
"""

from __future__ import annotations

import numpy as np

from components import charts
from components.i18n import t
from core.explorer import Explorer, Picture

TEXT_KEYS = ("pad", "unk", "unused", "used", "selected", "step", "loss", "w_title", "scatter_title",
             "ids_title", "out_title", "touched", "pad_zero_grad", "legend_title", "class_prefix",
             "noclass")  # data["text"]
MAX_TRAILS = 60  # looked-up tokens that get a trail
MAX_FRAMES = 12  # intermediate steps a Play tick glides through
MAX_LOSS_POINTS = 1000  # the sparkline's points (an even stride of a longer history)
BIG_V = 2000  # above this many rows: no labels, canvas only, never-looked-up rows thinned
WINDOW = 40  # rows of W shown around the selection when V is large


def stage_text(lang: str) -> dict[str, str]:
    return {k: t(lang, f"stage.{k}") for k in TEXT_KEYS}


def _floats(a, big: bool = False) -> list:
    """A float array as plain (nested) lists: exact (each float32 round-trips through JSON), or, for
    a big table, rounded to 4 decimals to keep the message small (a picture, not an answer key)."""
    a = np.asarray(a)
    return np.round(a.astype(np.float64), 4).tolist() if big else a.tolist()


PICTURE_STEPS = 1 << 14  # trail and glide coordinates: 1/16384 of the axis, far below a pixel


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
           "x": _floats(xy[:, 0], big), "y": _floats(xy[:, 1] if k > 1 else np.zeros(len(ids)), big),
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
                          "y": _frame(f.points[f.shown][ids, 1], xy[:, 1], out["y"], sy) if k > 1 else out["y"]}
                         for f in frames]
    return out


def shown_rows(v: int, counts: np.ndarray, selected: int | None, special: tuple[int, int]) -> np.ndarray:
    """Which rows of W to draw: all when V is small; else the special rows, a window around the
    selection, then looked-up rows up to 4·WINDOW rows in all (in id order)."""
    if v <= 2 * WINDOW:
        return np.arange(v)
    rows = set(special)
    if selected is not None:
        rows |= set(range(max(0, selected - WINDOW // 2), min(v, selected + WINDOW // 2)))
    for i in np.flatnonzero(counts).tolist():
        if len(rows) >= 4 * WINDOW:
            break
        rows.add(i)
    return np.array(sorted(rows))


def _w(ex: Explorer, w: np.ndarray, counts: np.ndarray, last_step: bool = True) -> dict:
    """The shown rows of W, with the rows the last step's gradient touched and each row's ‖grad‖
    (only while the newest step is shown: an earlier W has no "last step")."""
    vocab = ex.vocab
    big = vocab.size > BIG_V
    rows = shown_rows(vocab.size, counts, ex.selected_token, (vocab.pad_id, vocab.unk_id))
    values = w[rows]
    grad_norm = np.zeros(len(rows))
    touched: list[int] = []
    rec = ex.lab.last if last_step else None
    if rec is not None:
        norms = dict(zip(rec.grad_ids.tolist(), np.linalg.norm(rec.grad_rows.numpy(), axis=1).tolist()))
        touched = [i for i, n in norms.items() if n > 0]
        grad_norm = np.array([norms.get(i, 0.0) for i in rows.tolist()])
    finite = values[np.isfinite(values)]
    return {"rows": rows.tolist(), "values": _floats(np.nan_to_num(values), big),
            "absmax": float(np.abs(finite).max()) if finite.size else 1.0,
            "counts": counts[rows].tolist(), "touched": touched, "grad_norm": _floats(grad_norm)}


def _loss(losses: list[float]) -> list[float]:
    if len(losses) <= MAX_LOSS_POINTS:
        return _floats(losses)
    stride = -(-len(losses) // MAX_LOSS_POINTS)
    return _floats(losses[::stride] + ([losses[-1]] if (len(losses) - 1) % stride else []))


def _common(ex: Explorer, lang: str, mode: str, height: int, present: bool) -> dict:
    vocab = ex.vocab
    return {"version": 1, "mode": mode, "lang": lang, "big": vocab.size > BIG_V, "present": present,
            "height": height, "text": stage_text(lang), "selected": ex.selected_token, "pad": vocab.pad_id,
            "unk": vocab.unk_id, "classes": list(ex.classes)}


def _tokens(ex: Explorer, *id_lists) -> dict[str, str]:
    tokens = ex.vocab.tokens
    ids = set().union(*[set(map(int, i)) for i in id_lists])
    return {str(i): tokens[i] for i in sorted(ids)}


def train_data(ex: Explorer, lang: str, dims: int = 2, shown: int | None = None, since: int | None = None,
               playing: bool = False, steps_per_second: int = 10, height: int = 560, present: bool = False,
               pic: Picture | None = None) -> dict:
    """The training stage: scatter at ``shown`` (gliding through the steps after ``since``), W, loss.
    ``pic``: the picture at ``shown`` when the caller has it already (views/training.py)."""
    lab = ex.lab
    pic = pic if pic is not None else ex.picture(dims, shown)
    counts, used = ex.facts.counts, ex.facts.used
    data = _common(ex, lang, "train", height, present)
    data["scatter"] = _scatter(ex, pic, used, since)
    data["w"] = _w(ex, lab.snapshots[pic.shown], counts, last_step=pic.shown == lab.steps)
    data["loss"] = _loss(lab.losses[:pic.shown] if pic.shown < lab.steps else lab.losses)
    data["play"] = {"on": playing, "steps_per_second": steps_per_second}
    if ex.selected_token is not None:
        near, cos = ex.neighbours(pic.shown, ex.selected_token)
        data["neighbours"] = {"of": ex.selected_token, "ids": near.tolist(), "cos": _floats(cos)}
    listed = [data["scatter"]["ids"] if ex.vocab.size <= BIG_V else [], data["w"]["rows"],
              data.get("neighbours", {}).get("ids", [])]
    data["tokens"] = _tokens(ex, *listed)
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


def lookup_data(ex: Explorer, lang: str, sentence: int = 0, height: int = 560, present: bool = False) -> dict:
    """The lookup stage: the (B, T) ids, the rows of W they select, and output[b] = W[ids[b]]."""
    lab = ex.lab
    batch = lab.batch
    b = min(max(0, sentence), batch.ids.shape[0] - 1)
    w = lab.weight.detach().numpy()  # (V, E), read-only view
    counts = ex.facts.counts
    data = _common(ex, lang, "lookup", height, present)
    data["w"] = _w(ex, w, counts)
    ids = batch.ids.tolist()
    data["ids"] = ids
    data["sentences"] = [list(s) for s in batch.tokens]
    data["out"] = {"b": b, "values": _floats(lab.vectors()[b].numpy(), ex.vocab.size > BIG_V)}  # (T, E): W[ids[b]]
    data["loss"] = []
    data["tokens"] = _tokens(ex, data["w"]["rows"], [i for row in ids for i in row])
    where = t(lang, "pipe.tables")
    bsz, tlen = batch.ids.shape
    data["alt"] = {"ids": t(lang, "stage.alt.ids", b=bsz, t=tlen, where=where),
                   "w": t(lang, "stage.alt.w", rows=len(data["w"]["rows"]), v=ex.vocab.size,
                          e=ex.recipe.config.embedding_dim, touched=len(data["w"]["touched"])),
                   "out": t(lang, "stage.alt.out", sentence=b, t=tlen, e=ex.recipe.config.embedding_dim, where=where)}
    return data
