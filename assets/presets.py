"""Presets shipped with the app, read from ``assets/presets/*.json``. The chapter's example is the default.

Each preset: ``id``, ``title`` {ko, en}, ``classes``, ``vocab`` rows [token, id, role],
``sentences`` (the text area's content) and a partial ``config``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DIR = Path(__file__).resolve().parent / "presets"
DEFAULT = "chapter"
ORDER = ("chapter", "reviews_ko", "reviews_en")


@lru_cache(maxsize=None)
def _read(preset_id: str) -> str:
    return (DIR / f"{preset_id}.json").read_text(encoding="utf-8")


def load(preset_id: str) -> dict:
    """A fresh dict each call (callers may not mutate shared data); unknown ids raise KeyError."""
    if preset_id not in ORDER:
        raise KeyError(preset_id)
    return json.loads(_read(preset_id))


def titles(lang: str) -> dict[str, str]:
    return {pid: load(pid)["title"][lang] for pid in ORDER}
