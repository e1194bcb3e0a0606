"""Lesson X9: from_pretrained's own pitfall with padding_idx (after X5, which shows freeze and shared memory).

``nn.Embedding(V, E, padding_idx=PAD)`` zeroes the PAD row when it builds its table (C13), but
``nn.Embedding.from_pretrained(W, padding_idx=PAD)`` keeps every row it is given: a vector file
that has a ``<PAD>`` vector puts it into W, and the lookup returns it. What ``padding_idx`` still
does is keep that row's gradient exactly zero, so training never moves it, and never zeroes it.
"""

from __future__ import annotations

import torch

from core.lessons.common import SHOW_ROWS, Demo, Lesson, _bench, _gen, _probe_loss, _token, only_if
from core.training import Lab


def demo_X9(lab: Lab) -> Demo:
    """from_pretrained(W, padding_idx=PAD, freeze=False) keeps W's PAD row as given; its gradient is exactly 0."""
    bench = _bench(lab)
    w = bench.weight.clone()  # (n, E) a private copy
    pad = bench.pad
    from_lab = bool(w[pad].any())  # the learner's table already holds a non-zero PAD row (a file's, or set by hand)
    if not from_lab:  # what a vector file's "<PAD>" line would give: any non-zero vector
        w[pad] = torch.randn(w.shape[1], generator=_gen(lab, 9)) + 0.5
    given = w.clone()
    emb = torch.nn.Embedding.from_pretrained(w, freeze=False, padding_idx=pad)
    kept = torch.equal(emb.weight.detach()[pad].view(torch.int32), given[pad].view(torch.int32))
    looked_up = torch.equal(emb(torch.tensor([pad]))[0].detach(), given[pad])
    ids = torch.cat([bench.ids.reshape(-1), torch.tensor([pad, pad])])  # PAD looked up for sure
    _probe_loss(emb, ids, _gen(lab, 10)).backward()
    grad = emb.weight.grad  # (n, E)
    others = torch.unique(ids[ids != pad])  # (K,)
    with torch.no_grad():
        torch.optim.SGD([emb.weight], lr=1.0).step()
    after = emb.weight.detach()
    still = torch.equal(after[pad].view(torch.int32), given[pad].view(torch.int32))
    others_moved = int((after[others] != given[others]).any(dim=1).sum())
    p = lab.recipe.pretrained
    facts = {"pad_id": lab.recipe.vocab.pad_id, "pad_token": _token(lab, lab.recipe.vocab.pad_id),
             "from_lab": from_lab, "from_file": p is not None and _token(lab, lab.recipe.vocab.pad_id) in p.tokens,
             "given_norm": float(given[pad].norm()), "kept": kept, "lookup_returns_it": looked_up,
             "pad_grad_max": float(grad[pad].abs().max()), "rows_with_grad": int(grad[others].ne(0).any(dim=1).sum()),
             "rows_looked_up": len(others), "still_after_step": still, "rows_moved": others_moved, **bench.facts(lab)}
    rows = [["id", "token", "vector", "grad_norm", "unchanged"]]
    for r in [pad] + others[:SHOW_ROWS - 1].tolist():
        rows.append([bench.vocab_id(r), _token(lab, bench.vocab_id(r)), [float(x) for x in given[r]],
                     float(grad[r].norm()), torch.equal(after[r], given[r])])
    ok = (facts["given_norm"] > 0 and kept and looked_up and facts["pad_grad_max"] == 0.0 and still
          and facts["rows_with_grad"] == len(others) and others_moved == len(others))
    return Demo("X9", ok, facts, {"rows": rows})


X9 = Lesson("X9", demo_X9, headline=("given_norm", "pad_grad_max"), terms=("norm",),
            shown_only_if=only_if(from_file=lambda f: f["from_file"]))
