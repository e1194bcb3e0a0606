"""Streamlit's own widget texts in the page's language: "Drag and drop file here", "Upload",
"Choose an option", "No results", "Help for …", "Press Enter to apply", the number input's and the
chart toolbar's button names, and the like.

Streamlit 1.67 has no setting for them: its frontend writes them in English. What its API lets us
set is set where the widget is made (placeholders, the multiselect's "Select all" turned off); the
rest is rewritten in the browser by a custom component with no visible output (widget_text.js),
from the rules in assets/strings/chrome.json (each an English and a Korean form; a rule that also
names Streamlit's own English, "streamlit", replaces that text in either language, for a message of
Streamlit's that says too little, such as a download that failed). Only Streamlit's
own chrome is rewritten, in the DOM itself, so a screen reader reads the same words the eye sees.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from components.i18n import strings

JS = (Path(__file__).resolve().parent / "widget_text.js").read_text(encoding="utf-8")
PREFIX = "chrome."

_mount = st.components.v2.component("widget_text", html="<span hidden></span>", js=JS)


def rules() -> list[list[str]]:
    """[English, Korean] of every rule in assets/strings/chrome.json, or [Streamlit's English, Korean,
    English] for a rule that replaces Streamlit's text in both languages."""
    return [[v["streamlit"], v["ko"], v["en"]] if "streamlit" in v else [v["en"], v["ko"]]
            for k, v in strings().items() if k.startswith(PREFIX)]


def widget_text(lang: str, key: str) -> None:
    _mount(key=key, data={"lang": lang, "rules": rules()}, height=0)
