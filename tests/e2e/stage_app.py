"""A tiny app that mounts the stage with made-up data (support.stage_sample), for the stage's tests and benchmark.

Query parameters choose the picture: lang, mode (train|lookup), n (ids), e (dims), present (1),
play (1: Play through `frames` intermediate steps per update), frames, sps (steps per second),
height (px), view (stage|plotly: the same points as a plain st.plotly_chart, for the benchmark),
auto (1, with play=1: a timed fragment sends the next frames on its own, as Play in an app would),
rows and cur (lookup: a batch of `rows` sentences, the output showing sentence `cur`, an even number),
cols (lookup: every sentence `cols` tokens long, its ids repeated),
selected (the id selected until the stage sends one).
The "next" button advances one step (with play=1, `frames` steps); the text "selected=<id>" shows the state the stage sent back.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from components.stage import stage  # noqa: E402
from support.stage_sample import sample_data  # noqa: E402

st.set_page_config(layout="wide", initial_sidebar_state="collapsed")
q = st.query_params
lang = q.get("lang", "ko")
mode = q.get("mode", "train")
n = int(q.get("n", "10"))
e = int(q.get("e", "4"))
view = q.get("view", "stage")
play = q.get("play", "0") == "1"
frames = int(q.get("frames", "10" if play else "0"))
height = int(q.get("height", "540"))

if "stage_step" not in st.session_state:
    st.session_state["stage_step"] = 0


def _advance() -> None:
    st.session_state["stage_step"] += frames if play else 1  # Play: one update carries `frames` steps


sps = int(q.get("sps", "10"))
first_selected = int(q["selected"]) if "selected" in q else None  # until the stage sends a selection


def draw(step: int) -> None:
    data = sample_data(step, n=n, e=e, lang=lang, mode=mode, present=q.get("present", "0") == "1", play=play,
                       frames=frames, steps_per_second=sps, height=height,
                       selected=(st.session_state.get("stage") or {}).get("selected", first_selected))
    if int(q.get("classes", "0")) > 0:  # K classes of long names, the looked-up points dealt out among them
        k = int(q["classes"])
        data["classes"] = [f"분류 {c + 1}: 아주 긴 이름을 가진 수업용 예제의 주제"[:40] for c in range(k)]
        used = [r == "used" for r in data["scatter"]["role"]]
        data["scatter"]["cls"] = [i % k if u else -1 for i, u in enumerate(used)]
    if mode == "lookup" and int(q.get("rows", "0")) > len(data["ids"]):
        # A batch of `rows` sentences, copies of the sample's two in turn; `cur` (even: a copy of the
        # first, so out.values still are its rows) is the one the output shows.
        rows = int(q["rows"])
        data["ids"] = [data["ids"][i % 2] for i in range(rows)]
        data["sentences"] = [data["sentences"][i % 2] for i in range(rows)]
        cur = int(q.get("cur", "0"))
        data["out"]["b"] = cur if 0 <= cur < rows and cur % 2 == 0 else 0
    if mode == "lookup" and int(q.get("cols", "0")) > 0:
        cols = int(q["cols"])
        data["ids"] = [[row[j % len(row)] for j in range(cols)] for row in data["ids"]]
        data["sentences"] = [[toks[j % len(toks)] for j in range(cols)] for toks in data["sentences"]]
        b = data["out"]["b"]
        data["out"]["values"] = [data["out"]["values"][j % len(data["out"]["values"])] for j in range(cols)]
    if view == "plotly":
        import plotly.graph_objects as go

        s = data["scatter"]
        kind = go.Scattergl if n > 2000 else go.Scatter
        fig = go.Figure(kind(x=s["x"], y=s["y"], mode="markers", marker=dict(size=4 if n > 2000 else 10)))
        fig.update_layout(height=height, xaxis=dict(range=s["range"][0]), yaxis=dict(range=s["range"][1]),
                          title=f"step {step}", margin=dict(l=40, r=10, t=40, b=40))
        st.plotly_chart(fig, key="plot", width="stretch")
        st.caption(f"plotly step={step}")
    else:
        state = stage(data, key="stage")
        st.caption(f"selected={None if state is None else state['selected']} step={step}")


if play and q.get("auto") == "1":
    # Play as an app would run it: a fragment reruns on a timer and sends the next `frames` steps,
    # one batch per (frames / sps) seconds, while the browser is still gliding through the last.
    @st.fragment(run_every=frames / sps)
    def playing() -> None:
        st.session_state["stage_step"] += frames
        draw(st.session_state["stage_step"])

    playing()
else:
    draw(st.session_state["stage_step"])
st.button("next", key="next", on_click=_advance)
