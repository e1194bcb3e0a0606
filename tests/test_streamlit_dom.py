"""Every Streamlit element our JavaScript finds by ``data-testid``, and every attribute of Streamlit's
it reads, still exists in the installed Streamlit's frontend (tests/streamlit_dom.py); the browser
test matches each selector, attribute and theme variable on the running app."""

from __future__ import annotations

import re

import pytest

from tests.streamlit_dom import (STREAMLIT_ATTRIBUTES, decorative_selectors, frontend_source, our_javascript,
                                 streamlit_selectors, streamlit_test_ids, streamlit_variables)

NAMES = streamlit_test_ids()


def test_the_javascript_names_streamlit_elements_at_all():
    assert {"stApp", "stSkeleton", "stConnectionStatus"} <= set(NAMES), NAMES  # the extraction reads our files
    assert NAMES["stSidebarCollapseButton"] == ["components/sidebar_fold.py"]  # and the JS a module hands inline


def test_the_selectors_are_read_whole_from_every_string_of_our_javascript():
    """A selector list is cut at its top-level commas only; each selector keeps its combinators."""
    found = streamlit_selectors()
    for sel, where in (('[role="option"][aria-selected]', "components/widget_text.js"),
                       ('[data-testid="stMarkdownContainer"]:not([data-testid="stFileUploaderDropzone"] *)',
                        "components/widget_text.js"),
                       ('[data-testid="stSidebarCollapseButton"] button', "components/sidebar_fold.py"),
                       ('[data-testid="stConnectionStatus"]', "components/keeper/keeper.js"),
                       (".st-key-", "components/guide/guide.js"), ('[role="listbox"]', "components/widget_text.js")):
        assert where in found.get(sel, []), (sel, sorted(found))
    assert not any("stage" in s or "guide" in s for s in found if "data-testid" in s)  # our own elements are not Streamlit's
    assert streamlit_variables() == {"--st-background-color": ["components/stage/js/index.mjs"]}


@pytest.mark.parametrize("attribute", sorted(STREAMLIT_ATTRIBUTES))
def test_the_attributes_of_streamlit_s_elements_our_javascript_reads_are_still_drawn(frontend, attribute):
    written, _ = STREAMLIT_ATTRIBUTES[attribute]
    assert any(written in text for text in our_javascript().values()), f"no JavaScript reads {written} any more"
    assert re.search(rf"[`\"']{re.escape(attribute)}[`\"']", frontend), (
        f"Streamlit no longer sets {attribute!r}, which our JavaScript reads as {written}")


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
