"""The sidebar: language, preset, and every configuration knob (always drawn, so their values persist).

Each widget's key is the caller's (session.Keys) and so is each callback: the sidebar only draws.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from assets import presets
from components.i18n import LANGS, t
from core import limits
from components.knob_input import knob_input
from components.sidebar_fold import sidebar_fold
from core.knobs import KNOBS


def language(key: str, on_change: Callable[[], None]) -> str:
    """The language radio; ``on_change``: its callback (translated choices keep their values)."""
    return st.radio("언어 · Language", LANGS, key=key, horizontal=True,
                    format_func=lambda code: {"ko": "한국어", "en": "English"}[code],
                    on_change=on_change, help=f'{t("ko", "help.lang")} · {t("en", "help.lang")}')


def presentation(lang: str, key: str, on_change: Callable[[], None], switched_on: int, fold_key: str) -> bool:
    """Presentation mode: larger type on the page and the stage, for a projector; switching it on folds
    the sidebar (components/sidebar_fold.py). ``switched_on``: how many times it was switched on
    (``on_change`` counts them); the sidebar folds each time it grows."""
    on = st.toggle(t(lang, "side.present"), key=key, help=t(lang, "side.present_help"), on_change=on_change)
    sidebar_fold(switched_on, key=fold_key, fold_on_open=on)
    return on


def preset_picker(lang: str, key: str, load_key: str, on_load: Callable[[], None]) -> None:
    """The preset picker and its Load button; ``on_load``: the button's callback."""
    titles = presets.titles(lang)
    st.selectbox(t(lang, "side.preset"), list(presets.ORDER), key=key, format_func=titles.get, help=t(lang, "help.preset"))
    st.button(t(lang, "side.load_preset"), key=load_key, width="stretch", on_click=on_load,
              help=t(lang, "side.load_preset_help"))


def config_inputs(lang: str, mode_key: str, elsewhere: dict | None = None) -> dict:
    """The raw values of every knob (core.knobs.KNOBS), exactly as typed; core validates them.

    Knobs named in ``elsewhere`` are drawn by the view (the training bar's popover): their values
    are the ones given there (the caller reads them from their widgets' state, or the values in
    effect while that popover is closed). ``mode_key``: the key of the padding mode's radio.
    """
    elsewhere = elsewhere or {}
    values = {}
    for group in ("layer", "training", "tokens"):
        st.header(t(lang, f"side.{group}"))  # h2, after the title's h1
        for k in KNOBS:
            if k.name in elsewhere:
                values[k.name] = elsewhere[k.name]
            elif k.group == group:
                values[k.name] = knob_input(lang, k, mode_key=mode_key, disabled=not k.used(values))
    with st.expander(t(lang, "side.limits")):
        st.markdown(t(lang, "side.limits_text", v=limits.MAX_VOCAB, e=limits.MAX_EMBEDDING_DIM, ve=limits.MAX_TABLE_FLOATS,
                      b=limits.MAX_SENTENCES, t=limits.MAX_TOKENS_PER_SENTENCE, chars=limits.MAX_TEXT_CHARS,
                      steps=limits.MAX_STEPS_PER_CLICK, mb=limits.MAX_IMPORT_BYTES // 1_000_000,
                      classes=limits.MAX_CLASSES, label=limits.MAX_CLASS_CHARS))
    return values
