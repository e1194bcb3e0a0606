"""Section 4: export, import, share link and generated code (filled in by the state work)."""

from __future__ import annotations

import streamlit as st

from components.i18n import t
from session import Workspace


def render(lang: str, ws: Workspace) -> None:
    st.info(t(lang, "section.share"))
