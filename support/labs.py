"""Labs for tests and benchmarks: the chapter's example, a lab from rows and text, a lab from a preset.

The app builds its labs through `core.explorer.Explorer.from_preset`; these builders take the same
path (Vocab.from_rows → parse_sentences → Recipe.of → Lab), with any knob changed.
"""

from __future__ import annotations

import numpy as np
import torch

from core.batch import parse_sentences
from core.training import Config, Lab, Recipe
from core.vocab import Vocab
from core.work import FREE, Work

CHAPTER_ROWS = [("<UNK>", 0, "unk"), ("<PAD>", 1, "pad"), ("영화", 2, ""), ("좋다", 3, ""), ("나쁘다", 4, ""), ("재미있다", 5, "")]
CHAPTER_TEXT = "영화 정말 좋다 | 긍정\n영화 나쁘다 | 부정"
CLASSES = ("부정", "긍정")


def make_lab(rows=CHAPTER_ROWS, text=CHAPTER_TEXT, classes=CLASSES, work: Work = FREE, **config) -> Lab:
    """A lab of these vocabulary rows and sentences (the chapter's by default), with these knobs, given
    ``work`` (core/work.py: the server's budget admits it; by default nothing does)."""
    vocab = Vocab.from_rows(rows)
    lines = parse_sentences(text, classes)
    return Lab(Recipe.of(vocab, lines, classes, Config(**config)), work)


def preset_lab(preset_id: str, work: Work = FREE, **config_changes) -> Lab:
    """A preset's lab as the app loads it (assets/presets), with some knobs changed."""
    from assets import presets

    p = presets.load(preset_id)
    classes = tuple(p["classes"])
    return Lab(Recipe.of(Vocab.from_rows(p["vocab"]), parse_sentences(p["sentences"], classes), classes,
                         Config(**{**p.get("config", {}), **config_changes})), work)


def chapter_w(seed: int = 0, dim: int = 3, v: int = 6, pad: int = 1) -> np.ndarray:
    """nn.Embedding(v, E, padding_idx=pad)'s init drawn from a private generator seeded like the app's, PAD row zeroed."""
    w = torch.randn(v, dim, generator=torch.Generator().manual_seed(seed))
    w[pad] = 0
    return w.numpy()
