"""Lessons C7–C9: a fresh table knows nothing; what training does to the rows."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from core.lessons.common import (  # noqa: F401
    GRAD_ANSWERS,
    MAX_COPY_FLOATS,
    SHOW_ROWS,
    STATS_MAX_FLOATS,
    TRAIN_STEPS,
    Demo,
    Lesson,
    only_if,
    _Bench,
    _bench,
    _fresh_table,
    _gen,
    _grad_answers,
    _model_copy,
    _model_loss,
    _most_repeated,
    _pca_rows,
    _probe_loss,
    _vec,
)
from core.model import seeded_embedding_weight
from core.projection import fit_frame, spectrum_is_flat
from core.limits import MAX_SEED
from core.training import Lab, make_optimizer


# ---- C7, C9: a fresh table knows nothing ---------------------------------------------------------
def _normal_stats(x: torch.Tensor) -> dict[str, float]:
    x = x.reshape(-1).double()
    return {"mean": float(x.mean()), "std": float(x.std(correction=0)),
            "within_1sd": float((x.abs() < 1).double().mean()), "within_2sd": float((x.abs() < 2).double().mean())}


def demo_C7(lab: Lab) -> Demo:
    """A fresh table's ordinary rows are N(0, 1) draws (same stream as nn.Embedding); its PAD row is 0."""
    vocab, cfg = lab.recipe.vocab, lab.recipe.config
    V, E, pad = vocab.size, cfg.embedding_dim, vocab.pad_id
    small = V * E <= MAX_COPY_FLOATS
    fresh = seeded_embedding_weight(V, E, pad, cfg.seed) if small else torch.from_numpy(_fresh_table(lab))  # (V, E)
    rows = max(2, min(V, STATS_MAX_FLOATS // E))  # the first rows: all of them unless the table is big
    ordinary = torch.arange(rows) != pad  # (rows,)
    n = int(ordinary.sum()) * E
    stats = _normal_stats(fresh[:rows][ordinary])
    now = _normal_stats(lab.weight.detach()[:rows][ordinary])
    z_mean = stats["mean"] * math.sqrt(n)  # ~N(0, 1) for N(0, 1) draws
    z_var = (stats["std"] ** 2 - 1) / math.sqrt(2 / n) if n > 0 else 0.0  # ~N(0, 1) for large n
    same_as_nn = None
    if small:  # nn.Embedding draws from the global RNG: fork it, never touch it
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(cfg.seed)
            same_as_nn = torch.equal(nn.Embedding(V, E, padding_idx=pad).weight.detach(), fresh)
    facts = {"vocab_size": V, "dim": E, "seed": cfg.seed, "samples": n, "rows_used": rows, "fresh_mean": stats["mean"],
             "fresh_std": stats["std"], "fresh_within_1sd": stats["within_1sd"],
             "fresh_within_2sd": stats["within_2sd"], "z_mean": z_mean, "z_var": z_var,
             "pad_row_zero": bool(torch.count_nonzero(fresh[pad]) == 0), "same_as_nn_embedding": same_as_nn,
             "steps": lab.steps, "now_mean": now["mean"], "now_std": now["std"]}
    ok = facts["pad_row_zero"] and abs(z_mean) < 5 and abs(z_var) < 5 and same_as_nn is not False
    figure = _histogram(fresh[:rows][ordinary], lab.weight.detach()[:rows][ordinary], lab.steps)
    return Demo("C7", ok, facts, figure=figure)


HIST_EDGES = tuple(x / 4 for x in range(-16, 17))  # C7's bins: −4 to 4, width 0.25


def _histogram(fresh: torch.Tensor, now: torch.Tensor, steps: int) -> dict:
    """Counts of the fresh table's entries (and, after training, the current W's) per bin, and
    the counts N(0, 1) draws would give: n · (Φ(b) − Φ(a)) for the bin [a, b)."""
    edges = np.array(HIST_EDGES)
    phi = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731 - the N(0, 1) CDF
    n = fresh.numel()
    counts = lambda x: np.histogram(x.reshape(-1).double().numpy(), bins=edges)[0].tolist()  # noqa: E731
    return {"kind": "histogram", "edges": list(HIST_EDGES), "fresh": counts(fresh), "samples": n,
            "outside": int((fresh.abs() > edges[-1]).sum()),
            "now": counts(now) if steps > 0 else None, "steps": steps,
            "expected": [n * (phi(b) - phi(a)) for a, b in zip(edges[:-1], edges[1:])]}


C7 = Lesson("C7", demo_C7, headline=("fresh_mean", "fresh_std", "z_mean"),
            shown_only_if=only_if(rows_used=lambda f: f["rows_used"] < f["vocab_size"]), needs_finite=False,
            terms=("z_score",))


def _train_table(lab: Lab, bench: _Bench, objective: str) -> torch.Tensor:
    """W after TRAIN_STEPS steps of the learner's optimizer on a copy, for one objective. (n, E)

    "mine": the learner's loss; "labels_shifted": every label moved to the next class;
    "labels_all_first": every label set to the first class; "sign_flipped": minus the sum of logits.
    """
    cfg, n_classes = lab.recipe.config, max(2, len(lab.recipe.classes))
    labels = lab.recipe.labels[: bench.ids.shape[0]]
    emb = bench.embedding()
    model = _model_copy(lab, emb)
    opt = make_optimizer(cfg.optimizer, model.parameters(), cfg.lr, cfg.weight_decay)
    for _ in range(TRAIN_STEPS):
        opt.zero_grad()
        logits = model(bench.ids, bench.lengths)  # (b, C)
        if objective in ("mine", "sign_flipped") and not all(label is not None for label in labels):
            loss = -logits.sum() if objective == "sign_flipped" else logits.sum()
        else:
            target = [0 if objective == "labels_all_first" else (label + (objective == "labels_shifted")) % n_classes
                      for label in labels]
            loss = F.cross_entropy(logits, torch.tensor(target))  # (b,) targets
        loss.backward()
        opt.step()
    return emb.weight.detach()


def _objective_tables(lab: Lab, bench: _Bench) -> tuple[torch.Tensor, torch.Tensor, str]:
    """The learner's objective vs the first other objective that trains the copy differently.

    Shifting every label can give the same gradient (identical sentences with balanced labels);
    then every label is set to the first class. Returns both tables and the other objective.
    """
    mine = _train_table(lab, bench, "mine")
    labelled = all(label is not None for label in lab.recipe.labels[: bench.ids.shape[0]])
    for other in (("labels_shifted", "labels_all_first") if labelled else ("sign_flipped",)):
        table = _train_table(lab, bench, other)
        if not torch.equal(table, mine):
            break
    return mine, table, other


def demo_C9(lab: Lab) -> Demo:
    """Vectors take whatever shape the objective gives them; an untrained table's PCA is noise."""
    V, E = lab.weight.shape
    seed = lab.recipe.config.seed
    k = min(E, 3)
    keep, _ = _pca_rows(lab)
    fresh_frame = fit_frame([_fresh_table(lab)[keep]], n_components=k)
    now_frame = fit_frame([lab.weight.detach().numpy()[keep]], n_components=k)
    random_frame = fit_frame([np.random.default_rng(seed).standard_normal((len(keep), E))], n_components=k)
    spectra = (fresh_frame.spectrum, now_frame.spectrum, random_frame.spectrum)
    rows = [["component", "fresh_share", "now_share", "random_share"]]
    for c in range(min(SHOW_ROWS, max(len(s) for s in spectra))):
        rows.append([c + 1] + [float(s[c]) if c < len(s) else None for s in spectra])
    bench = _bench(lab)
    mine, other, kind = _objective_tables(lab, bench)
    differ = (mine != other).any(dim=1)  # (n,)
    facts = {"vocab_size": V, "dim": E, "steps": lab.steps, "one_dimension": E == 1, "pca_rows": len(keep),
             "fresh_top_share": float(fresh_frame.spectrum[0]), "now_top_share": float(now_frame.spectrum[0]),
             "random_top_share": float(random_frame.spectrum[0]), "flat_share": 1 / min(V, E),
             "fresh_flat": spectrum_is_flat(fresh_frame, len(keep), seed) if E > 1 else None,
             "now_flat": spectrum_is_flat(now_frame, len(keep), seed) if E > 1 and lab.steps > 0 else None,
             "train_steps": TRAIN_STEPS, "other_objective": kind, "rows_differing": int(differ.sum()),
             "objective_max_diff": float((mine - other).abs().max()), **bench.facts(lab)}
    figure = _two_seeds(lab)
    facts.update({k: figure[k] for k in ("seed_a", "seed_b", "seed_steps", "seed_cos")} if figure else {})
    return Demo("C9", facts["rows_differing"] > 0, facts, {"spectrum": rows}, figure=figure)


SEED_STEPS = 40  # C9: steps each seed's run trains


def sentiment_direction(lab: Lab) -> np.ndarray | None:
    """Where the last class (e.g. "positive") lies in W's coordinates: the mean vector of the
    tokens that occur mostly in sentences of that class minus the mean of those that occur mostly
    in others (PAD and UNK left out). None without labels or without both kinds of token. (E,)
    """
    vocab, recipe = lab.recipe.vocab, lab.recipe
    if not recipe.labels or any(label is None for label in recipe.labels):
        return None
    last = len(recipe.classes) - 1
    hits, seen = np.zeros(vocab.size), np.zeros(vocab.size)
    for tokens, label in zip(recipe.sentences, recipe.labels):
        for i in vocab.encode(tokens):
            seen[i] += 1
            hits[i] += label == last
    seen[[vocab.pad_id, vocab.unk_id]] = 0
    share = np.divide(hits, seen, out=np.full(vocab.size, 0.5), where=seen > 0)
    W = lab.weight.detach().double().numpy()  # (V, E)
    pos, neg = share > 0.5, (share < 0.5) & (seen > 0)
    if not pos.any() or not neg.any():
        return None
    return W[pos].mean(axis=0) - W[neg].mean(axis=0)


def _two_seeds(lab: Lab) -> dict:
    """The learner's training, SEED_STEPS steps, from their seed and from the next one: the
    direction of the last class in each W (unit length). Small tables only (two whole runs)."""
    recipe = lab.recipe
    seed_a = recipe.config.seed
    seed_b = seed_a + 1 if seed_a < MAX_SEED else seed_a - 1
    V, E = lab.weight.shape
    if V * E > MAX_COPY_FLOATS or sentiment_direction(lab) is None:
        return {}
    directions = []
    for seed in (seed_a, seed_b):
        run = Lab(replace(recipe, config=replace(recipe.config, seed=seed)), lab.work)
        for _ in range(SEED_STEPS):  # no bookkeeping, no snapshots: only the weights are read
            run.step(record=False, snapshot=False)
        d = sentiment_direction(run)
        if d is None or not np.isfinite(d).all() or not np.linalg.norm(d) > 0:
            return {}
        directions.append(d / np.linalg.norm(d))
    a, b = directions
    return {"kind": "seeds", "seed_a": seed_a, "seed_b": seed_b, "seed_steps": SEED_STEPS,
            "class": recipe.classes[-1], "a": a.tolist(), "b": b.tolist(), "seed_cos": float(a @ b),
            "top_a": int(np.argmax(np.abs(a))), "top_b": int(np.argmax(np.abs(b)))}


C9 = Lesson("C9", demo_C9, headline=("fresh_top_share", "random_top_share", "rows_differing"), codes=("other_objective",),
            shown_only_if=only_if(one_dimension=lambda f: f["one_dimension"], now_flat=lambda f: f["now_flat"] is not None),
            terms=("pca", "spectrum", "explained_ratio", "cosine"))


# ---- C8: what training does to the rows ----------------------------------------------------------
def _backward(lab: Lab, bench: _Bench):
    """One backward pass of the learner's loss on a copy; also dL/d(vector) at every position."""
    emb = bench.embedding()
    model = _model_copy(lab, emb)
    seen: list[torch.Tensor] = []

    def keep(_module, _inputs, output):
        output.retain_grad()
        seen.append(output)

    hook = emb.register_forward_hook(keep)
    loss, kind = _model_loss(lab, model, bench)
    loss.backward()
    hook.remove()
    return emb, model, seen[0].grad, kind  # per-position grads: (b, T, E)


def _absent_row_moves(lab: Lab, bench: _Bench, row: int) -> dict[str, float]:
    """Step 1 on the batch, step 2 with ``row`` replaced by PAD: how far ``row`` moves in step 2.

    The probe loss gives ``row`` a sizeable gradient in step 1 even when the learner's loss has
    saturated (a tiny gradient would move Adam's row but vanish in SGD's rounding).
    """
    second = torch.where(bench.ids == row, bench.pad, bench.ids)  # (b, T) row absent
    moves = {}
    for name in ("sgd", "momentum", "adam", "adamw"):
        emb = bench.embedding()
        opt = make_optimizer(name, [emb.weight], lab.recipe.config.lr, 0.0)
        g = _gen(lab, 8)
        for ids in (bench.ids, second):
            before = emb.weight.detach()[row].clone()  # (E,)
            opt.zero_grad()
            _probe_loss(emb, ids, g).backward()
            opt.step()
        moves[name] = float((emb.weight.detach()[row] - before).norm())
    return moves


def demo_C8(lab: Lab) -> Demo:
    """The gradient reaches only the looked-up rows (a repeated id: the sum over its positions); ids never change."""
    bench = _bench(lab)
    emb, model, per_position, kind = _backward(lab, bench)
    grad = emb.weight.grad  # (n, E)
    unused = torch.ones(grad.shape[0], dtype=torch.bool)
    unused[bench.ids.reshape(-1)] = False
    row, count = _most_repeated(bench.ids, grad.shape[0], bench.pad)
    facts = {"loss_kind": kind, "rows_looked_up": int((~unused).sum()), "rows_not_looked_up": int(unused.sum()),
             "unused_grad_max": float(grad[unused].abs().max()) if bool(unused.any()) else 0.0,
             "pad_grad_max": float(grad[bench.pad].abs().max()), "grad_rows": _grad_answers(grad, bench.ids, bench.pad),
             "repeated_id": None if row is None else bench.vocab_id(row), "repeated_count": count,
             **bench.facts(lab)}
    tables, sum_ok, moves = {}, True, {}
    if row is not None:
        at_row = per_position[bench.ids == row]  # (count, E)
        facts["repeated_sum_diff"] = float((at_row.sum(dim=0) - grad[row]).abs().max())
        sum_ok = bool(torch.allclose(at_row.sum(dim=0), grad[row], rtol=1e-5, atol=1e-6))
        tables["positions"] = [["position", "grad"]] + [
            [list(p), _vec(v)] for p, v in zip((bench.ids == row).nonzero().tolist()[:SHOW_ROWS], at_row)]
        tables["positions"].append(["Σ", _vec(at_row.sum(dim=0))])
        tables["positions"].append(["dL/dW", _vec(grad[row])])
        moves = _absent_row_moves(lab, bench, row)
        facts.update({f"absent_move_{k}": v for k, v in moves.items()})
    facts["repeated_sum_close"] = sum_ok
    facts.update(_step_facts(lab, bench, emb, model))
    ok = (facts["unused_grad_max"] == 0.0 and facts["pad_grad_max"] == 0.0 and sum_ok and facts["ids_unchanged"]
          and (not moves or (moves["sgd"] == 0.0 and moves["momentum"] > 0 and moves["adam"] > 0)))
    return Demo("C8", ok, facts, tables)


C8 = Lesson("C8", demo_C8, headline=("unused_grad_max", "pad_grad_max", "repeated_sum_diff"), codes=("loss_kind", "optimizer"),
            predict=("grad_rows", GRAD_ANSWERS), terms=("allclose",))


def _step_facts(lab: Lab, bench: _Bench, emb: nn.Embedding, model: nn.Module) -> dict[str, Any]:
    """One optimizer step (the learner's optimizer, fresh state): rows move, ids stay."""
    cfg, vocab = lab.recipe.config, lab.recipe.vocab
    sentences = lab.batch.tokens[: bench.ids.shape[0]]
    ids_before = [vocab.encode(s) for s in sentences]
    before = emb.weight.detach().clone()  # (n, E)
    make_optimizer(cfg.optimizer, model.parameters(), cfg.lr, cfg.weight_decay).step()
    moved = (emb.weight.detach() - before).norm(dim=1) > 0  # (n,)
    used = torch.zeros_like(moved)
    used[bench.ids.reshape(-1)] = True
    return {"optimizer": cfg.optimizer, "rows_moved": int(moved.sum()),
            "rows_moved_not_looked_up": int((moved & ~used).sum()),
            "ids_unchanged": [vocab.encode(s) for s in sentences] == ids_before,
            "lookup_after_is_row": torch.equal(emb(bench.ids).detach(), emb.weight.detach()[bench.ids])}
