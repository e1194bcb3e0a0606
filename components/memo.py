"""The memo signature components accept: ``memo(name, key, build)`` returns ``build()``'s value, or the
one kept under ``name`` when ``key`` is equal (session.memo keeps one per session).

``key`` must name everything the value is built from, and nothing that holds big objects alive:
a lab by its ``uid``, arrays by their bytes.
"""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")
Memo = Callable[[str, tuple, Callable[[], T]], T]


def no_memo(name: str, key: tuple, build: Callable[[], T]) -> T:
    """Build every time (the default where a caller keeps nothing)."""
    return build()
