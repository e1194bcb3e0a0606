"""The sidebar: language, preset, and every configuration knob (always drawn, so their values persist)."""

from __future__ import annotations

import streamlit as st

from assets import presets
from components.i18n import LANGS, t
from core import limits
from core.knobs import KNOBS, Knob
import session
from session import Keys


def language() -> str:
    return st.radio("언어 · Language", LANGS, key=Keys.LANG, horizontal=True,
                    format_func=lambda code: {"ko": "한국어", "en": "English"}[code],
                    on_change=session.keep_choices_across_language)


def preset_picker(lang: str) -> None:
    titles = presets.titles(lang)
    st.selectbox(t(lang, "side.preset"), list(presets.ORDER), key=Keys.PRESET, format_func=titles.get)
    st.button(t(lang, "side.load_preset"), key=Keys.LOAD_PRESET, width="stretch",
              on_click=lambda: session.load_preset(session.get(Keys.PRESET)),
              help=t(lang, "side.load_preset_help"))


def config_inputs(lang: str) -> dict:
    """The raw values of every knob (core.knobs.KNOBS), exactly as typed; core validates them."""
    values = {}
    for group in ("layer", "training"):
        st.subheader(t(lang, f"side.{group}"))
        for k in KNOBS:
            if k.group == group:
                values[k.name] = _knob_input(lang, k)
    with st.expander(t(lang, "side.limits")):
        st.markdown(t(lang, "side.limits_text", v=limits.MAX_VOCAB, e=limits.MAX_EMBEDDING_DIM, ve=limits.MAX_TABLE_FLOATS,
                      b=limits.MAX_SENTENCES, t=limits.MAX_TOKENS_PER_SENTENCE, chars=limits.MAX_TEXT_CHARS,
                      steps=limits.MAX_STEPS_PER_CLICK, mb=limits.MAX_IMPORT_BYTES // 1_000_000))
    return values


def _knob_input(lang: str, k: Knob):
    """One knob's widget, keyed by the knob's name; "longest or fixed T" is a radio and a number."""
    label, help_text = t(lang, k.label), t(lang, k.help, max=k.hi, min=k.lo)
    if k.kind == "choice":
        return st.selectbox(label, k.choices, key=k.name, help=help_text,
                            format_func=lambda c: t(lang, f"{k.choice_prefix}.{c}"))
    if k.kind == "optional_int":
        mode = st.radio(t(lang, "side.pad_mode"), ["longest", "fixed"], key=Keys.PAD_MODE, horizontal=True,
                        format_func=lambda m: t(lang, f"side.pad_mode.{m}"), help=t(lang, "side.pad_mode_help"))
        fixed = st.number_input(label, key=Keys.FIXED_LEN, step=k.step, disabled=mode != "fixed", help=help_text)
        return fixed if mode == "fixed" else None
    return st.number_input(label, key=k.name, step=k.step, format=k.fmt, help=help_text)
