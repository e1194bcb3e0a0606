"""Training, checked against fresh torch computations (C7, C8, C13, X7) and for reproducibility."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
import torch
import torch.nn.functional as F
from torch import nn

from core.model import seeded_embedding_weight
from core.projection import fit_frame, thin_steps
from core.training import OPTIMIZERS, Lab, replay
from support.labs import make_lab, preset_lab
from support.torch_reference import PlainLoop

ROWS_PAD0 = [("<PAD>", 0, "pad"), ("a", 1, ""), ("b", 2, ""), ("<UNK>", 3, "unk"), ("c", 4, ""), ("d", 5, ""), ("e", 6, "")]
TEXT = "a b a c | 1\nb zz | 0\nc c | 1\nd | 0"


def test_seeded_table_is_nn_embedding_init_drawn_from_a_private_generator():
    e = nn.Embedding(7, 4, padding_idx=2)
    with torch.no_grad():
        nn.init.normal_(e.weight, generator=torch.Generator().manual_seed(11))  # reset_parameters' draw
        e._fill_padding_idx_with_zero()
    assert torch.equal(seeded_embedding_weight(7, 4, 2, 11), e.weight.detach())


def test_same_seed_same_weights_different_seed_different():
    a, b, c = make_lab(seed=5), make_lab(seed=5), make_lab(seed=6)
    assert torch.equal(a.weight, b.weight) and not torch.equal(a.weight, c.weight)


def manual_masked_mean_grad(lab: Lab, w0: torch.Tensor, head_w: torch.Tensor, head_b: torch.Tensor):
    """The first step's dL/dW recomputed with plain tensor ops, independent of the app's model."""
    w = w0.clone().requires_grad_(True)
    ids, lengths = lab.batch.ids, lab.batch.lengths
    vectors = w[ids]  # (B, T, E)
    mask = lab.batch.mask.unsqueeze(-1).float()  # (B, T, 1)
    pooled = (vectors * mask).sum(1) / lengths.unsqueeze(1).float()  # (B, E)
    loss = F.cross_entropy(pooled @ head_w.T + head_b, torch.tensor(lab.recipe.labels))
    loss.backward()
    return loss.item(), w.grad


def test_gradient_rows_match_fresh_torch_and_unused_rows_are_exactly_zero():
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=4, seed=3, optimizer="sgd")
    w0 = lab.weight.detach().clone()
    loss, grad = manual_masked_mean_grad(lab, w0, lab.model.head.weight.detach().clone(), lab.model.head.bias.detach().clone())
    rec = lab.step()
    assert rec.loss == pytest.approx(loss, rel=1e-6)
    assert torch.allclose(rec.grad_rows, grad[rec.grad_ids], rtol=1e-5, atol=1e-8)
    unused = [i for i in range(7) if i not in rec.grad_ids.tolist()]
    assert unused == [6]  # only 'e' is never looked up; everything else is, PAD included
    assert rec.unused_grad_max == 0.0
    assert torch.count_nonzero(grad[unused]) == 0
    pad_row = rec.grad_rows[rec.grad_ids.tolist().index(0)]
    assert torch.count_nonzero(pad_row) == 0  # PAD is in the batch, yet its gradient is exactly 0 (C13)


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_each_step_is_torchs_fused_update_and_the_same_math_as_the_default_loop(optimizer):
    """The app's optimizers are torch's with fused=True: bitwise equal to a fresh fused optimizer fed
    the same gradients, and within float32 rounding of the default (per-tensor) implementation."""
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=4, seed=3, optimizer=optimizer, lr=0.3, weight_decay=0.05)
    cfg = lab.recipe.config
    copies = {}
    for fused in (True, False):
        params = [p.detach().clone().requires_grad_(True) for p in lab.model.parameters()]
        extra = {"momentum": 0.9} if optimizer == "momentum" else {}
        cls = {"sgd": torch.optim.SGD, "momentum": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[optimizer]
        copies[fused] = (params, cls(params, lr=cfg.lr, weight_decay=cfg.weight_decay, fused=fused, **extra))
    for _ in range(4):
        lab.step()
        grads = [p.grad.detach().clone() for p in lab.model.parameters()]
        for params, opt in copies.values():
            for p, g in zip(params, grads):
                p.grad = g.clone()
            opt.step()
        for p, q in zip(lab.model.parameters(), copies[True][0]):
            assert torch.equal(p.detach(), q.detach())
    for p, q in zip(lab.model.parameters(), copies[False][0]):
        assert torch.allclose(p.detach(), q.detach(), rtol=1e-5, atol=1e-6)


def test_repeated_id_gradient_is_the_sum_over_positions():
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=3, seed=1)
    ids = lab.batch.ids
    vectors = lab.model.embedding(ids)  # (B, T, E)
    vectors.retain_grad()
    loss = F.cross_entropy(lab.model.head(lab.model.pool(vectors, lab.batch.lengths)), torch.tensor(lab.recipe.labels))
    loss.backward()
    per_position = vectors.grad  # (B, T, E)
    for i in [1, 4]:  # 'a' twice in sentence 0; 'c' in sentences 0 and 2
        expected = per_position[ids == i].sum(0)
        assert torch.allclose(lab.model.embedding.weight.grad[i], expected, atol=1e-7)


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_zero_pad_row_stays_bitwise_zero_and_fixed_in_one_frame(optimizer, wd):
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=4, seed=2, optimizer=optimizer, weight_decay=wd, lr=0.05)
    lab.run(25)
    assert torch.count_nonzero(lab.weight[0]) == 0
    steps = sorted(lab.snapshots)
    frame = fit_frame([lab.snapshots[s] for s in steps], 2)
    pad_points = np.stack([frame.transform(lab.snapshots[s])[0] for s in steps])
    assert (pad_points == pad_points[0]).all()


def test_refitting_pca_per_step_would_move_the_pad_point():
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=4, seed=2)
    lab.run(20)
    per_step = [fit_frame([lab.snapshots[s]], 2).transform(lab.snapshots[s])[0] for s in (0, 20)]
    assert not np.allclose(per_step[0], per_step[1])  # X7: the camera moved, not the PAD row


@given(st.lists(st.integers(0, 10_000), unique=True, min_size=1, max_size=400), st.integers(2, 50), st.integers(1, 30))
def test_thin_steps_keeps_first_and_last_at_most_limit_and_its_picks_stay_put(steps, limit, more):
    steps = sorted(steps)
    picks = thin_steps(steps, limit)
    assert picks[0] == steps[0] and picks[-1] == steps[-1] and len(picks) <= limit
    assert picks == sorted(set(picks)) and set(picks) <= set(steps)
    if len(steps) <= limit:
        assert picks == steps
    grown = steps + list(range(steps[-1] + 1, steps[-1] + 1 + more))
    later = thin_steps(grown, limit)
    stride = lambda n: -(-(n - 1) // (limit - 1))  # noqa: E731
    if len(steps) > limit and stride(len(grown)) == stride(len(steps)):
        assert set(picks[:-1]) <= set(later)  # same stride: the earlier picks are still drawn


def test_same_recipe_same_steps_bitwise_identical_and_replay_matches():
    a = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=5, seed=9, optimizer="momentum", batch_size=2)
    a.run(13)
    b = replay(a.recipe, 13)
    for pa, pb in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(pa, pb)


@pytest.mark.parametrize("preset", ["chapter", "reviews_ko"])  # every sentence per step; batches of 8 that wrap
def test_each_of_the_newest_steps_keeps_its_looked_up_rows_gradient_norms_as_fresh_torch_has_them(preset):
    """What W's gradient column shows at each step a Play glide walks through: the step's looked-up rows
    and their ‖dL/dW‖, for the newest GRAD_STEPS_KEPT steps, against a fresh torch loop's gradients."""
    from core.training import GRAD_STEPS_KEPT

    lab = preset_lab(preset)
    lab.run(7)
    lab.step()
    lab.run(GRAD_STEPS_KEPT + 3)  # the steps of a Run keep them as a Step does
    ref = PlainLoop(lab.recipe, keep_snapshots=True).run(lab.steps)
    assert sorted(lab.grad_norms) == list(range(lab.steps - GRAD_STEPS_KEPT + 1, lab.steps + 1))
    for step, (ids, norms) in lab.grad_norms.items():
        looked_up = np.unique(ref.batch(step)[0].numpy())
        np.testing.assert_array_equal(ids, looked_up)
        np.testing.assert_allclose(norms, ref.grad_norms[step][looked_up], rtol=1e-6, atol=1e-9)
        assert not np.any(np.delete(ref.grad_norms[step], looked_up)), "a row not looked up had a gradient"
    last_ids, last_norms = lab.grad_norms[lab.steps]
    np.testing.assert_array_equal(last_norms, torch.linalg.vector_norm(lab.last.grad_rows, dim=1).numpy())
    lab.back_to(10)
    assert max(lab.grad_norms) == 10 and len(lab.grad_norms) == min(10, GRAD_STEPS_KEPT)


@pytest.mark.parametrize("preset", ["chapter", "reviews_ko"])  # every sentence per step; batches of 8 that wrap
def test_the_labs_steps_are_a_plain_torch_loops_bitwise(preset):
    lab = preset_lab(preset)
    ref = PlainLoop(lab.recipe).run(13)  # its own weights from the seed, its own padding and batches
    lab.run(13)
    np.testing.assert_array_equal(lab.weight_numpy(), ref.weight)
    assert lab.losses == ref.losses


def test_loss_decreases_on_the_review_preset():
    lab = preset_lab("reviews_ko")
    lab.run(60)
    assert lab.losses[-1] < 0.5 * lab.losses[0]
    probs = lab.predict()
    assert (probs.argmax(1) == torch.tensor(lab.recipe.labels)).float().mean() > 0.9


def test_with_momentum_a_row_absent_from_this_step_still_moves():
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=3, seed=4, optimizer="momentum", batch_size=1)
    lab.step()  # sentence 0: a b a c
    rec = lab.step()  # sentence 1: b zz(→UNK) — 'a' is absent
    assert 1 not in rec.grad_ids.tolist()
    assert rec.delta[1] > 0  # moved by the velocity left from step 1 (C8)
    sgd = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=3, seed=4, optimizer="sgd", batch_size=1)
    sgd.step()
    assert sgd.step().delta[1] == 0  # plain SGD: absent rows stay


@pytest.mark.parametrize("optimizer", ["adam", "momentum", "sgd"])
def test_each_rows_movement_is_what_fresh_torch_measures(monkeypatch, optimizer):
    """rec.delta is ‖W_after − W_before‖ per row, bit for bit: after a Step, after a hand-set PAD row,
    at the last step of a Run, and with a big table's history (first and latest snapshots only),
    computed in blocks smaller than W. W before a step is read from its kept snapshot, never copied."""
    import core.training as training

    monkeypatch.setattr(training, "MOVED_BLOCK_FLOATS", 7)  # blocks of 2 rows (E = 3): 4 blocks for 7 rows
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=3, seed=2, optimizer=optimizer, batch_size=1)

    befores = []  # W cloned before each recorded step (a Run records only its last)
    real_step = Lab._step  # every step goes through it: a Step click and each of a run's
    monkeypatch.setattr(Lab, "_step", lambda self, record, snapshot: (
        record and befores.append(self.weight.detach().clone()), real_step(self, record, snapshot))[1])

    def checked(act) -> None:
        rec = act()
        assert torch.equal(rec.delta, torch.linalg.vector_norm(lab.weight.detach() - befores[-1], dim=1))
        assert (rec.delta > 0).any() and rec.step == lab.steps
        np.testing.assert_array_equal(lab.snapshots[lab.steps], lab.weight.detach().numpy())

    checked(lab.step)
    checked(lab.step)
    lab.set_pad_row([1.0, -2.0, 0.5])
    checked(lab.step)
    checked(lambda: lab.run(5))
    monkeypatch.setattr(Lab, "snapshot_limit", lambda self: 2)
    checked(lambda: lab.run(4))  # snapshots only at its last two steps
    checked(lab.step)
    assert lab._scratch is None


def test_hand_set_pad_row_is_not_rezeroed_and_weight_decay_shrinks_it():
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=3, seed=4, optimizer="adamw", weight_decay=0.5)
    lab.set_pad_row([1.0, -2.0, 0.5])
    with torch.no_grad():
        assert torch.equal(lab.model.embedding(torch.tensor([0]))[0], torch.tensor([1.0, -2.0, 0.5]))
    before = lab.weight[0].detach().norm()
    lab.run(5)
    assert 0 < lab.weight[0].detach().norm() < before


def test_snapshot_history_is_thinned_within_budget(monkeypatch):
    from core import limits

    monkeypatch.setattr(limits, "SNAPSHOT_BUDGET_FLOATS", 7 * 4 * 6)  # room for 6 snapshots
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=4)
    lab.run(40)
    assert len(lab.snapshots) <= 6 and 0 in lab.snapshots and 40 in lab.snapshots


def test_a_run_that_only_has_room_for_two_snapshots_copies_w_twice_and_ends_where_steps_end(monkeypatch):
    from core import limits

    monkeypatch.setattr(limits, "SNAPSHOT_BUDGET_FLOATS", 7 * 4 * 2)  # first and latest only (a big table)
    run, stepped = (make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=4) for _ in range(2))
    copies = []
    original = Lab._keep_snapshot
    monkeypatch.setattr(Lab, "_keep_snapshot", lambda self: (copies.append(self.steps), original(self))[1])
    run.run(30)
    assert copies == [29, 30]  # W kept at the last two steps only: the last one reads step 29's as "W before"
    copies.clear()
    for _ in range(30):
        stepped.step()
    assert copies == list(range(1, 31))
    assert sorted(run.snapshots) == sorted(stepped.snapshots) == [0, 30]
    for s in (0, 30):
        np.testing.assert_array_equal(run.snapshots[s], stepped.snapshots[s])
    np.testing.assert_array_equal(run.snapshots[30], run.weight.detach().numpy())


def test_a_run_stopped_by_an_exception_still_keeps_the_latest_w(monkeypatch):
    from core import limits

    monkeypatch.setattr(limits, "SNAPSHOT_BUDGET_FLOATS", 7 * 4 * 2)
    lab = make_lab(ROWS_PAD0, TEXT, ("neg", "pos"), embedding_dim=4)

    def stop(done, n):
        if done == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        lab.run(20, on_progress=stop)
    assert lab.steps == 7 and sorted(lab.snapshots) == [0, 7]
    np.testing.assert_array_equal(lab.snapshots[7], lab.weight.detach().numpy())


def test_a_lab_the_machine_cannot_hold_is_refused_before_anything_is_allocated(monkeypatch):
    import core.cost as memory
    from core.problems import InputError
    from server import admission
    from server.budget import Budget

    head = 2 * 301  # the 2-class head: weight and bias
    assert memory.lab_bytes(100_000, 300, "adam") == 4 * (4 * (30_000_000 + head) + 2 * 30_000_000)
    assert memory.lab_bytes(10, 4, "sgd") == 4 * (2 * (40 + 2 * 5) + memory.limits.SNAPSHOT_BUDGET_FLOATS)
    assert admission.memory_problems(100_000, 300, "adam", available=64 * 2**30) == []
    (p,) = admission.memory_problems(100_000, 300, "adam", available=2**30)
    assert p.code == "server_memory" and p.params["free_mb"] == 1024 and p.params["need_mb"] > 686
    assert admission.memory_problems(6, 3, "adam", available=0) == []  # small labs are never refused
    monkeypatch.setattr(admission, "CHECK_ABOVE_BYTES", 0)
    monkeypatch.setattr(admission, "available_bytes", lambda: 2**20)
    work = Budget(admissions=admission.Admissions())  # the lab's work admits it (core/work.py)
    with pytest.raises(InputError) as e:
        make_lab(work=work)
    assert [p.code for p in e.value.problems] == ["server_memory"]
    assert make_lab().steps == 0  # no work given: core alone admits every lab
    monkeypatch.setattr(admission, "available_bytes", lambda: None)  # unknown (not Linux): nothing is refused
    assert make_lab(work=work).steps == 0


def test_free_memory_is_the_nearer_of_the_machine_and_the_containers_cgroup_limit(tmp_path, monkeypatch):
    import server.admission as memory

    def cgroup(name, limit, usage):
        (tmp_path / f"{name}.limit").write_text(limit)
        (tmp_path / f"{name}.usage").write_text(usage)
        return str(tmp_path / f"{name}.limit"), str(tmp_path / f"{name}.usage")

    monkeypatch.setattr(memory, "_meminfo_available", lambda: 20 * 2**30)
    monkeypatch.setattr(memory, "CGROUP_FILES", (cgroup("v2", f"{2 * 2**30}\n", f"{3 * 2**29}\n"),
                                                 cgroup("v1", "9223372036854771712\n", "123\n")))
    assert memory.available_bytes() == 2**29  # a 2 GiB container using 1.5 GiB: 0.5 GiB left, not the host's 20
    monkeypatch.setattr(memory, "CGROUP_FILES", (cgroup("v2max", "max\n", "5\n"), (str(tmp_path / "no"), str(tmp_path / "no"))))
    assert memory.available_bytes() == 20 * 2**30  # no limit, or no cgroup files: the machine's MemAvailable
    monkeypatch.setattr(memory, "_meminfo_available", lambda: None)
    assert memory.available_bytes() is None


def test_training_without_labels_is_refused_with_a_problem():
    from core.problems import InputError

    lab = make_lab(ROWS_PAD0, "a b\nc | 1", ("neg", "pos"))
    with pytest.raises(InputError) as e:
        lab.step()
    assert e.value.problems[0].code == "labels_missing"
