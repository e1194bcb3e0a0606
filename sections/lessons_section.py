"""Section 3: every claim of the chapter, live on the learner's data (filled in by the lessons work)."""

from __future__ import annotations

import streamlit as st

from components.i18n import t
from session import Workspace


def render(lang: str, ws: Workspace) -> None:
    st.info(t(lang, "section.lessons"))
