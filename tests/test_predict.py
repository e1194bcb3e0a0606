"""Predict, then reveal next to Step (core/predict.py, components/predict.py): each guess is marked
against what torch computes for that step, recomputed here from a copy of the weights with plain
tensor ops and a fresh torch optimizer, on states other than the chapter's."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from assets import presets
from core.explorer import Explorer
from core.predict import make_guess
from tests.apptest_helpers import shown, start


def torch_step(ex: Explorer):
    """What the next step does, by torch: (rows with a non-zero gradient, PAD moved?, loss before,
    loss after) for a masked-mean lab, with plain SGD (no optimizer state) or from step 0."""
    lab, cfg = ex.lab, ex.lab.recipe.config
    assert cfg.pooling == "masked_mean" and (cfg.optimizer == "sgd" or lab.steps == 0)
    rows = lab.step_rows(lab.steps + 1)
    ids, lengths = lab.batch.ids[rows], lab.batch.lengths[rows]
    targets = torch.tensor([lab.recipe.labels[int(r)] for r in rows])
    w = lab.weight.detach().clone().requires_grad_(True)
    head_w = lab.model.head.weight.detach().clone().requires_grad_(True)
    head_b = lab.model.head.bias.detach().clone().requires_grad_(True)
    pad = lab.recipe.vocab.pad_id

    def loss_of(w, head_w, head_b):
        vectors = F.embedding(ids, w, padding_idx=pad)  # (K, T, E); PAD gets no gradient
        mask = (torch.arange(ids.shape[1]) < lengths.unsqueeze(1)).unsqueeze(-1).float()
        pooled = (vectors * mask).sum(1) / lengths.unsqueeze(1).float()
        return F.cross_entropy(pooled @ head_w.T + head_b, targets)

    loss = loss_of(w, head_w, head_b)
    loss.backward()
    touched = tuple(int(i) for i in torch.nonzero(w.grad.ne(0).any(1)).flatten())
    w_before = w.detach().clone()
    opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[cfg.optimizer]
    opt([w, head_w, head_b], lr=cfg.lr, weight_decay=cfg.weight_decay, fused=True).step()
    with torch.no_grad():
        after = loss_of(w, head_w, head_b).item()
    return touched, bool((w.detach()[pad] != w_before[pad]).any()), loss.item(), after


def explorer(pid: str, **cfg) -> Explorer:
    ex = Explorer.from_preset(presets.load(pid))
    if cfg:
        assert not ex.apply_config({**ex.config_values(), "optimizer": "sgd", "pooling": "masked_mean", **cfg})
    return ex


@pytest.mark.parametrize("pad_row, cfg", [
    (None, {"lr": 0.5, "weight_decay": 0.0, "batch_size": 4}),  # the PAD row stays: no gradient, no decay
    ((1.0, -2.0, 0.5), {"lr": 0.5, "weight_decay": 0.1, "batch_size": 0}),  # a hand-set PAD row decays
    (None, {"lr": 10.0, "weight_decay": 0.0, "batch_size": 3}),  # a step so large the loss goes up
])
def test_each_guess_is_marked_against_a_fresh_torch_step(pad_row, cfg):
    ex = explorer("reviews_ko", embedding_dim=3, seed=1, **cfg)
    ex.run(2)
    if pad_row is not None:
        assert not ex.set_pad(pad_row)
    touched, pad_moved, before, after = torch_step(ex)
    wrong_rows = tuple(sorted(set(touched) ^ {ex.vocab.pad_id}))  # PAD's row added: never right
    ex.predict(wrong_rows, pad_moves=not pad_moved, loss_down=after < before)
    assert not ex.step()
    marks = {v.question: v for v in ex.verdicts()}
    assert marks["rows"].actual == touched and not marks["rows"].right
    assert marks["pad"].actual is pad_moved and not marks["pad"].right
    assert marks["loss"].actual is (after < before) and marks["loss"].right
    assert ex.answered.loss_before == pytest.approx(before, rel=1e-6)
    assert ex.answered.loss_after == pytest.approx(after, rel=1e-5)
    assert pad_moved is (pad_row is not None)  # the cases cover both answers
    ex.step()  # a step nobody guessed about: its marks are not the old ones
    assert ex.verdicts() == []


def test_the_large_step_makes_the_loss_go_up():
    ex = explorer("reviews_ko", embedding_dim=3, seed=1, lr=10.0, weight_decay=0.0, batch_size=3)
    ex.run(2)
    _, _, before, after = torch_step(ex)
    assert after > before  # so the third case above marks a "no" guess right


def test_nothing_guessed_is_no_guess_and_widget_garbage_is_dropped():
    assert make_guess(1) is None and make_guess(1, [], None, None) is None
    g = make_guess(3, [4, True, "2", 1, 4], pad_moves="yes", loss_down=False)
    assert g.rows == (1, 4) and g.pad_moves is None and g.loss_down is False and g.step == 3


def test_run_and_reset_are_not_marked():
    ex = explorer("chapter")
    ex.predict([0, 2, 3, 4], pad_moves=False)
    ex.run(3)
    assert ex.verdicts() == []
    ex.predict([0, 2, 3, 4], pad_moves=False)
    ex.reset()
    assert ex.guess is None and ex.verdicts() == []


def test_the_page_marks_each_guess_next_to_step():
    at = start("ko")
    at.button_group(key="section").set_value("train").run()
    at.session_state["predict_step"] = True  # the popover of guesses, built only while open
    at.run()
    ex = at.session_state["_ws"]
    touched, pad_moved, before, after = torch_step(explorer("chapter"))  # the same lab as the page's
    at.multiselect(key="predict_rows").set_value([0, 1, 2, 3, 4]).run()  # PAD (1) included: wrong
    at.radio(key="predict_pad").set_value(False).run()
    at.radio(key="predict_loss").set_value(after < before).run()
    at.button(key="step").click().run()
    assert not at.exception
    assert touched == (0, 2, 3, 4) and not pad_moved
    marks = [shown(m.value) for m in at.get("markdown") if "1단계 예측" in shown(m.value)]
    assert len(marks) == 1, [shown(m.value) for m in at.get("markdown")]
    text = marks[0]
    assert ":red[**✗ 틀림**]: 기울기를 받은 행은 0 · <UNK>, 2 · 영화, 3 · 좋다, 4 · 나쁘다 " \
           "(예측 0 · <UNK>, 1 · <PAD>, 2 · 영화, 3 · 좋다, 4 · 나쁘다)" in text
    assert ":green[**✓ 맞음**]: PAD 행은 그대로였습니다" in text
    assert f":green[**✓ 맞음**]: 손실 {before:.4f} → {after:.4f}" in text
    assert ex.lab.steps == 1
