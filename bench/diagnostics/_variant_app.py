"""page.main() (what app.py runs) with experimental changes, for ab_browser.py: never a mode of the app.

``BENCH_VARIANT`` is a comma-separated list of the changes below (empty: the app as it is). Each
leaves one part of the page out, to say what that part costs a browser Step (its server time and
the browser's work to draw it):

- ``no_editors``: the folded editors box (vocabulary table and sentences) is not drawn.
- ``no_keeper``: the keeper component (work kept in the browser) is not drawn.
- ``no_timeline``: the timeline slider under the stage is not drawn.
- ``no_captions``: the captions under the stage are not drawn.
- ``no_details``: nothing below the training view's stage (frame controls, predict box, details,
  PAD editor, neighbours, replay) is drawn.
"""

import os
import sys
from pathlib import Path

VARIANTS = ("no_editors", "no_keeper", "no_timeline", "no_captions", "no_details", "flex_bar", "fat_js")


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
