"""The stage's data (components/stage/README.md): the parts the lookup and the training view share,
as plain JSON only. Each view builds the rest of its stage's data: views/lookup.py, views/training.py.

No streamlit here, so tests build and check it directly (support/stage_contract.py checks what
the stage's JS relies on).
"""

from __future__ import annotations

import numpy as np

from components.i18n import t
from core.explorer import Explorer

TEXT_KEYS = ("pad", "unk", "unused", "used", "selected", "step", "loss", "w_title", "scatter_title",
             "ids_title", "ids_prev", "ids_next", "out_title", "touched", "pad_zero_grad", "legend_title", "class_prefix",
             "noclass", "grad_col", "count_col", "cell_name", "raw_name", "cut")  # data["text"]
BIG_V = 2000  # above this many rows: no labels, canvas only, never-looked-up rows thinned
WINDOW = 40  # rows of W shown around the selection when V is large


def stage_text(lang: str) -> dict[str, str]:
    return {k: t(lang, f"stage.{k}") for k in TEXT_KEYS}


def floats(a, big: bool = False) -> list:
    """A float array as plain (nested) lists: exact (each float32 round-trips through JSON), or, for
    a big table, rounded to 4 decimals to keep the message small (a picture, not an answer key)."""
    a = np.asarray(a)
    return np.round(a.astype(np.float64), 4).tolist() if big else a.tolist()


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


def w_grid(ex: Explorer, w: np.ndarray, counts: np.ndarray, last_step: bool = True) -> dict:
    """The shown rows of W, with the rows the last step's gradient touched and each row's ‖grad‖
    (only while the newest step is shown: an earlier W has no "last step")."""
    vocab, lab = ex.vocab, ex.lab
    rows = shown_rows(vocab.size, counts, ex.selected_token, (vocab.pad_id, vocab.unk_id))
    grads = lab.grad_norms.get(lab.steps) if last_step and lab.last is not None else None
    return {"rows": rows.tolist(), **w_cells(ex, w[rows], rows, grads), "counts": counts[rows].tolist()}


def w_cells(ex: Explorer, values: np.ndarray, rows: np.ndarray, grads: tuple[np.ndarray, np.ndarray] | None) -> dict:
    """The shown ``rows``' ``values`` and their colour scale, the rows a step's gradient touched and each
    shown row's ‖grad‖: ``grads`` is that step's (ids looked up, norms), as the lab's ``grad_norms`` keeps them,
    None for a W that no step just changed. A Play frame's grid is this at the frame's step."""
    grad_norm = np.zeros(len(rows))
    touched: list[int] = []
    if grads is not None:
        norms = dict(zip(grads[0].tolist(), grads[1].tolist()))
        touched = [i for i, n in norms.items() if n > 0]
        grad_norm = np.array([norms.get(i, 0.0) for i in rows.tolist()])
    finite = values[np.isfinite(values)]
    return {"values": floats(np.nan_to_num(values), ex.vocab.size > BIG_V),
            "absmax": float(np.abs(finite).max()) if finite.size else 1.0,
            "touched": touched, "grad_norm": floats(grad_norm)}


def common(ex: Explorer, lang: str, mode: str, height: int, present: bool) -> dict:
    """What every stage's data starts with: its mode, language, size, texts and the special rows."""
    vocab = ex.vocab
    return {"version": 1, "mode": mode, "lang": lang, "big": vocab.size > BIG_V, "present": present,
            "height": height, "text": stage_text(lang), "selected": ex.selected_token, "pad": vocab.pad_id,
            "unk": vocab.unk_id, "classes": list(ex.classes)}


def tokens_of(ex: Explorer, *id_lists) -> dict[str, str]:
    """The tokens of the ids listed (as the stage's JSON keys them: id as text → token)."""
    tokens = ex.vocab.tokens
    ids = set().union(*[set(map(int, i)) for i in id_lists])
    return {str(i): tokens[i] for i in sorted(ids)}
