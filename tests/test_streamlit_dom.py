"""Every Streamlit element our JavaScript finds by ``data-testid`` still exists in the installed
Streamlit's frontend (tests/streamlit_dom.py); the browser test checks the ones on the page."""

from __future__ import annotations

import re

import pytest

from tests.streamlit_dom import decorative_selectors, frontend_source, streamlit_test_ids

NAMES = streamlit_test_ids()


def test_the_javascript_names_streamlit_elements_at_all():
    assert {"stApp", "stSkeleton", "stConnectionStatus"} <= set(NAMES), NAMES  # the extraction reads our files


@pytest.fixture(scope="module")
def frontend():
    return frontend_source()


@pytest.mark.parametrize("name", sorted(NAMES))
def test_streamlit_s_frontend_still_draws(frontend, name):
    assert re.search(rf"[`\"']{re.escape(name)}[`\"']", frontend), (
        f"Streamlit no longer draws data-testid={name!r}, which {NAMES[name]} rely on")


def test_the_app_s_script_state_is_still_published_as_the_guide_reads_it(frontend):
    """components/guide/guide.js waits for ``stApp``'s ``data-test-script-state`` to read ``notRunning``."""
    assert '"data-test-script-state"' in frontend and "`notRunning`" in frontend


def test_the_plotly_names_widget_text_hides_are_still_in_streamlit_s_plotly(frontend):
    """widget_text.js hides Plotly's mode bar icons, its off-screen tester and a chart's drag layer:
    Streamlit's bundled Plotly still names them so (the browser test matches them on a page with a chart)."""
    assert decorative_selectors() == [".modebar-btn > svg", "svg#js-plotly-tester", ".js-plotly-plot g.draglayer"]
    for name in ("`js-plotly-tester`", "modebar-btn", "`draglayer`", "js-plotly-plot"):
        assert name in frontend, f"Streamlit's Plotly no longer names {name}, which components/widget_text.js hides"
