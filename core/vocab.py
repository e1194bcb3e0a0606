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
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Sequence

from core import limits
from core.invisible import code_points, invisible_only
from core.problems import Problem, require

UNK, PAD, NORMAL = "unk", "pad", ""
MAX_WARNINGS = 20  # look-alike warnings listed at most
ROLES = (NORMAL, UNK, PAD)


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
    def from_rows(cls, rows: Iterable[Sequence[Any]]) -> "Vocab":
        """Validate (token, id, role) rows as the learner typed them and build a Vocab.

        Raises `InputError` listing every problem (rows counted from 1, as the table shows them).
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
        for r, row in enumerate(rows, start=1):
            token, raw_id, raw_role = (list(row) + [None, None, None])[:3]
            tok = _check_token(token, r, problems)
            i = _check_id(raw_id, r, problems)
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
        _check_ids_contiguous(by_id, len(rows), problems)
        _check_roles(parsed, problems)
        require(problems)
        tokens = [""] * len(parsed)
        for tok, i, _ in parsed:
            tokens[i] = tok
        unk = next(i for _, i, role in parsed if role == UNK)
        pad = next(i for _, i, role in parsed if role == PAD)
        return cls(tuple(tokens), unk, pad)

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
    if tok != tok.strip() or any(ch.isspace() for ch in tok):
        problems.append(Problem("token_space", {"row": r, "token": tok.strip()[:20]}))
        return None
    if invisible_only(tok):
        problems.append(Problem("token_invisible", {"row": r, "codes": code_points(tok)}))
        return None
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch not in "\u200d" for ch in tok):
        problems.append(Problem("token_control", {"row": r}))
        return None
    if "|" in tok:
        problems.append(Problem("token_bar", {"row": r, "token": tok[:20]}))
        return None
    if len(tok) > limits.MAX_TOKEN_CHARS:
        problems.append(Problem("token_too_long", {"row": r, "n": len(tok), "max": limits.MAX_TOKEN_CHARS}))
        return None
    return tok


def _check_id(raw: Any, r: int, problems: list[Problem]) -> int | None:
    """Accept 3, 3.0, "3" and " 3 "; reject 3.5, "three", NaN, inf, None, booleans."""
    value: int | None = None
    if isinstance(raw, bool) or raw is None:
        value = None
    elif isinstance(raw, int):
        value = raw
    elif isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
        value = int(raw)
    elif isinstance(raw, str) and raw.strip().lstrip("+-").isdigit() and raw.strip().isascii():
        value = int(raw.strip())
    elif hasattr(raw, "item"):  # numpy scalars from a DataFrame
        return _check_id(raw.item(), r, problems)
    if value is None:
        shown = "" if raw is None or (isinstance(raw, float) and math.isnan(raw)) else str(raw)[:20]
        problems.append(Problem("id_not_integer", {"row": r, "value": shown}))
    return value


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


def _check_ids_contiguous(by_id: dict[int, int], n: int, problems: list[Problem]) -> None:
    """Ids must be exactly 0..V-1: each row of W has one token (C6)."""
    out_of_range = sorted(i for i in by_id if not 0 <= i < n)
    for i in out_of_range[:5]:
        problems.append(Problem("id_out_of_range", {"row": by_id[i], "id": i, "max": n - 1}))
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
