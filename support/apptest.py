"""Reading the page under Streamlit's AppTest through its public API only (docs/scripting.md).

A custom component (the stage, the keeper, the guide …) is an ``UnknownElement`` in AppTest: found
by its widget key with ``at.get_by_key(key)``, its data is the JSON the app gave it, in the
element's ``proto.bytes`` (the stage and the keeper send bytes) or ``proto.json`` (the others).
``at.get("bidi_component")`` lists every custom component on the page, so filter by key.

    >>> from support.apptest import shown, stage
    >>> data = stage(at)                  # the stage's data: components/stage/README.md
    >>> data["ids"], data["w"]["rows"]    # the lookup view's (B, T) ids and the rows of W it shows
    >>> shown(at.error[0].value)          # a message's text as the page shows it
"""

from __future__ import annotations

import json
import re


def component_data(at, key: str):
    """The data the app gave the custom component keyed ``key``, as it sent it (JSON)."""
    proto = at.get_by_key(key).proto
    return json.loads(proto.bytes or proto.json or "null")


def stage(at) -> dict:
    """The stage's data (key ``stage``): on the lookup view ``ids``, ``w``, ``out`` …; on the training
    view ``scatter``, ``w``, ``loss`` … (components/stage/README.md and CONTRACT.md)."""
    return component_data(at, "stage")


def shown(markdown: str) -> str:
    """The text a message shows, from its Markdown source as AppTest reads it: the app escapes what a
    learner typed (components.safe_text), so the source carries empty ``:color[]`` splits and
    backslash escapes, which this removes (tests/test_safety_markdown.py checks in Chromium that the
    rendered text is exactly the input)."""
    return re.sub(r"\\(.)", r"\1", markdown.replace(":color[]", ""))
