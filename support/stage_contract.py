"""What the stage's JS relies on in ``data`` (components/stage/README.md), checked: for tests of whoever builds the data.

``contract_errors(data)`` lists every broken promise as a sentence for a developer (not for a
learner); an empty list means the stage can draw it. Pure: no streamlit.
"""

from __future__ import annotations

import math

from components.stage_data import TEXT_KEYS

ROLES = frozenset({"pad", "unk", "used", "unused"})


def _finite_list(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)


def _matrix(v, width: int | None = None) -> bool:
    return isinstance(v, list) and all(_finite_list(r) and (width is None or len(r) == width) for r in v)


def contract_errors(data: dict) -> list[str]:
    """Every way ``data`` breaks the stage's data contract (empty when it keeps it)."""
    err: list[str] = []
    if not isinstance(data, dict):
        return ["data is not a dict"]
    if data.get("version") != 1:
        err.append("version must be 1")
    mode = data.get("mode")
    if mode not in ("train", "lookup"):
        err.append(f"mode must be 'train' or 'lookup', not {mode!r}")
    text = data.get("text")
    if not isinstance(text, dict):
        err.append("text must be a dict")
    else:
        err += [f"text[{k!r}] missing" for k in TEXT_KEYS if not isinstance(text.get(k), str)]
    for k in ("pad", "unk"):
        if data.get(k) is not None and not isinstance(data.get(k), int):
            err.append(f"{k} must be an int id or None")
    tokens = data.get("tokens")
    if not isinstance(tokens, dict) or not all(isinstance(k, str) and k.lstrip("-").isdigit() for k in tokens):
        err.append("tokens must map id strings to tokens")
        tokens = {}
    s = data.get("scatter")
    if s is not None:
        n = len(s.get("ids", [])) if isinstance(s.get("ids"), list) else -1
        if n < 0:
            err.append("scatter.ids must be a list")
        for k in ("x", "y"):
            if not _finite_list(s.get(k)) or len(s.get(k)) != n:
                err.append(f"scatter.{k} must be {n} finite numbers")
        if not isinstance(s.get("role"), list) or len(s["role"]) != n or not set(s["role"]) <= ROLES:
            err.append(f"scatter.role must be {n} of {sorted(ROLES)}")
        if not isinstance(s.get("cls"), list) or len(s["cls"]) != n:
            err.append(f"scatter.cls must be {n} class indices (-1 for none)")
        rg = s.get("range")
        if not (isinstance(rg, list) and len(rg) == 2 and all(_finite_list(r) and len(r) == 2 and r[0] < r[1] for r in rg)):
            err.append("scatter.range must be [[x0, x1], [y0, y1]] with x0 < x1 and y0 < y1")
        for i, f in enumerate(s.get("frames") or []):
            if not (_finite_list(f.get("x")) and _finite_list(f.get("y")) and len(f["x"]) == n == len(f["y"])):
                err.append(f"scatter.frames[{i}] must hold {n} x and {n} y")
        missing = [i for i in (s.get("ids") or []) if str(i) not in tokens]
        if missing and not data.get("big"):
            err.append(f"tokens lacks ids drawn in the scatter: {missing[:5]}")
    w = data.get("w")
    if w is not None:
        rows = w.get("rows")
        if not isinstance(rows, list):
            err.append("w.rows must be a list of ids")
            rows = []
        values = w.get("values")
        if not _matrix(values) or len(values) != len(rows) or len({len(r) for r in values}) > 1:
            err.append(f"w.values must be {len(rows)} rows of E finite numbers")
        for k in ("counts", "grad_norm"):
            if w.get(k) is not None and (not _finite_list(w[k]) or len(w[k]) != len(rows)):
                err.append(f"w.{k} must have one number per shown row")
        e = len(values[0]) if _matrix(values) and values else None
        for i, f in enumerate((data.get("scatter") or {}).get("frames") or []):
            fw = f.get("w")
            if fw is None:
                continue
            fv = fw.get("values")
            if not _matrix(fv) or len(fv) != len(rows) or any(len(r) != e for r in fv):
                err.append(f"scatter.frames[{i}].w.values must be {len(rows)} rows of {e} finite numbers, as w.values")
            if not _finite_list(fw.get("grad_norm")) or len(fw["grad_norm"]) != len(rows):
                err.append(f"scatter.frames[{i}].w.grad_norm must have one number per shown row")
    if mode == "lookup":
        ids = data.get("ids")
        if not (isinstance(ids, list) and all(isinstance(r, list) and all(isinstance(i, int) for i in r) for r in ids)):
            err.append("ids must be the (B, T) id matrix")
            ids = []
        out = data.get("out") or {}
        b = out.get("b")
        if not isinstance(b, int) or not 0 <= b < max(1, len(ids)):
            err.append("out.b must index a row of ids")
        elif ids and (not _matrix(out.get("values")) or len(out["values"]) != len(ids[b])):
            err.append("out.values must be (T, E): one row per id of ids[out.b]")
        raw = data.get("raw")
        if raw is not None:
            err += _raw_errors(raw, len(ids))
    nb = data.get("neighbours")
    if nb is not None and (not isinstance(nb.get("ids"), list) or not _finite_list(nb.get("cos", []))
                           or len(nb.get("cos", nb.get("ids") or [])) != len(nb.get("ids") or [])):
        err.append("neighbours.ids and neighbours.cos must be lists of the same length")
    if not isinstance(data.get("loss", []), list):
        err.append("loss must be a list")
    return err


def _raw_errors(raw, b: int) -> list[str]:
    """``raw``: one entry per sentence, None or {"text", "spans"}, each span [start, end) inside the text."""
    if not isinstance(raw, list) or len(raw) != b:
        return [f"raw must be {b} entries, one per sentence"]
    err = []
    for i, r in enumerate(raw):
        if r is None:
            continue
        if not isinstance(r, dict) or not isinstance(r.get("text"), str):
            err.append(f"raw[{i}] must be None or a dict with the sentence's text")
            continue
        spans, n = r.get("spans"), len(r["text"])
        if spans is not None and not (isinstance(spans, list) and all(
                isinstance(sp, list) and len(sp) == 2 and all(isinstance(x, int) for x in sp) and 0 <= sp[0] < sp[1] <= n
                for sp in spans)):
            err.append(f"raw[{i}].spans must be [start, end) pairs inside its text")
    return err
