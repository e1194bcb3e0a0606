"""Raw text → tokens → vocabulary: the preprocessing step the chapter names, with three tokenizers.

- ``whitespace``: a token is what lies between spaces (the app's original behaviour; the
  vocabulary is the learner's own table).
- ``morpheme``: Korean words split into morphemes by an analyzer (Kiwi, `core.morphemes`), words
  without Hangul passed through as they are. The analyzer is a dependency, never a global here.
- ``subword``: a WordPiece vocabulary trained on the learner's own sentences (Hugging Face
  ``tokenizers``), at most ``subword_vocab`` pieces; a piece inside a word is written ``##piece``.

For the last two the vocabulary is built from the tokens (`build_vocab`): ``<UNK>`` and ``<PAD>``
first, by role, then every token seen at least ``vocab_min_count`` times, most frequent first
(ties: first seen first), at most ``vocab_max_size`` rows in all.

    >>> split("영화가 정말 좋았다", "morpheme", analyzer=kiwi_analyzer(Kiwi()))
    (('영화', 0, 2), ('가', 2, 3), ('정말', 4, 6), ('좋', 7, 8), ('었', 8, 9), ('다', 9, 10))
    >>> vocab = build_vocab([("영화", "가", "좋", "었", "다")], min_count=1, max_size=100)
    >>> vocab.tokens[:4], vocab.unk_id, vocab.pad_id
    (('<UNK>', '<PAD>', '영화', '가'), 0, 1)
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from core import limits
from core.batch import Line, _check_tokens
from core.problems import require
from core.knobs import TOKENIZERS, knob
from core.vocab import Vocab

UNK_TOKEN, PAD_TOKEN = "<UNK>", "<PAD>"
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
WORD = re.compile(r"\S+")

# (form, start, length) of each morpheme of a text, offsets in characters of that text.
Analyzer = Callable[[str], Sequence[tuple[str, int, int]]]
Span = tuple[str, int, int]  # (token, start, end) in the sentence's text


def kiwi_analyzer(kiwi) -> Analyzer:
    """An `Analyzer` from a loaded ``kiwipiepy.Kiwi``."""
    return lambda text: [(t.form, t.start, t.len) for t in kiwi.tokenize(text)]


@dataclass(frozen=True)
class Subword:
    """A WordPiece tokenizer trained on the learner's sentences (`train_subword`)."""

    tokenizer: object  # tokenizers.Tokenizer
    size: int  # pieces in its own vocabulary

    def spans(self, text: str) -> list[Span]:
        enc = self.tokenizer.encode(text)
        return [(tok, a, b) for tok, (a, b) in zip(enc.tokens, enc.offsets)]


def train_subword(texts: Sequence[str], vocab_size: int) -> Subword:
    """WordPiece trained on ``texts`` (the learner's sentences, labels removed), in the order given.

    The pieces it splits a text into are the same on every run (tests/test_tokenize.py trains it
    again and compares); the library's own piece ids are not used, `build_vocab` numbers them."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers  # only when chosen

    tk = Tokenizer(models.WordPiece(unk_token=UNK_TOKEN, max_input_chars_per_word=limits.MAX_TOKEN_CHARS))
    tk.normalizer = normalizers.NFC()
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()  # words as the whitespace tokenizer sees them
    trainer = trainers.WordPieceTrainer(vocab_size=int(vocab_size), min_frequency=1, special_tokens=[UNK_TOKEN],
                                        show_progress=False)
    tk.train_from_iterator(list(texts), trainer)
    return Subword(tk, tk.get_vocab_size())


def split(text: str, tokenizer: str, analyzer: Analyzer | None = None, subword: Subword | None = None) -> list[Span]:
    """``text`` (one sentence, no label) as (token, start, end) spans under ``tokenizer``."""
    if tokenizer == "whitespace":
        return [(m.group(), m.start(), m.end()) for m in WORD.finditer(text)]
    if tokenizer == "morpheme":
        if analyzer is None:
            raise ValueError("the morpheme tokenizer needs an analyzer")
        return _morphemes(text, analyzer)
    if tokenizer == "subword":
        if subword is None:
            raise ValueError("the subword tokenizer needs a trained Subword")
        return subword.spans(text)
    raise ValueError(f"tokenizer must be one of {TOKENIZERS}")


def _morphemes(text: str, analyzer: Analyzer) -> list[Span]:
    """Each word with Hangul as its morphemes; any other word as it is."""
    words = [(m.group(), m.start(), m.end()) for m in WORD.finditer(text)]
    if not any(HANGUL.search(w) for w, _, _ in words):
        return words
    pieces = [(form, start, start + length) for form, start, length in analyzer(text)]
    out: list[Span] = []
    for word, a, b in words:
        inside = [p for p in pieces if a <= p[1] < b] if HANGUL.search(word) else []
        for form, s, e in inside or [(word, a, b)]:
            out += [(part, s, min(e, b)) for part in form.split()]  # a form is never blank or spaced
    return out


def body(line: Line) -> str:
    """A parsed line's sentence as the tokenizers read it: its words joined by single spaces."""
    return " ".join(line.tokens)


def tokenize_lines(lines: Sequence[Line], tokenizer: str, analyzer: Analyzer | None = None,
                   subword: Subword | None = None) -> list[Line]:
    """Lines parsed on whitespace (core.batch.parse_sentences) re-split by ``tokenizer``; raise
    `InputError` naming a line the split made too long (a word can become several tokens)."""
    if tokenizer == "whitespace":
        return list(lines)
    out, problems = [], []
    for line in lines:
        tokens = tuple(tok for tok, _, _ in split(body(line), tokenizer, analyzer, subword))
        _check_tokens(tokens, line.line_no, problems)
        out.append(replace(line, tokens=tokens))
    require(problems)
    return out


def build_vocab(sentences: Iterable[Sequence[str]], min_count: int = 1, max_size: int = limits.MAX_VOCAB) -> Vocab:
    """``<UNK>``=0, ``<PAD>``=1, then each token seen ``min_count`` times or more, most frequent
    first (ties: first seen first), at most ``max_size`` rows. A token written ``<UNK>`` or
    ``<PAD>`` (the subword tokenizer's unknown piece) is that row, not a new one."""
    counts: Counter[str] = Counter()
    for tokens in sentences:
        counts.update(tokens)
    kept = [tok for tok, n in counts.items() if n >= min_count and tok not in (UNK_TOKEN, PAD_TOKEN)]
    kept.sort(key=lambda tok: -counts[tok])  # stable: Counter keeps first-seen order among equals
    room = max(0, min(int(max_size), limits.MAX_VOCAB) - 2)
    return Vocab((UNK_TOKEN, PAD_TOKEN, *kept[:room]), 0, 1)


@dataclass(frozen=True)
class Settings:
    """The knobs of preprocessing (core.knobs, whose defaults these are): which tokenizer, and how its
    vocabulary is built."""

    tokenizer: str = knob("tokenizer").default  # type: ignore[assignment]
    subword_vocab: int = knob("subword_vocab").default  # type: ignore[assignment]
    vocab_min_count: int = knob("vocab_min_count").default  # type: ignore[assignment]
    vocab_max_size: int = knob("vocab_max_size").default  # type: ignore[assignment]

    @classmethod
    def of(cls, config) -> "Settings":
        return cls(config.tokenizer, config.subword_vocab, config.vocab_min_count, config.vocab_max_size)


def prepare(lines: Sequence[Line], settings: Settings, analyzer: Analyzer | None = None,
            subword: Subword | None = None) -> tuple[list[Line], Vocab | None]:
    """The lines split by the chosen tokenizer, and the vocabulary built from them (None for
    ``whitespace``: its vocabulary is the learner's table). ``subword``: an already trained one
    (else it is trained here on these lines)."""
    if settings.tokenizer == "whitespace":
        return list(lines), None
    if settings.tokenizer == "subword" and subword is None:
        subword = train_subword([body(l) for l in lines], settings.subword_vocab)
    split_lines = tokenize_lines(lines, settings.tokenizer, analyzer, subword)
    return split_lines, build_vocab([l.tokens for l in split_lines], settings.vocab_min_count, settings.vocab_max_size)


@dataclass(frozen=True)
class Rate:
    """One tokenizer's UNK count on the learner's sentences and on one more sentence."""

    tokenizer: str
    unk: int  # tokens of the learner's sentences that became <UNK>
    total: int
    tried_tokens: tuple[str, ...]  # the extra sentence's tokens ((): none given)
    tried_unknown: tuple[bool, ...]
    vocab_size: int

    @property
    def share(self) -> float:
        return self.unk / self.total if self.total else 0.0

    @property
    def tried_unk(self) -> int:
        return sum(self.tried_unknown)


def vocab_for(tokenizer: str, lines: Sequence[Line], settings: Settings, table: Vocab,
              analyzer: Analyzer | None) -> tuple[Vocab, list[Line], Subword | None]:
    """What ``tokenizer`` makes of the learner's lines: its vocabulary (``whitespace``: the
    learner's own ``table``), the split lines, and the trained subword model (or None)."""
    subword = train_subword([body(l) for l in lines], settings.subword_vocab) if tokenizer == "subword" else None
    split_lines, built = prepare(lines, replace(settings, tokenizer=tokenizer), analyzer, subword)
    return (built or table), split_lines, subword


def rates(lines: Sequence[Line], settings: Settings, table: Vocab, analyzer: Analyzer | None,
          tried: str = "") -> list[Rate]:
    """Each tokenizer's UNK count on the learner's sentences, and on ``tried`` (a new sentence, or
    ""), side by side: the chapter's point that UNK is preprocessing's decision. Without an
    ``analyzer`` the morpheme tokenizer is left out."""
    out = []
    tried = tried.rpartition("|")[0] if "|" in tried else tried  # a label is not part of the sentence
    for name in TOKENIZERS:
        if name == "morpheme" and analyzer is None:
            continue  # the analyzer could not be loaded: the others are still compared
        vocab, split_lines, subword = vocab_for(name, lines, settings, table, analyzer)
        ids = [i for l in split_lines for i in vocab.encode(l.tokens)]
        words = " ".join(tried.split())
        tokens = tuple(tok for tok, _, _ in split(words, name, analyzer, subword)) if words else ()
        unknown = tuple(i == vocab.unk_id for i in vocab.encode(tokens))
        out.append(Rate(name, sum(i == vocab.unk_id for i in ids), len(ids), tokens, unknown, vocab.size))
    return out

