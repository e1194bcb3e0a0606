"""The chapter's claims (C1–C16) and the pitfalls after it (X1–X7) as live checks on a learner's Lab.

Each ``demo_<id>(lab)`` runs real torch code on private copies of the learner's current table
and batch, and returns a `Demo`: whether the check it performed held (``verdict``), the numbers
it saw (``facts``) and small tables for display. The learner's lab is never modified: demos
copy W (or, for big tables, the rows they need), build fresh layers from the copy, and draw
random numbers only from private ``torch.Generator`` objects (sessions share one process).

Worked example, on the chapter's lab (C16: ``<UNK>``=0, ``<PAD>``=1, V=6, E=3, ids
``[[2, 0, 3], [2, 4, 1]]``)::

    >>> d = run_demo("C4", lab)
    >>> d.verdict, d.facts["max_diff"], d.facts["bitwise_equal"]
    (True, 0.0, True)                           # one_hot(ids, 6).float() @ W == W[ids], bit for bit
    >>> d.facts["no_float_error"]["type"]
    'RuntimeError'                              # one_hot gives int64: the matmul needs .float()
    >>> d.facts["inf_matmul_nan"], d.facts["inf_lookup_finite"]
    (True, True)                                # 0 · inf = NaN poisons the matmul, not the lookup
    >>> run_demo("C13", lab).facts["pad_grad_max"]
    0.0                                         # PAD is in the batch, its gradient row is exactly 0

Tables are ``{name: [header, *rows]}``; each header entry is a column id that the interface
names from ``assets/strings/lessons.json`` (``lesson.col.<id>``), as it names every fact
(``lesson.<ID>.fact.<key>``, or ``lesson.fact.<key>`` for facts that several demos share).
A fact whose value is ``{"type": ..., "message": ...}`` is an exception that torch raised;
``None`` in its place means the call succeeded.
"""

from __future__ import annotations

from types import MappingProxyType

from core.lessons.common import (  # noqa: F401
    CHAPTER_CODE,
    CHAPTER_IDS,
    CHAPTER_PREPROCESSING,
    GRAD_ANSWERS,
    LESSON_IDS,
    Demo,
)
from core.lessons.learning import demo_C7, demo_C8, demo_C9  # noqa: F401
from core.lessons.lookup import (  # noqa: F401
    demo_C1,
    demo_C2,
    demo_C3,
    demo_C4,
    demo_C5,
    demo_C6,
    demo_C12,
    demo_C14,
)
from core.lessons.padding import demo_C10, demo_C11, demo_C13, demo_C15, demo_C16  # noqa: F401
from core.lessons.pitfalls import (  # noqa: F401
    demo_X1,
    demo_X2,
    demo_X3,
    demo_X4,
    demo_X5,
    demo_X6,
    demo_X7,
)
from core.training import Lab

# ---- registry -------------------------------------------------------------------------------------
DEMOS: MappingProxyType = MappingProxyType({i: globals()[f"demo_{i}"] for i in LESSON_IDS})  # read-only


def run_demo(lesson_id: str, lab: Lab) -> Demo:
    """The demonstration of one claim (``"C1"``..``"C16"``, ``"X1"``..``"X7"``) on ``lab``."""
    if lesson_id not in DEMOS:
        raise KeyError(f"unknown lesson {lesson_id!r}; one of {LESSON_IDS}")
    return DEMOS[lesson_id](lab)


def run_all(lab: Lab) -> dict[str, Demo]:
    """Every demonstration, in LESSON_IDS order."""
    return {i: run_demo(i, lab) for i in LESSON_IDS}
