"""Each tokenizer's <UNK> rate side by side, under the lookup view (the stage itself shows each
sentence → its tokens → their ids). Plain data in (views/tokens.py), a table out; tokens are shown
as table cells (text), never as Markdown or HTML."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.i18n import t
from core.tokenize import Rate


def unk_rates(lang: str, rates: list[Rate], current: str, tried: bool) -> None:
    """Each tokenizer's <UNK> count on the learner's sentences and on the tried sentence, side by side."""
    st.caption(t(lang, "tok.rates_help"))
    rows = []
    for r in rates:
        name = t(lang, f"tok.{r.tokenizer}")
        rows.append({
            t(lang, "tok.col.tokenizer"): t(lang, "tok.in_use", name=name) if r.tokenizer == current else name,
            t(lang, "tok.col.vocab"): r.vocab_size,
            t(lang, "tok.col.learner"): t(lang, "tok.rate", unk=r.unk, total=r.total, share=r.share),
            t(lang, "tok.col.tried"): t(lang, "tok.rate", unk=r.tried_unk, total=len(r.tried_tokens),
                                        share=r.tried_unk / max(1, len(r.tried_tokens))) if tried else t(lang, "tok.no_try"),
            t(lang, "tok.col.tried_tokens"): " ".join(tok + ("*" if u else "") for tok, u in zip(r.tried_tokens, r.tried_unknown)),
        })
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height="content")
