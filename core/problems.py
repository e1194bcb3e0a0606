"""Problems found in the learner's input, as codes with parameters rather than sentences.

Core never writes prose: it reports *what* is wrong (a code such as ``duplicate_token``) and
*where* (row, line, token). The interface turns each code into a sentence in the learner's
language, from ``assets/strings/errors.json``, which has one entry per code below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, e.g. ``Problem("duplicate_token", {"row": 3, "token": "영화"})``."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)


class InputError(ValueError):
    """Raised by core when an input is invalid; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("; ".join(f"{p.code} {p.params}" for p in self.problems))


def require(problems: list[Problem]) -> None:
    """Raise `InputError` if any problem was collected."""
    if problems:
        raise InputError(problems)
