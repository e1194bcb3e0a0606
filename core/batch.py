"""Sentences → padded id matrix: tokenize, encode (OOV → UNK), pad with the PAD id (not 0: X1).

Worked example (the chapter's, C16), with the vocabulary of `core.vocab`::

    text  = "영화 정말 좋다 | 긍정\\n영화 나쁘다 | 부정"
    lines = parse_sentences(text, classes=("부정", "긍정"))   # tokens + labels
    batch = make_batch(vocab, [l.tokens for l in lines])
    batch.ids      # tensor([[2, 0, 3], [2, 4, 1]])      (B, T) = (2, 3)
    batch.mask     # tensor([[T, T, T], [T, T, F]])      True where a real token stands
    batch.lengths  # tensor([3, 2])                      (B,)

A line is ``tokens separated by whitespace``, optionally followed by ``| label``. The labels
define the classes (core/classes.py: the example's classes, by name or number, or your own).
Empty lines are skipped.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import torch

from core import limits
from core.classes import resolve_lines
from core.invisible import code_points, invisible_only
from core.problems import Problem, require
from core.vocab import Vocab


@dataclass(frozen=True)
class Line:
    """One sentence as typed: its tokens and its label index (None when no label was given)."""

    tokens: tuple[str, ...]
    label: int | None
    line_no: int  # 1-based line in the text area, for messages
    label_text: str | None = None  # the label as written (core/classes.py reads the classes from these)


@dataclass(frozen=True)
class Batch:
    """The padded batch. Tensors are never modified after construction."""

    tokens: tuple[tuple[str, ...], ...]  # tokens actually used (after truncation)
    ids: torch.Tensor  # (B, T) int64
    mask: torch.Tensor  # (B, T) bool, True at real tokens
    lengths: torch.Tensor  # (B,) int64, true lengths after truncation
    truncated: tuple[int, ...]  # how many tokens each sentence lost to a fixed T

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.ids.shape)  # type: ignore[return-value]

    def id_counts(self, vocab_size: int) -> torch.Tensor:
        """How many times each row of W is looked up by this batch, pads included. (V,) int64."""
        return torch.bincount(self.ids.reshape(-1), minlength=vocab_size)


def parse_sentences(text: str, classes: tuple[str, ...] | list[str] = ()) -> list[Line]:
    """Split the text area into lines of tokens and labels; raise `InputError` naming each bad line."""
    if not isinstance(text, str):
        require([Problem("sentences_not_text")])
    if len(text) > limits.MAX_TEXT_CHARS:
        require([Problem("text_too_long", {"n": len(text), "max": limits.MAX_TEXT_CHARS})])
    problems: list[Problem] = []
    lines: list[Line] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        if raw.count("|") > 1:  # one "|" separates the label; a token can never be "|"
            problems.append(Problem("line_many_bars", {"line": no, "n": raw.count("|")}))
            continue
        body, bar, label_text = raw.rpartition("|") if "|" in raw else (raw, "", "")
        tokens = tuple(body.split())
        if not tokens:
            if bar:
                problems.append(Problem("line_only_label", {"line": no}))
            continue
        label = _parse_label(label_text, classes, no, problems) if bar else None
        _check_tokens(tokens, no, problems)
        lines.append(Line(tokens, label, no))
    if not lines and not problems:
        problems.append(Problem("no_sentences"))
    if len(lines) > limits.MAX_SENTENCES:
        problems.append(Problem("too_many_sentences", {"n": len(lines), "max": limits.MAX_SENTENCES}))
    lines = resolve_lines(lines, classes, problems)
    require(problems)
    return lines


def _parse_label(text: str, classes, no: int, problems: list[Problem]) -> str:
    """The label as written; `core.classes.resolve_lines` reads the classes once every line is read."""
    return text.strip()


def _check_tokens(tokens: tuple[str, ...], no: int, problems: list[Problem]) -> None:
    if len(tokens) > limits.MAX_TOKENS_PER_SENTENCE:
        problems.append(Problem("line_too_long", {"line": no, "n": len(tokens), "max": limits.MAX_TOKENS_PER_SENTENCE}))
    for tok in tokens:
        if len(tok) > limits.MAX_TOKEN_CHARS:
            problems.append(Problem("line_token_too_long", {"line": no, "token": tok[:12] + "…", "max": limits.MAX_TOKEN_CHARS}))
            return
        if invisible_only(tok):  # it would be looked up as a token nobody can see (<UNK>, or a blank row)
            problems.append(Problem("line_token_invisible", {"line": no, "codes": code_points(tok)}))
            return
        if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch != "\u200d" for ch in tok):
            problems.append(Problem("line_control", {"line": no}))
            return


def sentence_warnings(lines: list[Line], vocab: Vocab, most: int = 20) -> list[Problem]:
    """Tokens that will become UNK although the vocabulary has a token that looks the same (equal NFC
    forms, different code points: é typed as one character or as e + a combining accent). Not errors.

    >>> v = Vocab(("<UNK>", "<PAD>", "caf\\u00e9"), 0, 1)
    >>> [(p.code, p.params["line"], p.params["row"]) for p in sentence_warnings(parse_sentences("cafe\\u0301 ok"), v)]
    [('lookalike_in_sentence', 1, 3)]
    """
    found: list[Problem] = []
    index, nfc = vocab.index, vocab.nfc_index
    for line in lines:
        for tok in line.tokens:
            if tok in index or tok.isascii():
                continue
            i = nfc.get(unicodedata.normalize("NFC", tok))
            if i is not None:
                found.append(Problem("lookalike_in_sentence", {"line": line.line_no, "token": tok, "row": i + 1}))
                if len(found) == most:
                    return found
    return found


def make_batch(vocab: Vocab, sentences: list[tuple[str, ...]] | list[list[str]], fixed_len: int | None = None) -> Batch:
    """Encode and right-pad to the longest sentence, or to ``fixed_len`` with truncation.

    The pad value is ``vocab.pad_id``: padding with 0 (the default of
    ``nn.utils.rnn.pad_sequence``) would write <UNK> in the chapter's vocabulary (X1).
    """
    if not sentences:
        require([Problem("no_sentences")])
    if fixed_len is not None and not 1 <= fixed_len <= limits.MAX_TOKENS_PER_SENTENCE:
        require([Problem("fixed_len_range", {"max": limits.MAX_TOKENS_PER_SENTENCE})])
    encoded = [vocab.encode(s) for s in sentences]
    T = fixed_len if fixed_len is not None else max(len(e) for e in encoded)
    used = tuple(tuple(s[:T]) for s in sentences)
    truncated = tuple(max(0, len(e) - T) for e in encoded)
    ids = torch.full((len(encoded), T), vocab.pad_id, dtype=torch.long)  # (B, T)
    for b, e in enumerate(encoded):
        row = e[:T]
        ids[b, : len(row)] = torch.tensor(row, dtype=torch.long)
    lengths = torch.tensor([min(len(e), T) for e in encoded], dtype=torch.long)  # (B,)
    mask = torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)  # (B, T)
    return Batch(used, ids, mask, lengths, truncated)
