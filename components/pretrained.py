"""The pretrained-vectors box: upload a vector file, apply it, freeze or train W, remove it.

Plain data in (what is loaded now), widgets out; the caller gives the keys and the callbacks
(session/pretrained.py), which hand the files' bytes to core. Nothing here parses a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import streamlit as st

from components.i18n import md, t
from core import limits


@dataclass(frozen=True)
class Loaded:
    """What the table holds now: rows from the file and rows as a fresh table (None: no file), E, freeze."""

    counts: tuple[int, int] | None
    dim: int
    freeze: bool


@dataclass(frozen=True)
class PretrainedKeys:
    file: str
    apply: str
    freeze: str
    remove: str


def pretrained_box(lang: str, loaded: Loaded, refused: bool, keys: PretrainedKeys,
                   on_apply: Callable[[], None], on_freeze: Callable[[], None], on_remove: Callable[[], None]) -> None:
    """The uploader (one word2vec file, or vectors.tsv + metadata.tsv), the freeze toggle, apply and
    remove, and what W holds now. The box stays open while the last file was refused; the refusal
    itself is shown under the inputs box with the other input errors (page.py), where it is in view."""
    with st.expander(t(lang, "pretrained.title"), expanded=refused):
        st.caption(md(lang, "pretrained.help", max_mb=f"{limits.MAX_IMPORT_BYTES / 1e6:.0f}"))
        files = st.file_uploader(t(lang, "pretrained.file"), type=["vec", "txt", "tsv"], accept_multiple_files=True,
                                 key=keys.file, help=t(lang, "help.pretrained_file"),
                                 max_upload_size=max(1, limits.MAX_IMPORT_BYTES // 1_000_000))
        st.toggle(t(lang, "pretrained.freeze"), key=keys.freeze, on_change=on_freeze, help=t(lang, "help.pretrained_freeze"))
        left, right = st.columns(2)
        left.button(t(lang, "pretrained.apply"), key=keys.apply, on_click=on_apply, disabled=not files,
                    help=t(lang, "help.pretrained_apply"))
        right.button(t(lang, "pretrained.remove"), key=keys.remove, on_click=on_remove, disabled=loaded.counts is None,
                     help=t(lang, "help.pretrained_remove"))
        if loaded.counts is None:
            st.caption(t(lang, "pretrained.none"))
        else:
            mode = t(lang, "pretrained.mode_frozen" if loaded.freeze else "pretrained.mode_trainable")
            st.caption(t(lang, "pretrained.status", found=loaded.counts[0], missing=loaded.counts[1], e=loaded.dim, mode=mode))
