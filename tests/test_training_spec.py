"""docs/training.md is a complete specification: a training loop written from that page alone gives
the app's losses and W bit for bit.

`SpecLoop` below is that loop. It shares no code with the app: it reads the examples' JSON files
(assets/presets/*.json) itself and uses only torch. The app side is the app's own session object
(`core.explorer.Explorer`), driven as the page drives it: a preset, then the knobs, then steps.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
STEPS = 10
DEFAULTS = {"embedding_dim": 3, "seed": 0, "fixed_len": None, "pooling": "masked_mean", "optimizer": "adam",
            "lr": 0.1, "weight_decay": 0.0, "batch_size": 0}  # docs/training.md, "The inputs" and the table


# ---- the reference, from docs/training.md ------------------------------------------------------
def read_example(name: str) -> tuple[list[str], int, int, list[str], list[list[str]], list[int], dict]:
    """(tokens by id, UNK, PAD, classes, sentences' tokens, labels, knobs) of an example's JSON."""
    data = json.loads((ROOT / "assets" / "presets" / f"{name}.json").read_text(encoding="utf-8"))
    tokens = [""] * len(data["vocab"])
    unk = pad = None
    for token, i, role in data["vocab"]:
        tokens[i] = token
        unk = i if role == "unk" else unk
        pad = i if role == "pad" else pad
    classes = list(data["classes"])
    names = [c.strip().casefold() for c in classes]
    sentences, labels = [], []
    for line in data["sentences"].splitlines():
        body, _, label = line.rpartition("|")
        if not body.split():
            continue
        sentences.append(body.split())
        label = label.strip()
        labels.append(names.index(label.casefold()) if label.casefold() in names else int(label))
    return tokens, unk, pad, classes, sentences, labels, {**DEFAULTS, **data.get("config", {})}


class SpecLoop:
    """The model, the batch and the steps exactly as docs/training.md states them."""

    def __init__(self, tokens, unk, pad, classes, sentences, labels, knobs):
        V, E, seed = len(tokens), knobs["embedding_dim"], knobs["seed"]
        index = {t: i for i, t in enumerate(tokens)}
        encoded = [[index.get(t, unk) for t in s] for s in sentences]
        T = knobs["fixed_len"] if knobs["fixed_len"] is not None else max(len(e) for e in encoded)
        self.ids = torch.full((len(encoded), T), pad, dtype=torch.long)
        for b, e in enumerate(encoded):
            self.ids[b, :min(len(e), T)] = torch.tensor(e[:T], dtype=torch.long)
        self.lengths = torch.tensor([min(len(e), T) for e in encoded], dtype=torch.long)
        self.targets = torch.tensor(labels, dtype=torch.long)
        self.k, self.pooling = knobs["batch_size"], knobs["pooling"]

        w = torch.randn(V, E, generator=torch.Generator().manual_seed(seed))
        w[pad] = 0
        self.embedding = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=pad)
        g1 = torch.Generator().manual_seed(seed + 1)
        params = [self.embedding.weight]
        self.lstm = None
        with torch.no_grad():
            if self.pooling in ("lstm", "packed_lstm"):
                self.lstm = nn.LSTM(E, E, batch_first=True)
                for p in self.lstm.parameters():
                    p.uniform_(-1 / math.sqrt(E), 1 / math.sqrt(E), generator=g1)
                params += list(self.lstm.parameters())
            self.head = nn.Linear(E, max(2, len(classes)))
            nn.init.kaiming_uniform_(self.head.weight, a=math.sqrt(5), generator=g1)
            self.head.bias.uniform_(-1 / math.sqrt(E), 1 / math.sqrt(E), generator=g1)
        params += [self.head.weight, self.head.bias]
        lr, wd = knobs["lr"], knobs["weight_decay"]
        self.optimizer = {
            "sgd": lambda: torch.optim.SGD(params, lr=lr, weight_decay=wd, fused=True),
            "momentum": lambda: torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=wd, fused=True),
            "adam": lambda: torch.optim.Adam(params, lr=lr, weight_decay=wd, fused=True),
            "adamw": lambda: torch.optim.AdamW(params, lr=lr, weight_decay=wd, fused=True),
        }[knobs["optimizer"]]()
        self.losses: list[float] = []

    def forward(self, ids, lengths):
        vectors = self.embedding(ids)
        T = vectors.shape[1]
        if self.pooling == "masked_mean":
            mask = (torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(-1)
            pooled = (vectors * mask).sum(dim=1) / lengths.unsqueeze(1).to(vectors.dtype)
        elif self.pooling == "mean":
            pooled = vectors.mean(dim=1)
        elif self.pooling == "lstm":
            _, (h, _) = self.lstm(vectors)
            pooled = h[0]
        else:
            packed = nn.utils.rnn.pack_padded_sequence(vectors, lengths, batch_first=True, enforce_sorted=False)
            _, (h, _) = self.lstm(packed)
            pooled = h[0]
        return self.head(pooled)

    def step(self) -> None:
        s, B, k = len(self.losses) + 1, self.ids.shape[0], self.k
        rows = torch.arange(B) if k <= 0 or k >= B else (torch.arange(k) + (s - 1) * k) % B
        self.optimizer.zero_grad()
        loss = nn.functional.cross_entropy(self.forward(self.ids[rows], self.lengths[rows]), self.targets[rows])
        loss.backward()
        self.optimizer.step()
        self.losses.append(loss.item())


# ---- the comparison ----------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """docs/training.md: compute with one intra-op thread, as the server does."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def app_run(example: str, knobs: dict, steps: int):
    """The app's losses and W after ``steps`` Steps of ``example`` with ``knobs`` set as the page sets them."""
    from assets import presets
    from core.explorer import Explorer

    ex = Explorer.from_preset(presets.load(example))
    assert ex.apply_config({**ex.config_values(), **knobs}) == []
    for _ in range(steps):
        assert ex.step() == []
    return ex.lab.losses, ex.lab.weight.detach()


# Per example, two settings each optimizer and pooling is checked at: the example's own knobs, and
# others that exercise weight decay, a different seed, E and "sentences per step" wrapping unevenly
# around the sentences (3 of 2 sentences is all of them; 7 of 40 wraps at step 6), and truncation.
SETTINGS = {
    "chapter": [{}, {"seed": 5, "embedding_dim": 4, "weight_decay": 0.05, "batch_size": 1, "lr": 0.05},
                {"fixed_len": 2, "batch_size": 3, "weight_decay": 0.01}],
    "reviews_en": [{}, {"seed": 2, "weight_decay": 0.02, "batch_size": 7, "lr": 0.05},
                   {"batch_size": 0, "fixed_len": 4}],
}


@pytest.mark.parametrize("example", ["chapter", "reviews_en"])
@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam", "adamw"])
@pytest.mark.parametrize("pooling", ["masked_mean", "mean", "lstm", "packed_lstm"])
def test_the_documented_training_gives_the_apps_losses_and_w_bitwise(example, optimizer, pooling):
    tokens, unk, pad, classes, sentences, labels, knobs = read_example(example)
    for extra in SETTINGS[example]:
        chosen = {**knobs, **extra, "optimizer": optimizer, "pooling": pooling}
        ref = SpecLoop(tokens, unk, pad, classes, sentences, labels, chosen)
        for _ in range(STEPS):
            ref.step()
        losses, w = app_run(example, {**extra, "optimizer": optimizer, "pooling": pooling}, STEPS)
        assert torch.equal(torch.tensor(losses), torch.tensor(ref.losses)), (extra, losses, ref.losses)
        assert torch.equal(w, ref.embedding.weight.detach()), extra
        assert len(set(ref.losses)) > 1, "training moved nothing: the comparison would prove little"


@pytest.mark.parametrize("optimizer", ["momentum", "adamw"])
def test_run_a_hand_set_pad_row_and_reset_are_as_documented(optimizer):
    """Run N is N steps; the PAD row set by hand is written in place between steps, the optimizer's
    state kept, and weight decay then moves it; Reset starts again from the seed."""
    from assets import presets
    from core.explorer import Explorer

    tokens, unk, pad, classes, sentences, labels, knobs = read_example("chapter")
    chosen = {**knobs, "optimizer": optimizer, "weight_decay": 0.1, "batch_size": 1}
    ref = SpecLoop(tokens, unk, pad, classes, sentences, labels, chosen)
    ex = Explorer.from_preset(presets.load("chapter"))
    assert ex.apply_config({**ex.config_values(), "optimizer": optimizer, "weight_decay": 0.1, "batch_size": 1}) == []
    for _ in range(3):
        ref.step()
    assert ex.run(3) == []
    with torch.no_grad():
        ref.embedding.weight[pad] = torch.tensor([0.5, -1.0, 2.0])
    assert ex.set_pad([0.5, -1.0, 2.0]) == []
    for _ in range(4):
        ref.step()
    assert ex.run(4) == []
    assert torch.equal(torch.tensor(ex.lab.losses), torch.tensor(ref.losses))
    assert torch.equal(ex.lab.weight.detach(), ref.embedding.weight.detach())
    assert not torch.equal(ref.embedding.weight[pad], torch.tensor([0.5, -1.0, 2.0]))  # decay moved it

    ex.reset()
    fresh = SpecLoop(tokens, unk, pad, classes, sentences, labels, chosen)
    fresh.step()
    assert ex.step() == []
    assert ex.lab.losses == fresh.losses and torch.equal(ex.lab.weight.detach(), fresh.embedding.weight.detach())
