"""Tokens that show as nothing: made only of characters a font draws as blank.

A token such as U+200D (zero-width joiner) or U+3164 (Hangul filler) passes every other check
(it is printable, has no space and no control character) and then shows as an empty cell in the
vocabulary, the id matrix and every chart: a row nobody can see or point to. So a token made only
of such characters is refused, naming the row and the code points it holds.

Blank here is Unicode's Default_Ignorable_Code_Point property (zero-width and format characters,
fillers, variation selectors, tags; DerivedCoreProperties.txt, unchanged since Unicode 8.0 but for
U+2065's status), plus whitespace and U+2800 (the Braille blank, which is drawn as a space).
``tests/test_safety_invisible.py`` checks the table against the ``regex`` package's
``\\p{Default_Ignorable_Code_Point}`` for every code point.

    >>> invisible_only("\\u3164"), invisible_only("\\u200d\\u200d"), invisible_only("a\\u200d"), invisible_only("👍🏽")
    (True, True, False, False)
    >>> code_points("\\u3164\\u200d\\u3164")
    'U+3164, U+200D'
"""

from __future__ import annotations

import bisect

# Default_Ignorable_Code_Point, as inclusive (first, last) ranges in order.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_STARTS = tuple(a for a, _ in _IGNORABLE)
BRAILLE_BLANK = "\u2800"
SHOWN_CODES = 4  # distinct code points named in a message


def ignorable(ch: str) -> bool:
    """Whether ``ch`` is a Default_Ignorable_Code_Point (drawn as nothing when not supported)."""
    cp = ord(ch)
    k = bisect.bisect_right(_STARTS, cp) - 1
    return k >= 0 and cp <= _IGNORABLE[k][1]


def blank(ch: str) -> bool:
    """Whether ``ch`` shows as nothing or as a space."""
    return ch.isspace() or ch == BRAILLE_BLANK or ignorable(ch)


def invisible_only(tok: str) -> bool:
    """Whether ``tok`` is non-empty and every character of it is `blank` (it would show as blank).
    A usual token stops at its first character."""
    return bool(tok) and all(blank(ch) for ch in tok)


def code_points(tok: str) -> str:
    """The distinct code points of ``tok`` in order of first appearance, as ``U+XXXX`` (a few at most)."""
    seen = list(dict.fromkeys(tok))
    shown = ", ".join(f"U+{ord(ch):04X}" for ch in seen[:SHOWN_CODES])
    return shown + (", …" if len(seen) > SHOWN_CODES else "")
