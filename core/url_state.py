"""The page's address: which view, language, example and knobs a URL asks for, and back.

A copied address reopens the same page: ``?section=train&lang=en&preset=reviews_en&embedding_dim=4
&seed=0&pad_mode=longest&pooling=masked_mean&optimizer=adam&lr=0.05&weight_decay=0.0&batch_size=0``.
Each parameter's name is the widget key of the same name (README, "Scripting the app"), and its
value is what that widget holds. An address is untrusted (anyone can type one): `read` takes only
the values the app can use exactly and reports every other one, naming the value the page keeps,
so nothing is coerced in silence. Parameters it does not know (``?s=…``, ``?utm_source=…``) are
not its business.

    >>> read({"section": "train", "lr": "abc"}, {"lr": 0.1}, {"section": SECTIONS})
    ({'section': 'train'}, [Problem(code='url_param', params={'name': 'lr', 'value': 'abc', 'param': 'lr=abc', 'kept': '0.1',
      'reason': Problem(code='lr_range', params={'value': 'abc', 'max': 10.0, 'min': 0.0, 'choices': ''})})])
    >>> write({"section": "train", "lang": "en", "preset": None}, config_values)
    {'section': 'train', 'lang': 'en', 'embedding_dim': '3', 'seed': '0', 'pad_mode': 'longest', …, 'lr': '0.1', …}
"""

from __future__ import annotations

import math
from typing import Mapping

from core.exact import exact_int
from core.knobs import KNOBS, Knob
from core.problems import Problem

SECTIONS = ("lookup", "train", "lessons", "share")  # the views, in the order the page offers them
PAD_MODES = ("longest", "fixed")  # pad_mode: the fixed_len knob as two widgets (None is "longest")
CHOICE_PARAMS = ("section", "lang", "preset", "pad_mode")  # parameters whose value is one of a list
NAMES: tuple[str, ...] = CHOICE_PARAMS + tuple(k.name for k in KNOBS)  # every parameter the address holds
SHOWN = 40  # characters of a refused value shown back


def read(params: Mapping[str, str], current: Mapping[str, object],
         choices: Mapping[str, tuple[str, ...]]) -> tuple[dict[str, object], list[Problem]]:
    """The values ``params`` (one string per name) asks for, and a Problem for each it asks wrongly.

    ``choices`` gives the allowed values of section, lang and preset; ``current`` the value the page
    has now for each name (named in a problem as the value it keeps). Values come back keyed by
    widget: knobs as the knob takes them (`core.knobs`), ``pad_mode`` and ``fixed_len`` (an int) as
    the two widgets of the fixed_len knob. A parameter that is absent leaves its widget as it is;
    one that is refused does too, and says so::

        url_param(name, value, param="name=value", kept, reason)   reason: the knob's own Problem, or url_choice
    """
    values: dict[str, object] = {}
    problems: list[Problem] = []
    allowed = {**choices, "pad_mode": PAD_MODES}
    for name in CHOICE_PARAMS:
        if name in params and name in allowed:
            text = str(params[name])
            if text in allowed[name]:
                values[name] = text
            else:
                reason = Problem("url_choice", {"name": name, "value": _shown(text), "choices": ", ".join(allowed[name])})
                problems.append(_refused(name, text, current, reason))
    for k in KNOBS:
        if k.name in params:
            value = _knob_value(k, str(params[k.name]))
            if isinstance(value, Problem):
                problems.append(_refused(k.name, str(params[k.name]), current, value))
            else:
                values[k.name] = value
    return values, problems


def write(view: Mapping[str, object], config: Mapping[str, object]) -> dict[str, str]:
    """The parameters for a page: ``view`` holds section, lang and preset (None: the lab did not come
    from a preset), ``config`` every knob's value. Floats are written so that they read back bitwise."""
    out = {name: str(view[name]) for name in ("section", "lang", "preset") if view.get(name) is not None}
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
        value = exact_int(text, k.name)
        if isinstance(value, Problem):
            return value
    elif k.kind == "float":
        try:
            value = float(text)
        except ValueError:
            value = text  # the knob's check names it as a value it cannot use
        else:
            if not math.isfinite(value):
                value = text
    return k.check(value) or value


def _refused(name: str, text: str, current: Mapping[str, object], reason: Problem) -> Problem:
    kept = current.get(name)
    return Problem("url_param", {"name": name, "value": _shown(text), "param": f"{name}={_shown(text)}",
                                 "kept": "" if kept is None else str(kept), "reason": reason})


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"
