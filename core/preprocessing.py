"""One session's preprocessing: which tokenizer splits its sentences and what it needs (core/tokenize.py).

The explorer (core/explorer.py) keeps one `Preprocessing`: it splits parsed lines by the
config's tokenizer and builds the vocabulary from their tokens, keeps the learner's own table
while another tokenizer's vocabulary stands in for it, and the subword tokenizer trained on the
sentences (trained again only when they change). The morpheme analyzer comes from ``morphemes``
(default: the process's one, `core.morphemes.analyzer`): tests give their own.

    >>> prep = Preprocessing(morphemes=lambda: kiwi_analyzer(Kiwi()))
    >>> lines, vocab = prep.prepare(parse_sentences("영화가 정말 좋았다 | 긍정", ("부정", "긍정")), config)
    >>> lines[0].tokens, vocab.tokens[:3]          # config.tokenizer == "morpheme"
    (('영화', '가', '정말', '좋', '었', '다'), ('<UNK>', '<PAD>', '영화'))
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from core import morphemes as shared_morphemes
from core import tokenize
from core.batch import Line
from core.problems import InputError, Problem
from core.vocab import Vocab


@dataclass
class Preprocessing:
    """The tokenizer's state of one session (no learner data is shared across sessions)."""

    morphemes: Callable[[], tokenize.Analyzer | None] | None = None  # the analyzer's source
    table: Vocab | None = None  # the learner's own table, kept while another tokenizer builds the vocabulary
    _subword: tuple[str, tokenize.Subword | None] = ("", None)  # (what it was trained on, the trained tokenizer)

    def analyzer(self) -> tokenize.Analyzer | None:
        """The morpheme analyzer if it is loaded (else its load starts and this is None)."""
        return (self.morphemes or shared_morphemes.analyzer)()

    def subword(self, texts: Sequence[str], size: int) -> tokenize.Subword:
        """The subword tokenizer trained on ``texts``: trained again only when they or ``size`` change."""
        key = repr((list(texts), int(size)))
        if self._subword[0] != key or self._subword[1] is None:
            self._subword = (key, tokenize.train_subword(texts, size))
        return self._subword[1]  # type: ignore[return-value]

    def prepare(self, lines: Sequence[Line], config) -> tuple[list[Line], Vocab | None]:
        """``lines`` split by ``config``'s tokenizer, and the vocabulary built from them (None for
        whitespace: its vocabulary is the learner's table). `InputError` when it cannot be done now
        (the morpheme analyzer still loading: ``tokenizer_loading``) or a line grew too long."""
        settings = tokenize.Settings.of(config)
        if settings.tokenizer == "whitespace":
            return list(lines), None
        analyzer = subword = None
        if settings.tokenizer == "morpheme":
            analyzer = self.analyzer()
            if analyzer is None:
                error = shared_morphemes.error()
                raise InputError([Problem("tokenizer_unavailable", {"error": error}) if error
                                  else Problem("tokenizer_loading", {})])
        else:
            subword = self.subword([tokenize.body(l) for l in lines], settings.subword_vocab)
        return tokenize.prepare(lines, settings, analyzer, subword)

    def recipe_for(self, recipe, lines: Callable[[], Sequence[Line]], config):
        """``recipe`` with the new ``config``; when its preprocessing knobs changed, its sentences are
        ``lines()`` split again and its vocabulary is built again from them, or (back to whitespace)
        is the learner's own table, kept since whitespace was left."""
        old = recipe.config.tokenizer
        if tokenize.Settings.of(config) == tokenize.Settings.of(recipe.config):
            return replace(recipe, config=config)
        split_lines, built = self.prepare(lines(), config)
        if old == "whitespace" and built is not None:
            self.table = recipe.vocab
        vocab = built or (recipe.vocab if old == "whitespace" else self.table or recipe.vocab)
        if built is None:
            self.table = None
        return replace(type(recipe).of(vocab, split_lines, recipe.classes, config), pretrained=recipe.pretrained)  # rows kept by token

    def own_table(self, current: Vocab, tokenizer: str) -> Vocab:
        """The learner's own table (the whitespace tokenizer's vocabulary)."""
        return current if tokenizer == "whitespace" else (self.table or current)

    def spans(self, text: str, config, texts: Sequence[str]) -> list[tokenize.Span]:
        """``text`` as (token, start, end) spans under ``config``'s tokenizer; ``texts``: all the
        sentences (the subword tokenizer's training data). The words, while the analyzer loads."""
        name = config.tokenizer
        analyzer = self.analyzer() if name == "morpheme" else None
        if name == "morpheme" and analyzer is None:
            name = "whitespace"
        subword = self.subword(texts, config.subword_vocab) if name == "subword" else None
        return tokenize.split(text, name, analyzer, subword)
