"""Numbers a learner or a client sends, taken only when the app can use them exactly.

A number input can arrive as 2.5, 1e300, NaN or infinity (a hand-made websocket message, a
query parameter, an edited file). Rounding it silently would train with a value the learner never
chose, so each is refused with a message naming what the app would have used instead.

    >>> exact_int(3, "n_steps"), exact_int(3.0, "n_steps"), exact_int(" 7 ", "seed")
    (3, 3, 7)
    >>> exact_int(2.5, "n_steps")
    Problem(code='int_not_whole', params={'name': 'n_steps', 'value': '2.5', 'would': 2})
    >>> exact_int(float("nan"), "embedding_dim")
    Problem(code='int_not_number', params={'name': 'embedding_dim', 'value': 'nan'})
"""

from __future__ import annotations

import math
import re
from typing import Any

from core.problems import Problem

_INT_TEXT = re.compile(r"[+-]?[0-9]{1,30}")  # digits only: "1e300" and "0x10" are not integers to a learner
_SHOWN = 24  # characters of a refused value shown back


def exact_int(value: Any, name: str) -> int | Problem:
    """``value`` as an int when it is one exactly (an int, an integral finite float, or decimal digits);
    otherwise a Problem: ``int_not_whole`` (a finite number with a fraction: ``would`` is what
    truncation, the usual coercion, would have used) or ``int_not_number`` (NaN, infinity, text,
    booleans, anything else). Ranges are the caller's to check (`core.training.Config.problems`)."""
    shown = _shown(value)
    if isinstance(value, bool):
        return Problem("int_not_number", {"name": name, "value": shown})
    if isinstance(value, int):
        return value
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        try:
            return exact_int(value.item(), name)
        except (TypeError, ValueError):
            return Problem("int_not_number", {"name": name, "value": shown})
    if isinstance(value, float):
        if not math.isfinite(value):
            return Problem("int_not_number", {"name": name, "value": shown})
        if value.is_integer():
            return int(value)
        return Problem("int_not_whole", {"name": name, "value": shown, "would": int(value)})
    if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    return Problem("int_not_number", {"name": name, "value": shown})


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, float) else str(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"
