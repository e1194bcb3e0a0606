"""Every training knob, specified once: name, type, bounds, default, help text and problem code.

`Config` (core.training), the stored state's `StateConfig` (core.state_schema) and the sidebar's
widgets (components/sidebar.py) are all derived from `KNOBS`, so a new knob is one line here
plus its strings. A knob's ``name`` is at once the Config field, the JSON field and the widget key.

    >>> [k.name for k in KNOBS]
    ['embedding_dim', 'seed', 'fixed_len', 'pooling', 'optimizer', 'lr', 'weight_decay', 'batch_size',
     'tokenizer', 'subword_vocab', 'vocab_min_count', 'vocab_max_size']
    >>> knob("lr").check(20.0)
    Problem(code='lr_range', params={'value': '20.0', 'max': 10.0, 'min': 0.0, 'choices': ''})
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from core import limits
from core.model import POOLINGS
from core.problems import Problem

OPTIMIZERS = ("sgd", "momentum", "adam", "adamw")
TOKENIZERS = ("whitespace", "morpheme", "subword")  # core/tokenize.py
BUILT_VOCAB = ("morpheme", "subword")  # the tokenizers whose vocabulary is built from the tokens


@dataclass(frozen=True)
class Knob:
    """One knob. ``kind`` is "int", "float", "choice" or "optional_int" (None allowed: "longest" padding).

    Bounds are inclusive, except that ``lo_open`` excludes ``lo`` (a learning rate of 0 trains nothing).
    """

    name: str
    kind: str
    default: object
    group: str  # "layer", "training" or "tokens": where the sidebar puts it
    problem: str  # Problem code when a value is refused (its sentence: assets/strings/errors.json)
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    choices: tuple[str, ...] = ()
    step: float = 1  # the number input's +/- step
    fmt: str | None = None  # the number input's display format
    choice_prefix: str = ""  # string key prefix of a choice's label: "opt" → "opt.adam"
    used_with: tuple[str, tuple[str, ...]] | None = None  # it matters only while that knob has one of these values

    def used(self, values: dict) -> bool:
        """Whether this knob changes anything given the other knobs' ``values`` (its widget is greyed out otherwise)."""
        return self.used_with is None or values.get(self.used_with[0]) in self.used_with[1]

    @property
    def label(self) -> str:
        return f"side.{self.name}"  # string key of the widget's label

    @property
    def help(self) -> str:
        return f"side.{self.name}_help"  # string key of the widget's help text

    def check(self, value: object) -> Problem | None:
        """None when ``value`` is a valid setting, else the Problem naming it and the allowed range."""
        ok = self._valid(value)
        if ok:
            return None
        if self.kind == "float" and _subnormal(value):
            return Problem("float_tiny", {"name": self.name, "value": repr(value), "min": f"{sys.float_info.min:.1e}"})
        return Problem(self.problem, {"value": str(value)[:40], "max": self.hi, "min": self.lo,
                                      "choices": ", ".join(self.choices)})

    def _valid(self, value: object) -> bool:
        if isinstance(value, bool):  # True is an int to Python, not to a learner
            return False
        if self.kind == "choice":
            return value in self.choices
        if self.kind == "optional_int" and value is None:
            return True
        if self.kind in ("int", "optional_int"):
            if not isinstance(value, int):
                return False
        elif not isinstance(value, (int, float)) or not math.isfinite(value) or _subnormal(value):
            return False
        above = value > self.lo if self.lo_open else value >= self.lo
        return above and value <= self.hi


def _subnormal(value: object) -> bool:
    """A float too small for float64's full precision (0 < |value| < 2.2e-308): never a setting a
    learner means, and its text would not read back as typed (core/url_state.py refuses it too)."""
    return isinstance(value, float) and value != 0 and abs(value) < sys.float_info.min


KNOBS: tuple[Knob, ...] = (
    Knob("embedding_dim", "int", 3, "layer", "dim_range", 1, limits.MAX_EMBEDDING_DIM),
    Knob("seed", "int", 0, "layer", "seed_range", 0, limits.MAX_SEED),
    Knob("fixed_len", "optional_int", None, "layer", "fixed_len_range", 1, limits.MAX_TOKENS_PER_SENTENCE),
    Knob("pooling", "choice", "masked_mean", "training", "pooling_unknown", choices=POOLINGS,
         choice_prefix="pooling"),
    Knob("optimizer", "choice", "adam", "training", "optimizer_unknown", choices=OPTIMIZERS,
         choice_prefix="opt"),
    Knob("lr", "float", 0.1, "training", "lr_range", 0.0, limits.MAX_LR, lo_open=True, step=0.01, fmt="%.4f"),
    Knob("weight_decay", "float", 0.0, "training", "wd_range", 0.0, limits.MAX_WEIGHT_DECAY, step=0.01, fmt="%.4f"),
    Knob("batch_size", "int", 0, "training", "batch_size_range", 0, limits.MAX_SENTENCES),  # 0: every sentence
    # Preprocessing (core/tokenize.py): how raw sentences become tokens, and the vocabulary built from them.
    Knob("tokenizer", "choice", "whitespace", "tokens", "tokenizer_unknown", choices=TOKENIZERS, choice_prefix="tok"),
    Knob("subword_vocab", "int", 100, "tokens", "subword_vocab_range", 10, 10_000, step=10,
         used_with=("tokenizer", ("subword",))),
    Knob("vocab_min_count", "int", 1, "tokens", "min_count_range", 1, 1000, used_with=("tokenizer", BUILT_VOCAB)),
    Knob("vocab_max_size", "int", limits.MAX_VOCAB, "tokens", "max_size_range", 3, limits.MAX_VOCAB, step=100,
         used_with=("tokenizer", BUILT_VOCAB)),
)
KNOB_NAMES: tuple[str, ...] = tuple(k.name for k in KNOBS)


def knob(name: str) -> Knob:
    return next(k for k in KNOBS if k.name == name)
