"""The lookup view's preprocessing step: a sentence → its tokens → their ids, and each tokenizer's
<UNK> rate side by side. Plain data in (views/tokens.py), widgets out; tokens are shown as table
cells (text), never as Markdown or HTML."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.i18n import md, t
from components.safe_text import md_escape
from core.tokenize import Rate
from views.tokens import Strip

MARK = "▶"  # before the selected token's column number: its column is the one token in all three rows
UNK_MARK = "✗"  # after an id that is <UNK>


def token_strip(lang: str, strip: Strip, tokenizer: str, key: str) -> None:
    """Three rows (the raw text each token came from, the token, its id), one column a token; the
    selected token's column marked. A column clicked reruns the page (`picked` names its token)."""
    st.markdown(f"**{t(lang, 'tok.strip_title')}**")
    st.caption(md(lang, "tok.strip_help", b=strip.b, tokenizer=t(lang, f"tok.{tokenizer}")) + " · " + md_escape(strip.text))
    if not strip.tokens:
        return
    columns = [f"{MARK} {i}" if strip.marked == i else str(i) for i in range(len(strip.tokens))]
    ids = [f"{i} {UNK_MARK}" if unk else str(i) for i, unk in zip(strip.ids, strip.unknown)]
    frame = pd.DataFrame([list(strip.pieces), list(strip.tokens), ids], columns=columns,
                         index=[t(lang, "tok.raw"), t(lang, "tok.tokens"), t(lang, "tok.ids")])
    # Plain cells (no Styler: its display values are a sink the safety tests forbid for typed text).
    st.dataframe(frame, key=key, on_select="rerun", selection_mode="single-column", width="stretch", height="content")
    if any(strip.cut):
        st.caption(t(lang, "tok.cut") + ": " + ", ".join(c for c, cut in zip(columns, strip.cut) if cut))


def picked(state: object) -> int | None:
    """The position of the token whose column the strip's selection state (``{"selection": {"columns": ["2"]}}``) names."""
    try:
        return int(str(state["selection"]["columns"][0]).removeprefix(MARK).strip())  # type: ignore[index]
    except (TypeError, KeyError, IndexError, ValueError):
        return None


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
