"""The versioned JSON schema of a learner's state (pydantic v2, strict), and its size limits.

`core.state` exports, parses and restores states with it; see that module's docstring for the
JSON itself. Strict means: ints are ints (no ``true``, ``3.0`` or ``"3"``), floats are finite and
within float32, no extra fields anywhere, every list and string bounded by `core.limits`.
"""

from __future__ import annotations

import base64
import binascii
import math
from typing import Annotated, Literal, Sequence

import numpy as np
import torch
from pydantic import BaseModel, ConfigDict, Field, Strict, create_model

from core import limits
from core.knobs import KNOBS, Knob, knob
from core.problems import Problem, require
from core.training import Config
from core.vocab import ROLES

SCHEMA_VERSION = 2  # 2: the classes are those the labels define (core/classes.py); version 1 files still load
VERSIONS = (1, 2)
# Limits of this module. They belong with the others in core/limits.py (not ours to edit yet).
# A bound on the number a state may hold, checked before anything else; what may be replayed is
# decided by the replay budget (core.cost.work_problems, limits.MAX_REPLAY_SECONDS), which even the
# cheapest step reaches first (tests/test_keeper.py checks that it does).
MAX_STEPS = 100_000
MAX_REPLAY_WORK = limits.MAX_STEPS_PER_CLICK * limits.MAX_TABLE_FLOATS  # `replay_cost`: one maximal click
_STEP_OVERHEAD = 10_000  # replay_cost's fixed cost of one step (Python, autograd, snapshot)
MAX_PAD_EDITS = 1000
MAX_SCHEMA_ERRORS = 1000  # past this many, a file is not an edited export: say so, list none
F32_MAX = 3.4028234663852886e38  # largest finite float32: a larger JSON number would become inf

# ---- the schema ------------------------------------------------------------------------------
_Int = Annotated[int, Strict()]
_F32 = Annotated[float, Field(allow_inf_nan=False, ge=-F32_MAX, le=F32_MAX)]
_Token = Annotated[str, Field(min_length=1, max_length=limits.MAX_TOKEN_CHARS)]
_VocabRow = Annotated[tuple[_Token, Annotated[_Int, Field(ge=0, lt=limits.MAX_VOCAB)], Literal[ROLES]],
                      Strict(False)]  # a JSON array [token, id, role]; its items stay strict
_ClassName = Annotated[str, Field(min_length=1, max_length=limits.MAX_CLASS_CHARS)]
_ParamName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_.]{0,39}$")]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


def _stored_type(k: Knob):
    """The strict pydantic type of one knob as stored in JSON (bounds from core.knobs)."""
    if k.kind == "choice":
        return Literal[k.choices]
    if k.kind == "float":
        low = {"gt": k.lo} if k.lo_open else {"ge": k.lo}
        return Annotated[float, Field(allow_inf_nan=False, le=k.hi, **low)]
    bounded = Annotated[_Int, Field(ge=k.lo, le=k.hi)]
    return bounded | None if k.kind == "optional_int" else bounded


class _StoredConfig(_Strict):
    def to_config(self) -> Config:
        return Config(**{k.name: float(v) if k.kind == "float" else v
                         for k, v in ((knob(n), v) for n, v in self.model_dump().items())})


# `core.training.Config` as stored: one field per knob of core.knobs.KNOBS, with its default.
StateConfig = create_model("StateConfig", __base__=_StoredConfig, __module__=__name__,
                           **{k.name: (_stored_type(k), k.default) for k in KNOBS})


class PadEdit(_Strict):
    """The PAD row set by hand to ``vector`` after ``step`` steps (C13)."""

    step: Annotated[_Int, Field(ge=0, le=MAX_STEPS)]
    vector: Annotated[list[_F32], Field(min_length=1, max_length=limits.MAX_EMBEDDING_DIM)]


class TensorData(_Strict):
    """A float32 tensor: ``shape`` and base64 of its little-endian bytes, row-major.

    >>> TensorData.of(torch.tensor([[1.0, -2.0]])).model_dump()
    {'shape': [1, 2], 'data': 'AACAPwAAAMA='}
    """

    shape: Annotated[list[Annotated[_Int, Field(ge=0, le=limits.MAX_VOCAB * 4)]], Field(min_length=1, max_length=2)]
    data: Annotated[str, Field(max_length=limits.MAX_IMPORT_BYTES)]

    @classmethod
    def of(cls, t: torch.Tensor) -> "TensorData":
        raw = t.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        return cls(shape=list(t.shape), data=base64.b64encode(raw).decode("ascii"))

    def tensor(self, name: str) -> torch.Tensor:
        """Decode; raise `InputError` (``import_weights_data``/``_nonfinite``) on bad data."""
        n = math.prod(self.shape)
        try:
            raw = base64.b64decode(self.data, validate=True)
        except (binascii.Error, ValueError):
            raw = None
        if raw is None or len(raw) != 4 * n:
            require([Problem("import_weights_data", {"name": name, "shape": _shape_text(self.shape)})])
        t = torch.from_numpy(np.frombuffer(raw, dtype="<f4").astype(np.float32)).reshape(self.shape)
        if not bool(torch.isfinite(t).all()):
            require([Problem("import_weights_nonfinite", {"name": name})])
        return t


class PretrainedData(_Strict):
    """Rows of W from a vector file (core/pretrained.py): the tokens, their (K, E) float32 vectors, and
    whether W trains (``freeze``: it does not)."""

    tokens: Annotated[list[_Token], Field(min_length=1, max_length=limits.MAX_VOCAB)]
    vectors: TensorData
    freeze: Annotated[bool, Strict()]


class AppState(_Strict):
    """One learner's whole state, version 2 or 1 (see core/state.py's docstring for the JSON)."""

    version: Literal[VERSIONS]
    lang: Literal["ko", "en"]
    vocab: Annotated[list[_VocabRow], Field(min_length=1, max_length=limits.MAX_VOCAB)]
    classes: Annotated[list[_ClassName], Field(min_length=1, max_length=limits.MAX_CLASSES)]
    sentences: Annotated[str, Field(max_length=limits.MAX_TEXT_CHARS)]
    config: StateConfig
    steps: Annotated[_Int, Field(ge=0, le=MAX_STEPS)]
    pad_edits: Annotated[list[PadEdit], Field(default_factory=list, max_length=MAX_PAD_EDITS)]
    weights: TensorData | None = None
    model: Annotated[dict[_ParamName, TensorData], Field(max_length=8)] | None = None
    pretrained: PretrainedData | None = None  # optional: a file written before it existed still loads

    def pad_edit_tuples(self) -> list[tuple[int, tuple[float, ...]]]:
        """``pad_edits`` in the form of ``Lab.pad_edits``: [(step, vector)]."""
        return [(e.step, tuple(e.vector)) for e in self.pad_edits]


def _shape_text(shape: Sequence[int]) -> str:
    return "×".join(map(str, shape))
