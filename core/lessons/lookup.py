"""Lessons C1–C6, C12, C14: ids name rows; a lookup is indexing; what the layer holds and accepts."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from core.lessons.common import (  # noqa: F401
    MAX_COPY_FLOATS,
    ONE_HOT_MAX_MACS,
    SHOW_ROWS,
    DRAW_DIMS,
    DRAW_IDS,
    DRAW_ROWS,
    DRAW_SENTENCES,
    Demo,
    _absmax,
    _grid,
    Lesson,
    only_if,
    _bench,
    _error,
    _gen,
    _raised,
    _sentences_used,
    _token,
    _vec,
)
from core.training import Lab


# ---- C1–C3: ids name rows; a lookup is indexing ------------------------------------------------
def _adjacent_pair(lab: Lab) -> tuple[int, int]:
    """Two ids next to each other, ordinary tokens if possible, never PAD if possible."""
    vocab = lab.recipe.vocab
    for skip in ({vocab.pad_id, vocab.unk_id}, {vocab.pad_id}, set()):
        for i in range(vocab.size - 1):
            if i not in skip and i + 1 not in skip:
                return i, i + 1
    return 0, 1


def demo_C1(lab: Lab) -> Demo:
    """Ids are names: renumber every token at random and the looked-up vectors are unchanged."""
    vocab = lab.recipe.vocab
    W = lab.weight.detach()  # (V, E)
    a, b = _adjacent_pair(lab)
    g = _gen(lab, 1)
    pool = torch.tensor([i for i in range(vocab.size) if i != vocab.pad_id]) if vocab.size > 2 else torch.arange(2)
    c, d = pool[torch.randperm(len(pool), generator=g)[:2]].tolist()
    cos = lambda i, j: float(F.cosine_similarity(W[i], W[j], dim=0))  # noqa: E731
    bench = _bench(lab)
    perm = torch.randperm(bench.weight.shape[0], generator=g)  # new id of each row
    renamed = torch.empty_like(bench.weight)  # (n, E)
    renamed[perm] = bench.weight  # row i moves to row perm[i]
    same = torch.equal(F.embedding(perm[bench.ids], renamed), F.embedding(bench.ids, bench.weight))
    sentence = bench.ids[0, :DRAW_ROWS]  # (T,) the first sentence, pads included
    figure = {"kind": "renumbered", "tokens": [_token(lab, bench.vocab_id(i)) for i in sentence.tolist()],
              "ids": [bench.vocab_id(i) for i in sentence.tolist()], "new_ids": perm[sentence].tolist(),
              "vectors": _grid(F.embedding(sentence, bench.weight)),  # (T, E) under the learner's numbering
              "new_vectors": _grid(F.embedding(perm[sentence], renamed)),  # (T, E) under the new one
              "full_table": bench.full, "absmax": _absmax(lab)}
    facts = {"adjacent_ids": [a, b], "adjacent_tokens": [_token(lab, a), _token(lab, b)],
             "adjacent_cos": cos(a, b), "random_ids": [c, d],
             "random_tokens": [_token(lab, c), _token(lab, d)], "random_cos": cos(c, d),
             "random_gap": abs(c - d), "renamed_equal": same, **bench.facts(lab)}
    return Demo("C1", same, facts, figure=figure)


C1 = Lesson("C1", demo_C1, headline=("adjacent_cos", "random_cos"), terms=("cosine",))


def demo_C2(lab: Lab) -> Demo:
    """Embedding(i) is row i of W: checked for every id the batch looks up."""
    emb, W = lab.model.embedding, lab.weight.detach()  # W: (V, E)
    ids = torch.unique(lab.batch.ids)  # (K,) sorted
    with torch.no_grad():
        all_equal = torch.equal(emb(ids), W[ids])  # (K, E) both
        rows = [["id", "token", "equal", "vector"]]
        for i in ids[:SHOW_ROWS].tolist():
            rows.append([i, _token(lab, i), torch.equal(emb(torch.tensor(i)), W[i]), _vec(W[i])])
    scalar_equal = all(r[2] for r in rows[1:])
    V, E = W.shape
    facts = {"vocab_size": V, "dim": E, "weight_shape": [V, E], "ids_checked": len(ids),
             "all_equal": all_equal, "scalar_equal": scalar_equal, "row0_token": _token(lab, 0)}
    ok = all_equal and scalar_equal and list(emb.weight.shape) == [lab.recipe.vocab.size, E]
    return Demo("C2", ok, facts, {"lookups": rows})


C2 = Lesson("C2", demo_C2, headline=("vocab_size", "dim", "ids_checked"))


def demo_C3(lab: Lab) -> Demo:
    """Shapes: (B, T) → (B, T, E); (T,) → (T, E); () → (E,); an empty (2, 0) → (2, 0, E)."""
    emb, E = lab.model.embedding, lab.weight.shape[1]
    b = _sentences_used(lab)
    ids = lab.batch.ids[:b]  # (b, T)
    one = ids[0, : int(lab.batch.lengths[0])]  # (T0,) the first sentence without pads
    cases = {"batch": ids, "sentence": one, "scalar": ids[0, 0], "empty": torch.zeros(2, 0, dtype=torch.long)}
    rows, ok = [["case", "input_shape", "output_shape", "expected"]], True
    with torch.no_grad():
        for name, x in cases.items():
            out, expected = list(emb(x).shape), list(x.shape) + [E]
            ok &= out == expected
            rows.append([name, list(x.shape), out, expected])
    facts = {"dim": E, "batch_in": rows[1][1], "batch_out": rows[1][2], "sentence_out": rows[2][2],
             "scalar_out": rows[3][2], "empty_out": rows[4][2], "sentences_used": b,
             "sentences": int(lab.batch.ids.shape[0])}
    return Demo("C3", ok, facts, {"shapes": rows}, figure=_block_figure(lab, ids))


def _block_figure(lab: Lab, ids: torch.Tensor) -> dict:
    """The (B, T, E) output as a block: one T × E slab per sentence (the first DRAW_SENTENCES,
    DRAW_ROWS positions, DRAW_DIMS components), with every cell's id and token."""
    shown = ids[:DRAW_SENTENCES, :DRAW_ROWS]  # (b, t)
    with torch.no_grad():
        out = lab.model.embedding(shown)[:, :, :DRAW_DIMS]  # (b, t, ≤E)
    B, T = lab.batch.ids.shape
    return {"kind": "block", "shape": [int(B), int(T), int(lab.weight.shape[1])], "ids": shown.tolist(),
            "tokens": [[_token(lab, i) for i in row] for row in shown.tolist()],
            "out": out.double().tolist(), "absmax": _absmax(lab), "pad_id": lab.recipe.vocab.pad_id}


C3 = Lesson("C3", demo_C3, headline=("dim",), needs_finite=False)


# ---- C4: the one-hot view ---------------------------------------------------------------------------
def _inf_table(lab: Lab, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int, bool]:
    """A copy of W (or of the rows ``ids`` use, big tables) with inf in one row no id looks up.

    Returns (table (n, E), ids renumbered into it, the learner's id of the inf row or -1 for an
    extra row, whether every row of W is looked up).
    """
    W = lab.weight.detach()  # (V, E)
    V, E = W.shape
    used = torch.zeros(V, dtype=torch.bool)
    used[ids] = True
    if V * E <= MAX_COPY_FLOATS:
        table, rows = W.clone(), torch.arange(V)
    else:
        rows = torch.sort(torch.cat([used.nonzero()[:, 0], (~used).nonzero()[:1, 0]])).values
        table = W[rows].clone()
    new_ids = torch.searchsorted(rows, ids)
    free = (~used[rows]).nonzero()[:, 0]
    if len(free) == 0:  # every row is looked up: add one extra row to hold the inf
        table, inf_row, vocab_id = torch.cat([table, torch.zeros(1, E)]), len(rows), -1
    else:
        inf_row = int(free[0])
        vocab_id = int(rows[inf_row])
    table[inf_row, 0] = math.inf
    return table, new_ids, vocab_id, bool(used.all())


def demo_C4(lab: Lab) -> Demo:
    """one_hot(ids, V).float() @ W selects the rows a lookup returns, bit for bit; an inf breaks only the matmul."""
    W = lab.weight.detach()  # (V, E)
    V, E = W.shape
    flat = lab.batch.ids.reshape(-1)  # (B·T,)
    n = max(1, min(len(flat), ONE_HOT_MAX_MACS // (V * E)))
    ids = flat[:n]  # (n,)
    one_hot = F.one_hot(ids, V)  # (n, V) int64
    no_float = _error(lambda: one_hot @ W)
    with torch.no_grad():
        product = one_hot.float() @ W  # (n, V) @ (V, E) → (n, E)
        looked_up = lab.model.embedding(ids)  # (n, E)
    max_diff = float((product - looked_up).abs().max())
    bitwise = torch.equal(product, looked_up)
    table, inf_ids, inf_id, every_row_used = _inf_table(lab, ids)
    inf_product = F.one_hot(inf_ids, table.shape[0]).float() @ table  # (n, E), 0·inf = NaN
    inf_lookup = F.embedding(inf_ids, table)  # (n, E)
    facts = {"vocab_size": V, "dim": E, "tokens_compared": n, "tokens": len(flat),
             "one_hot_shape": list(one_hot.shape), "one_hot_dtype": str(one_hot.dtype).replace("torch.", ""),
             "max_diff": max_diff, "bitwise_equal": bitwise, "no_float_error": no_float,
             "inf_row": inf_id, "every_row_used": every_row_used,
             "inf_matmul_nan": bool(inf_product.isnan().any()), "inf_nan_cells": int(inf_product.isnan().sum()),
             "inf_lookup_finite": bool(inf_lookup.isfinite().all()),
             "lookup_cost": E, "matmul_cost": V * E, "cost_ratio": V, "one_hot_max_macs": ONE_HOT_MAX_MACS}
    ok = bitwise and _raised(no_float, "RuntimeError") and facts["inf_matmul_nan"] and facts["inf_lookup_finite"]
    return Demo("C4", ok, facts, figure=_one_hot_figure(lab, ids, one_hot, product, looked_up))


def _one_hot_figure(lab: Lab, ids: torch.Tensor, one_hot: torch.Tensor, product: torch.Tensor,
                    looked_up: torch.Tensor) -> dict:
    """The first sentence's tokens: one-hot rows, the rows of W they meet, the product and the lookup.

    All V one-hot columns are drawn for a small V (≤ DRAW_ROWS), else only the ids the drawn tokens
    use, at most DRAW_IDS (every other column of those rows is 0, so it adds nothing to the product).
    """
    V = lab.weight.shape[0]
    t = min(DRAW_ROWS, len(ids), int(lab.batch.ids.shape[1]))  # positions of the first sentence
    shown = ids[:t]  # (t,)
    cols = list(range(V)) if V <= DRAW_ROWS else sorted(set(shown.tolist()))[:DRAW_IDS]
    return {"kind": "one_hot", "ids": shown.tolist(), "tokens": [_token(lab, i) for i in shown.tolist()],
            "cols": cols, "col_tokens": [_token(lab, i) for i in cols], "vocab_size": V,
            "one_hot": one_hot[:t][:, cols].tolist(),  # (t, |cols|) 0/1
            "w_rows": lab.weight.detach()[cols][:, :DRAW_DIMS].double().tolist(),  # (|cols|, E)
            "product": _grid(product[:t]), "lookup": _grid(looked_up[:t]), "selected": 0, "absmax": _absmax(lab)}


C4 = Lesson("C4", demo_C4, headline=("max_diff", "inf_nan_cells", "cost_ratio"),
            shown_only_if=only_if(one_hot_max_macs=lambda f: f["tokens_compared"] < f["tokens"],
                                  inf_row=lambda f: f["inf_row"] >= 0, every_row_used=lambda f: f["every_row_used"]))


# ---- C5, C14: the parameters -----------------------------------------------------------------
def _parameter_facts(lab: Lab) -> dict[str, Any]:
    emb = lab.model.embedding
    V, E = lab.weight.shape
    names = [name for name, _ in emb.named_parameters()]
    return {"vocab_size": V, "dim": E, "param_names": names,
            "n_params": sum(p.numel() for p in emb.parameters()), "v_times_e": V * E,
            "has_bias": any("bias" in name for name in names)}


def demo_C5(lab: Lab) -> Demo:
    """The layer stores V·E weights, no bias; a longer input makes more lookups, not a bigger table."""
    facts = _parameter_facts(lab)
    b = _sentences_used(lab)
    ids = lab.batch.ids[:b]  # (b, T)
    longer = torch.cat([ids, ids], dim=1)  # (b, 2T): every token twice
    with torch.no_grad():
        out_short, out_long = lab.model.embedding(ids), lab.model.embedding(longer)  # (b, T, E), (b, 2T, E)
    after = sum(p.numel() for p in lab.model.embedding.parameters())
    facts.update({"lookups": ids.numel(), "lookups_longer": longer.numel(), "output_shape": list(out_short.shape),
                  "output_shape_longer": list(out_long.shape), "n_params_after_longer": after})
    ok = (facts["param_names"] == ["weight"] and facts["n_params"] == facts["v_times_e"] == after
          and not facts["has_bias"])
    return Demo("C5", ok, facts)


C5 = Lesson("C5", demo_C5, headline=("n_params", "lookups", "lookups_longer"), needs_finite=False)


def demo_C14(lab: Lab) -> Demo:
    """The PAD row is a row of W: it counts in the V·E parameters and sits in the trainable tensor."""
    facts = _parameter_facts(lab)
    pad = lab.recipe.vocab.pad_id
    W = lab.weight.detach()
    facts.update({"pad_id": pad, "pad_row": _vec(W[pad]), "pad_row_params": W.shape[1],
                  "params_without_pad": (W.shape[0] - 1) * W.shape[1],
                  "weight_requires_grad": bool(lab.weight.requires_grad), "pad_row_in_table": 0 <= pad < W.shape[0]})
    ok = facts["n_params"] == facts["v_times_e"] and facts["pad_row_in_table"] and facts["param_names"] == ["weight"]
    return Demo("C14", ok, facts)


C14 = Lesson("C14", demo_C14, headline=("n_params", "pad_row_params", "params_without_pad"), needs_finite=False)


# ---- C6, C12: what the layer accepts ---------------------------------------------------------
def demo_C6(lab: Lab) -> Demo:
    """Valid ids are 0..V−1 (num_embeddings = V rows, not a length); other inputs raise."""
    emb, V = lab.model.embedding, lab.recipe.vocab.size
    sentence = lab.batch.ids[0]  # (T,)
    with torch.no_grad():
        errors = {"id_v": _error(lambda: emb(torch.tensor([V]))),
                  "id_negative": _error(lambda: emb(torch.tensor([-1]))),
                  "float_ids": _error(lambda: emb(sentence.float())),
                  "python_list": _error(lambda: emb(sentence.tolist())),
                  "string": _error(lambda: emb(_token(lab, int(sentence[0])))),
                  "int32": _error(lambda: emb(sentence.int()))}
        int32_equal = errors["int32"] is None and torch.equal(emb(sentence.int()), emb(sentence))
        long_len = V + 1 if V < 4096 else None
        long_out = list(emb(torch.arange(long_len) % V).shape) if long_len else None  # (V+1,) → (V+1, E)
    inputs = {"id_v": f"torch.tensor([{V}])", "id_negative": "torch.tensor([-1])",
              "float_ids": "ids.float()", "python_list": repr(sentence.tolist()[:6]),
              "string": repr(_token(lab, int(sentence[0]))), "int32": "ids.int()"}
    rows = [["case", "input", "error", "message"]]
    rows += [[k, inputs[k], e["type"] if e else "—", e["message"] if e else "—"] for k, e in errors.items()]
    facts = {"vocab_size": V, "num_embeddings": emb.num_embeddings, "sentence_length": int(lab.batch.ids.shape[1]),
             "max_id": V - 1, **{f"{k}_error": e for k, e in errors.items()}, "int32_equal": int32_equal,
             "longer_than_v_length": long_len, "longer_than_v_shape": long_out}
    ok = (_raised(errors["id_v"], "IndexError") and _raised(errors["id_negative"], "IndexError")
          and _raised(errors["float_ids"], "RuntimeError") and _raised(errors["python_list"], "TypeError")
          and _raised(errors["string"], "TypeError") and int32_equal and emb.num_embeddings == V)
    return Demo("C6", ok, facts, {"inputs": rows})


C6 = Lesson("C6", demo_C6, headline=("vocab_size", "max_id", "sentence_length"))


def _oov_example(lab: Lab) -> str:
    """A token the learner's vocabulary does not have: one from their sentences if possible."""
    index = lab.recipe.vocab.index
    for sentence in lab.recipe.sentences:
        for tok in sentence:
            if tok not in index:
                return tok
    tok = "정말"
    while tok in index:
        tok += "?"
    return tok


def demo_C12(lab: Lab) -> Demo:
    """Preprocessing maps strings and unknown tokens to ids; the layer reads neither."""
    vocab, emb = lab.recipe.vocab, lab.model.embedding
    oov = _oov_example(lab)
    with torch.no_grad():
        tensor_of_str = _error(lambda: torch.tensor([oov]))
        str_input = _error(lambda: emb(oov))
        out_of_range = _error(lambda: emb(torch.tensor([vocab.size])))
    facts = {"pad_id": vocab.pad_id, "unk_id": vocab.unk_id, "padding_idx": emb.padding_idx,
             "pad_token": _token(lab, vocab.pad_id), "unk_token": _token(lab, vocab.unk_id),
             "ids_agree": emb.padding_idx == vocab.pad_id, "oov_token": oov, "oov_encoded": vocab.encode([oov])[0],
             "tensor_of_str_error": tensor_of_str, "str_input_error": str_input,
             "out_of_range_id": vocab.size, "out_of_range_error": out_of_range}
    ok = (facts["ids_agree"] and facts["oov_encoded"] == vocab.unk_id and _raised(tensor_of_str, "ValueError")
          and _raised(str_input, "TypeError") and _raised(out_of_range, "IndexError"))
    figure = _wrong_pad_figure(lab)
    facts.update({k: figure[k] for k in ("wrong_id", "wrong_cells", "cells_shown")} if figure else {})
    return Demo("C12", ok, facts, figure=figure)


WRONG_PAD_SENTENCES = 4  # C12 draws the first sentences' lookups


def _wrong_pad_figure(lab: Lab) -> dict:
    """A fresh layer built as the learner's (seed, V, E) but with padding_idx = the UNK id, the
    mix-up the chapter's numbering invites (pad_sequence pads with 0, the chapter's <UNK>).

    nn.Embedding zeroes row padding_idx at construction: the wrong layer zeroes UNK's row (an
    unknown word reads as "nothing here") and leaves PAD's row random (every pad adds noise).
    Both tables come from one N(0, 1) draw, as two nn.Embedding built after the same
    torch.manual_seed would. Small tables only (V·E ≤ MAX_COPY_FLOATS). (b, T, E) each.
    """
    vocab, cfg = lab.recipe.vocab, lab.recipe.config
    V, E = lab.weight.shape
    if V * E > MAX_COPY_FLOATS:
        return {}
    drawn = torch.randn(V, E, generator=torch.Generator().manual_seed(cfg.seed))  # (V, E)
    right, wrong = drawn.clone(), drawn.clone()
    right[vocab.pad_id], wrong[vocab.unk_id] = 0.0, 0.0
    ids = lab.batch.ids[:WRONG_PAD_SENTENCES, :DRAW_ROWS]  # (b, T)
    cells = ids.reshape(-1)  # (b·T,)
    bad = (right[cells] != wrong[cells]).any(dim=1)  # (b·T,) where the wrong layer's output differs
    return {"kind": "wrong_pad", "pad_id": vocab.pad_id, "wrong_id": vocab.unk_id, "seed": cfg.seed,
            "cells": [[b, t] for b in range(ids.shape[0]) for t in range(ids.shape[1])],
            "ids": cells.tolist(), "tokens": [_token(lab, i) for i in cells.tolist()],
            "right": right[cells][:, :DRAW_DIMS].double().tolist(),  # (b·T, E)
            "wrong": wrong[cells][:, :DRAW_DIMS].double().tolist(),
            "wrong_rows": bad.tolist(), "wrong_cells": int(bad.sum()), "cells_shown": len(cells)}


C12 = Lesson("C12", demo_C12, headline=("pad_id", "padding_idx", "oov_encoded"))
