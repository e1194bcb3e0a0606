"""page.main() (what app.py runs) with experimental changes, for ab_browser.py: never a mode of the app.

``BENCH_VARIANT`` is a comma-separated list of the changes below (empty: the app as it is). Each
answers one question about where a browser Step's time goes:

- ``no_charts``: every ``st.plotly_chart`` draws nothing. What the rest of the page costs.
- ``static_tables``: the training view's tables are ``st.table`` (HTML) instead of ``st.dataframe``
  (a canvas grid). What the three grids cost.
- ``no_modebar``: Plotly's mode bar is not built (``displayModeBar: False``). What it costs per draw.
"""

import os
import sys
from pathlib import Path

VARIANTS = ("no_charts", "static_tables", "no_modebar")


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import streamlit as st

    from components import charts, training
    from sections import training_section

    asked = {v for v in os.environ.get("BENCH_VARIANT", "").split(",") if v}
    if asked - set(VARIANTS):
        raise SystemExit(f"unknown BENCH_VARIANT {sorted(asked - set(VARIANTS))}; known: {', '.join(VARIANTS)}")

    class StaticTables:
        """The streamlit module, but ``dataframe(data, **kw)`` draws ``st.table(data)``."""

        def __getattr__(self, name):
            return getattr(st, name)

        @staticmethod
        def dataframe(data, **_):
            return st.table(data)

    # Applied at every run (modules are imported once per server, this script runs per rerun);
    # the mode bar's wrapper only once, so that it does not wrap itself.
    if "no_charts" in asked:
        st.plotly_chart = lambda *a, **k: None
    if "static_tables" in asked:
        training.st = training_section.st = StaticTables()
    if "no_modebar" in asked and not getattr(charts, "_variant_patched", False):
        config = charts.chart_config
        charts.chart_config = lambda name: {**config(name), "displayModeBar": False}
        charts._variant_patched = True

    import page

    page.main()


if __name__ == "__main__":  # streamlit runs a script as __main__; ab_browser.py only reads VARIANTS
    main()
