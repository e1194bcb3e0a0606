"""The whole learner state as versioned JSON: export to a file, import from one, share as a link.

What is stored is the *recipe* (vocabulary, classes, sentences text, config), the number of
steps trained and the hand-set PAD rows, because `core.training.replay` rebuilds bitwise the
same weights from those. The weights themselves are optional, stored only to check the replay
(another torch build may round differently) and to load them when it does not match.

Worked example (the chapter's vocabulary, 7 steps trained)::

    data = export_state(recipe, text, "ko", lab)     # bytes: UTF-8 JSON, shown below
    state = parse_state(data)                        # untrusted input → AppState, or InputError
    restored = restore(state)                        # replay → Lab; W compared bitwise
    restored.weights_verified                        # True: the file's W equals the replay's
    url = share_url("https://app.example/", to_query_params(state))   # ...?s=eNqrVi...

The JSON (``version`` 2; every field below is required unless marked optional)::

    {"version": 2, "lang": "ko",
     "vocab": [["<UNK>", 0, "unk"], ["<PAD>", 1, "pad"], ["영화", 2, ""], ...],   # [token, id, role]
     "classes": ["부정", "긍정"],                                    # the lab's, in index order
     "sentences": "영화 정말 좋다 | 긍정\\n영화 나쁘다 | 부정",
     "config": {"embedding_dim": 3, "seed": 0, "pooling": "masked_mean", "optimizer": "adam",
                "lr": 0.1, "weight_decay": 0.0, "batch_size": 0, "fixed_len": null},
     "steps": 7,
     "pad_edits": [{"step": 2, "vector": [0.5, -1.0, 2.0]}],         # optional, default []
     "weights": {"shape": [6, 3], "data": "<base64>"},               # optional: W, (V, E)
     "model": {"head.weight": {"shape": [2, 3], "data": "..."}, ...},  # optional: all but W
     "pretrained": {"tokens": ["영화"], "vectors": {"shape": [1, 3], "data": "..."}, "freeze": true}}
                                                 # optional: rows of W from a vector file (core/pretrained.py)

Tensors are stored as base64 (standard alphabet, with padding) of their little-endian float32
bytes in row-major order: exact to the bit, and 4/3 the size of the raw bytes, where decimal
text would be 3-4 times larger. Floats written as JSON numbers (lr, PAD vectors) are finite.

``classes`` are the lab's classes, which its sentences' labels define (core/classes.py) with
``classes`` taken as the example's: so a file's sentences must define exactly its classes, or it
is refused (``import_classes_mismatch``). Version 1 (classes fixed by the example, at least two)
reads the same way: its labels were all the example's classes, which are then the lab's.

Nothing in here imports streamlit; every problem is an `InputError` whose `Problem` codes have
sentences in ``assets/strings/state.json`` (``err.import_*``, ``err.share_*``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Sequence

import torch
from pydantic import ValidationError

from core import limits
from core.batch import parse_sentences
from core.classes import key as class_key
from core.invisible import invisible_only
from core.problems import InputError, Problem, require
from core.cost import work_problems
from core import morphemes
from core.preprocessing import Preprocessing
from core.pretrained_state import from_data, to_data
from core.training import Lab, Recipe, replay
from core.vocab import Vocab
from core.work import FREE, Work

from core.state_schema import (  # noqa: F401  (re-exported: the schema is part of this module's API)
    SCHEMA_VERSION,
    VERSIONS,
    MAX_STEPS,
    MAX_PAD_EDITS,
    MAX_SCHEMA_ERRORS,
    StateConfig,
    PadEdit,
    TensorData,
    AppState,
    _shape_text,
)


MORPHEMES_WAIT_S = 120  # a restored morpheme state waits this long at most for the analyzer to load

# ---- export ----------------------------------------------------------------------------------
def export_state(recipe: Recipe, sentences_text: str, lang: str, lab: Lab, include_weights: bool = True) -> bytes:
    """The learner's state as UTF-8 JSON bytes, ready for a download button.

    ``sentences_text`` is kept as typed when it parses to exactly the recipe's sentences and
    labels; otherwise (the text area holds an unapplied edit) it is rewritten from the recipe,
    one ``tokens | class`` line per sentence, so that the file always replays to ``lab``.
    Weights are left out when they are not finite (a diverged run: the replay reproduces them)
    or would push the file past `limits.MAX_IMPORT_BYTES`.

    >>> export_state(recipe, "영화 정말 좋다 | 긍정\\n영화 나쁘다 | 부정", "ko", lab)[:40]
    b'{"version":2,"lang":"ko","vocab":[["<UNK'
    """
    if lab.recipe != recipe:
        raise ValueError("export_state: lab was not made from this recipe")
    require(_export_problems(lab))
    fields = dict(version=SCHEMA_VERSION, lang=lang, vocab=recipe.vocab.rows(), classes=list(recipe.classes),
                  sentences=_text_for(recipe, sentences_text), steps=lab.steps,
                  config=StateConfig(**{k: getattr(recipe.config, k) for k in StateConfig.model_fields}),
                  pad_edits=[PadEdit(step=s, vector=list(v)) for s, v in lab.pad_edits], pretrained=to_data(recipe.pretrained))
    if include_weights:
        data = _dumps(_build(**fields, **_tensors_of(lab)))
        if len(data) <= limits.MAX_IMPORT_BYTES:
            return data
    data = _dumps(_build(**fields))
    if len(data) > limits.MAX_IMPORT_BYTES:
        require([Problem("export_too_large", _mb(len(data)))])
    return data


def _export_problems(lab: Lab) -> list[Problem]:
    """What keeps ``lab`` from a file, a link or the browser's keeper: a state whose replay is over the
    import's budget could not be read back (the same cost model decides both)."""
    over = work_problems(lab.recipe, lab.steps, "replay")
    most = min([q.params["max_steps"] for q in over] + [MAX_STEPS])
    p = [Problem("export_too_many_steps", {"steps": lab.steps, "max": most})] if over or lab.steps > MAX_STEPS else []
    if len(lab.pad_edits) > MAX_PAD_EDITS:
        p.append(Problem("export_too_many_pad_edits", {"n": len(lab.pad_edits), "max": MAX_PAD_EDITS}))
    return p


def _build(**fields: Any) -> AppState:
    try:
        return AppState(**fields)
    except ValidationError as e:
        require([Problem("export_schema", {"detail": _loc_text(e.errors()[0]["loc"])})])
        raise  # unreachable: require raised


def _dumps(state: AppState) -> bytes:
    obj = state.model_dump(exclude_none=True)  # weights/model absent rather than null
    obj["config"] = state.config.model_dump()  # fixed_len: null stays explicit
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _tensors_of(lab: Lab) -> dict[str, Any]:
    """{"weights": W, "model": every other parameter}, leaving out what is not finite or too big."""
    w = lab.weight.detach()  # (V, E)
    out: dict[str, Any] = {}
    if bool(torch.isfinite(w).all()) and w.numel() * 16 // 3 < limits.MAX_IMPORT_BYTES:
        out["weights"] = TensorData.of(w)
    others = {n: p.detach() for n, p in lab.model.named_parameters() if n != "embedding.weight"}
    if all(bool(torch.isfinite(p).all()) for p in others.values()):
        out["model"] = {n: TensorData.of(p) for n, p in others.items()}
    return out


def _text_for(recipe: Recipe, text: str) -> str:
    """``text`` if it parses to the recipe's sentences and labels, else the recipe written out."""
    try:
        lines = parse_sentences(text, recipe.classes)
        if recipe.config.tokenizer != "whitespace":  # the text the explorer split: its labels must agree
            lines = [replace(l, tokens=s) for l, s in zip(lines, recipe.sentences)] if len(lines) == len(recipe.sentences) else []
        if tuple(l.tokens for l in lines) == recipe.sentences and tuple(l.label for l in lines) == recipe.labels:
            return text
    except InputError:
        pass
    names = [c.strip().casefold() for c in recipe.classes]
    by_name = len(set(names)) == len(names) and all(c.strip() and "|" not in c for c in recipe.classes)

    def label(y: int | None) -> str:
        return "" if y is None else f" | {recipe.classes[y].strip() if by_name else y}"

    return "\n".join(" ".join(s) + label(y) for s, y in zip(recipe.sentences, recipe.labels))


def _mb(n: int) -> dict[str, str]:
    return {"mb": f"{n / 1e6:.1f}", "max_mb": f"{limits.MAX_IMPORT_BYTES / 1e6:.0f}"}


# ---- import ----------------------------------------------------------------------------------
def parse_state(data: bytes | str) -> AppState:
    """Validate an untrusted state file; raise `InputError` with every problem found.

    In order: size (before anything is parsed), UTF-8, JSON (``json.loads``: no pickle, no
    ``torch.load``), version, schema (pydantic, strict), then meaning (`Vocab.from_rows`,
    `parse_sentences`, `Config.problems`, replay budget, tensor shapes). No other exception
    type leaves this function.

    >>> parse_state(b'{"version": 3}')
    Traceback (most recent call last):
    core.problems.InputError: import_version {'found': '3', 'expected': '1, 2'}
    """
    try:
        obj = _load_json(data)
        _check_version(obj)
        try:
            state = AppState.model_validate(obj)
        except ValidationError as e:  # listing a million errors takes seconds: count them instead
            many = e.error_count() > MAX_SCHEMA_ERRORS
            raise InputError([Problem("import_many_errors", {"n": e.error_count()})] if many
                             else _schema_problems(e.errors(include_url=False, include_input=False))) from None
        require(_checked(state)[1])
        return state
    except InputError:
        raise
    except Exception as e:  # the last line of defence at a trust boundary: name it, never crash
        raise InputError([Problem("import_failed", {"detail": type(e).__name__})]) from e


def _load_json(data: Any) -> Any:
    if isinstance(data, str):
        if len(data) > limits.MAX_IMPORT_BYTES:  # each char is at least one UTF-8 byte
            require([Problem("import_too_large", _mb(len(data)))])
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:
            require([Problem("import_not_utf8")])
    if not isinstance(data, (bytes, bytearray, memoryview)):
        require([Problem("import_not_json", {"line": 1, "column": 1})])
    if len(data) > limits.MAX_IMPORT_BYTES:
        require([Problem("import_too_large", _mb(len(data)))])
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError:
        require([Problem("import_not_utf8")])
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        require([Problem("import_not_json", {"line": e.lineno, "column": e.colno})])
    except RecursionError:
        require([Problem("import_too_deep")])
    except ValueError:  # e.g. an integer of more than 4300 digits
        require([Problem("import_not_json", {"line": 1, "column": 1})])


def _check_version(obj: Any) -> None:
    if not isinstance(obj, dict) or "version" not in obj:
        require([Problem("import_not_state")])
    v = obj["version"]
    if type(v) is not int or v not in VERSIONS:
        shown = json.dumps(v[:20] if isinstance(v, str) else v) if isinstance(v, (str, int, float)) else type(v).__name__
        require([Problem("import_version", {"found": _safe(shown)[:20], "expected": ", ".join(map(str, VERSIONS))})])


def _schema_problems(errors: list[dict[str, Any]], most: int = 5) -> list[Problem]:
    """Pydantic errors → Problems naming the field path (``config.lr``, ``vocab[3][1]``)."""
    problems = [_schema_problem(e) for e in errors[:most]]
    if len(errors) > most:
        problems.append(Problem("import_more", {"n": len(errors) - most}))
    return problems


def _schema_problem(e: dict[str, Any]) -> Problem:
    detail, kind, ctx = _loc_text(e["loc"]), e["type"], e.get("ctx") or {}
    if kind == "missing":
        return Problem("import_missing", {"detail": detail})
    if kind == "extra_forbidden":
        return Problem("import_extra", {"detail": detail})
    if kind == "literal_error":
        return Problem("import_choice", {"detail": detail, "expected": _safe(str(ctx.get("expected", "")))[:80]})
    bound = next((f"{op} {ctx[k]}" for k, op in (("le", "≤"), ("lt", "<"), ("ge", "≥"), ("gt", ">"),
                                                 ("max_length", "≤"), ("min_length", "≥")) if k in ctx), None)
    if bound is not None:
        return Problem("import_range", {"detail": detail, "limit": bound})
    if kind.endswith("_type") or kind.endswith("_parsing") or kind == "finite_number":
        return Problem("import_type", {"detail": detail})
    return Problem("import_schema", {"detail": detail})


def _loc_text(loc: Sequence[Any]) -> str:
    """('config', 'lr') → 'config.lr'; ('vocab', 3, 1) → 'vocab[3][1]'. Keys from the file are cut short."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + _safe(str(part))[:40]
    return text[:120] or "(root)"


def _safe(s: str) -> str:
    """Text from an untrusted file, fit to show inside a message: printable, no markup."""
    return "".join(ch if ch.isprintable() and ch not in "`<>[]()\\" else "?" for ch in s)


# ---- meaning: the checks pydantic cannot make ------------------------------------------------
def recipe_of(state: AppState) -> Recipe:
    """The `Recipe` a valid state describes; `InputError` naming every problem otherwise.

    >>> recipe_of(parse_state(data)).vocab.pad_id
    1
    """
    recipe, problems = _checked(state)
    require(problems)
    return recipe


def _checked(state: AppState) -> tuple[Recipe | None, list[Problem]]:
    """(recipe or None, every problem with the state's meaning)."""
    problems = _class_problems(state.classes)
    vocab = lines = None
    try:
        vocab = Vocab.from_rows(state.vocab)
    except InputError as e:
        problems += e.problems
    config = state.config.to_config()
    try:  # split as the state's tokenizer splits them (its vocabulary is the stored one)
        prep = Preprocessing(morphemes=lambda: morphemes.wait(MORPHEMES_WAIT_S))
        lines, _ = prep.prepare(parse_sentences(state.sentences, tuple(state.classes)), config)
    except InputError as e:
        problems += e.problems
    problems += config.problems()
    pretrained, more = from_data(state.pretrained, config.embedding_dim)  # rows of W from a vector file
    problems += more
    if vocab is None or lines is None or problems:
        return None, problems
    recipe = replace(Recipe.of(vocab, lines, tuple(state.classes), config), pretrained=pretrained)
    if recipe.classes != tuple(state.classes):  # the file's sentences define other classes than it names
        return None, [Problem("import_classes_mismatch", {"found": _safe(" / ".join(state.classes))[:120],
                                                          "expected": _safe(" / ".join(recipe.classes))[:120]})]
    problems += recipe.problems() + _replay_problems(recipe, state) + _tensor_problems(recipe, state)
    return (None if problems else recipe), problems


def _class_problems(classes: Sequence[str]) -> list[Problem]:
    """Class names must be usable as labels: not blank, no ``|``, no control characters, unique."""
    problems, seen = [], set()
    for i, name in enumerate(classes, start=1):
        key = class_key(name)
        if not key or "|" in name or not name.isprintable() or invisible_only(name):  # blank, even if not spaces
            problems.append(Problem("import_class_name", {"index": i, "name": _safe(name)[:20]}))
        elif key in seen:
            problems.append(Problem("import_class_duplicate", {"index": i, "name": _safe(name)[:20]}))
        seen.add(key)
    return problems


def _replay_problems(recipe: Recipe, state: AppState) -> list[Problem]:
    """Can `replay` rebuild this state, in bounded time? Labels, work budget, PAD edits."""
    problems = []
    missing = sum(label is None for label in recipe.labels)
    if state.steps > 0 and missing:
        problems.append(Problem("labels_missing", {"n": missing}))
    for p in work_problems(recipe, state.steps, "replay"):  # the cost model's estimate, before replaying
        problems.append(Problem("import_replay_too_long", {"steps": state.steps, "max": p.params["max_steps"],
                                                           "seconds": p.params["seconds"], "max_s": p.params["max_s"]}))
    for i, edit in enumerate(state.pad_edits, start=1):
        if edit.step > state.steps:
            problems.append(Problem("import_pad_step", {"index": i, "step": edit.step, "steps": state.steps}))
        if len(edit.vector) != recipe.config.embedding_dim:
            problems.append(Problem("import_pad_length", {"index": i, "n": len(edit.vector),
                                                          "e": recipe.config.embedding_dim}))
    return problems


def model_shapes(recipe: Recipe) -> dict[str, list[int]]:
    """Shapes of the model's parameters other than W, as `core.model.ToyClassifier` makes them.

    >>> model_shapes(recipe)          # E = 3, two classes, masked_mean pooling
    {'head.weight': [2, 3], 'head.bias': [2]}
    """
    E, C = recipe.config.embedding_dim, max(2, len(recipe.classes))
    shapes: dict[str, list[int]] = {}
    if recipe.config.pooling in ("lstm", "packed_lstm"):
        shapes |= {"lstm.weight_ih_l0": [4 * E, E], "lstm.weight_hh_l0": [4 * E, E],
                   "lstm.bias_ih_l0": [4 * E], "lstm.bias_hh_l0": [4 * E]}
    return shapes | {"head.weight": [C, E], "head.bias": [C]}


def _tensor_problems(recipe: Recipe, state: AppState) -> list[Problem]:
    """Stored tensors must have the recipe's shapes and decode to finite float32."""
    expected = {"weights": [recipe.vocab.size, recipe.config.embedding_dim]}
    given = {"weights": state.weights} if state.weights is not None else {}
    if state.model is not None:
        shapes = model_shapes(recipe)
        if set(state.model) != set(shapes):
            return [Problem("import_model_params", {"names": _safe(", ".join(sorted(state.model)))[:120],
                                                    "expected": ", ".join(shapes)})]
        expected |= shapes
        given |= state.model
    problems = []
    for name, data in given.items():
        if data.shape != expected[name]:
            problems.append(Problem("import_weights_shape", {"name": name, "shape": _shape_text(data.shape),
                                                             "expected": _shape_text(expected[name])}))
            continue
        try:
            data.tensor(name)
        except InputError as e:
            problems += e.problems
    return problems


# ---- restore ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Restored:
    """What `restore` rebuilt. ``*_verified``: None when the file had no such tensors, True when
    they equal the replay bitwise, False when they differed and the file's values were loaded."""

    recipe: Recipe
    lab: Lab
    weights_verified: bool | None
    model_verified: bool | None
    notices: tuple[Problem, ...] = ()  # worth telling the learner, not errors (``import_pad_nonzero``)


def restore(state: AppState, work: Work = FREE) -> Restored:
    """Replay the state's recipe for its steps and PAD edits (its lab given ``work``, core/work.py);
    check (or load) stored tensors.

    >>> r = restore(parse_state(data))
    >>> r.lab.steps, r.weights_verified
    (7, True)
    """
    recipe = recipe_of(state)
    lab = replay(recipe, state.steps, state.pad_edit_tuples(), work)
    stored = {"embedding.weight": state.weights.tensor("weights")} if state.weights is not None else {}
    stored |= {n: d.tensor(n) for n, d in (state.model or {}).items()}
    params = dict(lab.model.named_parameters())
    differ = {n: t for n, t in stored.items() if not bitwise_equal(params[n], t)}
    if differ:  # loaded as an event of the lab's history, so going back to a step re-applies them
        lab.load_parameters(differ)
    weights_ok = None if state.weights is None else "embedding.weight" not in differ
    model_ok = None if state.model is None else not (set(differ) - {"embedding.weight"})
    return Restored(recipe, lab, weights_ok, model_ok, pad_notices(lab))


def pad_notices(lab: Lab) -> tuple[Problem, ...]:
    """A notice when the file's own weights (loaded because the replay differs) have a PAD row that is
    not zero: the padding vector then adds to every mean over T and feeds the LSTM (C13, C15).
    A PAD row set by hand in the file's history is replayed, and shown as such; it needs no notice.

    >>> pad_notices(restore(parse_state(data_whose_pad_row_is_ones)).lab)
    (Problem(code='import_pad_nonzero', params={'pad': 1, 'token': '<PAD>', 'norm': '1.732'}),)
    """
    pad = lab.recipe.vocab.pad_id
    for kind, _, payload in lab.events:
        w = payload.get("embedding.weight") if kind == "load" else None
        if w is not None and bool(w[pad].any()):
            return (Problem("import_pad_nonzero", {"pad": pad, "token": lab.recipe.vocab.tokens[pad],
                                                   "norm": f"{float(w[pad].norm()):.4g}"}),)
    return ()


def bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape and the same float32 bits (so NaN equals the same NaN, and 0.0 ≠ -0.0)."""
    a, b = a.detach().to(torch.float32).contiguous(), b.detach().to(torch.float32).contiguous()
    return a.shape == b.shape and torch.equal(a.view(torch.int32), b.view(torch.int32))
