"""A share link: the small part of a state (no tensors) in one URL query parameter, ``?s=…``.

The parameter is base64url(zlib(JSON)) of an `AppState` without weights, so a teacher can
hand a class one link that opens the same example and, by replaying the seeded steps, the same
weights. Reading it back is untrusted input: bounded before decoding, bounded while inflating
(a zlib bomb stops at MAX_SHARE_JSON_BYTES), then checked exactly like an imported file.

    >>> params = to_query_params(parse_state(data))          # {'s': 'eNo9kE1Lw0AQ…'}
    >>> share_url("http://localhost:8501/", params)           # 'http://localhost:8501/?s=eNo9…'
    >>> from_query_params(params) == parse_state(data)        # True (tensors aside)
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse
import zlib
from typing import Mapping

from core.problems import Problem, require
from core.state import AppState, _dumps, parse_state

MAX_SHARE_PARAM_CHARS = 8192  # the `s` query parameter of a share link
MAX_SHARE_JSON_BYTES = 1_000_000  # what that parameter may inflate to (a zlib bomb stops here)
SHARE_PARAM = "s"


def to_query_params(state: AppState) -> dict[str, str]:
    """The state without tensors as one URL-safe query parameter: base64url(zlib(JSON)).

    Raises `InputError` (``share_too_large``) past `MAX_SHARE_PARAM_CHARS`: export a file instead.

    >>> to_query_params(parse_state(data))
    {'s': 'eNo9kE1Lw0AQhv9KmPMi1eoliCB4E8SLpxrCJjtNl2x2Q3dbP2rBehKK4EEhXoqI4EXwJv1NJv4HJx_2tvO8...'}
    """
    small = state.model_copy(update={"weights": None, "model": None})
    packed = base64.urlsafe_b64encode(zlib.compress(_dumps(small), 9)).rstrip(b"=").decode("ascii")
    if len(packed) > MAX_SHARE_PARAM_CHARS:
        require([Problem("share_too_large", {"n": len(packed), "max": MAX_SHARE_PARAM_CHARS})])
    return {SHARE_PARAM: packed}


def from_query_params(params: Mapping[str, str | list[str]]) -> AppState:
    """Read a share link's parameters (``st.query_params`` or a dict of lists) back into a state.

    The parameter is untrusted: bounded before decoding, bounded while inflating, then checked
    exactly as an imported file (`parse_state`).
    """
    value = params.get(SHARE_PARAM)
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    if value is None:
        require([Problem("share_missing")])
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]*={0,2}", value[:MAX_SHARE_PARAM_CHARS + 3]):
        require([Problem("share_invalid")])
    if len(value) > MAX_SHARE_PARAM_CHARS:
        require([Problem("share_too_large", {"n": len(value), "max": MAX_SHARE_PARAM_CHARS})])
    return parse_state(_inflate(value.rstrip("=")))


def _inflate(packed: str) -> bytes:
    """base64url → zlib → at most MAX_SHARE_JSON_BYTES bytes (a zlib bomb stops there)."""
    try:
        compressed = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(compressed, MAX_SHARE_JSON_BYTES)
    except (binascii.Error, ValueError, zlib.error):
        require([Problem("share_invalid")])
    if inflater.unconsumed_tail:
        require([Problem("share_too_large", {"n": len(packed), "max": MAX_SHARE_PARAM_CHARS})])
    if not inflater.eof or inflater.unused_data:
        require([Problem("share_invalid")])
    return raw


def share_url(base_url: str, params: Mapping[str, str]) -> str:
    """``base_url`` with its query replaced by ``params`` (and no fragment).

    >>> share_url("http://localhost:8501/?old=1#x", {"s": "eNq"})
    'http://localhost:8501/?s=eNq'
    """
    parts = urllib.parse.urlsplit(base_url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path or "/", urllib.parse.urlencode(params), ""))
