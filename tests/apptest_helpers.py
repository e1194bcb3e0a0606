"""Helpers for AppTest scripts: start the app, read Plotly figures and the id matrix off the page."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

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


def id_matrix(at: AppTest) -> list[list[int]]:
    """The (B, T) ids shown in the id matrix table (cells read 'id · token')."""
    for df in at.dataframe:
        frame = df.value
        if len(frame.columns) and str(frame.columns[0]) == "t=0":
            return [[int(str(c).split(" · ")[0]) for c in row] for row in frame.itertuples(index=False)]
    raise AssertionError("no id matrix on the page")


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]
