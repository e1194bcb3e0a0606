"""Lessons X1–X7: pitfalls learners hit after the chapter."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from core.lessons.common import (  # noqa: F401
    SHOW_ROWS,
    TRAIN_STEPS,
    X7_MAX_FLOATS,
    X7_MAX_SNAPSHOTS,
    Demo,
    Lesson,
    only_if,
    _Bench,
    _bench,
    _error,
    _gen,
    _pca_rows,
    _probe_loss,
    _raised,
    _token,
)
from core.projection import Frame, fit_frame
from core.training import Lab, make_optimizer


# ---- X1–X7: pitfalls after the chapter -----------------------------------------------------------
def demo_X1(lab: Lab) -> Demo:
    """pad_sequence pads with 0 unless told: 0 is whatever token has id 0 (the chapter's <UNK>)."""
    vocab, batch = lab.recipe.vocab, lab.batch
    seqs = [torch.tensor(vocab.encode(s), dtype=torch.long) for s in batch.tokens]  # B × (L_b,)
    default = pad_sequence(seqs, batch_first=True)  # (B, L_max), pads = 0
    with_pad = pad_sequence(seqs, batch_first=True, padding_value=vocab.pad_id)  # (B, L_max)
    L = default.shape[1]
    rest_is_pad = bool((batch.ids[:, L:] == vocab.pad_id).all())  # a fixed T longer than L_max
    empty = ~batch.mask[:, :L]  # (B, L) cells that padding fills
    facts = {"pad_id": vocab.pad_id, "token_at_0": _token(lab, 0), "filled_cells": int(empty.sum()),
             "default_value": 0, "default_equals_batch": torch.equal(default, batch.ids[:, :L]) and rest_is_pad,
             "with_pad_equals_batch": torch.equal(with_pad, batch.ids[:, :L]) and rest_is_pad,
             "default_wrote": int((default[empty] == 0).sum()), "pad_is_zero": vocab.pad_id == 0}
    rows = [["sentence", "default", "padding_value_pad"]]
    rows += [[b, default[b].tolist(), with_pad[b].tolist()] for b in range(min(SHOW_ROWS, len(seqs)))]
    expect_default = vocab.pad_id == 0 or facts["filled_cells"] == 0
    ok = facts["with_pad_equals_batch"] and facts["default_equals_batch"] == expect_default
    return Demo("X1", ok, facts, {"padded": rows})


X1 = Lesson("X1", demo_X1, headline=("filled_cells", "default_wrote"), needs_finite=False)


def demo_X2(lab: Lab) -> Demo:
    """max_norm rescales the looked-up rows of the weight itself, even under torch.no_grad()."""
    bench = _bench(lab)
    used = torch.unique(bench.ids)  # (K,)
    norms = bench.weight.norm(dim=1)  # (n,)
    top = float(norms[used].max())
    max_norm = top / 2 if top > 0 else 1.0
    emb = bench.embedding(max_norm=max_norm)
    before = emb.weight.detach().clone()  # (n, E)
    with torch.no_grad():
        emb(bench.ids)  # the forward pass renormalizes rows of emb.weight in place
    after = emb.weight.detach()
    unused = torch.ones(len(norms), dtype=torch.bool)
    unused[used] = False
    changed = (after != before).any(dim=1)  # (n,)
    facts = {"max_norm": max_norm, "rows_looked_up": len(used), "rows_changed": int(changed.sum()),
             "largest_norm_before": top, "largest_norm_after": float(after[used].norm(dim=1).max()),
             "unused_unchanged": torch.equal(after[unused], before[unused]), "under_no_grad": True, **bench.facts(lab)}
    rows = [["id", "token", "looked_up", "norm_before", "norm_after"]]
    for r in torch.cat([used[:SHOW_ROWS], unused.nonzero()[:3, 0]]).tolist():
        rows.append([bench.vocab_id(r), _token(lab, bench.vocab_id(r)), not bool(unused[r]),
                     float(before[r].norm()), float(after[r].norm())])
    ok = (facts["largest_norm_after"] <= max_norm * (1 + 1e-5) and facts["unused_unchanged"]
          and (top == 0 or facts["rows_changed"] > 0))
    return Demo("X2", ok, facts, {"norms": rows})


X2 = Lesson("X2", demo_X2, headline=("max_norm", "largest_norm_before", "largest_norm_after"))


def demo_X3(lab: Lab) -> Demo:
    """scale_grad_by_freq=True divides each row's gradient by how often its id occurs in the batch."""
    bench = _bench(lab)
    plain, scaled = bench.embedding(), bench.embedding(scale_grad_by_freq=True)
    for emb in (plain, scaled):
        _probe_loss(emb, bench.ids, _gen(lab, 3)).backward()
    counts = torch.bincount(bench.ids.reshape(-1), minlength=bench.weight.shape[0])  # (n,)
    used = (counts > 0).nonzero()[:, 0]
    used = used[used != bench.pad]  # (K,) the PAD row has no gradient either way
    g_plain, g_scaled = plain.weight.grad[used], scaled.weight.grad[used]  # (K, E)
    restored = g_scaled * counts[used].unsqueeze(1)  # (K, E)
    rows = [["id", "token", "count", "plain_norm", "scaled_norm"]]
    rows += [[bench.vocab_id(r), _token(lab, bench.vocab_id(r)), int(counts[r]), float(p.norm()),
              float(s.norm())] for r, p, s in zip(used.tolist()[:SHOW_ROWS], g_plain, g_scaled)]
    facts = {"rows_checked": len(used), "max_count": int(counts[used].max()) if len(used) else 0,
             "max_diff": float((restored - g_plain).abs().max()) if len(used) else 0.0,
             "close": bool(torch.allclose(restored, g_plain, rtol=1e-5, atol=1e-6)), **bench.facts(lab)}
    return Demo("X3", facts["close"], facts, {"grads": rows})


X3 = Lesson("X3", demo_X3, headline=("max_count", "max_diff"), terms=("allclose", "norm"))


def _sparse_step(bench: _Bench, lab: Lab, name: str) -> dict[str, str] | None:
    emb = bench.embedding(sparse=True)
    _probe_loss(emb, bench.ids, _gen(lab, 4)).backward()
    lr = lab.recipe.config.lr
    opts = {"sgd": lambda p: torch.optim.SGD(p, lr=lr), "sparse_adam": lambda p: torch.optim.SparseAdam(p, lr=lr),
            "adam": lambda p: torch.optim.Adam(p, lr=lr), "adamw": lambda p: torch.optim.AdamW(p, lr=lr)}
    return _error(lambda: opts[name]([emb.weight]).step())


def demo_X4(lab: Lab) -> Demo:
    """sparse=True: the gradient is a sparse tensor of the looked-up rows; SGD and SparseAdam take it, Adam(W) raise."""
    bench = _bench(lab)
    sparse, dense = bench.embedding(sparse=True), bench.embedding()
    for emb in (sparse, dense):
        _probe_loss(emb, bench.ids, _gen(lab, 4)).backward()
    g = sparse.weight.grad
    errors = {name: _sparse_step(bench, lab, name) for name in ("sgd", "sparse_adam", "adam", "adamw")}
    V, E = lab.weight.shape
    facts = {"is_sparse": bool(g.is_sparse), "layout": str(g.layout).replace("torch.", ""),
             "rows_stored": int(g.coalesce().indices().shape[1]), "vocab_size": V, "dim": E,
             "dense_floats": V * E, "dense_max_diff": float((g.to_dense() - dense.weight.grad).abs().max()),
             "same_as_dense": bool(torch.allclose(g.to_dense(), dense.weight.grad, rtol=1e-5, atol=1e-6)),
             **{f"{k}_error": v for k, v in errors.items()}}
    ok = (facts["is_sparse"] and facts["same_as_dense"] and errors["sgd"] is None and errors["sparse_adam"] is None
          and _raised(errors["adam"], "RuntimeError") and _raised(errors["adamw"], "RuntimeError"))
    return Demo("X4", ok, facts)


X4 = Lesson("X4", demo_X4, headline=("rows_stored", "dense_floats"), terms=("allclose",))


def demo_X5(lab: Lab) -> Demo:
    """from_pretrained(W) freezes by default and uses W's memory: change W and the layer changes."""
    given = _bench(lab).weight  # (n, E) a private copy: we may write into it
    frozen = nn.Embedding.from_pretrained(given)
    trainable = nn.Embedding.from_pretrained(given, freeze=False)
    before = float(frozen.weight[0, 0])
    given[0, 0] += 1.0  # write into the tensor we passed
    facts = {"default_requires_grad": bool(frozen.weight.requires_grad),
             "freeze_false_requires_grad": bool(trainable.weight.requires_grad),
             "shares_memory": frozen.weight.data_ptr() == given.data_ptr(),
             "freeze_false_shares_memory": trainable.weight.data_ptr() == given.data_ptr(),
             "value_before": before, "value_after": float(frozen.weight[0, 0]),
             "lab_requires_grad": bool(lab.weight.requires_grad)}
    ok = (not facts["default_requires_grad"] and facts["shares_memory"] and facts["value_after"] != before
          and facts["freeze_false_requires_grad"] and facts["freeze_false_shares_memory"])
    return Demo("X5", ok, facts)


X5 = Lesson("X5", demo_X5, headline=("value_before", "value_after"))


def demo_X6(lab: Lab) -> Demo:
    """EmbeddingBag(mode="mean", padding_idx=PAD) is the mean over non-PAD ids, whatever the PAD row holds."""
    bench = _bench(lab)
    bag = nn.EmbeddingBag.from_pretrained(bench.weight, mode="mean", padding_idx=bench.pad)
    odd = bench.weight.clone()
    odd[bench.pad] = 7.0  # a PAD row nobody would average in
    odd_bag = nn.EmbeddingBag.from_pretrained(odd, mode="mean", padding_idx=bench.pad)
    with torch.no_grad():
        pooled, pooled_odd = bag(bench.ids), odd_bag(bench.ids)  # (b, E) each
    x = F.embedding(bench.ids, bench.weight)  # (b, T, E)
    keep = (bench.ids != bench.pad).unsqueeze(-1)  # (b, T, 1)
    masked = (x * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1)  # (b, E)
    naive = x.mean(dim=1)  # (b, E)
    facts = {"max_diff": float((pooled - masked).abs().max()), "close": bool(torch.allclose(pooled, masked, atol=1e-6)),
             "ignores_pad_row": bool(torch.allclose(pooled_odd, pooled, atol=1e-6)),
             "naive_max_diff": float((naive - masked).abs().max()), "pad_cells": int((~keep).sum()),
             **bench.facts(lab)}
    return Demo("X6", facts["close"] and facts["ignores_pad_row"], facts)


X6 = Lesson("X6", demo_X6, headline=("max_diff", "naive_max_diff"), terms=("allclose",))


def _x7_snapshots(lab: Lab) -> tuple[list[int], list[np.ndarray], int, bool]:
    """Stored W snapshots (evenly thinned), or a few steps of a copy when fewer than two are stored.

    Returns steps, the tables (their first rows and PAD when W is big), PAD's row in them, and
    whether they come from training a copy.
    """
    keep, pad = _pca_rows(lab)
    limit = max(2, min(X7_MAX_SNAPSHOTS, X7_MAX_FLOATS // (len(keep) * lab.weight.shape[1])))
    steps = sorted(lab.snapshots)
    if len(steps) >= 2:
        pick = sorted({steps[round(i * (len(steps) - 1) / (limit - 1))] for i in range(limit)})
        return pick, [lab.snapshots[s][keep] for s in pick], pad, False
    bench = _bench(lab)
    emb = bench.embedding()
    cfg = lab.recipe.config
    opt = make_optimizer(cfg.optimizer, [emb.weight], cfg.lr, cfg.weight_decay)
    tables = [emb.weight.detach().numpy().copy()]
    g = _gen(lab, 7)
    for _ in range(TRAIN_STEPS):  # the probe loss: every looked-up row moves, even if the real loss has saturated
        opt.zero_grad()
        _probe_loss(emb, bench.ids, g).backward()
        opt.step()
        tables.append(emb.weight.detach().numpy().copy())
    return [lab.steps + i for i in range(TRAIN_STEPS + 1)], tables, bench.pad, True


def demo_X7(lab: Lab, frame: Frame | None = None) -> Demo:
    """Refitting PCA every step moves the PAD point; one fixed frame keeps it still while its row is still.

    The fixed frame is ``frame`` when given (the training view's, so PAD sits where ② draws it),
    else one PCA fitted on the snapshots shown."""
    steps, tables, pad, trained_copy = _x7_snapshots(lab)
    fixed = frame if frame is not None else fit_frame(tables, n_components=2)
    refits = [fit_frame([w], n_components=2) for w in tables]
    p_fixed = [fixed.transform(w[pad: pad + 1])[0] for w in tables]  # each (k,)
    p_refit = [f.transform(w[pad: pad + 1])[0] for f, w in zip(refits, tables)]
    move = lambda pts: max(float(np.linalg.norm(p - pts[0])) for p in pts)  # noqa: E731
    flips = sum(float(np.dot(a.axes[0], b.axes[0])) < 0 for a, b in zip(refits, refits[1:]))
    pad_changed = any(not np.array_equal(w[pad], tables[0][pad]) for w in tables)
    rows = [["step", "pad_refit", "pad_fixed"]]
    rows += [[s, [float(c) for c in a], [float(c) for c in b]]
             for s, a, b in zip(steps, p_refit, p_fixed)]
    facts = {"snapshots": len(tables), "rows": len(tables[0]), "trained_copy": trained_copy,
             "training_frame": frame is not None,
             "refit_move": move(p_refit),
             "fixed_move": move(p_fixed), "axis_flips": flips, "pad_row_changed": pad_changed}
    others_moved = any(not np.array_equal(np.delete(w, pad, 0), np.delete(tables[0], pad, 0)) for w in tables)
    facts["other_rows_moved"] = others_moved
    ok = (facts["fixed_move"] == 0.0) == (not pad_changed) and (facts["refit_move"] > 0 or not others_moved)
    figure = {"kind": "frames", "steps": steps, "pad": pad, "pad_token": _token(lab, lab.recipe.vocab.pad_id),
              "refit": [_plane(f.transform(w)) for f, w in zip(refits, tables)],  # S × (n, 2)
              "fixed": [_plane(fixed.transform(w)) for w in tables]}
    return Demo("X7", ok, facts, {"pad_points": rows}, figure=figure)


def _plane(points: np.ndarray) -> list[list[float]]:
    """Projected rows as [x, y] pairs; a 1-D frame (E = 1) is drawn on y = 0. (n, 2)"""
    if points.shape[1] == 1:
        points = np.hstack([points, np.zeros_like(points)])
    return points[:, :2].astype(float).tolist()


X7 = Lesson("X7", demo_X7, headline=("refit_move", "fixed_move", "axis_flips"), terms=("pca",), uses_frame=True,
             shown_only_if=only_if(trained_copy=lambda f: f["trained_copy"], training_frame=lambda f: f["training_frame"]))
