"""Presets shipped with the app, read from ``assets/presets/*.json``. The chapter's example is the default.

Each preset: ``id``, ``title`` {ko, en}, ``classes``, ``vocab`` rows [token, id, role],
``sentences`` (the text area's content) and a partial ``config``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DIR = Path(__file__).resolve().parent / "presets"
DEFAULT = "chapter"
ORDER = ("chapter", "reviews_ko", "reviews_en", "large")
LARGE_V, LARGE_E, LARGE_B, LARGE_T = 100_000, 300, 256, 50
# The string key of each preset's "what to watch" line (assets/strings/training_watch.json): what its
# shipped sentences and knobs make training show. tests/test_training_watch.py checks each with torch.
WATCH = {"chapter": "watch.chapter", "reviews_ko": "watch.reviews", "reviews_en": "watch.reviews"}


@lru_cache(maxsize=None)
def _read(preset_id: str) -> str:
    return (DIR / f"{preset_id}.json").read_text(encoding="utf-8")


def load(preset_id: str) -> dict:
    """A fresh dict each call (callers may not mutate shared data); unknown ids raise KeyError."""
    if preset_id not in ORDER:
        raise KeyError(preset_id)
    if preset_id == "large":
        return large()
    return json.loads(_read(preset_id))


def large(v: int = LARGE_V, e: int = LARGE_E, b: int = LARGE_B, t: int = LARGE_T, seed: int = 0) -> dict:
    """A generated vocabulary-scale preset: V tokens 'w00002'…, B sentences of T tokens drawn with a fixed seed.

    Sentences whose first token id is even are labelled positive, so training has something to learn.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    width = len(str(v))
    vocab = [["<UNK>", 0, "unk"], ["<PAD>", 1, "pad"]] + [[f"w{i:0{width}d}", i, ""] for i in range(2, v)]
    ids = rng.integers(2, v, size=(b, t))
    lens = rng.integers(max(1, t // 2), t + 1, size=b)
    lines = [" ".join(f"w{i:0{width}d}" for i in row[:n]) + (" | 1" if row[0] % 2 == 0 else " | 0")
             for row, n in zip(ids, lens)]
    return {"id": "large", "title": {"ko": f"대규모: V={v:,}, E={e}, B={b}, T≤{t} (자동 생성)",
                                      "en": f"Large: V={v:,}, E={e}, B={b}, T≤{t} (generated)"},
            "classes": ["0", "1"], "vocab": vocab, "sentences": "\n".join(lines),
            "config": {"embedding_dim": e, "seed": seed, "optimizer": "adam", "lr": 0.05}}


def titles(lang: str) -> dict[str, str]:
    """Preset titles without building the generated one."""
    out = {pid: json.loads(_read(pid))["title"][lang] for pid in ORDER if pid != "large"}
    out["large"] = {"ko": f"대규모: V={LARGE_V:,}, E={LARGE_E}, B={LARGE_B}, T≤{LARGE_T} (자동 생성)",
                    "en": f"Large: V={LARGE_V:,}, E={LARGE_E}, B={LARGE_B}, T≤{LARGE_T} (generated)"}[lang]
    return out


def watch(preset_id: str, text: str, vocab, config, batch: int, sentences: int) -> tuple[str, dict]:
    """(string key, params) of the line saying what to watch while training.

    The preset's own line while the lab is still that preset as shipped (its sentences, vocabulary
    and training knobs); otherwise a line that holds for any lab, with a mini-batch (``batch`` of
    ``sentences`` a step) or without one.
    """
    params = {"k": batch, "b": sentences}
    if preset_id in WATCH and _as_shipped(preset_id, text, vocab, config):
        return WATCH[preset_id], params
    return ("watch.batch" if batch < sentences else "watch.all"), params


def _as_shipped(preset_id: str, text: str, vocab, config) -> bool:
    from core.knobs import KNOBS

    p = load(preset_id)
    if text != p["sentences"]:
        return False
    rows = sorted(p["vocab"], key=lambda r: r[1])
    roles = {role: i for _, i, role in rows if role}
    if (vocab.tokens, vocab.unk_id, vocab.pad_id) != (tuple(r[0] for r in rows), roles.get("unk"), roles.get("pad")):
        return False
    shipped = {k.name: k.default for k in KNOBS} | p.get("config", {})
    return all(getattr(config, name) == value for name, value in shipped.items())
