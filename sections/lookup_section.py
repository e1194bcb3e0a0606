"""Section 1: the lookup pipeline, vocabulary → padded ids → rows of W → (B, T, E) output (C2, C3, C5, C14, C16)."""

from __future__ import annotations

import streamlit as st

from components import pipeline
from components.i18n import t
import session
from core.explorer import Explorer
from session import Keys


def render(lang: str, ex: Explorer) -> None:
    lab = ex.lab
    vocab, batch = lab.recipe.vocab, lab.batch
    w = lab.weight.detach().numpy()  # (V, E), a read-only view: no 120 MB copy per rerun at large V
    counts = batch.id_counts(vocab.size).numpy()  # (V,)
    st.subheader(t(lang, "pipe.step1"))
    pipeline.token_table(lang, vocab, batch, lab.recipe.sentences)
    st.subheader(t(lang, "pipe.step2", b=batch.shape[0], t=batch.shape[1]))
    sel = pipeline.id_matrix(lang, vocab, batch, on_select=lambda: session.select_token_from_cell(ex))
    mask = st.expander(t(lang, "pipe.mask_title"), key=Keys.MASK, on_change="rerun")
    if mask.open:  # drawn only while open: a closed expander's table cost a full table per rerun
        mask.dataframe(pipeline.mask_frame(batch), width="stretch")
    selected_id = int(batch.ids[sel]) if sel is not None else ex.selected_token
    if sel is not None:
        st.success(t(lang, "pipe.selected", b=sel[0], t=sel[1], i=selected_id, token=vocab.tokens[selected_id]))
    left, right = st.columns([1.1, 1])
    with left:
        st.subheader(t(lang, "pipe.step3"))
        pipeline.w_table(lang, w, vocab, counts, selected_id, memo=session.memo)
        v, e = w.shape
        st.markdown(t(lang, "pipe.params", v=v, e=e, n=v * e, pad=vocab.pad_id))
    with right:
        st.subheader(t(lang, "pipe.step4"))
        pipeline.output_view(lang, lab.vectors().numpy(), vocab, batch, sel, memo=session.memo)
