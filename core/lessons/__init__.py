"""The chapter's claims (C1–C16) and the pitfalls after it (X1–X9) as live checks on a learner's Lab.

Each lesson is one unit, a `Lesson` record written next to its demo: the demo (real torch code on
private copies of the learner's current table and batch, returning a `Demo`: whether its check
held, the numbers it saw, small tables and the data of its figure), the facts it shows as
headline numbers, and its prediction question if it asks one. Its prose is in
``assets/strings/lesson_<id>.json``. The learner's lab is never modified: demos copy W (or, for
big tables, the rows they need), build fresh layers from the copy, and draw random numbers only
from private ``torch.Generator`` objects (sessions share one process).

Worked example, on the chapter's lab (C16: ``<UNK>``=0, ``<PAD>``=1, V=6, E=3, ids
``[[2, 0, 3], [2, 4, 1]]``)::

    >>> d = run_demo("C4", lab)
    >>> d.verdict, d.facts["max_diff"], d.facts["bitwise_equal"]
    ('holds', 0.0, True)                        # one_hot(ids, 6).float() @ W == W[ids], bit for bit
    >>> d.facts["no_float_error"]["type"]
    'RuntimeError'                              # one_hot gives int64: the matmul needs .float()
    >>> run_demo("C13", lab).facts["pad_grad_max"]
    0.0                                         # PAD is in the batch, its gradient row is exactly 0

On a W holding inf or NaN, a lesson whose check reads W's values returns the verdict
``"not_finite"`` ("cannot be checked on a non-finite W"), never ``"fails"``.

Tables are ``{name: [header, *rows]}``; each header entry is a column id that the interface
names from ``assets/strings/lessons.json`` (``lesson.col.<id>``), as it names every fact
(``lesson.<ID>.fact.<key>``, or ``lesson.fact.<key>`` for facts that several demos share).
A fact whose value is ``{"type": ..., "message": ...}`` is an exception that torch raised;
``None`` in its place means the call succeeded.
"""

from __future__ import annotations

from types import MappingProxyType

from core.lessons import learning, lookup, padding, pitfalls, pretrained, tokens
from core.lessons.common import (  # noqa: F401
    CHAPTER_CODE,
    CHAPTER_IDS,
    CHAPTER_PREPROCESSING,
    FAILS,
    GRAD_ANSWERS,
    HOLDS,
    NOT_FINITE,
    Demo,
    Lesson,
)
from core.lessons.padding import PAD_ANSWERS  # noqa: F401
from core.training import Lab

# ---- the registry: every lesson, in the order a learner meets them ----------------------------------
LESSONS: tuple[Lesson, ...] = (
    lookup.C1, lookup.C2, lookup.C3, lookup.C4, lookup.C5, lookup.C6, learning.C7, learning.C8,
    learning.C9, padding.C10, padding.C11, lookup.C12, padding.C13, lookup.C14, padding.C15,
    padding.C16,
    pitfalls.X1, pitfalls.X2, pitfalls.X3, pitfalls.X4, pitfalls.X5, pitfalls.X6, pitfalls.X7, tokens.X8,
    pretrained.X9,
)
LESSON_IDS: tuple[str, ...] = tuple(lesson.id for lesson in LESSONS)
BY_ID: MappingProxyType = MappingProxyType({lesson.id: lesson for lesson in LESSONS})  # read-only


def lesson(lesson_id: str) -> Lesson:
    """The lesson ``"C1"``..``"C16"``, ``"X1"``..``"X9"``; KeyError naming the choices otherwise."""
    if lesson_id not in BY_ID:
        raise KeyError(f"unknown lesson {lesson_id!r}; one of {LESSON_IDS}")
    return BY_ID[lesson_id]


def run_demo(lesson_id: str, lab: Lab, frame=None) -> Demo:
    """The demonstration of one claim on ``lab``; ``frame``: what a lesson reads beside the lab: the
    training view's 2-D PCA frame (Explorer.frame), which X7 draws its fixed panel in, so PAD has ②'s
    coordinates there; the learner's sentences as typed and own table (core.lessons.tokens.Source) for X8."""
    return lesson(lesson_id).run(lab, frame)


def run_all(lab: Lab) -> dict[str, Demo]:
    """Every demonstration, in LESSON_IDS order."""
    return {i: run_demo(i, lab) for i in LESSON_IDS}
