"""Page-wide CSS: a compact top so the stage fits one projector screen, and presentation mode.

Plain CSS, no scripts and no user data in it.
"""

from __future__ import annotations

import streamlit as st

# Streamlit's main block starts 6rem down; the stage needs that room at 1280×720 (3.6rem clears the header).
COMPACT = """
[data-testid="stMainBlockContainer"] { padding: 3.6rem 1.5rem 2rem 1.5rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.7rem; padding: 0 0 .2rem 0; }
"""
# Presentation mode: larger controls and text for a class reading a projected screen.
PRESENT = """
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] label,
[data-testid="stMainBlockContainer"] button, [data-testid="stMainBlockContainer"] input { font-size: 1.2rem !important; }
[data-testid="stMainBlockContainer"] button { min-height: 2.9rem; }
"""


def page_style(present: bool) -> None:
    st.html(f"<style>{COMPACT}{PRESENT if present else ''}</style>")
