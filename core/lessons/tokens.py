"""X8: <UNK> is preprocessing's decision: the same sentence has a different <UNK> count under each tokenizer.

Computed on the learner's own sentences (core/tokenize.py): each tokenizer splits them, its
vocabulary is the one the app would use with it (whitespace: the learner's own table; morpheme and
subword: built from their tokens with the lab's minimum count and maximum size), and each sentence's
tokens that become <UNK> are counted. The demo shows the sentence whose counts differ most.

    >>> d = demo_X8(lab, Source(lines, table, Settings(), analyzer))
    >>> d.held, d.facts["unk_whitespace"], d.facts["unk_morpheme"]    # the chapter: 정말 is not in its table
    (True, 1, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from core import tokenize
from core.batch import Line
from core.lessons.common import Demo, Lesson
from core.training import Lab
from core.vocab import Vocab

SHOWN_SENTENCES = 12  # rows of the per-sentence table


@dataclass(frozen=True)
class Source:
    """What X8 reads beside the lab: the sentences as typed (parsed on whitespace), the learner's own
    table, the preprocessing knobs, and the morpheme analyzer (None: not loaded, morpheme left out)."""

    lines: Sequence[Line]
    table: Vocab
    settings: tokenize.Settings
    analyzer: tokenize.Analyzer | None


def source_of(lab: Lab) -> Source:
    """The lab alone as X8's source, when nothing else is given: its sentences, its table, no analyzer."""
    recipe = lab.recipe
    lines = [Line(s, y, i + 1) for i, (s, y) in enumerate(zip(recipe.sentences, recipe.labels))]
    return Source(lines, recipe.vocab, tokenize.Settings.of(recipe.config), None)


def demo_X8(lab: Lab, source: Source | None = None) -> Demo:
    src = source or source_of(lab)
    names = [n for n in tokenize.TOKENIZERS if n != "morpheme" or src.analyzer is not None]
    per: dict[str, list[tuple[tuple[str, ...], tuple[bool, ...]]]] = {}
    for name in names:
        vocab, split_lines, _ = tokenize.vocab_for(name, src.lines, src.settings, src.table, src.analyzer)
        per[name] = [(l.tokens, tuple(i == vocab.unk_id for i in vocab.encode(l.tokens))) for l in split_lines]
    counts = [[sum(per[n][b][1]) for n in names] for b in range(len(src.lines))]
    spreads = [max(c) - min(c) for c in counts]
    best = max(range(len(counts)), key=lambda b: (spreads[b], -b))
    facts = {"sentence": tokenize.body(src.lines[best]), "line": src.lines[best].line_no,
             **{f"unk_{n}": counts[best][i] for i, n in enumerate(names)},
             "sentences_differing": sum(s > 0 for s in spreads), "sentences": len(counts),
             "morpheme_loaded": src.analyzer is not None}
    tokens = [["tokenizer", "tokens", "unk"]] + [
        [n, " ".join(tok + ("*" if u else "") for tok, u in zip(*per[n][best])), counts[best][i]]
        for i, n in enumerate(names)]
    table = [["line", *names]] + [[src.lines[b].line_no, *counts[b]] for b in range(min(len(counts), SHOWN_SENTENCES))]
    return Demo("X8", spreads[best] > 0, facts, {"tokens": tokens, "per_sentence": table})


X8 = Lesson("X8", demo_X8, headline=("unk_whitespace", "unk_morpheme", "unk_subword"), needs_finite=False,
            codes=(), uses_frame=True)
