"""PCA frames: one mean and one set of axes that every snapshot of W is projected with (X7).

core.explorer decides when a frame is fitted (once per lab); this module fits and applies them.

A frame is one mean and one set of axes. Projecting every step's W with the same frame keeps
the all-zero PAD row at the same coordinates, ``(0 − mean) @ axes.T``, at every step. Refitting
PCA at each step would move the centre and may flip axes, and the PAD row would seem to move.

    >>> frame = fit_frame([W0, W10, W20], n_components=2)
    >>> xy = frame.transform(W20)        # (V, 2), same mean and axes as for W0
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from sklearn.decomposition import PCA

MAX_FIT_ROWS = 20_000  # rows sampled for the fit on big tables; transform always uses every row
MAX_DRAWN_STEPS = 100  # kept steps a picture fits its frame on and draws (trails, axis ranges)
RANDOM_TABLES = 20  # random N(0,1) tables drawn to judge whether a spectrum is flat (C9)


@dataclass(frozen=True)
class Frame:
    mean: np.ndarray  # (E,)
    axes: np.ndarray  # (k, E), orthonormal rows
    explained: np.ndarray  # (k,) explained variance ratio of each axis
    spectrum: np.ndarray  # (min(n, E),) explained variance ratio of every component

    @property
    def dims(self) -> int:
        return self.axes.shape[0]

    def transform(self, w: np.ndarray) -> np.ndarray:
        """(V, E) → (V, k), always with this frame's mean and axes (float32 arithmetic, like W)."""
        w = np.asarray(w, dtype=np.float32)
        out = np.empty((w.shape[0], self.dims), np.float32)
        for j, axis in enumerate(self.axes.astype(np.float32)):  # one matrix-vector product per axis:
            np.matmul(w, axis, out=out[:, j])  # numpy's OpenBLAS packs a (V, E) @ (E, k) product into its
            # per-thread work buffers and keeps them touched for the life of the server (bench_rss.py)
        return out - (self.mean @ self.axes.T).astype(np.float32)


def fit_frame(snapshots: list[np.ndarray], n_components: int = 2, previous: Frame | None = None,
              seed: int = 0) -> Frame:
    """Fit one frame on the rows of all given snapshots stacked (each (V, E)).

    With ``previous``, each new axis is sign-aligned to the old one so a refit does not mirror
    the picture. k is at most E (an E=1 table gives a 1-D frame). Big tables are fitted on a
    fixed-seed sample of MAX_FIT_ROWS rows; every row is still transformed.
    """
    data = _sample_rows(snapshots, seed)  # (n, E) float64
    n, e = data.shape
    k = max(1, min(n_components, e, n))
    solver = "covariance_eigh" if n >= 4 * e else "full"
    full = PCA(n_components=min(n, e), svd_solver=solver, copy=False).fit(data)  # data is ours to centre in place
    axes = full.components_[:k].copy()
    if previous is not None and previous.axes.shape == axes.shape:
        signs = np.sign(np.sum(axes * previous.axes, axis=1))
        axes *= np.where(signs == 0, 1.0, signs)[:, None]
    ratio = np.nan_to_num(full.explained_variance_ratio_)
    return Frame(full.mean_.copy(), axes, ratio[:k].copy(), ratio.copy())


def _sample_rows(snapshots: list[np.ndarray], seed: int) -> np.ndarray:
    """All rows of all snapshots, or a seeded sample of MAX_FIT_ROWS of them, as one new float64 array.

    Written into that one array, with no float64 copy per snapshot: a copy per snapshot of a
    100k × 300 table is a large block of fresh memory, which is slow to touch (bench_scale.py).
    """
    sizes = [s.shape[0] for s in snapshots]
    total = sum(sizes)
    starts = np.cumsum([0] + sizes)
    if total <= MAX_FIT_ROWS:
        picks = None
        out = np.empty((total, snapshots[0].shape[1]), np.float64)
    else:
        picks = np.sort(np.random.default_rng(seed).choice(total, MAX_FIT_ROWS, replace=False))
        out = np.empty((MAX_FIT_ROWS, snapshots[0].shape[1]), np.float64)
    row = 0
    for s, a, b in zip(snapshots, starts[:-1], starts[1:]):
        part = s if picks is None else s[picks[(picks >= a) & (picks < b)] - a]
        out[row:row + len(part)] = part
        row += len(part)
    return out


def thin_steps(steps: Sequence[int], limit: int | None = None) -> list[int]:
    """At most ``limit`` (default MAX_DRAWN_STEPS) of the sorted ``steps``: all of them when they
    fit, else every k-th from the first, and always the last. A stride, not a linspace, so the picks
    stay put as steps are added (trails drawn through them do not wiggle from one Step to the next).

    >>> thin_steps(list(range(0, 1000, 2)), limit=5)
    [0, 250, 500, 750, 998]
    """
    steps, limit = list(steps), MAX_DRAWN_STEPS if limit is None else limit
    if len(steps) <= limit:
        return steps
    stride = -(-(len(steps) - 1) // (limit - 1))  # ceil: (limit − 1) strides cover first … last
    picks = steps[::stride]
    return picks if picks[-1] == steps[-1] else picks[:limit - 1] + [steps[-1]]


def spectrum_is_flat(frame: Frame, n_rows: int, seed: int = 0) -> bool:
    """True when the top component explains no more than it does in random N(0,1) tables of this shape.

    That is C9's point: before training, a PCA picture of W shows noise, not meaning.
    """
    e = frame.spectrum.shape[0]
    if e < 2:
        return False
    return float(frame.spectrum[0]) <= random_top_ratio(min(n_rows, 1000), e, seed)


@lru_cache(maxsize=64)
def random_top_ratio(rows: int, e: int, seed: int) -> float:
    """95th percentile of the top explained-variance ratio over RANDOM_TABLES fresh-like tables (rows × e):
    N(0, 1) with one zero row, as ``nn.Embedding(padding_idx=…)`` starts.

    A pure function of its arguments, so caching it shares nothing a user can change.
    """
    rng = np.random.default_rng(seed)
    tops = []
    for _ in range(RANDOM_TABLES):
        r = rng.standard_normal((rows, e))
        r[0] = 0.0  # like a fresh nn.Embedding table: N(0, 1) with one zero (PAD) row
        eig = np.linalg.eigvalsh(np.cov(r, rowvar=False).reshape(e, e))  # ascending
        tops.append(eig[-1] / eig.sum())
    return float(np.quantile(tops, 0.95))


def axis_ranges(points: list[np.ndarray], margin: float = 0.08) -> list[tuple[float, float]]:
    """Fixed axis ranges covering every projected snapshot, so the camera never moves. One per axis."""
    allp = np.concatenate(points, axis=0)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    pad = np.maximum((hi - lo) * margin, 1e-6)
    return [(float(a), float(b)) for a, b in zip(lo - pad, hi + pad)]


def finite_snapshots(snaps: list[np.ndarray]) -> list[np.ndarray]:
    """The snapshots whose every entry is finite (the first one always is: a fresh or imported table)."""
    kept = [s for s in snaps if np.isfinite(s).all()]
    return kept or snaps[:1]


def widen_ranges(old: list[tuple[float, float]], new: list[tuple[float, float]],
                 anchor: np.ndarray | None = None) -> list[tuple[float, float]]:
    """Ranges covering both; a non-finite bound (points of a diverged W) never replaces a finite one.

    With an ``anchor`` (the PAD row's point) inside an old range, that axis widens about it: both
    sides scale by the one factor that covers the new points, so the anchor keeps its place on the
    screen ((p − lo) / (hi − lo) is unchanged) while the view zooms out around it (X7)."""
    out = []
    for j, ((a, b), (c, d)) in enumerate(zip(old, new)):
        lo = min(a, c) if np.isfinite(c) else a
        hi = max(b, d) if np.isfinite(d) else b
        p = float(anchor[j]) if anchor is not None and j < len(anchor) else float("nan")
        if (lo, hi) != (a, b) and np.isfinite(p) and a < p < b:
            s = max((p - lo) / (p - a), (hi - p) / (b - p))
            lo, hi = p - s * (p - a), p + s * (b - p)
        out.append((lo, hi))
    return out
