"""The parts of Streamlit's page that the app's JavaScript relies on, read from the JavaScript itself.

Our components find some of Streamlit's own elements by their ``data-testid`` (widget_text.js
translates the file uploader's words, the keeper watches the connection status, the guide waits
for the skeletons of widgets still loading), and widget_text.js hides some of Plotly's pictures by
CSS selector (its ``DECORATIVE`` list). Streamlit does not promise those names, so
tests/test_streamlit_dom.py and tests/e2e/test_streamlit_dom.py check each one against the
installed Streamlit: a name that stops matching fails a test that names it.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit

ROOT = Path(__file__).resolve().parent.parent
OUR_JS = sorted(p for p in (ROOT / "components").rglob("*") if p.suffix in (".js", ".mjs"))
OUR_TEST_IDS = {"stage", "guide"}  # set by our own components on their own elements
TEST_ID = re.compile(r"""data-testid=\\?["']?([A-Za-z][A-Za-z0-9_-]*)""")
FRONTEND = Path(streamlit.__file__).resolve().parent / "static"
WIDGET_TEXT_JS = ROOT / "components" / "widget_text.js"
_DECORATIVE = re.compile(r"^const DECORATIVE = \[(.*?)\];", re.M | re.S)


def streamlit_test_ids() -> dict[str, list[str]]:
    """Each Streamlit ``data-testid`` our JavaScript names → the files that name it."""
    found: dict[str, list[str]] = {}
    for path in OUR_JS:
        for name in TEST_ID.findall(path.read_text(encoding="utf-8")):
            if name not in OUR_TEST_IDS:
                found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def frontend_source() -> str:
    """Streamlit's built frontend, as installed (its JavaScript chunks)."""
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in FRONTEND.rglob("*.js"))


def decorative_selectors() -> list[str]:
    """The CSS selectors of the pictures widget_text.js hides from the accessibility tree (Plotly's
    mode bar icons, its off-screen tester), read from its ``DECORATIVE`` list."""
    found = _DECORATIVE.search(WIDGET_TEXT_JS.read_text(encoding="utf-8"))
    return re.findall(r'"([^"]+)"', found.group(1)) if found else []
