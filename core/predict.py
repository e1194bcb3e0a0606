"""Predict, then reveal: what the learner guessed a Step would do, and each guess marked right or wrong.

Three guesses about the next step, each optional:

- ``rows``: the rows of W whose gradient will not be zero (PAD's never is: C8);
- ``pad_moves``: whether the PAD row will move at all (it does not, unless weight decay acts on a
  PAD row set by hand to something other than zero: C13);
- ``loss_down``: whether the loss of the step's own sentences will be lower after the update than
  before it.

The answers are read from the step itself (`core.training.StepRecord`) and, for the loss, one
forward pass of the same sentences with the updated weights; `grade` is called right after the
step, while W is the W that step left.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.training import Lab

QUESTIONS = ("rows", "pad", "loss")


@dataclass(frozen=True)
class Guess:
    step: int  # the step the guess is about (the lab's steps + 1 when it was made)
    rows: tuple[int, ...] | None = None  # sorted; None: not guessed
    pad_moves: bool | None = None
    loss_down: bool | None = None

    def empty(self) -> bool:
        return self.rows is None and self.pad_moves is None and self.loss_down is None


@dataclass(frozen=True)
class Verdict:
    question: str  # one of QUESTIONS
    guessed: object  # tuple of ids, or a bool
    actual: object
    right: bool


@dataclass(frozen=True)
class Answers:
    """What the step did, for every question: computed once, right after the step."""

    step: int
    rows: tuple[int, ...]  # rows whose gradient was not exactly zero
    pad_moved: bool
    loss_before: float
    loss_after: float

    @property
    def loss_down(self) -> bool:
        return self.loss_after < self.loss_before


def make_guess(next_step: int, rows=None, pad_moves=None, loss_down=None) -> Guess | None:
    """The learner's guess for step ``next_step`` (None when nothing was guessed). ``rows`` may be
    anything a widget returned: only ints (not bools) are kept."""
    ids = None
    if rows:
        ids = tuple(sorted({int(r) for r in rows if isinstance(r, int) and not isinstance(r, bool)}))
    g = Guess(next_step, ids or None, pad_moves if isinstance(pad_moves, bool) else None,
              loss_down if isinstance(loss_down, bool) else None)
    return None if g.empty() else g


def answers(lab: Lab) -> Answers | None:
    """What the lab's last step did (None before a recorded step, or once W has moved on from it)."""
    rec = lab.last
    if rec is None or rec.step != lab.steps:
        return None
    nonzero = rec.grad_rows.ne(0).any(dim=1)  # (K',)
    rows = tuple(int(i) for i in rec.grad_ids[nonzero].tolist())
    pad_moved = bool(rec.delta[lab.recipe.vocab.pad_id] > 0)
    return Answers(rec.step, rows, pad_moved, rec.loss, lab.loss_of(rec.rows))


def grade(guess: Guess, ans: Answers) -> list[Verdict]:
    """Each guessed question, right or wrong, against what the step did."""
    if guess.step != ans.step:
        return []
    out = []
    if guess.rows is not None:
        out.append(Verdict("rows", guess.rows, ans.rows, set(guess.rows) == set(ans.rows)))
    if guess.pad_moves is not None:
        out.append(Verdict("pad", guess.pad_moves, ans.pad_moved, guess.pad_moves == ans.pad_moved))
    if guess.loss_down is not None:
        out.append(Verdict("loss", guess.loss_down, ans.loss_down, guess.loss_down == ans.loss_down))
    return out

