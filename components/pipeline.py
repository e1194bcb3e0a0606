"""The lookup pipeline, drawn: tokens → ids → padded (B, T) matrix → rows of W → (B, T, E) output.

Plain data in (vocab, batch, W as numpy, the widgets' keys), plain intent out (the selected cell).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa  # st.dataframe sends an Arrow table as it is, with no conversion from pandas
import streamlit as st

from components.i18n import t
from components.stage_data import shown_rows
from core.batch import Batch
from core.vocab import Vocab

MAX_TABLE_COLS = 64  # columns of W written out in a table


def token_table(lang: str, vocab: Vocab, batch: Batch, raw: list[tuple[str, ...]]) -> None:
    """Each sentence's tokens with their ids; unknown tokens shown becoming <UNK> (C11, C12)."""
    index = vocab.index
    rows = []
    for b, toks in enumerate(raw):
        parts = []
        for tok in toks:
            i = index.get(tok)
            parts.append(f"{tok}→{i}" if i is not None else f"{tok}→{vocab.unk_id} ({vocab.tokens[vocab.unk_id]})")
        rows.append({t(lang, "pipe.col.sentence"): b, t(lang, "pipe.col.tokens"): "  ".join(parts),
                     t(lang, "pipe.col.length"): int(batch.lengths[b]),
                     t(lang, "pipe.col.truncated"): batch.truncated[b]})
    st.dataframe(pa.Table.from_pylist(rows), hide_index=True, width="stretch")


def id_matrix(lang: str, vocab: Vocab, batch: Batch, key: str, on_select=None) -> tuple[int, int] | None:
    """The (B, T) id matrix, one clickable 'id · token' cell per id. Returns the selected (b, t)."""
    ids = batch.ids.numpy()
    B, T = ids.shape
    cols = [f"t={j}" for j in range(T)]
    cells = [[f"{ids[b, j]} · {vocab.tokens[ids[b, j]]}" for j in range(T)] for b in range(B)]
    df = pd.DataFrame(cells, columns=cols, index=[f"b={b}" for b in range(B)])
    # Plain cells, no pandas Styler: the cells name <PAD> and <UNK>, and the stage colours them.
    event = st.dataframe(df, key=key, on_select=on_select or "rerun", selection_mode="single-cell",
                         width="stretch")
    st.caption(t(lang, "pipe.ids_caption", b=B, t=T, pad=vocab.pad_id, unk=vocab.unk_id))
    cells_sel = event.selection.get("cells", []) if event is not None else []
    if cells_sel:
        row, col = cells_sel[0]
        if 0 <= row < B and col in cols:
            return row, cols.index(col)
    return None


def mask_frame(batch: Batch) -> pd.DataFrame:
    """The mask (1 at real tokens, 0 at pads) and the true lengths, as a table."""
    m = batch.mask.numpy().astype(int)
    df = pd.DataFrame(m, columns=[f"t={j}" for j in range(m.shape[1])], index=[f"b={b}" for b in range(m.shape[0])])
    df["len"] = batch.lengths.numpy()
    return df


def sentence_picker(lang: str, batch: Batch, key: str) -> int:
    """Which sentence's output the stage shows (b)."""
    B = batch.shape[0]
    return st.selectbox(t(lang, "pipe.sentence_pick"), list(range(B)), key=key,
                        format_func=lambda i: f"b={i}: " + " ".join(batch.tokens[i]),
                        help=t(lang, "pipe.sentence_pick_help"))


def w_frame(lang: str, w: np.ndarray, vocab: Vocab, counts: np.ndarray, selected: int | None) -> None:
    """The shown rows of W (all, or a window at large V) as a table: id, token, lookups, e0…"""
    rows = shown_rows(vocab.size, counts, selected, (vocab.pad_id, vocab.unk_id))
    cols = {t(lang, "label.col.id"): rows, t(lang, "label.col.token"): [vocab.tokens[i] for i in rows.tolist()],
            t(lang, "pipe.col.count"): counts[rows]}
    cols.update({f"e{j}": w[rows, j] for j in range(min(w.shape[1], MAX_TABLE_COLS))})
    st.dataframe(pa.table(cols), hide_index=True, width="stretch")
    if len(rows) < vocab.size:
        st.caption(t(lang, "pipe.w_window", shown=len(rows), v=vocab.size))


def output_frame(lang: str, vectors: np.ndarray, vocab: Vocab, batch: Batch, b: int) -> None:
    """One sentence's (T, E) output as a table: row t is W[ids[b, t]]."""
    ids = batch.ids[b].tolist()
    cols = {"t": list(range(len(ids))), t(lang, "label.col.id"): ids, t(lang, "label.col.token"): [vocab.tokens[i] for i in ids]}
    cols.update({f"e{j}": vectors[:, j] for j in range(min(vectors.shape[1], MAX_TABLE_COLS))})
    st.dataframe(pa.table(cols), hide_index=True, width="stretch")
