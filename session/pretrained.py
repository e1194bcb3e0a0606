"""The pretrained-vectors widgets' callbacks: the uploaded files' bytes handed to core, the freeze toggle.

They run before the page is drawn (Streamlit runs a callback first), so when a file changes E the
sidebar's E box can show the new value in the same run. Parsing, matching and rebuilding the
table are core's (core/pretrained_apply.py); a refused file leaves its problems with the explorer
and changes nothing else.
"""

from __future__ import annotations

import streamlit as st

from core import limits, pretrained_apply
from core.problems import Problem
from session.keys import Keys
from session.workspace import config_widgets, current


def _explorer():
    return current()


def uploaded_files() -> list[tuple[str, bytes]] | Problem:
    """(name, bytes) of each file in the uploader, or a Problem when they are too large to read."""
    files = st.session_state.get(Keys.PRETRAINED_FILE) or []
    files = files if isinstance(files, list) else [files]
    total = sum(int(getattr(f, "size", 0)) for f in files)
    if total > limits.MAX_IMPORT_BYTES:  # bound before reading
        return Problem("vec_too_large", {"mb": f"{total / 1e6:.1f}", "max_mb": f"{limits.MAX_IMPORT_BYTES / 1e6:.0f}"})
    return [(str(f.name), f.getvalue()) for f in files]


def apply_upload() -> None:
    """Callback of the apply button: the uploaded file(s) become W's rows, or their problems show."""
    ex = _explorer()
    files = uploaded_files()
    if isinstance(files, Problem):
        ex.problems[pretrained_apply.KIND] = [files]
        return
    if not pretrained_apply.apply_file(ex, files, freeze=bool(st.session_state.get(Keys.PRETRAINED_FREEZE, True))):
        st.session_state.update(config_widgets(ex.config_values()))  # E now follows the file


def freeze_changed() -> None:
    """Callback of the freeze toggle: the loaded rows frozen or trained (a new lab from step 0)."""
    pretrained_apply.set_freeze(_explorer(), bool(st.session_state.get(Keys.PRETRAINED_FREEZE, True)))


def remove() -> None:
    """Callback of the remove button: back to a fresh table."""
    pretrained_apply.remove(_explorer())


def show_freeze(ex) -> None:
    """Before the toggle is drawn: it shows the loaded rows' freeze, else keeps the learner's choice
    (torch's default, True, at first)."""
    p = ex.recipe.pretrained
    if p is not None:
        st.session_state[Keys.PRETRAINED_FREEZE] = p.freeze
    elif Keys.PRETRAINED_FREEZE not in st.session_state:
        st.session_state[Keys.PRETRAINED_FREEZE] = True
