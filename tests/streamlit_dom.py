"""The parts of Streamlit's page that the app's JavaScript relies on, read from the JavaScript itself.

Our components find some of Streamlit's own elements: by ``data-testid`` (widget_text.js translates
the file uploader's words, the keeper watches the connection status, the guide waits for the
skeletons of widgets still loading, sidebar_fold.py presses the sidebar's fold button), by BaseWeb
names, ARIA roles and ``st-key-<key>`` classes (widget_text.js tells Streamlit's chrome from the
learner's content), by attributes Streamlit sets (the sidebar's ``data-collapsed``, the app's
script state) and by the theme's CSS variables (the stage's light or dark); widget_text.js also
hides some of Plotly's pictures by CSS selector (its ``DECORATIVE`` list). Streamlit does not
promise any of those names, so tests/test_streamlit_dom.py checks them against the installed
Streamlit's frontend and the JavaScript, and tests/e2e/test_streamlit_dom.py matches each on the
running app: a name that stops matching fails a test that names it.
"""

from __future__ import annotations

import ast
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
# A string literal of our JavaScript ('…', "…", or a template with no ${…}), and what marks one of
# its selectors as Streamlit's: a data-testid, a BaseWeb name, an st- class, an ARIA role or attribute.
_LITERAL = re.compile(r"""'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`$]*)`""")
_STREAMLITS = re.compile(r"""data-testid=|data-baseweb=|\.st-|\[role=|\[aria-""")
_VARIABLE = re.compile(r"--st-[a-z0-9-]+")
# Attributes of Streamlit's elements that our JavaScript reads (as written there, and the element).
STREAMLIT_ATTRIBUTES = {
    "data-collapsed": ('getAttribute("data-collapsed")', '[data-testid="stSidebar"]'),  # sidebar_fold.py
    "data-test-script-state": ("dataset.testScriptState", '[data-testid="stApp"]'),  # guide.js
}


def our_javascript() -> dict[str, str]:
    """Our JavaScript by file (relative to the repository): the components' .js and .mjs files, and
    the JavaScript a component's Python module hands Streamlit inline (its module-level ``JS = "…"``)."""
    found = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in OUR_JS}
    for path in sorted((ROOT / "components").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "JS" for t in node.targets)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                found[str(path.relative_to(ROOT))] = node.value.value
    return found


def streamlit_test_ids() -> dict[str, list[str]]:
    """Each Streamlit ``data-testid`` our JavaScript names → the files that name it."""
    found: dict[str, list[str]] = {}
    for where, text in our_javascript().items():
        for name in TEST_ID.findall(text):
            if name not in OUR_TEST_IDS and where not in found.get(name, []):
                found.setdefault(name, []).append(where)
    return found


def _parts(selector_list: str) -> list[str]:
    """A selector list cut at its top-level commas (not those inside :not(…) or [….])."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(selector_list):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(selector_list[start:i])
            start = i + 1
    return [p.strip() for p in [*parts, selector_list[start:]] if p.strip()]


def streamlit_selectors() -> dict[str, list[str]]:
    """Each CSS selector by which our JavaScript finds Streamlit's elements → the files that use it:
    every selector of every string literal that names a Streamlit element (a data-testid other than
    our own, a BaseWeb name, an ``st-`` class, an ARIA role or attribute). One that ends in "-" is a
    class prefix the code completes (``".st-key-" + key``)."""
    found: dict[str, list[str]] = {}
    for where, text in our_javascript().items():
        for m in _LITERAL.finditer(text):
            literal = next(g for g in m.groups() if g is not None)
            for sel in _parts(literal):
                own = set(TEST_ID.findall(sel)) & OUR_TEST_IDS
                if _STREAMLITS.search(sel) and not own and where not in found.get(sel, []):
                    found.setdefault(sel, []).append(where)
    return found


def streamlit_variables() -> dict[str, list[str]]:
    """Each of Streamlit's theme variables (``--st-…``) our JavaScript reads → the files that read it."""
    found: dict[str, list[str]] = {}
    for where, text in our_javascript().items():
        for name in sorted(set(_VARIABLE.findall(text))):
            found.setdefault(name, []).append(where)
    return found


def frontend_source() -> str:
    """Streamlit's built frontend, as installed (its JavaScript chunks)."""
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in FRONTEND.rglob("*.js"))


def decorative_selectors() -> list[str]:
    """The CSS selectors of the pictures widget_text.js hides from the accessibility tree (Plotly's
    mode bar icons, its off-screen tester), read from its ``DECORATIVE`` list."""
    found = _DECORATIVE.search(WIDGET_TEXT_JS.read_text(encoding="utf-8"))
    return re.findall(r'"([^"]+)"', found.group(1)) if found else []
