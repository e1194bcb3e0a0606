"""The framework's floor under bench_warm.py's view switches: the bare page with the app's view switch.

Four views under a segmented control keyed ``section`` with the app's English labels, each drawing
the kinds of Streamlit element the app's view draws (fed constants: no torch, no explorer), and the
widget bench_warm.py waits for (the app's keys: ``out_sentence``, ``step``, ``mode``,
``import_state``). A view's first switch against its later ones on this page is what Streamlit
itself costs the first time a page draws those elements (the browser fetching and compiling the
frontend's code for them, the server's first use of them), whatever the app does.
"""

import sys
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

LABELS = {"lookup": "① Lookup", "train": "② Training", "lessons": "③ Lessons", "share": "④ Save · share · code"}


def chart(title: str) -> None:
    fig = go.Figure(go.Scatter(x=[0, 1, 2, 3], y=[1, 3, 2, 4], mode="lines+markers"))
    fig.update_layout(title=title, height=320)
    st.plotly_chart(fig, key=f"chart_{title}")


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
try:  # the app's own labels (components/i18n.py reads assets/strings)
    from components.i18n import t

    LABELS = {v: t("en", f"section.{v}") for v in LABELS}
except ImportError:  # pragma: no cover
    pass
view = st.segmented_control("view", list(LABELS), key="section", required=True, default="lookup",
                            format_func=LABELS.get, label_visibility="collapsed")
frame = pd.DataFrame({"token": ["<UNK>", "<PAD>", "movie", "good"], "id": [0, 1, 2, 3], "w": [0.1, 0.0, -0.3, 0.7]})
if view == "lookup":
    st.selectbox("sentence", [0, 1], key="out_sentence")
    st.markdown("(B, T) = (2, 3)")
    chart("lookup")
elif view == "train":
    st.button("Step", key="step")
    chart("train")
elif view == "lessons":
    st.radio("mode", ["guided", "free"], key="mode", horizontal=True)
    st.metric("max |Δ|", "0")
    st.table(frame)
    st.dataframe(frame, hide_index=True)
    chart("lessons")
else:
    cols = st.columns(3)
    for i in range(6):
        cols[i % 3].download_button(f"file {i}", b"x", file_name=f"f{i}.txt", key=f"dl{i}", on_click="ignore")
    with st.expander("code"):
        st.code("import torch\nemb = torch.nn.Embedding(6, 3, padding_idx=1)\n", language="python")
    st.code("http://127.0.0.1/?s=abc", language=None, wrap_lines=True)
    st.file_uploader("import", type=["json"], key="import_state")
