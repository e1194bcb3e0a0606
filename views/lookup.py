"""The lookup view's stage data, from one learner's explorer, with no streamlit: each raw sentence
and its tokens, the (B, T) ids, the rows of W they select, and the output (components/stage/README.md).

    >>> data = lookup_data(ex, "ko", sentence=0)
    >>> data["out"]["values"]          # (T, E): W[ids[0]], as torch's embedding gives it
"""

from __future__ import annotations

from components.i18n import t
from components.stage_data import BIG_V, common, floats, tokens_of, w_grid
from core.explorer import Explorer
from views.tokens import raw_rows


def lookup_data(ex: Explorer, lang: str, sentence: int = 0, height: int = 560, present: bool = False) -> dict:
    """The lookup stage: the (B, T) ids, the rows of W they select, and output[b] = W[ids[b]]."""
    lab = ex.lab
    batch = lab.batch
    b = min(max(0, sentence), batch.ids.shape[0] - 1)
    w = lab.weight.detach().numpy()  # (V, E), read-only view
    counts = ex.facts.counts
    data = common(ex, lang, "lookup", height, present)
    data["w"] = w_grid(ex, w, counts)
    ids = batch.ids.tolist()
    data["ids"] = ids
    data["sentences"] = [list(s) for s in batch.tokens]
    data["raw"] = raw_rows(ex, b)  # the text each token came from: raw sentence → tokens → ids
    data["out"] = {"b": b, "values": floats(lab.vectors()[b].numpy(), ex.vocab.size > BIG_V)}  # (T, E): W[ids[b]]
    data["loss"] = []
    data["tokens"] = tokens_of(ex, data["w"]["rows"], [i for row in ids for i in row])
    where = t(lang, "pipe.tables")
    bsz, tlen = batch.ids.shape
    data["alt"] = {"ids": t(lang, "stage.alt.ids", b=bsz, t=tlen, where=where),
                   "w": t(lang, "stage.alt.w", rows=len(data["w"]["rows"]), v=ex.vocab.size,
                          e=ex.recipe.config.embedding_dim, touched=len(data["w"]["touched"])),
                   "out": t(lang, "stage.alt.out", sentence=b, t=tlen, e=ex.recipe.config.embedding_dim, where=where)}
    return data
