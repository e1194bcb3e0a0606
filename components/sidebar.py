"""The sidebar: language, preset, and every configuration knob (always drawn, so their values persist)."""

from __future__ import annotations

import streamlit as st

from assets import presets
from components.i18n import LANGS, t
from core import limits
from components.knob_input import knob_input
from components.sidebar_fold import sidebar_fold
from core.knobs import KNOBS
import session
from session import Keys


def language() -> str:
    return st.radio("언어 · Language", LANGS, key=Keys.LANG, horizontal=True,
                    format_func=lambda code: {"ko": "한국어", "en": "English"}[code],
                    on_change=session.keep_choices_across_language, help=f'{t("ko", "help.lang")} · {t("en", "help.lang")}')


def presentation(lang: str) -> bool:
    """Presentation mode: larger type on the page and the stage, for a projector; switching it on folds
    the sidebar (components/sidebar_fold.py)."""
    on = st.toggle(t(lang, "side.present"), key=Keys.PRESENT, help=t(lang, "side.present_help"),
                   on_change=session.presentation_switched)
    sidebar_fold(session.get(Keys.PRESENT_SWITCHED_ON, 0), key=Keys.SIDEBAR_FOLD)
    return on


def preset_picker(lang: str) -> None:
    titles = presets.titles(lang)
    st.selectbox(t(lang, "side.preset"), list(presets.ORDER), key=Keys.PRESET, format_func=titles.get, help=t(lang, "help.preset"))
    st.button(t(lang, "side.load_preset"), key=Keys.LOAD_PRESET, width="stretch",
              on_click=lambda: session.load_preset(session.get(Keys.PRESET)),
              help=t(lang, "side.load_preset_help"))


def config_inputs(lang: str, current: dict, elsewhere: tuple[str, ...] = ()) -> dict:
    """The raw values of every knob (core.knobs.KNOBS), exactly as typed; core validates them.

    Knobs named in ``elsewhere`` are drawn by the view (the training bar's popover); their values
    are read from their widgets' state, which Streamlit sets before the script runs, or are
    ``current`` (the values in effect) while that popover is closed and they are not drawn.
    """
    session.show_knobs(current)  # a knob not drawn in the last run lost its widget state
    values = {}
    for group in ("layer", "training"):
        st.header(t(lang, f"side.{group}"))  # h2, after the title's h1
        for k in KNOBS:
            if k.name in elsewhere:
                values[k.name] = session.get(k.name, current[k.name])
            elif k.group == group:
                values[k.name] = knob_input(lang, k)
    with st.expander(t(lang, "side.limits")):
        st.markdown(t(lang, "side.limits_text", v=limits.MAX_VOCAB, e=limits.MAX_EMBEDDING_DIM, ve=limits.MAX_TABLE_FLOATS,
                      b=limits.MAX_SENTENCES, t=limits.MAX_TOKENS_PER_SENTENCE, chars=limits.MAX_TEXT_CHARS,
                      steps=limits.MAX_STEPS_PER_CLICK, mb=limits.MAX_IMPORT_BYTES // 1_000_000))
    return values
