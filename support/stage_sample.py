"""Stage data that follows the contract (components/stage/README.md) without a model: for the stage's tests, its demo and its benchmark.

Pure and deterministic: the same arguments give the same dict. Tokens drift from a random start
towards their class's side as ``step`` grows; PAD sits still at one point with a zero row, as a
padding_idx row does, so a test can check that its pixel never moves.
"""

from __future__ import annotations

import math
import random
from types import MappingProxyType

from components.i18n import t
from components.stage_data import TEXT_KEYS
CLASSES = MappingProxyType({"ko": ("부정", "긍정"), "en": ("negative", "positive")})
WORDS = MappingProxyType({"ko": ("영화", "정말", "좋다", "나쁘다", "재미있다", "지루하다", "최고", "별로", "배우", "연기", "감동", "최악"),
         "en": ("movie", "really", "good", "bad", "fun", "boring", "best", "meh", "actor", "acting", "moving", "worst")})
UNTYPED = MappingProxyType({"ko": "꿀잼", "en": "wow"})  # a typed word outside the vocabulary
PAD, UNK = 1, 0
PAD_XY = (0.6, -0.4)
RANGE = ((-5.0, 5.0), (-4.0, 4.0))
MAX_W_ROWS = 40  # rows of W the stage shows when the vocabulary is larger


def stage_text(lang: str) -> dict[str, str]:
    """Every word the stage shows, in ``lang`` (assets/strings/stage.json)."""
    return {k: t(lang, f"stage.{k}") for k in TEXT_KEYS}


def _token(lang: str, i: int) -> str:
    if i == PAD:
        return "<PAD>"
    if i == UNK:
        return "<UNK>"
    words = WORDS[lang]
    j = i - 2
    return words[j] if j < len(words) else f"{words[j % len(words)]}{j // len(words)}"


def _xy(rng_start: tuple[float, float], cls: int, step: int) -> tuple[float, float]:
    """Where a token is after ``step`` steps: from its start towards its class's side (x = ∓3)."""
    pull = 1.0 - 0.9 ** step
    tx = -3.0 if cls == 1 else 3.0 if cls == 0 else rng_start[0]
    return (round(rng_start[0] + (tx - rng_start[0]) * pull, 6), round(rng_start[1] * (1 - 0.4 * pull), 6))


def _neighbours(of: int, rows: dict[int, list[float]], k: int = 5) -> dict:
    """The ``k`` rows most cosine-similar to row ``of`` (zero rows, such as PAD's, left out)."""
    def cos(a: list[float], b: list[float]) -> float:
        na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
        return sum(x * y for x, y in zip(a, b)) / (na * nb) if na and nb else float("nan")

    scored = [(cos(rows[of], v), i) for i, v in rows.items() if i != of and not math.isnan(cos(rows[of], v))]
    best = sorted(scored, key=lambda c: -c[0])[:k]
    return {"of": of, "ids": [i for _, i in best], "cos": [round(c, 4) for c, _ in best]}


def sample_loss(step: int) -> float:
    """The sample's loss at ``step``: a smooth fall."""
    return round(0.7 * math.exp(-step / 12) + 0.05, 4)


def sample_data(step: int = 0, *, n: int = 10, e: int = 4, lang: str = "ko", mode: str = "train",
                present: bool = False, play: bool = False, frames: int = 0, steps_per_second: int = 10,
                height: int = 560, selected: int | None = None, seed: int = 0) -> dict:
    """A stage picture of a made-up vocabulary of ``n`` ids (0 = UNK, 1 = PAD) after ``step`` steps."""
    rng = random.Random(seed)
    big = n > 2000
    starts = [(rng.uniform(-2.5, 2.5), rng.uniform(-3, 3)) for _ in range(n)]
    cls = [-1, -1] + [rng.choice((0, 1)) for _ in range(n - 2)]
    used = [i == UNK or (i >= 2 and i % 3 != 2) for i in range(n)]
    role = ["unk" if i == UNK else "pad" if i == PAD else "used" if used[i] else "unused" for i in range(n)]
    base_w = [[0.0] * e if i == PAD else [rng.gauss(0, 1) for _ in range(e)] for i in range(n)]

    def coords(s: int) -> tuple[list[float], list[float]]:
        xs, ys = [], []
        for i in range(n):
            x, y = PAD_XY if i == PAD else _xy(starts[i], cls[i] if used[i] else -1, s)
            xs.append(x)
            ys.append(y)
        return xs, ys

    def w_row(i: int, s: int) -> list[float]:
        if i == PAD:
            return [0.0] * e
        sign = -1.0 if cls[i] == 1 else 1.0
        drift = (1.0 - 0.9 ** s) * (0.8 if used[i] else 0.0)
        return [round(v + sign * drift * (1 if j % 2 == 0 else -0.5), 4) for j, v in enumerate(base_w[i])]

    xs, ys = coords(step)
    shown = list(range(min(n, MAX_W_ROWS)))

    def w_cells(s: int) -> dict:  # W's shown rows at step s, as data["w"] and each Play frame's "w" hold them
        values = [w_row(i, s) for i in shown]
        touched = [i for i in shown if used[i] and s > 0]
        return {"values": values, "absmax": round(max((abs(v) for row in values for v in row), default=1.0) or 1.0, 4),
                "touched": touched,
                "grad_norm": [round(0.9 ** s * (0.5 + (i % 5) / 10), 4) if i in touched else 0.0 for i in shown]}

    data = {
        "version": 1, "mode": mode, "lang": lang, "big": big, "present": present, "height": height,
        "text": stage_text(lang),
        "selected": selected, "pad": PAD, "unk": UNK,
        "tokens": {str(i): _token(lang, i) for i in range(n)},
        "classes": list(CLASSES[lang]),
        "scatter": {
            "step": step, "axes": ["PC1 (41%)", "PC2 (23%)"], "range": [list(RANGE[0]), list(RANGE[1])],
            "ids": list(range(n)), "x": xs, "y": ys, "role": role, "cls": cls,
        },
        "play": {"on": play, "steps_per_second": steps_per_second},
        "w": {"rows": shown, **w_cells(step), "counts": [2 if used[i] else 0 for i in shown]},
        "loss": [sample_loss(s) for s in range(step + 1)] if step else [],
    }
    if frames and step > 0:  # the steps between the previous picture (step - frames) and this one
        first = max(0, step - frames + 1)
        data["scatter"]["frames"] = [dict(zip(("step", "x", "y", "loss", "w"), (s, *coords(s), sample_loss(s), w_cells(s))))
                                     for s in range(first, step)]
        if selected is not None and 0 <= selected < n and mode == "train":
            for f in data["scatter"]["frames"]:
                f["neighbours"] = _neighbours(selected, {i: w_row(i, f["step"]) for i in range(min(n, 400))})
    if not big:
        past = [coords(s) for s in range(max(0, step - 5), step)]
        trail_ids = [i for i in range(n) if used[i] and i != PAD]
        data["scatter"]["trail"] = {"ids": trail_ids, "x": [[p[0][i] for p in past] for i in trail_ids],
                                    "y": [[p[1][i] for p in past] for i in trail_ids]}
    if selected is not None and 0 <= selected < n and mode == "train":
        data["neighbours"] = _neighbours(selected, {i: w_row(i, step) for i in range(min(n, 400))})
    if mode == "lookup":
        words = [[i for i in range(2, min(n, 6))], [2, 5 if n > 5 else 2, UNK, PAD]]
        t_len = max(len(r) for r in words)
        ids = [r + [PAD] * (t_len - len(r)) for r in words]
        data["ids"] = ids
        data["sentences"] = [[_token(lang, i) if i != UNK else UNTYPED[lang] for i in r if i != PAD] for r in ids]
        data["out"] = {"b": 0, "values": [w_row(i, step) for i in ids[0]]}
    return data
