"""The training view's widgets and nothing else, for apptest_floor.py and ab_browser.py: never a mode of the app.

Every widget the training view draws after a Step, with the same key, type and place (sidebar,
editors box, bar, stage, details) and the same fragments (the view, and inside it the stage's part
that a Step reruns), fed constants: no torch, no explorer. What a click costs here is what
Streamlit costs for that page, whatever the app computes.

- The Step button counts steps; the stage is mounted under ``stage`` with contract data of the
  preset's size (support/stage_sample.py; ``SKELETON_PRESET``: chapter, the default, or
  reviews_ko) and draws only the step number and the attributes the benchmarks wait for
  (``_variant_app.NOOP_STAGE_JS``). ``SKELETON_STAGE_CODE=1`` (ab_browser.py sets it) sends the
  stage's own JavaScript and CSS along, unused, as the app must.
- ``SKELETON=lean``: the editors box, the PAD editor and the axis popover drawn closed and empty
  (as if they were built only while open), the other widgets as they are.
- The bar sits in the view's fragment and Step's callback reruns the stage's part alone
  (``st.rerun("live")``), as the app's does; ``SKELETON_BAR=inside``: the bar inside the stage's
  part, which a Step then reruns with it (the app before it named the part).
"""

import os
import sys
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
for p in (str(HERE), str(HERE.parents[1])):
    if p not in sys.path:
        sys.path.insert(0, p)

from _variant_app import NOOP_STAGE_JS  # noqa: E402
from components import stage as real_stage  # noqa: E402
from support.stage_sample import sample_data  # noqa: E402

LEAN = os.environ.get("SKELETON") == "lean"
SIZES = {"chapter": (6, 3), "reviews_ko": (138, 8)}  # points and E of the app's presets
POINTS, DIM = SIZES.get(os.environ.get("SKELETON_PRESET", "chapter"), SIZES["chapter"])

_tiny = st.components.v2.component("skeleton_tiny", html="<div></div>", js="export default function () {}")
_code = os.environ.get("SKELETON_STAGE_CODE") == "1"
_stage = st.components.v2.component(
    "skeleton_stage", html=real_stage.HTML, css=real_stage.CSS if _code else None,
    js=NOOP_STAGE_JS + ("\n/*\n" + real_stage.JS.replace("*/", "* /") + "\n*/\n" if _code else ""))


def tiny(key: str) -> None:
    _tiny(key=key, data={"n": 1}, on_value_change=lambda: None)


def sidebar() -> None:
    with st.sidebar:
        st.title("nn.Embedding Explorer")
        st.radio("Language", ["ko", "en"], key="lang", horizontal=True)
        st.caption("subtitle")
        st.toggle("Presentation mode", key="present")
        st.selectbox("Example", ["chapter", "reviews_ko", "large"], key="preset")
        st.button("Load this example", key="load_preset")
        st.header("Model")
        st.number_input("Embedding dimension E", key="embedding_dim", value=3, min_value=1)
        st.number_input("Seed", key="seed", value=0)
        st.radio("Padding", ["longest", "fixed"], key="pad_mode")
        st.number_input("Fixed length T", key="fixed_len", value=4, min_value=1)
        st.header("Training")
        st.selectbox("Pooling", ["mean", "sum", "max"], key="pooling")
        st.number_input("Sentences per step", key="batch_size", value=0, min_value=0)
        with st.expander("Limits"):
            st.markdown("limits")


def editors() -> None:
    box = st.expander("Inputs", key="editors", on_change="rerun" if LEAN else "ignore")
    if LEAN:
        return
    left, right = box.columns([1, 1.3])
    left.markdown("**Vocabulary**")
    left.caption("caption")
    left.data_editor({"token": ["<PAD>", "<UNK>", "좋다", "나쁘다"], "id": [0, 1, 2, 3],
                      "role": ["pad", "unk", "", ""]}, key="vocab", num_rows="dynamic")
    with left.expander("Load a token list"):
        st.caption("caption")
        st.file_uploader("Upload a text file", key="token_list_file")
        st.text_area("or paste it here", key="token_list")
        st.button("Replace the vocabulary", key="token_list_load")
    right.text_area("Sentences", key="sentences", value="좋다 .\n나쁘다 .")


BAR_INSIDE = os.environ.get("SKELETON_BAR") == "inside"


def stepped() -> None:
    """Step's callback: count it, and name the stage's part to rerun (a browser's fragment run only)."""
    st.session_state["steps"] = st.session_state.get("steps", 0) + 1
    if not BAR_INSIDE:
        from server import streamlit_private

        if streamlit_private.fragment_interaction():
            st.rerun("live")


def bar() -> None:
    st.empty()
    cols = st.columns([0.9, 0.95, 0.75, 1.05, 1.0, 0.95, 1.0, 1.0], vertical_alignment="center")
    cols.pop(1).popover("Predict", key="predict_step", on_change="rerun", width="stretch")
    cols[0].button("Step", key="step", width="stretch", on_click=stepped)
    cols[1].number_input("Steps", key="n_steps", value=50.0, label_visibility="collapsed")
    cols[2].button("Run 50", key="run_steps", width="stretch")
    cols[3].button("Play", key="play", width="stretch")
    cols[4].selectbox("Speed", [1, 2, 5, 10, 20], index=3, key="play_speed", label_visibility="collapsed")
    cols[5].button("Reset", key="reset", width="stretch")
    cols[6].popover("Knobs", key="knobs", on_change="rerun", width="stretch")


@st.fragment
def view() -> None:
    if not BAR_INSIDE:
        bar()

    @st.fragment(key="live")
    def live() -> None:
        n = st.session_state.get("steps", 0)
        if BAR_INSIDE:
            bar()
        st.container()  # under the bar: what a click has to say
        _stage(key="stage", data=sample_data(n, n=POINTS, e=DIM, lang="en", mode="train"), height=470,
               on_selected_change=lambda: None)
        st.select_slider("Scrub through steps", list(range(n + 1)) or [0], value=n, key="timeline")
        st.caption(f"PAD stays at (0, 0) in all {n + 1} steps.\n\nAxes: PC1, PC2.")
        tiny("keeper")

    live()
    c1, c2, c4, c3 = st.columns([1.1, 1, 1.1, 2], vertical_alignment="bottom")
    c1.radio("Dimensions", [2, 3], key="pca_dims", horizontal=True)
    c2.button("Re-fit the axes", key="refit_frame")
    axis = c4.popover("Axis", key="axis" if LEAN else None, on_change="rerun" if LEAN else "ignore", width="stretch")
    if not LEAN:
        with axis:
            st.selectbox("Left end", [0, 1, 2, 3], key="axis_from")
            st.selectbox("Right end", [0, 1, 2, 3], index=1, key="axis_to")
            st.button("Make this axis", key="axis_set")
    c3.multiselect("Predict first", [0, 1, 2, 3], key="predict_rows")
    pad = st.expander("Set the PAD row", key="pad" if LEAN else None, on_change="rerun" if LEAN else "ignore")
    if not LEAN:
        with pad:
            st.caption("caption")
            st.text_input("New PAD vector", key="pad_vector", value="1.0, 1.0, 1.0")
            st.markdown("now: [0, 0, 0]")
            st.button("Write into the PAD row", key="set_pad")
    st.expander("The last step in detail", key="details", on_change="rerun")
    st.selectbox("Token to follow", [0, 1, 2, 3], key="selected_token")
    st.expander("Replay", key="replay", on_change="rerun")


def main() -> None:
    from server import streamlit_private

    streamlit_private.cache_theme_messages()  # as the app's page does
    st.set_page_config(page_title="skeleton", layout="wide")
    st.empty()
    sidebar()
    st.html("<style>.x{}</style>")
    tiny("page_lang")
    st.segmented_control("View", ["lookup", "train", "lessons", "share"], key="section", default="train")
    editors()
    st.container()
    view()


main()
