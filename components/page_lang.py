"""Tells the browser which language the page is in: ``<html lang="ko">`` or ``"en"``.

Screen readers pick their voice from it, and Streamlit leaves it at "en". A custom component with
no visible output: its script sets the attribute of the page it is mounted in.
"""

from __future__ import annotations

import streamlit as st

JS = """export default function ({ data }) {
  if (data && (data.lang === "ko" || data.lang === "en")) document.documentElement.lang = data.lang;
}"""

_mount = st.components.v2.component("page_lang", html="<span hidden></span>", js=JS)


def page_lang(lang: str, key: str) -> None:
    _mount(key=key, data={"lang": lang}, height=0)
