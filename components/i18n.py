"""Korean and English strings, kept in ``assets/strings/*.json`` (no prose in code).

Each JSON file maps a key to ``{"ko": "...", "en": "..."}``; files are merged, and a key may
appear in only one file. Placeholders use ``str.format`` names: ``{row}``, ``{token}``.

    >>> t("ko", "app.title")
    'nn.Embedding 탐험기'
    >>> problem_text("en", Problem("duplicate_token", {"row": 3, "other": 2, "token": "영화"}))

Streamlit-free: tests load it directly and check that every key has both languages.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from core.problems import Problem

LANGS = ("ko", "en")
STRINGS_DIR = Path(__file__).resolve().parent.parent / "assets" / "strings"


@lru_cache(maxsize=1)
def strings() -> dict[str, dict[str, str]]:
    """All strings, merged from every file (read once per process; immutable content)."""
    merged: dict[str, dict[str, str]] = {}
    for path in sorted(STRINGS_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key in merged:
                raise ValueError(f"string key {key!r} is defined twice (second time in {path.name})")
            merged[key] = value
    return merged


def t(lang: str, key: str, **params) -> str:
    """The string ``key`` in ``lang`` with ``params`` filled in. A missing key shows as ``[key]``."""
    entry = strings().get(key)
    if entry is None:
        return f"[{key}]"
    text = entry.get(lang) or entry.get("en") or f"[{key}]"
    return text.format(**params) if params else text


def problem_text(lang: str, problem: Problem) -> str:
    """A sentence naming what is wrong and how to fix it, from ``errors.json`` (key ``err.<code>``)."""
    try:
        return t(lang, f"err.{problem.code}", **problem.params)
    except (KeyError, IndexError, ValueError):
        return f"{t(lang, f'err.{problem.code}')} {problem.params}"


def lang_from_locale(locale: str | None) -> str:
    """'ko-KR' → 'ko'; anything else → 'en'; no locale (AppTest) → 'ko', the first audience."""
    if not locale:
        return "ko"
    return "ko" if locale.lower().startswith("ko") else "en"
