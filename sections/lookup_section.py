"""Section 1: the lookup, vocabulary → padded ids → rows of W → (B, T, E) output (C2, C3, C5, C14, C16).

The stage draws each raw sentence over its tokens over its ids, W and one sentence's output side
by side, the selected token's text, chip, cell, row and output vector as one connected thing; the same numbers are tables below, for reading
and for screen readers.
"""

from __future__ import annotations

import streamlit as st

from components import pipeline, tokens
from components.i18n import md, t
from components.lessons import try_sentence_box
from components.stage import stage
from core.explorer import Explorer
import session
from session import Keys
from core import morphemes
from views.lookup import lookup_data
from views.tokens import rates, split_for

MORPHEMES_WAIT_S = 120  # the longest the comparison waits for the morpheme analyzer to load
STAGE_HEIGHT = 470  # px: below the view switch and the folded inputs, it fits a 1280×720 screen


def render(lang: str, ex: Explorer, present: bool = False) -> None:
    lab = ex.lab
    vocab, batch = lab.recipe.vocab, lab.batch
    session.select_token_from_cell(ex)  # a cell picked in the tables below, before anything shows it
    session.select_token_from_stage(ex)  # a token picked on the stage (set by a script before the run)
    session.select_cell_from_stage(ex)  # a cell picked on the stage: its sentence's output is shown
    b = session.sentence_shown(batch.shape[0])  # the picker sits below the stage; its value is known already
    stage(lookup_data(ex, lang, sentence=b, height=STAGE_HEIGHT, present=present), key=Keys.STAGE,
          on_select=lambda: session.select_token_from_stage(ex))
    pipeline.sentence_picker(lang, batch, Keys.OUT_SENTENCE)
    st.markdown(t(lang, "pipe.shapes", b=batch.shape[0], t=batch.shape[1], e=lab.recipe.config.embedding_dim))
    v, e = lab.weight.shape
    st.markdown(t(lang, "pipe.params", v=v, e=e, n=v * e, pad=vocab.pad_id))
    try_sentence_box(lang, lab, Keys.TRY_SENTENCE, split_for(ex))  # a new sentence through the current (maybe trained) W
    unk_rates(lang, ex)
    tables = st.expander(t(lang, "pipe.tables"), key=Keys.LOOKUP_TABLES, on_change="rerun")
    if not tables.open:  # built only while open: the stage shows the same numbers
        return
    with tables:
        st.markdown(f"**{t(lang, 'pipe.step1')}**")
        pipeline.token_table(lang, vocab, batch, lab.recipe.sentences)
        st.markdown(f"**{t(lang, 'pipe.step2', b=batch.shape[0], t=batch.shape[1])}**")
        sel = pipeline.id_matrix(lang, vocab, batch, Keys.ID_CELL, on_select="rerun")
        if sel is not None:
            i = int(batch.ids[sel])
            st.success(md(lang, "pipe.selected", b=sel[0], t=sel[1], i=i, token=vocab.tokens[i]))
        st.markdown(f"**{t(lang, 'pipe.mask_title')}**")
        st.dataframe(pipeline.mask_frame(batch), width="stretch")
        st.markdown(f"**{t(lang, 'pipe.step3')}**")
        pipeline.w_frame(lang, lab.weight.detach().numpy(), vocab, batch.id_counts(vocab.size).numpy(),
                         ex.selected_token)
        st.markdown(f"**{t(lang, 'pipe.step4')}**")
        pipeline.output_frame(lang, lab.vectors()[b].numpy(), vocab, batch, b)


def unk_rates(lang: str, ex: Explorer) -> None:
    """Each tokenizer's <UNK> rate on the learner's sentences and on the tried one, built only while
    its expander is open: it needs the morpheme analyzer, which the first page never loads."""
    box = st.expander(t(lang, "tok.rates_title"), key=Keys.UNK_RATES, on_change="rerun")
    if not box.open:
        return
    with box:
        analyzer = ex.analyzer()
        if analyzer is None:
            with st.spinner(t(lang, "tok.loading")):
                analyzer = morphemes.wait(MORPHEMES_WAIT_S)
        tried = str(session.get(Keys.TRY_SENTENCE) or "")
        tokens.unk_rates(lang, rates(ex, tried, analyzer), ex.config.tokenizer, bool(tried.strip()))
