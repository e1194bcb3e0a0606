"""Lessons C10, C11, C13, C15, C16: same id, same vector; UNK and PAD; padding_idx; the chapter's code."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from core.lessons.common import (
    CHAPTER_CODE,
    CHAPTER_IDS,
    CHAPTER_PREPROCESSING,
    DECAY,
    DECAY_LR,
    DECAY_STEPS,
    LSTM_SENTENCES,
    SHOW_ROWS,
    TRAIN_STEPS,
    DRAW_DIMS,
    DRAW_IDS,
    DRAW_ROWS,
    Demo,
    _absmax,
    _grid,
    Lesson,
    only_if,
    _Bench,
    _bench,
    _error,
    _gen,
    _grad_answers,
    _most_repeated,
    _probe_loss,
    _raised,
    _seeded_lstm,
    _token,
    _vec,
)
from core.model import seeded_embedding_weight
from core.training import Lab, make_optimizer


# ---- C10, C11: same id → same vector; UNK vs PAD ---------------------------------------------------
def demo_C10(lab: Lab) -> Demo:
    """The same id gives bitwise the same vector at every position; an LSTM after it gives context."""
    bench = _bench(lab)
    vectors = F.embedding(bench.ids, bench.weight)  # (b, T, E)
    row = _id_in_two_contexts(bench.ids, bench.pad)
    ids, constructed = bench.ids, False
    if row is None:  # no id repeats after different prefixes: look one up in two made-up sentences
        row, _ = _most_repeated(bench.ids, bench.weight.shape[0], bench.pad)
        row = row if row is not None else bench.pad
        other = bench.pad if row != bench.pad else (row + 1) % bench.weight.shape[0]
        ids, constructed = torch.tensor([[row, other], [other, row]]), True
        vectors = F.embedding(ids, bench.weight)  # (2, 2, E)
    where = (ids == row).nonzero()  # (k, 2) positions (sentence, t)
    at = vectors[ids == row]  # (k, E)
    same = all(torch.equal(at[0], v) for v in at) and torch.equal(vectors, bench.weight[ids])
    with torch.no_grad():
        outputs, _ = _seeded_lstm(bench.weight.shape[1], _gen(lab, 10))(vectors)  # (b, T, H)
    context = outputs[ids == row]  # (k, H)
    rows = [["position", "vector", "lstm_output"]]
    rows += [[p, _vec(v), _vec(h)] for p, v, h in zip(where.tolist()[:SHOW_ROWS], at, context)]
    facts = {"id": bench.vocab_id(row), "token": _token(lab, bench.vocab_id(row)), "positions": len(where),
             "constructed": constructed, "all_equal": same,
             "lstm_max_diff": float((context - context[0]).abs().max()), **bench.facts(lab)}
    shown = _varied_positions(ids, where.tolist())[:DRAW_ROWS]
    used = sorted({b for b, _ in shown})  # the sentences the drawn positions come from
    figure = {"kind": "same_id", "id": facts["id"], "token": facts["token"], "constructed": constructed,
              "sentences": [[b, [_token(lab, bench.vocab_id(i)) for i in ids[b].tolist()]] for b in used],
              "positions": shown, "vectors": _grid(at[:len(shown)]),  # (k, E) one row per position
              "lstm": _grid(context[:len(shown)]), "absmax": _absmax(lab)}  # (k, H) the LSTM's output there
    return Demo("C10", same, facts, {"positions": rows}, figure=figure)


C10 = Lesson("C10", demo_C10, headline=("positions", "lstm_max_diff"),
             shown_only_if=only_if(constructed=lambda f: f["constructed"]))


def _varied_positions(ids: torch.Tensor, where: list[list[int]]) -> list[list[int]]:
    """The positions [b, t], one per distinct beginning ids[b, :t] first (those the LSTM tells apart), then the rest."""
    seen, first, rest = set(), [], []
    for b, t in where:
        prefix = tuple(ids[b, :t].tolist())
        (rest if prefix in seen else first).append([b, t])
        seen.add(prefix)
    return first + rest


def _id_in_two_contexts(ids: torch.Tensor, pad: int) -> int | None:
    """The most repeated non-PAD id that occurs after two different prefixes (so an LSTM sees two contexts)."""
    prefixes: dict[int, set[tuple[int, ...]]] = {}
    rows = ids.tolist()
    for sentence in rows:
        for t, i in enumerate(sentence):
            if i != pad:
                prefixes.setdefault(i, set()).add(tuple(sentence[:t]))
    varied = [i for i, p in prefixes.items() if len(p) >= 2]
    if not varied:
        return None
    counts = {i: sum(s.count(i) for s in rows) for i in varied}
    return max(varied, key=lambda i: (counts[i], -i))


def demo_C11(lab: Lab) -> Demo:
    """UNK (a real token missing from the vocabulary) and PAD (an empty slot) have different ids."""
    vocab, batch = lab.recipe.vocab, lab.batch
    ids, mask = batch.ids, batch.mask  # (B, T)
    oov = [tok for sentence in batch.tokens for tok in sentence if tok not in vocab.index]
    expected = torch.full_like(ids, vocab.pad_id)  # what each cell must hold, from the tokens
    for b, sentence in enumerate(batch.tokens):
        if sentence:
            expected[b, : len(sentence)] = torch.tensor(vocab.encode(sentence))
    W = lab.weight.detach()
    facts = {"unk_id": vocab.unk_id, "pad_id": vocab.pad_id, "unk_token": _token(lab, vocab.unk_id),
             "pad_token": _token(lab, vocab.pad_id), "ids_differ": vocab.unk_id != vocab.pad_id,
             "unk_cells": int(((ids == vocab.unk_id) & mask).sum()), "oov_count": len(oov),
             "oov_tokens": list(dict.fromkeys(oov))[:SHOW_ROWS], "pad_cells": int((~mask).sum()),
             "pad_typed": int(((ids == vocab.pad_id) & mask).sum()), "cells": ids.numel(),
             "unk_row": _vec(W[vocab.unk_id]), "pad_row": _vec(W[vocab.pad_id])}
    rows = [["sentence", "tokens", "ids"]]
    rows += [[b, " ".join(s), ids[b].tolist()] for b, s in enumerate(batch.tokens[:SHOW_ROWS])]
    ok = facts["ids_differ"] and torch.equal(ids, expected) and bool((ids[~mask] == vocab.pad_id).all())
    return Demo("C11", ok, facts, {"batch": rows})


C11 = Lesson("C11", demo_C11, headline=("unk_cells", "pad_cells", "oov_count"), needs_finite=False)


# ---- C13: padding_idx ---------------------------------------------------------------------------------
PAD_ANSWERS = ("zero", "nonzero")  # C13's question: with padding_idx, what gradient does the PAD row get?

def _with_pad_column(bench: _Bench) -> tuple[torch.Tensor, bool]:
    """The bench's ids, with one PAD column appended if no PAD is looked up. (b, T or T+1)"""
    if bool((bench.ids == bench.pad).any()):
        return bench.ids, True
    return torch.cat([bench.ids, torch.full((bench.ids.shape[0], 1), bench.pad)], dim=1), False


def _pad_gradient(lab: Lab, bench: _Bench) -> dict[str, Any]:
    """Every position gets a random non-zero gradient; padding_idx still leaves the PAD row's at 0."""
    ids, in_batch = _with_pad_column(bench)
    with_idx = bench.embedding()
    _probe_loss(with_idx, ids, _gen(lab, 13)).backward()
    without = nn.Embedding.from_pretrained(bench.weight.clone(), freeze=False)  # no padding_idx
    _probe_loss(without, ids, _gen(lab, 13)).backward()
    rows = sorted(set(ids.reshape(-1).tolist()))[:DRAW_IDS]  # the rows looked up (PAD among them)
    figure = {"kind": "pad_grad", "ids": [bench.vocab_id(r) for r in rows],
              "tokens": [_token(lab, bench.vocab_id(r)) for r in rows], "pad_id": bench.vocab_id(bench.pad),
              "with_idx": with_idx.weight.grad[rows].norm(dim=1).double().tolist(),  # (k,) ‖grad row‖
              "without_idx": without.weight.grad[rows].norm(dim=1).double().tolist(),
              "pad_with": with_idx.weight.grad[bench.pad, :DRAW_DIMS].double().tolist(),  # (E,)
              "pad_without": without.weight.grad[bench.pad, :DRAW_DIMS].double().tolist()}
    return {"figure": figure, "pad_in_batch": in_batch, "pad_cells": int((ids == bench.pad).sum()),
            "pad_grad_max": float(with_idx.weight.grad[bench.pad].abs().max()),
            "pad_grad_without_idx": float(without.weight.grad[bench.pad].norm()),
            "pad_answer": ["zero" if bool((with_idx.weight.grad[bench.pad] == 0).all()) else "nonzero"],
            "grad_rows": _grad_answers(with_idx.weight.grad, ids, bench.pad)}


def _train_pad(lab: Lab, bench: _Bench, name: str, pad_row: torch.Tensor, lr: float, wd: float, steps: int):
    """The PAD row after ``steps`` probe-loss steps of ``name`` (first sentence + a PAD), starting from ``pad_row``."""
    emb = bench.embedding(pad_row=pad_row)
    ids = torch.cat([bench.ids[:1], torch.full((1, 1), bench.pad)], dim=1)  # (1, T+1) first sentence + a PAD
    opt = make_optimizer(name, [emb.weight], lr, wd)
    g = _gen(lab, 131)
    for _ in range(steps):
        opt.zero_grad()
        _probe_loss(emb, ids, g).backward()
        opt.step()
    return emb.weight.detach()[bench.pad]  # (E,)


def _pad_vector(lab: Lab) -> torch.Tensor:
    """The PAD row a learner might set by hand: theirs if it is not zero, else 0.5 everywhere. (E,)"""
    row = lab.weight.detach()[lab.recipe.vocab.pad_id]
    return row.clone() if bool(row.any()) else torch.full_like(row, 0.5)


def _pad_rules(lab: Lab, bench: _Bench) -> dict[str, Any]:
    """Zero PAD stays zero; a hand-set PAD is looked up, not re-zeroed, and shrunk by weight decay."""
    cfg, E = lab.recipe.config, bench.weight.shape[1]
    zero, v = torch.zeros(E), _pad_vector(lab)
    facts: dict[str, Any] = {
        f"zero_after_{n}": float(_train_pad(lab, bench, n, zero, cfg.lr, 0.1, TRAIN_STEPS).abs().max())
        for n in ("sgd", "momentum", "adam", "adamw")}
    emb = bench.embedding(pad_row=v)
    with torch.no_grad():
        looked_up = emb(torch.tensor(bench.pad))  # (E,)
    after = _train_pad(lab, bench, "sgd", v, cfg.lr, 0.0, TRAIN_STEPS)
    start = torch.full((E,), 0.5)  # a fixed start, so "Adam's L2 is faster" does not hinge on the scale
    adam, adamw = (_train_pad(lab, bench, n, start, DECAY_LR, DECAY, DECAY_STEPS) for n in ("adam", "adamw"))
    W = bench.weight.clone()
    W[bench.pad] = v
    pretrained = nn.Embedding.from_pretrained(W, padding_idx=bench.pad).weight[bench.pad]
    V = lab.recipe.vocab.size
    facts.update({"hand_vector": _vec(v), "hand_lookup_equal": torch.equal(looked_up, v),
                  "hand_kept_after_steps": torch.equal(after, v), "decay_lr": DECAY_LR, "decay": DECAY,
                  "decay_steps": DECAY_STEPS, "norm_start": float(start.norm()), "norm_adam_l2": float(adam.norm()),
                  "norm_adamw": float(adamw.norm()), "from_pretrained_kept": torch.equal(pretrained, v),
                  "minus_one_means": nn.Embedding(V, E, padding_idx=-1, device="meta").padding_idx,
                  "out_of_range_error": _error(lambda: nn.Embedding(V, E, padding_idx=V, device="meta"))})
    return facts


def demo_C13(lab: Lab) -> Demo:
    """padding_idx: no gradient to the PAD row, zero stays zero, but nothing re-zeroes a hand-set row."""
    bench = _bench(lab)
    gradient = _pad_gradient(lab, bench)
    figure = gradient.pop("figure")
    facts = {"pad_id": lab.recipe.vocab.pad_id, "vocab_size": lab.recipe.vocab.size,
             **gradient, **_pad_rules(lab, bench), **bench.facts(lab)}
    zero_kept = all(facts[f"zero_after_{n}"] == 0.0 for n in ("sgd", "momentum", "adam", "adamw"))
    ok = (facts["pad_grad_max"] == 0.0 and zero_kept and facts["hand_lookup_equal"] and facts["hand_kept_after_steps"]
          and facts["norm_adam_l2"] < facts["norm_adamw"] < facts["norm_start"] and facts["from_pretrained_kept"]
          and facts["minus_one_means"] == facts["vocab_size"] - 1
          and _raised(facts["out_of_range_error"], "AssertionError"))
    return Demo("C13", ok, facts, figure=figure)


C13 = Lesson("C13", demo_C13, headline=("pad_grad_max", "pad_grad_without_idx", "norm_adam_l2", "norm_adamw"),
            predict=("pad_answer", PAD_ANSWERS), terms=("norm",))


# ---- C15: zero vectors are still computed on --------------------------------------------------------
@torch.no_grad()
def _lstm_pads(lab: Lab, bench: _Bench) -> tuple[dict[str, Any], dict[str, Any]]:
    """An LSTM's final state with and without zero inputs after the shortest sentence; and the
    figure: its state h_t at every step, run on the padded sentence and packed to its length."""
    x_all = F.embedding(bench.ids, bench.weight) * bench.mask.unsqueeze(-1)  # (b, T, E) real tokens only
    live = x_all.any(dim=2).any(dim=1)  # (b,) sentences with a non-zero input
    if bool(live.any()):  # the shortest such sentence
        b = int(torch.where(live, bench.lengths, bench.lengths.max() + 1).argmin())
        length = int(bench.lengths[b])
        x = x_all[b: b + 1, :length]  # (1, L, E)
        tokens = [_token(lab, bench.vocab_id(i)) for i in bench.ids[b, :length].tolist()]
    else:  # only zero rows typed (e.g. <PAD> as a word): one token of the first non-zero row
        b, length = None, 1
        rows = bench.weight.any(dim=1).nonzero()[:1, 0]
        x = bench.weight[rows][None] if len(rows) else torch.ones(1, 1, bench.weight.shape[1])  # (1, 1, E)
        tokens = [_token(lab, bench.vocab_id(int(rows[0])))] if len(rows) else ["1"]
    n_pads = max(1, bench.ids.shape[1] - length)
    padded = torch.cat([x, torch.zeros(1, n_pads, x.shape[2])], dim=1)  # (1, L + n_pads, E)
    facts: dict[str, Any] = {"sentence": b, "length": length, "zero_steps": n_pads}
    figure: dict[str, Any] = {}
    for bias in (True, False):
        lstm = _seeded_lstm(x.shape[2], _gen(lab, 15), bias=bias)
        _, (h_real, _) = lstm(x)  # (1, 1, H)
        states, (h_pad, _) = lstm(padded)  # (1, L + n_pads, H)
        facts[f"state_diff_{'bias' if bias else 'no_bias'}"] = float((h_pad - h_real).abs().max())
        if bias:  # the figure: the layer the chapter's models use
            packed_out, (h_packed, _) = lstm(pack_padded_sequence(padded, torch.tensor([length]), batch_first=True))
            packed_states = packed_out.data  # (L, H): one row per real step, none for the zero steps
            last = states[0, length - 1]  # (H,) the state after the last real token
            figure = {"kind": "lstm_pads", "sentence": b, "length": length, "tokens": tokens,
                      "pad_token": _token(lab, bench.vocab_id(bench.pad)),
                      "padded": states[0, :, :DRAW_DIMS].double().tolist(),  # (L + n_pads, H)
                      "packed": packed_states[:, :DRAW_DIMS].double().tolist(),  # (L, H)
                      "h_padded": h_pad[0, 0, :DRAW_DIMS].double().tolist(),
                      "h_packed": h_packed[0, 0, :DRAW_DIMS].double().tolist(),
                      "drift": [float((h - last).norm()) for h in states[0]]}  # ‖h_t − h_(L−1)‖
    return facts, figure


@torch.no_grad()
def _packed(lab: Lab, bench: _Bench) -> dict[str, Any]:
    """pack_padded_sequence over the padded batch ≈ running each sentence alone, unpadded."""
    k = min(LSTM_SENTENCES, bench.ids.shape[0])
    x = F.embedding(bench.ids[:k], bench.weight)  # (k, T, E)
    lstm = _seeded_lstm(x.shape[2], _gen(lab, 16))
    packed = pack_padded_sequence(x, bench.lengths[:k], batch_first=True, enforce_sorted=False)
    _, (h_packed, _) = lstm(packed)  # (1, k, H)
    alone = torch.cat([lstm(x[i: i + 1, : int(bench.lengths[i])])[1][0] for i in range(k)], dim=1)  # (1, k, H)
    _, (h_padded, _) = lstm(x)  # (1, k, H), pads included
    return {"packed_max_diff": float((h_packed - alone).abs().max()),
            "packed_close": bool(torch.allclose(h_packed, alone, atol=1e-6)),
            "padded_max_diff": float((h_padded - alone).abs().max())}


def demo_C15(lab: Lab) -> Demo:
    """Zero pads still go through the computation: LSTM state moves, a plain mean is diluted by L/T."""
    bench = _bench(lab)
    pads, figure = _lstm_pads(lab, bench)
    facts = {**pads, **_packed(lab, bench), **bench.facts(lab)}
    x = F.embedding(bench.ids, bench.weight)  # (b, T, E)
    T = x.shape[1]
    length = bench.lengths.unsqueeze(1).float()  # (b, 1)
    mask = bench.mask.unsqueeze(-1)  # (b, T, 1)
    naive = x.mean(dim=1)  # (b, E), pads in the denominator
    masked = (x * mask).sum(dim=1) / length  # (b, E)
    pad_part = (x * ~mask).sum(dim=1) / T  # (b, E): zero when the PAD row is zero
    mean_ok = bool(torch.allclose(naive, masked * length / T + pad_part, atol=1e-6))
    rows = [["sentence", "length", "ratio", "naive_norm", "masked_norm"]]
    rows += [[i, int(bench.lengths[i]), int(bench.lengths[i]) / T, float(naive[i].norm()),
              float(masked[i].norm())] for i in range(min(SHOW_ROWS, x.shape[0]))]
    facts.update({"padded_length": T, "pad_row_zero": not bool(bench.weight[bench.pad].any()), "mean_relation": mean_ok,
                  "output_shape": list(x.shape)})
    ok = (facts["state_diff_bias"] > 0 and facts["state_diff_no_bias"] > 0 and facts["packed_close"] and mean_ok)
    return Demo("C15", ok, facts, {"means": rows}, figure=figure)


C15 = Lesson("C15", demo_C15, headline=("state_diff_no_bias", "packed_max_diff", "padded_max_diff"),
            terms=("allclose", "norm"))


# ---- C16: the chapter's own code -------------------------------------------------------------------
def _run_chapter(seed: int) -> dict[str, Any]:
    """Execute CHAPTER_CODE as written; nn.Embedding's global-RNG init runs in a forked RNG."""
    namespace: dict[str, Any] = {}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        exec(compile(CHAPTER_CODE, "<chapter 4.4>", "exec"), namespace)  # noqa: S102 - fixed text
    return namespace


def _learner_through_chapter(lab: Lab) -> tuple[list | None, dict[str, str] | None]:
    """The chapter's preprocessing lines run on the learner's vocabulary and sentences."""
    namespace: dict[str, Any] = {"torch": torch, "vocab": dict(lab.recipe.vocab.index),
                                 "tokens": [list(s) for s in lab.recipe.sentences]}
    err = _error(lambda: exec(compile(CHAPTER_PREPROCESSING, "<chapter 4.4>", "exec"), namespace))  # noqa: S102
    return (namespace["inputs"].tolist() if err is None else None), err


def demo_C16(lab: Lab) -> Demo:
    """The chapter's code, run as written: ids [[2, 0, 3], [2, 4, 1]], shape (2, 3, 3), vectors[1, 2] = 0."""
    seed = lab.recipe.config.seed
    ns = _run_chapter(seed)
    inputs, vectors, weight = ns["inputs"], ns["vectors"].detach(), ns["embedding"].weight.detach()
    learner_ids, learner_error = _learner_through_chapter(lab)
    chapter_ids = [list(row) for row in CHAPTER_IDS]
    facts = {"inputs": inputs.tolist(), "inputs_as_chapter": inputs.tolist() == chapter_ids,
             "vectors_shape": list(vectors.shape), "pad_vector": vectors[1, 2].tolist(),
             "pad_vector_zero": bool(torch.count_nonzero(vectors[1, 2]) == 0),
             "unknown_became": int(inputs[0, 1]), "seed": seed,
             "same_as_seeded": torch.equal(weight, seeded_embedding_weight(6, 3, 1, seed)),
             "learner_ids": learner_ids, "learner_error": learner_error,
             "learner_matches_batch": learner_ids == lab.batch.ids.tolist(),
             "learner_is_chapter": lab.batch.ids.tolist() == chapter_ids}
    rows = [["token", "id", "vector"]] + [[t, i, _vec(weight[i])] for t, i in ns["vocab"].items()]
    ok = facts["inputs_as_chapter"] and facts["vectors_shape"] == [2, 3, 3] and facts["pad_vector_zero"]
    figure = {"kind": "code", "code": CHAPTER_CODE, "seed": seed, "inputs": inputs.tolist(),
              "vectors": vectors.double().tolist()}  # (2, 3, 3) what the code printed when run
    return Demo("C16", ok, facts, {"chapter_table": rows}, figure=figure)


C16 = Lesson("C16", demo_C16, headline=("unknown_became",), needs_finite=False)
