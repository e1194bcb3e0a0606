"""The plain data the training area's widgets draw (components/training.py), with no streamlit:
views/training.py builds it, the widgets only read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NEWEST = -1  # the timeline's last option: the newest step, whichever it is now (the timeline follows it)


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
