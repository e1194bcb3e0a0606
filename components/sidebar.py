"""The sidebar: language, preset, and every configuration knob (always drawn, so their values persist)."""

from __future__ import annotations

import streamlit as st

from assets import presets
from components.i18n import LANGS, t
from core import limits
from core.model import POOLINGS
from core.training import OPTIMIZERS
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
              on_click=lambda: session.load_preset(st.session_state[Keys.PRESET]),
              help=t(lang, "side.load_preset_help"))


def config_inputs(lang: str) -> dict:
    """The raw values of every knob, exactly as typed; core validates them."""
    st.subheader(t(lang, "side.layer"))
    e = st.number_input(t(lang, "side.embedding_dim"), key=Keys.EMBEDDING_DIM, step=1,
                        help=t(lang, "side.embedding_dim_help", max=limits.MAX_EMBEDDING_DIM))
    seed = st.number_input(t(lang, "side.seed"), key=Keys.SEED, step=1, help=t(lang, "side.seed_help"))
    mode = st.radio(t(lang, "side.pad_mode"), ["longest", "fixed"], key=Keys.PAD_MODE, horizontal=True,
                    format_func=lambda m: t(lang, f"side.pad_mode.{m}"))
    fixed = st.number_input(t(lang, "side.fixed_len"), key=Keys.FIXED_LEN, step=1, disabled=mode != "fixed")
    st.subheader(t(lang, "side.training"))
    pooling = st.selectbox(t(lang, "side.pooling"), POOLINGS, key=Keys.POOLING,
                           format_func=lambda p: t(lang, f"pooling.{p}"))
    opt = st.selectbox(t(lang, "side.optimizer"), OPTIMIZERS, key=Keys.OPTIMIZER,
                       format_func=lambda o: t(lang, f"opt.{o}"))
    lr = st.number_input(t(lang, "side.lr"), key=Keys.LR, step=0.01, format="%.4f")
    wd = st.number_input(t(lang, "side.weight_decay"), key=Keys.WEIGHT_DECAY, step=0.01, format="%.4f")
    bs = st.number_input(t(lang, "side.batch_size"), key=Keys.BATCH_SIZE, step=1, help=t(lang, "side.batch_size_help"))
    with st.expander(t(lang, "side.limits")):
        st.markdown(t(lang, "side.limits_text", v=limits.MAX_VOCAB, e=limits.MAX_EMBEDDING_DIM, ve=limits.MAX_TABLE_FLOATS,
                      b=limits.MAX_SENTENCES, t=limits.MAX_TOKENS_PER_SENTENCE, chars=limits.MAX_TEXT_CHARS,
                      steps=limits.MAX_STEPS_PER_CLICK, mb=limits.MAX_IMPORT_BYTES // 1_000_000))
    return {"embedding_dim": e, "seed": seed, "fixed_len": fixed if mode == "fixed" else None, "pooling": pooling,
            "optimizer": opt, "lr": lr, "weight_decay": wd, "batch_size": bs}
