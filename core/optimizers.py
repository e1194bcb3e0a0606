"""The four optimizers the app offers, built the one way every lab, lesson and reference builds them."""

from __future__ import annotations

import torch

from core.knobs import OPTIMIZERS


def make_optimizer(name: str, params, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    """The four optimizers the app offers. Adam's weight_decay is L2 in the gradient; AdamW's is decoupled.

    ``fused=True``: torch's one-kernel update, the same math as the default per-tensor loop. It is
    several times faster at 100k×300 and about twice as fast at the chapter's size (bench_training.py
    prints both). Its rounding can differ from the default loop's in the last bit, so the
    generated script (core.codegen) and every test's fresh torch reference use it too.
    """
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr, weight_decay=weight_decay, fused=True)
    if name == "momentum":
        return torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=weight_decay, fused=True)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay, fused=True)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, fused=True)
    raise ValueError(f"optimizer must be one of {OPTIMIZERS}")
