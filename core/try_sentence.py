"""Try a new sentence on the current table: tokenize, map unknown words to <UNK>, look the ids up in W.

Nothing about the lab changes: not its batch, not its step count, not W. A teacher can train,
then show what an unseen sentence becomes (C11: a real word missing from the vocabulary reads
as <UNK>, never as <PAD>). Training data are edited elsewhere, and editing them starts a new run.

Worked example, on the chapter's lab (``<UNK>``=0, ``<PAD>``=1, 영화=2, 좋다=3, …)::

    >>> tried = try_sentence(lab, "영화 진짜 좋다")
    >>> tried.ids, tried.unknown
    ((2, 0, 3), (False, True, False))          # 진짜 is not in the vocabulary: <UNK> = 0
    >>> tried.vectors.shape                    # (T, E) = (3, 3), bitwise W[[2, 0, 3]]
    (3, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np
import torch

from core.batch import parse_sentences
from core.problems import InputError, Problem
from core.training import Lab


@dataclass(frozen=True)
class Tried:
    """A tried sentence: its tokens as typed, their ids, which were unknown, and their rows of W.

    ``problems`` is non-empty when the text could not be tried (then the rest is empty); the
    text itself stays with the caller, so nothing the learner typed is lost.
    """

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    unknown: tuple[bool, ...]  # True where the token is not in the vocabulary (its id is UNK's)
    vectors: np.ndarray  # (T, E) float32, a copy of W[ids] at ``step``
    step: int  # the lab's step count when the sentence was tried
    problems: tuple[Problem, ...] = ()


def try_sentence(lab: Lab, text: str, split: Callable[[str], Sequence[str]] | None = None) -> Tried:
    """Look ``text`` (one sentence; line breaks count as spaces) up in the lab's current W.
    ``split``: the lab's tokenizer (core/tokenize.py), given the words joined by single spaces;
    None: split on whitespace."""
    E = lab.recipe.config.embedding_dim
    empty = np.zeros((0, E), np.float32)
    try:
        # One line: parse_sentences applies the same bounds as the training sentences. A trailing
        # "| label" naming one of the classes is accepted and ignored: trying needs no label.
        (line,) = parse_sentences(" ".join(str(text).split()), lab.recipe.classes)
    except InputError as exc:
        return Tried((), (), (), empty, lab.steps, tuple(exc.problems))
    if split is not None:
        line = replace(line, tokens=tuple(split(" ".join(line.tokens))))
    vocab = lab.recipe.vocab
    ids = vocab.encode(line.tokens)
    with torch.no_grad():
        vectors = lab.weight.detach()[torch.tensor(ids, dtype=torch.long)].numpy().copy()  # (T, E)
    unknown = tuple(tok not in vocab.index for tok in line.tokens)
    return Tried(line.tokens, tuple(ids), unknown, vectors, lab.steps)
