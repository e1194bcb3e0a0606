"""The baseline page for bench_server.py and bench_browser.py: one button and one small Plotly chart.

Whatever Streamlit itself costs for a click that reruns a script and redraws a chart, this page
costs too; the app's interactions are reported as multiples of it. Keys: ``click`` (the button).
The markdown ``clicks: N`` and the chart title ``bare chart N`` show the click count.
"""

import plotly.graph_objects as go
import streamlit as st

if "clicks" not in st.session_state:
    st.session_state["clicks"] = 0
if st.button("Click", key="click"):
    st.session_state["clicks"] += 1
n = st.session_state["clicks"]
st.markdown(f"clicks: {n}")
fig = go.Figure(go.Scatter(x=[0, 1, 2, 3], y=[n, n + 1, n, n + 2], mode="lines+markers"))
fig.update_layout(title=f"bare chart {n}", height=320)
st.plotly_chart(fig, key="chart")
