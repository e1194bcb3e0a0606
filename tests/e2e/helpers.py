"""What the browser tests share: finding widgets by their documented keys, waiting for Streamlit, reading the screen.

Streamlit puts a ``st-key-<key>`` class on the container of every widget or chart that has a key,
so the keys in ``session.Keys`` (README, "Scripting the app") are also the DOM hooks used here.

Reading the screen:

- Plotly charts: ``.js-plotly-plot`` elements carry ``.data`` and ``.layout``; `figure` returns the
  title (tags stripped), the traces' x/y/z (Plotly's binary arrays decoded) and the shapes.
- Glide data grids (st.dataframe, st.data_editor) draw on a canvas but keep an accessible
  ``<table>`` with the cell texts; `grid_rows` reads it.

Waiting: after an interaction, wait for the *expected* content (`wait_js`), then for the app to be
idle (`wait_idle`: the script not running, no stale element, for a quiet period).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
               "--disable-component-update", "--no-first-run"]
VIEWPORT = {"width": 1400, "height": 2200}
TALL_VIEWPORT = {"width": 1400, "height": 3300}  # the training view is taller than 2200 px

# Glide data grid geometry in Streamlit (px): header row, body rows, the row-marker column of a
# dynamic data editor, and (roughly) the index column of the id matrix ("b=0").
HEADER_H = 35
ROW_H = 35
ROW_MARKER_W = 35
VOCAB_INDEX_W = 44  # components.inputs.INDEX_WIDTH: the vocabulary table shows row numbers
INDEX_W = 55

RED = "#d93025"  # components.charts.SELECT_COLOR: the selected row of W


def unavailable_reason() -> str | None:
    """Why browser tests cannot run here, or None."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium fonts-noto-cjk)"
    if importlib.util.find_spec("playwright") is None:
        return "browser tests need the playwright Python package (pip install -r requirements-dev.txt)"
    try:
        import playwright.sync_api  # noqa: F401
    except Exception as e:  # a broken install
        return f"playwright is not importable: {e!r}"
    return None


def label(lang: str, key: str, **params) -> str:
    """The app's own string (assets/strings/*.json), so tests follow wording changes."""
    from components.i18n import t

    return t(lang, key, **params)


# ---- waiting --------------------------------------------------------------------------------
_IDLE_JS = """(quietMs) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const busy = !app
    || app.getAttribute('data-test-script-state') === 'running'
    || app.getAttribute('data-test-connection-state') !== 'CONNECTED'
    || document.querySelector('[data-testid="stStatusWidget"]') !== null
    || document.querySelector('[data-stale="true"]') !== null;
  const now = performance.now();
  if (busy) { window.__e2eQuietSince = null; return false; }
  if (window.__e2eQuietSince == null) window.__e2eQuietSince = now;
  return now - window.__e2eQuietSince >= quietMs;
}"""


def wait_idle(page, timeout: float = 30_000, quiet_ms: int = 300) -> None:
    """Wait until the script has not been running, and nothing is stale, for ``quiet_ms``."""
    page.evaluate("() => { window.__e2eQuietSince = null; }")
    page.wait_for_function(_IDLE_JS, arg=quiet_ms, timeout=timeout, polling=50)


# An element each view draws (its widget key) and no other view does.
SECTION_MARKERS = {"lookup": "id_cell", "train": "step", "lessons": "mode", "share": "import_state"}


def wait_js(page, predicate: str, arg=None, timeout: float = 30_000, idle: bool = True) -> None:
    """Wait for a JS predicate ``(arg) => bool`` (helpers from `JS_LIB` are in scope), then for idle."""
    page.wait_for_function(f"(arg) => {{ {JS_LIB}; return ({predicate})(arg); }}", arg=arg, timeout=timeout, polling=100)
    if idle:
        wait_idle(page, timeout=timeout)


# ---- reading the page -------------------------------------------------------------------------
JS_LIB = r"""
const __live = (el) => {
  const c = el.closest('[data-testid="stElementContainer"]');
  return el.offsetParent !== null && !(c && c.getAttribute('data-stale') === 'true');
};
const __arr = (v) => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object' && v._inputArray !== undefined) v = v._inputArray;
  if (ArrayBuffer.isView(v)) return Array.from(v);
  if (Array.isArray(v)) return v.map(x => (x !== null && typeof x === 'object') ? __arr(x) : x);
  return v;
};
const __keyOf = (el) => {
  const c = el.closest('[class*="st-key-"]');
  if (!c) return null;
  const k = Array.from(c.classList).find(x => x.startsWith('st-key-'));
  return k ? k.slice(7) : null;
};
const figures = () => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(__live).map(e => ({
  key: __keyOf(e),
  title: ((e.layout && e.layout.title && e.layout.title.text) || '').replace(/<[^>]*>/g, ''),
  shapes: ((e.layout && e.layout.shapes) || []).map(s => ({color: s.line && s.line.color, width: s.line && s.line.width, y0: s.y0, y1: s.y1})),
  data: (e.data || []).map(t => ({name: t.name === undefined ? null : t.name, type: t.type || 'scatter',
                                   x: __arr(t.x), y: __arr(t.y), z: __arr(t.z)})),
}));
const figure = (key) => figures().find(f => f.key === key) || null;
const gridRows = (key) => {
  const host = document.querySelector('.st-key-' + key);
  if (!host) return null;
  return Array.from(host.querySelectorAll('table tr')).map(r => Array.from(r.children).map(c => c.textContent));
};
const texts = (testid) => Array.from(document.querySelectorAll('[data-testid="' + testid + '"]')).filter(__live).map(e => e.innerText);
"""


def _eval(page, expr: str, arg=None):
    return page.evaluate(f"(arg) => {{ {JS_LIB}; return ({expr}); }}", arg)


def figures(page) -> list[dict]:
    """Every visible, current Plotly chart: {key, title, shapes, data: [{name, type, x, y, z}]}."""
    return _eval(page, "figures()")


def figure(page, key: str) -> dict:
    """The chart drawn with ``key`` (w_chart, out_chart, loss_chart, pca_chart, ...)."""
    fig = _eval(page, "figure(arg)", key)
    if fig is None:
        raise AssertionError(f"no chart with key {key!r}; charts: {[(f['key'], f['title']) for f in figures(page)]}")
    return fig


def red_rows(fig: dict) -> list[int]:
    """Category positions (0 = first label) boxed in the selection red."""
    return [round((s["y0"] + s["y1"]) / 2) for s in fig["shapes"] if str(s["color"]).lower() == RED]


def grid_rows(page, key: str) -> list[list[str]]:
    """The text of a keyed data grid, header row first, as the accessible table holds it."""
    rows = _eval(page, "gridRows(arg)", key)
    if rows is None:
        raise AssertionError(f"no grid with key {key!r}")
    return rows


def id_matrix(page) -> list[list[str]]:
    """The id matrix cells ('2 · 영화'), without the header row and the 'b=…' index column."""
    return [row[1:] for row in grid_rows(page, "id_cell")[1:]]


def alerts(page, kind: str) -> list[str]:
    """Texts of visible alerts: kind is Error, Success, Info or Warning."""
    return _eval(page, "texts(arg)", f"stAlertContent{kind}")


def trace(fig: dict, name: str) -> dict:
    for tr in fig["data"]:
        if tr["name"] == name:
            return tr
    raise AssertionError(f"no trace named {name!r} in {fig['title']!r}: {[t['name'] for t in fig['data']]}")


# ---- acting ---------------------------------------------------------------------------------
def open_app(page, url: str, timeout: float = 90_000) -> None:
    """Load the app and wait until the lookup view has drawn W (the first run imports torch: slow)."""
    page.goto(url)
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    wait_js(page, "() => figure('w_chart') !== null", timeout=timeout)


def section(page, lang: str, name: str) -> None:
    """Switch the view with the segmented control (`section`); waits until the view is drawn and idle.

    Waits for the view's own element rather than counting script runs through stApp's
    ``data-test-script-state``: a run fast enough to be rendered in one React batch never shows
    "running" there, and the count then waited forever (a flaky timeout once the server got faster).
    """
    button = page.locator(".st-key-section button", has_text=label(lang, f"section.{name}"))
    if button.get_attribute("aria-checked") != "true":
        button.click()
    wait_js(page, "(k) => { const e = document.querySelector('.st-key-' + k); return e !== null && __live(e); }",
            SECTION_MARKERS[name])


def select_id_cell(page, row: int, col: int, message: str) -> None:
    """Click cell (row, col) of the id matrix and wait for the success message; one retry for a lost click."""
    predicate = "(s) => texts('stAlertContentSuccess').some(x => x.includes(s))"
    for attempt in (1, 2):
        click_grid_cell(page, "id_cell", row, col)
        try:
            wait_js(page, predicate, message, timeout=10_000 if attempt == 1 else 30_000)
            return
        except Exception:
            if attempt == 2:
                raise AssertionError(f"clicking id matrix cell ({row}, {col}) did not show {message!r}; "
                                     f"success messages: {alerts(page, 'Success')}")


def click_grid_cell(page, key: str, row: int, col: int, index_w: float = INDEX_W) -> None:
    """Click body cell (row, col) of a read-only grid with an index column (st.dataframe)."""
    grid = page.locator(f".st-key-{key} [data-testid='stDataFrame']")
    cols = len(grid_rows(page, key)[0]) - 1  # header row without the index column
    box = grid.bounding_box()
    col_w = (box["width"] - index_w) / cols
    page.mouse.click(box["x"] + index_w + (col + 0.5) * col_w, box["y"] + HEADER_H + (row + 0.5) * ROW_H)


def edit_vocab_token(page, row: int, text: str) -> str:
    """Type ``text`` into the token cell of vocabulary row ``row`` (0-based); returns the text it replaced.

    Click selects the cell; Enter opens glide's overlay editor (a textarea); fill works for Korean,
    which key-by-key typing into the canvas does not; Enter commits and Streamlit reruns.
    """
    grid = page.locator(".st-key-vocab [data-testid='stDataFrame']")
    cell = page.locator(".st-key-vocab table tr").nth(row + 1).locator("td").nth(1)  # the accessible copy; 0 = row number
    editor = page.locator("textarea.gdg-input")
    for _ in range(3):  # a click that only moves focus into the grid selects nothing: click again
        if editor.is_visible() or cell.get_attribute("aria-selected") == "true":
            break
        box = grid.bounding_box()
        page.mouse.click(box["x"] + ROW_MARKER_W + VOCAB_INDEX_W + 30, box["y"] + HEADER_H + (row + 0.5) * ROW_H)
        try:
            page.wait_for_function("(c) => c.getAttribute('aria-selected') === 'true'", arg=cell.element_handle(),
                                   timeout=1_500, polling=50)
        except Exception:
            continue
    assert cell.get_attribute("aria-selected") == "true" or editor.is_visible(), f"could not select vocabulary row {row}"
    if not editor.is_visible():
        page.keyboard.press("Enter")
    editor.wait_for(state="visible", timeout=5_000)
    old = editor.input_value()
    editor.fill(text)
    editor.press("Enter")
    editor.wait_for(state="hidden", timeout=5_000)
    return old


def set_sentences(page, text: str) -> None:
    """Replace the sentences and submit them the way a learner does (Ctrl+Enter)."""
    area = page.locator(".st-key-sentences textarea")
    area.fill(text)
    area.press("Control+Enter")


def set_number(page, key: str, value) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")


def screenshot(page, name: str, viewport: dict | None = None) -> Path:
    """Save artifacts/screenshots/<name>.png; Streamlit scrolls inside the page, so use a tall viewport."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    old = page.viewport_size
    if viewport and viewport != old:
        page.set_viewport_size(viewport)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        wait_idle(page)
    page.screenshot(path=str(path))
    if viewport and viewport != old:
        page.set_viewport_size(old)
    return path


def assert_healthy(page) -> None:
    """No Python exception box on the page and no uncaught JavaScript error."""
    exceptions = page.locator("[data-testid='stException']")
    assert exceptions.count() == 0, exceptions.first.inner_text()
    errors = [e for e in getattr(page, "e2e_js_errors", []) if "ResizeObserver" not in e]
    assert not errors, errors
