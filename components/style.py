"""Page-wide CSS: a compact top so the stage fits one projector screen, a phone layout, and presentation mode.

Plain CSS, no scripts and no user data in it.
"""

from __future__ import annotations

import streamlit as st

# Streamlit's main block starts 6rem down; the stage needs that room at 1280×720. Its header is 3.75rem
# tall and opaque: the view switch starts just below it, its top border in sight.
# The main area's sections are h2 (the page's h1 is the title in the sidebar), set a size below Streamlit's.
COMPACT = """
[data-testid="stMainBlockContainer"] { padding: calc(3.75rem + 1.5px) 1.5rem 2rem 1.5rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.7rem; padding: 0 0 .2rem 0; }
[data-testid="stMainBlockContainer"] h2 { font-size: 1.45rem; padding: .6rem 0 .2rem 0; }
"""
# Korean breaks between words (어절), never inside one ("탐험기" stays whole), on the English page too
# (its tokens are often Korean) and where Streamlit's own rules say otherwise (table cells); a word
# longer than its line (a URL, a long token) may still break rather than push the page wider. Code
# keeps its own wrapping.
KOREAN = """
body { overflow-wrap: break-word; }
body :is(h1, h2, h3, h4, h5, h6, p, li, label, summary, span, div, td, th, button):not(pre *) {
  word-break: keep-all !important; }
"""
# A phone (Streamlit stacks columns below 640 px): the view switch as a 2 × 2 grid, the training bar
# three controls to a row, and Plotly's mode bar (which sits over a chart's title) left out; the
# element toolbar above each chart keeps full screen. A figure of side-by-side plots, alone in its
# container (components/lessons.py), is drawn 560 px wide and scrolls sideways in that container,
# so its titles and tick labels have the room they need. The stage (components/stage/stage.css) stacks
# its panels and grows taller than the height it was given: its boxes follow it. Tables and code
# keep their own sideways scroll.
PHONE = """
@media (max-width: 640px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1rem; padding-right: 1rem; }
  .st-key-section [role="radiogroup"] { display: grid; grid-template-columns: 1fr 1fr; gap: 4px; }
  .st-key-section [role="radiogroup"] > button { width: 100%; min-width: 0; height: auto; min-height: 2.4rem; margin: 0;
                                                  border-radius: .5rem; }
  .st-key-section [role="radiogroup"] > button p { white-space: normal; }
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] .st-key-step) { flex-wrap: wrap; gap: .5rem; }
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] .st-key-step) > [data-testid="stColumn"] {
    min-width: calc(33.3% - .5rem) !important; flex: 1 1 calc(33.3% - .5rem) !important; }
  .js-plotly-plot .modebar-container { display: none !important; }
  .stVerticalBlock:has(> .stElementContainer:only-child .subplot.x2y2) { overflow-x: auto; }
  .stVerticalBlock:has(> .stElementContainer:only-child .subplot.x2y2) > .stElementContainer { min-width: 560px; }
  .st-key-stage, .st-key-stage .stBidiComponent, .st-key-stage [data-testid="stBidiComponentIsolated"] {
    height: auto !important; flex: 0 0 auto !important; overflow: visible !important; }
}
"""
# Presentation mode: larger controls and text for a class reading a projected screen (on a phone, the
# training bar two to a row, so its larger labels fit).
PRESENT = """
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] label,
[data-testid="stMainBlockContainer"] button, [data-testid="stMainBlockContainer"] input { font-size: 1.2rem !important; }
[data-testid="stMainBlockContainer"] button { min-height: 2.9rem; }
@media (max-width: 640px) {
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] .st-key-step) > [data-testid="stColumn"] {
    min-width: calc(50% - .5rem) !important; flex: 1 1 calc(50% - .5rem) !important; }
}
"""


# Editing while watching: the open inputs box (vocabulary and sentences) is at most 40 vh (of the
# window's height) and scrolls inside itself, so the stage's id matrix stays in view below it while the
# learner types (a phone stacks everything and scrolls the page instead).
EDITING = """
@media (min-width: 641px) {
  .st-key-editors details[open] > [data-testid="stExpanderDetails"] { max-height: 40vh; overflow-y: auto; }
}
"""


# Components with no visible output (components/page_lang.py, sidebar_fold.py) take no room.
HIDDEN = """
.st-key-page_lang, .st-key-sidebar_fold, .st-key-grid_keys { display: none; }
"""


def page_style(present: bool) -> None:
    st.html(f"<style>{COMPACT}{KOREAN}{PHONE}{EDITING}{HIDDEN}{PRESENT if present else ''}</style>")
