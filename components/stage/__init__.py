"""The embedding stage: one mounted custom component that shows the lookup and training, and animates.

``stage(data, key)`` mounts it (registered once, here, at import). Mounted with a stable ``key``
the element keeps its DOM node across reruns; its JavaScript receives each new ``data`` and glides
from the old picture to the new one. The data contract is components/stage/README.md.

With a server, page.py has Streamlit serve ``JS_FILE`` and the modules it imports from this folder
(streamlit_private.serve_component_files): the browser loads them once a page, and an update carries
its data and the CSS. The CSS stays inline so that it applies before the first draw measures the
layout (a stylesheet loaded from a file arrives after it: W's grid and the scatter were drawn
collapsed). Without a server (AppTest) the JS goes inline too, the modules joined by bundle.py.

Hover highlighting happens in the browser only; a click on a token sends ``{"selected": <id>}``
back, and a click on a cell of the id matrix ``{"cell": {"id", "b", "t", "n"}}`` (its sentence
too, so the output can follow it): the state the server sees (``st.session_state[key]``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import streamlit as st

from components.stage.bundle import bundle

_HERE = Path(__file__).resolve().parent
HTML = '<div class="stage-host"></div>'
CSS = (_HERE / "stage.css").read_text(encoding="utf-8")
JS = bundle(_HERE / "js")  # js/*.mjs as one ES module (bundle.py says why)
DEFAULT_HEIGHT = 560  # px, when neither ``height`` nor data["height"] says

NAME = "embedding_stage"
JS_FILE = "js/index.mjs"  # with a server, the page has it served from this folder instead of JS
_mount = st.components.v2.component(NAME, html=HTML, css=CSS, js=JS)


def _selection_changed() -> None:
    """Streamlit keeps a component state only for names with an on_<name>_change callback."""


def stage(data: dict[str, Any], key: str, height: int | None = None,
          on_select: Callable[[], None] | None = None) -> dict | None:
    """Mount the stage with ``data`` under ``key``; return its state ({"selected": id}) or None before any click.

    ``height`` (px) wins over ``data["height"]``; the JS draws to the height it finds in the data,
    so the two are kept equal here. ``on_select`` runs (as a callback, before the rerun) when a
    click changed the selection.
    """
    h = int(height if height is not None else data.get("height") or DEFAULT_HEIGHT)
    if data.get("height") != h:
        data = {**data, "height": h}
    # As JSON bytes, written once: a dict would be scanned for dataframes key by key and written
    # twice (once sorted, for the element's identity, which the key fixes anyway).
    payload = json.dumps(data, separators=(",", ":")).encode("utf-8")
    result = _mount(key=key, data=payload, height=h, on_selected_change=on_select or _selection_changed,
                    on_cell_change=_selection_changed)  # the cell is read before the stage is drawn (session/selection.py)
    selected = result.get("selected") if hasattr(result, "get") else None
    return None if selected is None else {"selected": selected}
