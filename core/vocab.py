"""The vocabulary: tokens ↔ ids, with the ids of <UNK> and <PAD> chosen by the learner (C11, C12).

Worked example (the chapter's, C16)::

    >>> v = Vocab.from_rows([("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("영화", 2, ""),
    ...                      ("좋다", 3, ""), ("나쁘다", 4, ""), ("재미있다", 5, "")])
    >>> v.size, v.unk_id, v.pad_id, v.encode(["영화", "정말", "좋다"])
    (6, 0, 1, [2, 0, 3])

Special ids are not found by name: a row is UNK or PAD because its ``role`` says so, and the
same role must be agreed by preprocessing (here) and the model (``padding_idx``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cached_property
from types import MappingProxyType
from typing import Any, Iterable, Sequence

from core import limits
from core.invisible import code_points, invisible_only
from core.problems import Problem, require

UNK, PAD, NORMAL = "unk", "pad", ""
MAX_WARNINGS = 20  # look-alike warnings listed at most
ROLES = (NORMAL, UNK, PAD)
ROLE_NAMES = MappingProxyType({NORMAL: "normal", UNK: "unk", PAD: "pad"})  # as the editor, W.csv and metadata.tsv name them


@dataclass(frozen=True)
class Vocab:
    """An immutable vocabulary. ``tokens[i]`` is the token whose id is ``i``."""

    tokens: tuple[str, ...]
    unk_id: int
    pad_id: int

    @property
    def size(self) -> int:
        return len(self.tokens)

    @cached_property
    def index(self) -> dict[str, int]:
        # Built once per Vocab (cached_property writes the instance dict, so frozen is fine).
        return {t: i for i, t in enumerate(self.tokens)}

    @cached_property
    def nfc_index(self) -> dict[str, int]:
        """NFC form → the first id whose token has that form (look-alike checks; built once per Vocab)."""
        out: dict[str, int] = {}
        for i, t in enumerate(self.tokens):
            out.setdefault(t if t.isascii() else unicodedata.normalize("NFC", t), i)
        return out

    @cached_property
    def warnings(self) -> tuple[Problem, ...]:
        """Look-alike tokens: rows whose tokens have the same NFC form but different code points (é typed
        as one character and as e + a combining accent). Not errors: the table is valid, but the two
        rows are two tokens that look the same, and a sentence finds only the one typed its way.

        >>> [(p.code, p.params["row"], p.params["other"]) for p in Vocab(("<UNK>", "<PAD>", "caf\\u00e9", "cafe\\u0301"), 0, 1).warnings]
        [('lookalike_tokens', 4, 3)]
        """
        found = []
        index = self.nfc_index
        for i, t in enumerate(self.tokens):
            first = index[t if t.isascii() else unicodedata.normalize("NFC", t)]
            if first != i:
                found.append(Problem("lookalike_tokens", {"row": i + 1, "other": first + 1, "token": t}))
                if len(found) == MAX_WARNINGS:
                    break
        return tuple(found)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Map tokens to ids; a token not in the vocabulary becomes ``unk_id`` (preprocessing's job, C12)."""
        index = self.index
        return [index.get(t, self.unk_id) for t in tokens]

    def role_of(self, i: int) -> str:
        return UNK if i == self.unk_id else PAD if i == self.pad_id else NORMAL

    def rows(self) -> list[tuple[str, int, str]]:
        """(token, id, role) rows, in id order: the editor's table."""
        return [(t, i, self.role_of(i)) for i, t in enumerate(self.tokens)]

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[Any]], names: Sequence[Any] | None = None) -> "Vocab":
        """Validate (token, id, role) rows as the learner typed them and build a Vocab.

        Raises `InputError` listing every problem. A problem names a row by ``names[i]`` (the
        editor's row number, which stays with its row when rows above are deleted), else by its
        position counted from 1.
        """
        rows = list(rows)
        problems: list[Problem] = []
        if not rows:
            require([Problem("vocab_empty")])
        if len(rows) > limits.MAX_VOCAB:
            require([Problem("vocab_too_large", {"n": len(rows), "max": limits.MAX_VOCAB})])
        by_token: dict[str, int] = {}
        by_id: dict[int, int] = {}
        parsed: list[tuple[str, int, str]] = []
        out_of_range = 0
        for pos, row in enumerate(rows):
            r = names[pos] if names is not None else pos + 1
            token, raw_id, raw_role = (list(row) + [None, None, None])[:3]
            tok = _check_token(token, r, problems)
            i = _check_id(raw_id, r, problems, len(rows), quiet=out_of_range >= MAX_RANGE_PROBLEMS)
            out_of_range += i is OUT_OF_RANGE
            i = None if i is OUT_OF_RANGE else i
            role = _check_role(raw_role, r, problems)
            if tok is not None:
                if tok in by_token:
                    problems.append(Problem("duplicate_token", {"row": r, "other": by_token[tok], "token": tok}))
                else:
                    by_token[tok] = r
            if i is not None:
                if i in by_id:
                    problems.append(Problem("duplicate_id", {"row": r, "other": by_id[i], "id": i}))
                else:
                    by_id[i] = r
            if tok is not None and i is not None and role is not None:
                parsed.append((tok, i, role))
        _check_ids_missing(by_id, len(rows), problems)
        _check_roles(parsed, problems)
        require(problems)
        tokens = [""] * len(parsed)
        for tok, i, _ in parsed:
            tokens[i] = tok
        unk = next(i for _, i, role in parsed if role == UNK)
        pad = next(i for _, i, role in parsed if role == PAD)
        return cls(tuple(tokens), unk, pad)

    @classmethod
    def shipped(cls, rows: Iterable[Sequence[Any]]) -> "Vocab":
        """A vocabulary the app ships (assets/presets: its own files and the generated 100k example),
        built without checking each token: the tests check every shipped one with `from_rows`, and a
        learner's own rows always go through it."""
        tokens: dict[int, str] = {}
        unk = pad = None
        for tok, i, role in rows:
            tokens[i] = tok
            unk, pad = (i if role == UNK else unk), (i if role == PAD else pad)
        return cls(tuple(tokens[i] for i in range(len(tokens))), unk, pad)

    @classmethod
    def from_token_list(cls, text: str) -> "Vocab":
        """A vocabulary from a pasted or uploaded token list, in one pass (linear in its length).

        The convention: one token per line, its id the line's position among non-empty lines
        (0, 1, 2, …). A line may name a role after the token, separated by whitespace: ``unk``
        or ``pad`` (``normal`` is the default). When no line names a role, the lines ``<UNK>`` and
        ``<PAD>`` take those roles, and whichever is missing is added before the list (``<UNK>``
        first: the chapter's ids 0 and 1)::

            >>> Vocab.from_token_list("영화\\n좋다").rows()[:3]
            [('<UNK>', 0, 'unk'), ('<PAD>', 1, 'pad'), ('영화', 2, '')]
            >>> Vocab.from_token_list("[PAD] pad\\n[UNK] unk\\n영화").pad_id
            0

        Raises `InputError` naming each bad line (counted from 1, blank lines included, as an
        editor shows them). 100,000 tokens take well under a second (bench_editor_bound.py).
        """
        if not isinstance(text, str):
            require([Problem("list_not_text")])
        if len(text) > limits.MAX_TOKEN_LIST_CHARS:
            require([Problem("list_too_long", {"n": len(text), "max": limits.MAX_TOKEN_LIST_CHARS})])
        problems: list[Problem] = []
        entries = _list_entries(text, problems)
        if not entries and not problems:
            require([Problem("vocab_empty")])
        if entries and all(role == NORMAL for _, _, role in entries):
            entries = _default_specials(entries)
        if len(entries) > limits.MAX_VOCAB:
            require([Problem("vocab_too_large", {"n": len(entries), "max": limits.MAX_VOCAB})])
        first: dict[str, int] = {}
        for line, tok, _ in entries:
            if tok in first:
                problems.append(Problem("list_duplicate", {"line": line, "other": first[tok], "token": tok[:20]}))
                if len(problems) >= MAX_LIST_PROBLEMS:
                    break
            else:
                first[tok] = line
        parsed = [(tok, i, role) for i, (_, tok, role) in enumerate(entries)]
        _check_roles(parsed, problems)
        require(problems)
        roles = [role for _, _, role in parsed]
        return cls(tuple(tok for tok, _, _ in parsed), roles.index(UNK), roles.index(PAD))


def _default_specials(entries: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """A token list that names no role: its ``<UNK>`` and ``<PAD>`` lines take those roles; the missing ones come first."""
    named = {"<UNK>": UNK, "<PAD>": PAD}
    present = {tok for _, tok, _ in entries if tok in named}
    added = [(0, tok, role) for tok, role in named.items() if tok not in present]
    return added + [(line, tok, named.get(tok, role)) for line, tok, role in entries]


MAX_LIST_PROBLEMS = 20  # a token list's problems reported at most (a wrong file would list 100,000)


def _list_entries(text: str, problems: list[Problem]) -> list[tuple[int, str, str]]:
    """(line, token, role) for every non-empty line of a token list; problems name the line."""
    entries: list[tuple[int, str, str]] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split()
        if not fields:
            continue
        tok, role = fields[0], NORMAL
        if len(fields) > 2:
            problems.append(Problem("list_extra", {"line": no, "n": len(fields)}))
        elif len(fields) == 2:
            name = fields[1].lower().strip("<>")
            role = NORMAL if name == "normal" else name
            if role not in ROLES:
                problems.append(Problem("list_role_unknown", {"line": no, "value": fields[1][:20]}))
                role = NORMAL
        bad = _token_problem(tok, no)
        if bad is not None:
            problems.append(bad)
        entries.append((no, tok, role))
        if len(problems) >= MAX_LIST_PROBLEMS:
            break
    return entries


def _token_problem(tok: str, no: int) -> Problem | None:
    """What is wrong with line ``no``'s token (which has no whitespace), or None."""
    params = {"line": no, "token": tok[:20], "max": limits.MAX_TOKEN_CHARS}
    if invisible_only(tok):
        return Problem("list_token_invisible", {"line": no, "codes": code_points(tok)})
    if not tok.isprintable() and any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch != "\u200d"
                                     for ch in tok):  # isprintable: one C-level pass for the usual token
        return Problem("list_token_control", params)
    if "|" in tok:
        return Problem("list_token_bar", params)
    if len(tok) > limits.MAX_TOKEN_CHARS:
        return Problem("list_token_too_long", params)
    return None


def _check_token(token: Any, r: int, problems: list[Problem]) -> str | None:
    if token is None or (isinstance(token, float) and math.isnan(token)):
        problems.append(Problem("token_empty", {"row": r}))
        return None
    tok = str(token)
    if not tok.strip():
        problems.append(Problem("token_empty", {"row": r}))
        return None
    if tok.split() != [tok]:  # split() cuts at every character isspace() holds for: one C-level pass
        problems.append(Problem("token_space", {"row": r, "token": tok.strip()[:20]}))
        return None
    if invisible_only(tok):
        problems.append(Problem("token_invisible", {"row": r, "codes": code_points(tok)}))
        return None
    if not tok.isprintable() and any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch != "\u200d"
                                     for ch in tok):  # isprintable: one C-level pass for the usual token
        problems.append(Problem("token_control", {"row": r}))
        return None
    if "|" in tok:
        problems.append(Problem("token_bar", {"row": r, "token": tok[:20]}))
        return None
    if len(tok) > limits.MAX_TOKEN_CHARS:
        problems.append(Problem("token_too_long", {"row": r, "n": len(tok), "max": limits.MAX_TOKEN_CHARS}))
        return None
    return tok


MAX_RANGE_PROBLEMS = 5  # ids outside 0..V-1 reported at most
MAX_ID_CHARS = 32  # an id typed as text: longer is not read as a number (the editor's cells take no more)
OUT_OF_RANGE = object()  # `_check_id`: an integer outside 0..V-1 (reported; not an id of any row)
# An id typed as text: ASCII digits, optionally signed, with a fraction or an exponent (2, +2, 2.0, 1e21).
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE]([+-]?)\d+)?")


def _check_id(raw: Any, r: Any, problems: list[Problem], n: int, quiet: bool = False) -> Any:
    """The id of row ``r`` as an int in 0..n-1; `OUT_OF_RANGE` for another whole number; None if not one.

    Accepts 3, 3.0, "3", " 3 ", "3.0" and "1e21" (a whole number, out of range); refuses 3.5, "2.5",
    "three", "", NaN, inf, None and booleans, quoting exactly what was typed. Text is read as a
    decimal, never through float (so "99999999999999999999" stays that number) and never turned
    into an int unless it is in range (so "1e300" costs nothing). ``quiet``: no range problem added.
    """
    typed = raw.item() if hasattr(raw, "item") and not isinstance(raw, (str, int, float)) else raw  # numpy scalars
    value: Any = None
    if isinstance(typed, bool) or typed is None:
        value = None
    elif isinstance(typed, int):
        value = typed if 0 <= typed < n else OUT_OF_RANGE
    elif isinstance(typed, float) and math.isfinite(typed) and typed.is_integer():
        value = int(typed) if 0 <= typed < n else OUT_OF_RANGE
    elif isinstance(typed, str):
        value = _id_from_text(typed.strip(), n)
    if value is None:
        shown = "" if typed is None or (isinstance(typed, float) and math.isnan(typed)) else _shown(typed)
        problems.append(Problem("id_not_integer" if shown.strip() else "id_empty", {"row": r, "value": shown}))
    elif value is OUT_OF_RANGE and not quiet:
        problems.append(Problem("id_out_of_range", {"row": r, "id": _shown(typed).strip(), "max": n - 1}))
    return value


def _id_from_text(text: str, n: int) -> Any:
    """A whole number written as text, as `_check_id` returns it, or None."""
    match = NUMBER.fullmatch(text) if len(text) <= MAX_ID_CHARS and text.isascii() else None
    if match is None:
        return None
    try:
        d = Decimal(text)
    except InvalidOperation:  # an exponent too large for a decimal: huge (out of range) or tiny (not whole)
        return None if match.group(1) == "-" else OUT_OF_RANGE
    if d != d.to_integral_value():
        return None
    return int(d) if 0 <= d < n else OUT_OF_RANGE


def _shown(value: Any) -> str:
    """A typed id as a message quotes it: its text exactly, cut at 20 characters."""
    if isinstance(value, int) and value.bit_length() > 64:  # str() of a huge int is slow, or refused
        return "> 2^64" if value > 0 else "< -2^64"
    return str(value)[:20]


def _check_role(raw: Any, r: int, problems: list[Problem]) -> str | None:
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return NORMAL
    role = str(raw).strip().lower().strip("<>")
    if role in ROLES:
        return role
    if role == "normal":  # the editor's name for "no special role"
        return NORMAL
    problems.append(Problem("role_unknown", {"row": r, "value": str(raw)[:20]}))
    return None


def _check_ids_missing(by_id: dict[int, Any], n: int, problems: list[Problem]) -> None:
    """Ids must be exactly 0..V-1: each row of W has one token (C6). (Ids outside it: `_check_id`.)"""
    missing = [i for i in range(n) if i not in by_id]
    if missing:
        problems.append(Problem("id_missing", {"ids": ", ".join(map(str, missing[:10])), "max": n - 1}))


def _check_roles(parsed: list[tuple[str, int, str]], problems: list[Problem]) -> None:
    for role, code in ((UNK, "unk"), (PAD, "pad")):
        rows = [tok for tok, _, r in parsed if r == role]
        if not rows:
            problems.append(Problem(f"no_{code}"))
        elif len(rows) > 1:
            problems.append(Problem(f"many_{code}", {"tokens": ", ".join(rows[:5])}))
    unk_ids = {i for _, i, r in parsed if r == UNK}
    if unk_ids & {i for _, i, r in parsed if r == PAD}:
        problems.append(Problem("unk_is_pad"))
