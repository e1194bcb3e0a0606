"""page.main() (what app.py runs) with experimental changes, for ab_browser.py: never a mode of the app.

``BENCH_VARIANT`` is a comma-separated list of the changes below (empty: the app as it is). Each
leaves one part of the page out or changes it, to say what that part costs a browser Step (its
server time and the browser's work to draw it):

- ``no_editors``: the folded editors box (vocabulary table and sentences) is not drawn.
- ``no_keeper``: the keeper component (work kept in the browser) is not drawn.
- ``no_timeline``: the timeline slider under the stage is not drawn.
- ``no_captions``: the captions under the stage are not drawn.
- ``no_details``: nothing below the training view's stage (frame controls, predict box, details,
  PAD editor, neighbours, replay) is drawn.
- ``flex_bar``: the bar in one horizontal container instead of seven columns.
- ``fat_js``: the stage's JavaScript twice as long (what resending it with every Step costs).
- ``no_bar_inputs``: the bar without its number input (N) and its select box (speed).
- ``inline_js``: the stage's and the keeper's JavaScript sent inline with every update, as they are
  declared, instead of served from their folders once a page (page.py, serve_component_files).
- ``noop_stage``: the stage gets the same data but draws only its step number: what a Step costs
  without the stage's own drawing (the server's work and Streamlit's).
"""

import os
import sys
from pathlib import Path

VARIANTS = ("no_editors", "no_keeper", "no_timeline", "no_captions", "no_details", "flex_bar", "fat_js",
            "no_bar_inputs", "noop_stage", "inline_js")

# The stage's JavaScript for ``noop_stage``: it shows only the step number and the attributes the
# benchmarks wait for, so what is left of a Step is the server's and Streamlit's share.
NOOP_STAGE_JS = """
export default function ({ data, parentElement }) {
  let root = parentElement.querySelector('[data-testid="stage"]');
  if (!root) {
    root = document.createElement("div");
    root.setAttribute("data-testid", "stage");
    root.innerHTML = '<span data-testid="stage-step"></span>';
    parentElement.appendChild(root);
  }
  const step = String((data && data.scatter && data.scatter.step) || 0);
  root.querySelector('[data-testid="stage-step"]').textContent = step;
  root.dataset.step = step;
  root.dataset.mode = (data && data.mode) || "";
  root.dataset.animating = "0";
  root.dataset.updates = String((Number(root.dataset.updates) || 0) + 1);
}
"""


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import page
    from components import keeper, training
    from sections import training_section

    asked = {v for v in os.environ.get("BENCH_VARIANT", "").split(",") if v}
    if asked - set(VARIANTS):
        raise SystemExit(f"unknown BENCH_VARIANT {sorted(asked - set(VARIANTS))}; known: {', '.join(VARIANTS)}")
    noop = lambda *a, **k: None  # noqa: E731
    # Applied at every run (modules are imported once per server; this script runs at each rerun).
    if "no_editors" in asked:
        page.editors = noop
    if "no_keeper" in asked:
        keeper.keep = noop
    if "no_timeline" in asked:
        training.timeline = noop
    if "no_captions" in asked:
        training_section.captions = noop
    if "no_details" in asked:
        training_section.details = noop
    if "flex_bar" in asked:  # the bar in one horizontal container instead of seven columns
        import streamlit as st

        class _Flex:
            def __getattr__(self, name):
                return getattr(st, name)

            def columns(self, spec, **kw):
                row = st.container(horizontal=True, vertical_alignment="center")
                return [row] * (spec if isinstance(spec, int) else len(spec))
        training.st = _Flex()
    if "no_bar_inputs" in asked:  # the bar without its number input (N) and its select box (speed)
        import streamlit as st

        class _NoInputs:
            def __getattr__(self, name):
                return getattr(st, name)

            def columns(self, spec, **kw):
                return [_Col(c) for c in st.columns(spec, **kw)]

        class _Col:
            def __init__(self, col):
                self._col = col

            def __getattr__(self, name):
                return getattr(self._col, name)

            def number_input(self, *a, **k):
                return 50

            def selectbox(self, *a, **k):
                return training.DEFAULT_SPEED
        training.st = _NoInputs()
    if "noop_stage" in asked:  # the same data sent, drawn as its step number only: Streamlit's share of a Step
        import streamlit as st

        from components import stage as stage_mod
        if not getattr(stage_mod, "_noop", False):
            stage_mod._noop = True
            stage_mod._mount = st.components.v2.component("embedding_stage_noop", html=stage_mod.HTML, js=NOOP_STAGE_JS)
    if "inline_js" in asked:  # nothing served from the components' folders: their code stays inline
        from server import streamlit_private

        streamlit_private.serve_component_files = lambda *a, **k: False
    if "fat_js" in asked:  # the stage's JS twice as long (a comment): what its resending costs
        import streamlit as st

        from components import stage as stage_mod
        if not getattr(stage_mod, "_fat", False):
            stage_mod._fat = True
            stage_mod._mount = st.components.v2.component(
                "embedding_stage", html=stage_mod.HTML, css=stage_mod.CSS,
                js=stage_mod.JS + "\n/*" + "x" * (len(stage_mod.JS) + len(stage_mod.CSS)) + "*/\n")
    page.main()


if __name__ == "__main__":  # streamlit runs a script as __main__; ab_browser.py only reads VARIANTS
    main()
