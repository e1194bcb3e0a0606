"""Helpers for AppTest scripts: start the app, read Plotly figures and the id matrix off the page."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from support import apptest as support_apptest
from support.apptest import shown  # noqa: F401  (the tests import it from here)

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def start(lang: str = "ko") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    return at.run()


def figures(at: AppTest) -> list[dict]:
    """Every Plotly figure on the page as a dict (st.plotly_chart is an UnknownElement in AppTest)."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def figure(at: AppTest, title_part: str) -> dict:
    for fig in figures(at):
        title = fig.get("layout", {}).get("title", {})
        text = title.get("text", "") if isinstance(title, dict) else str(title)
        if title_part in text:
            return fig
    raise AssertionError(f"no figure titled with {title_part!r}: {[f.get('layout', {}).get('title') for f in figures(at)]}")


def array(value) -> np.ndarray:
    """Plotly 7 encodes numpy arrays as {'dtype', 'bdata'[, 'shape']}; lists stay lists."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), value["dtype"])
        if "shape" in value:
            arr = arr.reshape([int(s) for s in str(value["shape"]).split(",")])
        return arr
    return np.asarray(value)


def component_data(el) -> dict:
    """A custom component's data as the app gave it: JSON in ``proto.json``, or JSON bytes in
    ``proto.bytes`` (the stage's)."""
    return json.loads(el.proto.bytes or el.proto.json or "{}")


def stage(at: AppTest) -> dict:
    """The stage's data (components/stage/README.md): the custom component is an UnknownElement whose
    ``proto.bytes`` is exactly the data the app gave it, as JSON (support.apptest.stage)."""
    return support_apptest.stage(at)


def stage_w(at: AppTest) -> tuple[list[int], np.ndarray]:
    """The rows of W the stage shows: (ids, (K, E) float32). Exact: each float32 round-trips through JSON."""
    w = stage(at)["w"]
    return w["rows"], np.asarray(w["values"], dtype=np.float32)


def stage_xy(at: AppTest, token: int) -> tuple[float, float]:
    """Where the stage's scatter draws ``token``."""
    s = stage(at)["scatter"]
    i = s["ids"].index(token)
    return s["x"][i], s["y"][i]


def id_matrix(at: AppTest) -> list[list[int]]:
    """The (B, T) ids the lookup view's stage shows."""
    return stage(at)["ids"]


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]
