"""Divergence is a lesson, not a crash (issue 17): a step that makes the loss or a parameter non-finite
is undone, named (step, likely cause), and the lab can go back to any earlier step bitwise.

The answer key is a fresh torch loop over the same starting parameters: nn.Embedding's lookup, a
hand-written masked mean, F.cross_entropy and torch's own fused optimizer. It finds the first step
whose loss or parameters are not finite; the lab must stop just before it, holding what torch holds.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from assets import presets
from components.i18n import problem_text, t
from tests.apptest_helpers import shown  # noqa: E402
from core import state as S
from core.batch import parse_sentences
from core.problems import InputError
from core.state_schema import TensorData
from core.training import Config, Lab, Recipe, replay
from core.vocab import Vocab

RECIPES = [("reviews_en", "sgd"), ("reviews_en", "momentum"), ("chapter", "adamw")]


def preset_recipe(pid: str, **cfg) -> tuple[Recipe, str]:
    p = presets.load(pid)
    lines = parse_sentences(p["sentences"], p["classes"])
    return Recipe(Vocab.from_rows(p["vocab"]), tuple(l.tokens for l in lines), tuple(l.label for l in lines),
                  tuple(p["classes"]), Config(**{**p["config"], **cfg})), p["sentences"]


def torch_reference(recipe: Recipe, n: int) -> tuple[int | None, list[list[torch.Tensor]]]:
    """(first non-finite step or None, parameters after each finite step: [0] is the start)."""
    cfg = recipe.config
    start = Lab(recipe)  # only its step-0 parameters: the seeded init is checked against nn.Embedding elsewhere
    emb_w, head_w, head_b = (p.detach().clone().requires_grad_(True) for p in start.model.parameters())
    params = [emb_w, head_w, head_b]
    extra = {"momentum": 0.9} if cfg.optimizer == "momentum" else {}
    cls = {"sgd": torch.optim.SGD, "momentum": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}
    opt = cls[cfg.optimizer](params, lr=cfg.lr, weight_decay=cfg.weight_decay, fused=True, **extra)
    ids, lengths = start.batch.ids, start.batch.lengths  # (B, T), (B,)
    mask = (torch.arange(ids.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(-1)  # (B, T, 1)
    targets = torch.tensor(recipe.labels)
    B, k_ = ids.shape[0], cfg.batch_size
    history = [[p.detach().clone() for p in params]]
    for k in range(1, n + 1):
        # batch_size k_ (0 < k_ < B): step k takes the next k_ sentences in turn, wrapping round
        rows = (torch.arange(k_) + (k - 1) * k_) % B if 0 < k_ < B else torch.arange(B)  # (K,)
        opt.zero_grad()
        vectors = F.embedding(ids[rows], emb_w, padding_idx=recipe.vocab.pad_id)  # (K, T, E)
        pooled = (vectors * mask[rows]).sum(dim=1) / lengths[rows].unsqueeze(1).float()  # (K, E)
        loss = F.cross_entropy(pooled @ head_w.T + head_b, targets[rows])
        loss.backward()
        opt.step()
        if not math.isfinite(loss.item()) or not all(bool(torch.isfinite(p).all()) for p in params):
            return k, history
        history.append([p.detach().clone() for p in params])
    return None, history


@pytest.mark.parametrize("pid,optimizer", RECIPES)
def test_the_issues_recipe_stops_at_the_last_finite_step_torch_reaches(pid, optimizer):
    recipe, _ = preset_recipe(pid, optimizer=optimizer, lr=10.0, weight_decay=10.0)
    bad, history = torch_reference(recipe, 50)
    assert bad is not None and bad < 50  # the recipe does diverge in torch itself
    lab = Lab(recipe)
    progress = []
    lab.run(50, on_progress=lambda done, n: progress.append(done))  # no exception
    assert lab.steps == bad - 1 and progress[-1] == bad - 1  # run stopped early, at the last finite step
    assert lab.diverged.code == "diverged"
    assert lab.diverged.params["step"] == bad and lab.diverged.params["cause"] == "weight_decay"
    for p, q in zip(lab.model.parameters(), history[bad - 1]):
        assert torch.allclose(p.detach(), q, rtol=1e-5, atol=0) and bool(torch.isfinite(p).all())
    assert len(lab.losses) == bad - 1 and all(math.isfinite(x) for x in lab.losses)
    assert all(np.isfinite(w).all() for w in lab.snapshots.values())  # the picture draws only finite W
    assert max(lab.snapshots) == bad - 1
    with pytest.raises(InputError) as e:
        lab.step()
    assert e.value.problems == [lab.diverged]
    assert lab.train_problems() == [lab.diverged]


@pytest.mark.parametrize("pid,optimizer", RECIPES)
def test_step_by_step_the_diverging_step_is_undone_bitwise(pid, optimizer):
    recipe, _ = preset_recipe(pid, optimizer=optimizer, lr=10.0, weight_decay=10.0)
    lab = Lab(recipe)
    held = None
    while lab.diverged is None:
        held = [p.detach().clone() for p in lab.model.parameters()]
        lab.step()
    for p, q in zip(lab.model.parameters(), held):
        assert torch.equal(p.detach(), q)  # exactly what the lab held before the diverging step
    assert lab.last is not None and lab.last.step == lab.steps


def test_back_to_a_step_is_bitwise_the_same_as_training_to_it_and_clears_the_divergence():
    recipe, _ = preset_recipe("reviews_en", optimizer="sgd", lr=10.0, weight_decay=10.0)
    lab = Lab(recipe)
    lab.run(50)
    diverged_at, uid = lab.diverged.params["step"], lab.uid
    snapshot_3 = lab.snapshots[3].copy()
    lab.back_to(3)
    assert lab.diverged is None and lab.steps == 3 and lab.uid != uid
    fresh = Lab(recipe)
    for _ in range(3):
        fresh.step()
    for p, q in zip(lab.model.parameters(), fresh.model.parameters()):
        assert torch.equal(p, q)
    assert np.array_equal(lab.snapshots[3], snapshot_3) and max(lab.snapshots) == 3
    lab.run(50)  # the same settings diverge at the same step again
    assert lab.diverged.params["step"] == diverged_at


@pytest.mark.parametrize("bad", [-1, 99, 2.0, True, "1"])
def test_back_to_refuses_a_step_that_is_not_behind_us(bad):
    recipe, _ = preset_recipe("chapter")
    lab = Lab(recipe)
    lab.run(2)
    w = lab.weight.detach().clone()
    with pytest.raises(InputError) as e:
        lab.back_to(bad)
    assert [p.code for p in e.value.problems] == ["back_to_range"]
    assert torch.equal(lab.weight, w) and lab.steps == 2


def test_back_to_reapplies_hand_set_pad_rows_where_they_were_set():
    recipe, _ = preset_recipe("chapter", optimizer="momentum")
    lab = Lab(recipe)
    lab.run(2)
    lab.set_pad_row([0.5, -1.0, 2.0])
    lab.run(3)
    lab.set_pad_row([1.0, 1.0, 1.0])
    lab.run(2)
    lab.back_to(4)
    assert lab.pad_edits == [(2, (0.5, -1.0, 2.0))]
    want = replay(recipe, 4, [(2, (0.5, -1.0, 2.0))])
    for p, q in zip(lab.model.parameters(), want.model.parameters()):
        assert torch.equal(p, q)


def huge_weights_state(value: float) -> bytes:
    """The chapter's state, exported at step 0, with every weight replaced by ``value``."""
    recipe, text = preset_recipe("chapter")
    obj = json.loads(S.export_state(recipe, text, "en", Lab(recipe)))
    obj["weights"] = TensorData.of(torch.full((recipe.vocab.size, recipe.config.embedding_dim), value)).model_dump()
    return json.dumps(obj).encode()


def test_imported_weights_of_3e38_then_one_step_diverge_and_keep_the_imported_weights():
    restored = S.restore(S.parse_state(huge_weights_state(3e38)))
    lab = restored.lab
    assert restored.weights_verified is False  # the file's weights were loaded
    w = lab.weight.detach().clone()
    assert lab.step() is None  # no exception
    assert lab.diverged.params["cause"] == "weights"
    assert lab.diverged.params["step"] == 1 and lab.steps == 0
    assert torch.equal(lab.weight.detach(), w) and bool((w == torch.tensor(3e38)).all())
    assert all(np.isfinite(a).all() for a in lab.snapshots.values())
    lab.back_to(0)  # the loaded weights are part of the history: going back keeps them
    assert torch.equal(lab.weight.detach(), w)


def test_ordinary_training_is_untouched_by_the_check():
    recipe, _ = preset_recipe("reviews_en")  # Adam, lr 0.05
    lab = Lab(recipe)
    lab.run(40)
    assert lab.diverged is None and lab.steps == 40
    bad, history = torch_reference(recipe, 40)
    assert bad is None
    for p, q in zip(lab.model.parameters(), history[40]):
        assert torch.allclose(p.detach(), q, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cause", ["lr", "weight_decay", "weights"])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_message_names_the_step_and_the_cause_in_both_languages(lang, cause):
    params = {"step": 11, "last": 10, "cause": cause, "lr": 10.0, "wd": 10.0, "factor": "-99"}
    from core.problems import Problem

    text = shown(problem_text(lang, Problem("diverged", params))) + " " + t(lang, f"diverged.cause.{cause}", **params)
    assert "11" in text and "10" in text and "{" not in text
    if cause == "weight_decay":
        assert "-99" in text
