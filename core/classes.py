"""The classes of a lab: the labels the learner writes define them.

A sentence line may end in ``| label`` (core/batch.py). The labels decide the classes, the head's
output size and each sentence's target, by one rule:

- **The example's classes.** If every label written is one of the *example's* classes, by name or
  by a bare number (ASCII digits) below their count, the classes are the example's, all of them,
  in the example's order, exactly as the example was loaded (a number is that class's index:
  ``| 1`` is 긍정 in the chapter, whose classes are 부정, 긍정).
- **Your own classes.** Otherwise the labels are the classes: every distinct label, in the order
  it first appears in the sentences, a number being a name like any other. 1 to `MAX_CLASSES`.

The example's classes are those of what was loaded last: an example from the sidebar, an imported
file, a share link or the kept lab (its classes, as the file or link names them). Names match
ignoring case and runs of spaces (the first spelling names the class). Sentences with no label at
all keep the example's classes (they are needed only for training). The head has
``max(2, number of classes)`` outputs: one output's cross-entropy is exactly 0 whatever W is.

    >>> resolve(["긍정", "1", None, "부정"], ("부정", "긍정"))           # the example's classes
    (('부정', '긍정'), (1, 1, None, 0))
    >>> resolve(["스포츠", "정치", "스포츠", "음식"], ("부정", "긍정"))   # your own
    (('스포츠', '정치', '음식'), (0, 1, 0, 2))
    >>> resolve(["0", "1", "2"], ("부정", "긍정"))                       # 2 is no class of the example
    (('0', '1', '2'), (0, 1, 2))

A label over `MAX_CLASS_CHARS` characters, an empty or unprintable one, or a 21st class is refused
naming its line (`label_problems`).
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Sequence

import numpy as np

from core import limits
from core.invisible import code_points, invisible_only
from core.problems import Problem


def key(name: str) -> str:
    """What two spellings of one class share: case and runs of spaces ignored."""
    return " ".join(name.split()).casefold()


def _in_example(text: str, keys: list[str]) -> int | None:
    """The example class ``text`` names (its name, or its number below their count), else None."""
    k = key(text)
    if k in keys:
        return keys.index(k)
    if text.isascii() and text.isdigit() and int(text) < len(keys):
        return int(text)
    return None


def resolve(labels: Sequence[str | None], example: Sequence[str]) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
    """(classes, each label's class index) of labels as written (None: no label), by the module's rule."""
    keys = [key(c) for c in example]
    found = [None if t is None else _in_example(t, keys) for t in labels]
    if all(i is not None for t, i in zip(labels, found) if t is not None):
        return tuple(example), tuple(found)
    index: dict[str, int] = {}
    names: list[str] = []
    for t in labels:
        if t is not None and key(t) not in index:
            index[key(t)] = len(names)
            names.append(" ".join(t.split()))
    return tuple(names), tuple(None if t is None else index[key(t)] for t in labels)


def _control(text: str) -> bool:
    """A control, format or unassigned character other than whitespace (which names fold to one
    space) and the zero-width joiner of emoji sequences: the rule tokens follow (core/batch.py)."""
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch != "\u200d"
               for ch in "".join(text.split()))


def label_problems(labels: Sequence[tuple[int, str]], example: Sequence[str]) -> list[Problem]:
    """What is wrong with (line number, label as written) pairs: empty, too long, unprintable, or a
    class past `limits.MAX_CLASSES` (named at the line where it first appears)."""
    problems: list[Problem] = []
    for no, text in labels:
        if not text.strip():
            problems.append(Problem("label_empty", {"line": no}))
        elif len(text.strip()) > limits.MAX_CLASS_CHARS:
            problems.append(Problem("label_too_long", {"line": no, "label": text.strip()[:12] + "…",
                                                       "n": len(text.strip()), "max": limits.MAX_CLASS_CHARS}))
        elif invisible_only(text.strip()) or _control(text):
            problems.append(Problem("label_unprintable", {"line": no, "codes": code_points(text.strip())}))
    if problems:
        return problems
    classes, _ = resolve([t for _, t in labels], example)
    if len(classes) > limits.MAX_CLASSES:
        first = {}
        for no, text in labels:
            first.setdefault(key(text), (no, text.strip()))
        no, text = list(first.values())[limits.MAX_CLASSES]
        problems.append(Problem("too_many_classes", {"line": no, "label": text, "n": limits.MAX_CLASSES + 1,
                                                    "max": limits.MAX_CLASSES}))
    return problems


def resolve_lines(lines: list, example: Sequence[str], problems: list[Problem]) -> list:
    """Parsed lines whose ``label`` is the label as written → lines whose ``label`` is its class index
    and ``label_text`` the label as written. Problems are added to ``problems`` (then the lines are
    returned as they came: the caller refuses them)."""
    problems += label_problems([(l.line_no, l.label) for l in lines if l.label is not None], example)
    if problems:
        return lines
    _, labels = resolve([l.label for l in lines], example)
    return [replace(l, label=y, label_text=l.label) for l, y in zip(lines, labels)]


def classes_of(lines: Sequence, example: Sequence[str]) -> tuple[str, ...]:
    """The classes parsed lines define (their ``label_text``s) with the example's classes."""
    return resolve([getattr(l, "label_text", None) for l in lines], example)[0]


def token_classes(recipe) -> np.ndarray:
    """(V,) the class each token is most associated with, from the labelled sentences: the class of
    the sentences it appears in most often; -1 for a token in no labelled sentence or in a tie
    (and for PAD and UNK, which name no word). A fact about the data, not about W.

    >>> token_classes(chapter_recipe)   # 영화 appears once in 긍정 and once in 부정: a tie
    array([-1, -1, -1,  1,  0, -1])
    """
    vocab = recipe.vocab
    counts = np.zeros((vocab.size, max(1, len(recipe.classes))), np.int64)  # (V, C)
    for tokens, label in zip(recipe.sentences, recipe.labels):
        if label is not None:
            np.add.at(counts[:, label], vocab.encode(tokens), 1)
    best = counts.argmax(axis=1)
    top = counts.max(axis=1)
    tie = (counts == top[:, None]).sum(axis=1) > 1
    out = np.where((top > 0) & ~tie, best, -1)
    out[[vocab.pad_id, vocab.unk_id]] = -1
    return out
