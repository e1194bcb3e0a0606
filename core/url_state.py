"""The page's address: which view, language, example and knobs a URL asks for, and back.

A copied address reopens the same page: ``?section=train&lang=en&preset=reviews_en&embedding_dim=4
&seed=0&pad_mode=longest&pooling=masked_mean&optimizer=adam&lr=0.05&weight_decay=0.0&batch_size=0``,
with ``&present=1`` while presentation mode is on (a projector's bookmark opens presenting).
Each parameter's name is the widget key of the same name (docs/scripting.md), and its
value is what that widget holds. An address is untrusted (anyone can type one): `read` takes only
the values the app can use exactly and reports every other one, naming the value the page keeps,
so nothing is coerced in silence. Parameters it does not know (``?s=…``, ``?utm_source=…``) are
not its business.

Nothing is read more loosely than it is written: a float only in the plain ASCII decimal grammar
(``0.05``, ``-1.5e-3``; not ``0.0_5``, ``١``, `` 1``, ``inf``), and not when its text names a number
too small for a float64 to hold (``1e-400`` would read as 0.0, ``1e-310`` as a subnormal with lost
digits); an int only in ASCII digits; a parameter the address owns only once (``lr=1&lr=2`` names
both and applies neither: Streamlit's ``query_params`` would keep the last in silence).

    >>> read({"section": "train", "lr": "abc"}, {"lr": 0.1}, {"section": SECTIONS})
    ({'section': 'train'}, [Problem(code='url_param', params={'name': 'lr', 'value': 'abc', 'param': 'lr=abc', 'kept': '0.1',
      'reason': Problem(code='url_float_syntax', params={'name': 'lr', 'value': 'abc'})})])
    >>> write({"section": "train", "lang": "en", "preset": None}, config_values)
    {'section': 'train', 'lang': 'en', 'embedding_dim': '3', 'seed': '0', 'pad_mode': 'longest', …, 'lr': '0.1', …}
"""

from __future__ import annotations

import math
import re
import sys
from typing import Mapping, Sequence

from core.exact import exact_int
from core.knobs import KNOBS, Knob
from core.problems import Problem

SECTIONS = ("lookup", "train", "lessons", "share")  # the views, in the order the page offers them
PAD_MODES = ("longest", "fixed")  # pad_mode: the fixed_len knob as two widgets (None is "longest")
PRESENT = ("0", "1")  # present: presentation mode off or on (written only when on)
CHOICE_PARAMS = ("section", "lang", "preset", "present", "pad_mode")  # parameters whose value is one of a list
NAMES: tuple[str, ...] = CHOICE_PARAMS + tuple(k.name for k in KNOBS)  # every parameter the address holds
SHOWN = 40  # characters of a refused value shown back
FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # what `write` writes, and no more
INT_TEXT = re.compile(r"[+-]?[0-9]+")
_NONZERO_DIGIT = re.compile(r"[1-9]")
SMALLEST_NORMAL = sys.float_info.min  # below it a float64 keeps fewer digits (subnormal), then none (0.0)

Params = Mapping[str, "str | Sequence[str]"]  # name → its value, or every value it has (st.query_params.get_all)


def values_of(params: Params, name: str) -> list[str]:
    """Every value the address gives ``name``, in order (none when it is absent)."""
    if name not in params:
        return []
    value = params[name]
    return [value] if isinstance(value, str) else [str(v) for v in value]


def single(params: Params) -> dict[str, str]:
    """The parameters that have exactly one value (a repeated one is `read`'s to name, not to guess)."""
    return {name: vs[0] for name in params if len(vs := values_of(params, name)) == 1}


def read(params: Params, current: Mapping[str, object],
         choices: Mapping[str, tuple[str, ...]]) -> tuple[dict[str, object], list[Problem]]:
    """The values ``params`` (one string per name, or a list of every string it has) asks for, and a
    Problem for each it asks wrongly.

    ``choices`` gives the allowed values of section, lang and preset; ``current`` the value the page
    has now for each name (named in a problem as the value it keeps). Values come back keyed by
    widget: knobs as the knob takes them (`core.knobs`), ``pad_mode`` and ``fixed_len`` (an int) as
    the two widgets of the fixed_len knob. A parameter that is absent leaves its widget as it is;
    one that is refused does too, and says so::

        url_param(name, value, param="name=value", kept, reason)   reason: the knob's own Problem, or
                  url_choice, url_float_syntax, url_float_underflow, int_not_number, url_repeated
    """
    values: dict[str, object] = {}
    problems: list[Problem] = []
    allowed = {**choices, "pad_mode": PAD_MODES, "present": PRESENT}
    for name in NAMES:
        if len(texts := values_of(params, name)) > 1:
            problems.append(_repeated(name, texts, current))
    params = single(params)
    for name in CHOICE_PARAMS:
        if name in params and name in allowed:
            text = str(params[name])
            if text in allowed[name]:
                values[name] = text
            else:
                reason = Problem("url_choice", {"name": name, "value": _shown(text), "choices": ", ".join(allowed[name])})
                problems.append(_refused(name, text, current, reason))
    if "present" in values:
        values["present"] = values["present"] == "1"  # the toggle's value
    for k in KNOBS:
        if k.name in params:
            value = _knob_value(k, str(params[k.name]))
            if isinstance(value, Problem):
                problems.append(_refused(k.name, str(params[k.name]), current, value))
            else:
                values[k.name] = value
    return values, problems


def write(view: Mapping[str, object], config: Mapping[str, object]) -> dict[str, str]:
    """The parameters for a page: ``view`` holds section, lang, preset (None: the lab did not come
    from a preset) and present (presentation mode: written only when on), ``config`` every knob's
    value. Floats are written so that they read back bitwise."""
    out = {name: str(view[name]) for name in ("section", "lang", "preset") if view.get(name) is not None}
    if view.get("present"):
        out["present"] = "1"
    for k in KNOBS:
        value = config[k.name]
        if k.kind == "optional_int":
            out["pad_mode"] = "longest" if value is None else "fixed"
            if value is None:
                continue
        out[k.name] = repr(float(value)) if k.kind == "float" else str(value)
    return out


def _knob_value(k: Knob, text: str) -> object:
    """A knob's value from its parameter's text, or the Problem that refuses it."""
    value: object = text
    if k.kind in ("int", "optional_int"):
        value = exact_int(text, k.name) if INT_TEXT.fullmatch(text) else Problem(
            "int_not_number", {"name": k.name, "value": _shown(text)})
        if isinstance(value, Problem):
            return value
    elif k.kind == "float":
        value = exact_float(text, k.name)
        if isinstance(value, Problem):
            return value
    return k.check(value) or value


def exact_float(text: str, name: str) -> float | Problem:
    """``text`` as the float it names, when it is written in the plain decimal grammar and a float64
    holds it at full precision; else the Problem that says why not.

    >>> exact_float("0.05", "lr"), exact_float("-1E-3", "lr")
    (0.05, -0.001)
    >>> [exact_float(t, "lr").code for t in ("0.0_5", "\u0661", " 1", "inf", "1e-400")]
    ['url_float_syntax', 'url_float_syntax', 'url_float_syntax', 'url_float_syntax', 'url_float_underflow']
    """
    if not FLOAT_TEXT.fullmatch(text):
        return Problem("url_float_syntax", {"name": name, "value": _shown(text)})
    value = float(text)  # the grammar is a subset of float()'s: it cannot raise
    if math.isfinite(value) and abs(value) < SMALLEST_NORMAL and _NONZERO_DIGIT.search(text.split("e")[0].split("E")[0]):
        return Problem("url_float_underflow", {"name": name, "value": _shown(text), "min": f"{SMALLEST_NORMAL:.1e}"})
    return value


def _repeated(name: str, texts: list[str], current: Mapping[str, object]) -> Problem:
    joined = "&".join(f"{name}={_shown(t)}" for t in texts[:4]) + ("&…" if len(texts) > 4 else "")
    reason = Problem("url_repeated", {"name": name, "n": len(texts), "values": ", ".join(_shown(t) for t in texts[:4])})
    kept = current.get(name)
    return Problem("url_param", {"name": name, "value": "&".join(_shown(t) for t in texts[:4]), "param": joined,
                                 "kept": "" if kept is None else str(kept), "reason": reason})


def _refused(name: str, text: str, current: Mapping[str, object], reason: Problem) -> Problem:
    kept = current.get(name)
    return Problem("url_param", {"name": name, "value": _shown(text), "param": f"{name}={_shown(text)}",
                                 "kept": "" if kept is None else str(kept), "reason": reason})


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"
