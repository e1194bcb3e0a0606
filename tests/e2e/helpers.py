"""What the browser tests share: finding widgets by their documented keys, waiting for Streamlit, reading the screen.

Streamlit puts a ``st-key-<key>`` class on the container of every widget or element that has a key,
so the keys in ``session.Keys`` (docs/scripting.md) are also the DOM hooks used here.

Reading the screen:

- The stage (components/stage/js/, entry index.mjs) is mounted inside a shadow root under ``.st-key-stage``;
  its root is ``[data-testid="stage"]``, whose dataset says the mode, the step shown and whether
  anything is still moving. Every token node carries ``data-token="<id>"``; hovered nodes get the
  class ``hl``, selected ones ``sel``. Playwright's CSS locators enter the shadow root by
  themselves (`STAGE`); page-side JavaScript reaches it through ``__stage()`` in `JS_LIB`.
  The stage writes its numbers rounded to 2 decimals; the exact numbers are in the lookup view's
  tables (`lookup_tables`), whose grids keep every float32 digit.
- Glide data grids (st.dataframe, st.data_editor) draw on a canvas but keep an accessible
  ``<table>`` with the cell texts; `grid_rows` reads it.

Waiting: after an interaction, wait for the *expected* content (`wait_js`, `wait_stage`), then for
the app to be idle (`wait_idle`: the script not running, no stale element, for a quiet period).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from support.browser import FIND_STAGE_JS, unavailable_reason  # noqa: F401  (Chromium itself: support.browser.launch)
from support.labs import chapter_w  # noqa: F401  (the app's init, drawn by torch)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
VIEWPORT = {"width": 1400, "height": 900}
PROJECTOR = {"width": 1280, "height": 720}  # a classroom projector (issue 14)
LAPTOP = {"width": 1440, "height": 900}
LOCALES = {"ko": "ko-KR", "en": "en-US"}  # the browser locale that opens the app in each language

# Glide data grid geometry in Streamlit (px): header row, body rows, the row-marker column of a
# dynamic data editor, and the row-number column of the vocabulary table.
HEADER_H = 35
ROW_H = 35
ROW_MARKER_W = 35
VOCAB_INDEX_W = 44  # components.inputs.INDEX_WIDTH: the vocabulary table shows row numbers

STAGE = ".st-key-stage [data-testid='stage']"  # a Playwright locator: it pierces the shadow root


def label(lang: str, key: str, **params) -> str:
    """The app's own string (assets/strings/*.json), so tests follow wording changes."""
    from components.i18n import t

    return t(lang, key, **params)


def touched_rows(ids, pad: int, v: int) -> set[int]:
    """The rows whose gradient is not zero after one backward pass through nn.Embedding(padding_idx=pad)."""
    import torch

    emb = torch.nn.Embedding(v, 3, padding_idx=pad)
    emb(torch.tensor(ids)).pow(2).sum().backward()
    return set(torch.nonzero(emb.weight.grad.abs().sum(1)).flatten().tolist())


def stage_number(text: str) -> float:
    """A number as the stage writes it (2 decimals, U+2212 for minus)."""
    return float(text.replace("\u2212", "-"))


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


def refuse_outside(page, base_url: str) -> list[str]:
    """Route every request of ``page``: those to ``base_url`` go through, any other is refused and
    recorded in the list returned (a page that fetches nothing outside leaves it empty)."""
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith(base_url):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return outside


def wait_idle(page, timeout: float = 30_000, quiet_ms: int = 300) -> None:
    """Wait until the script has not been running, and nothing is stale, for ``quiet_ms``."""
    page.evaluate("() => { window.__e2eQuietSince = null; }")
    page.wait_for_function(_IDLE_JS, arg=quiet_ms, timeout=timeout, polling=50)


# An element each view draws (its widget key) and no other view does.
SECTION_MARKERS = {"lookup": "out_sentence", "train": "step", "lessons": "mode", "share": "import_state"}


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
""" + "const __stage = " + FIND_STAGE_JS + ";\n" + r"""const __txt = (e, sel) => { const n = sel ? e.querySelector(sel) : e; return n ? n.textContent : null; };
const __wrows = (panel) => panel ? Array.from(panel.querySelectorAll('.wrow:not(.whead)')).map(r => ({
  id: r.hasAttribute('data-token') ? Number(r.getAttribute('data-token')) : null,
  t: r.hasAttribute('data-t') ? Number(r.getAttribute('data-t')) : null,
  tok: __txt(r, '.wtok'), cells: Array.from(r.querySelectorAll('.wcell')).map(c => c.textContent),
  grad: __txt(r, '.wgrad'), cls: Array.from(r.classList)})) : [];
const stage = () => {
  const s = __stage();
  if (!s) return null;
  const q = (sel) => s.querySelector(sel);
  const ids = {};
  for (const c of s.querySelectorAll('.idspanel .idcell[data-token]')) {
    const b = Number(c.getAttribute('data-b')), t = Number(c.getAttribute('data-t'));
    // The word as typed where the vocabulary changed it: the token chip over the cell, or (data without raw) the cell's own line
    const chip = s.querySelector(`.tokchip[data-b="${b}"][data-t="${t}"]`), tok = __txt(c, '.idtok');
    const typed = chip ? (chip.textContent !== tok ? chip.textContent : null) : __txt(c, '.idtyped');
    (ids[b] = ids[b] || [])[t] = {id: Number(c.getAttribute('data-token')), tok, typed, cls: Array.from(c.classList)};
  }
  return {
    mode: s.dataset.mode, step: s.dataset.step, animating: s.dataset.animating, playing: s.dataset.playing, settled: Number(s.dataset.settled || 0),
    lang: s.getAttribute('lang'), stepText: __txt(s, '[data-testid="stage-step"]'), loss: __txt(s, '.lossnum'),
    w: __wrows(q('.wpanel')), out: __wrows(q('.outpanel')), outTitle: __txt(s, '.outpanel .ptitle'),
    ids: Object.keys(ids).sort((a, b) => a - b).map(b => ids[b]),
    points: Array.from(s.querySelectorAll('.pt[data-token]')).map(p => ({id: Number(p.getAttribute('data-token')),
      role: p.getAttribute('data-role'), transform: p.getAttribute('transform'), cls: Array.from(p.classList)})),
    hl: Array.from(s.querySelectorAll('.hl')).map(e => e.getAttribute('data-token')),
    sel: Array.from(s.querySelectorAll('.sel')).map(e => e.getAttribute('data-token')),
    wires: s.querySelectorAll('.wires .wire').length,
    text: s.innerText,
  };
};
const __keyOf = (el) => {
  const c = el.closest('[class*="st-key-"]');
  if (!c) return null;
  const k = Array.from(c.classList).find(x => x.startsWith('st-key-'));
  return k ? k.slice(7) : null;
};
const __arr = (v) => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object' && v._inputArray !== undefined) v = v._inputArray;
  if (ArrayBuffer.isView(v)) return Array.from(v);
  if (Array.isArray(v)) return v.map(x => (x !== null && typeof x === 'object') ? __arr(x) : x);
  return v;
};
const figures = () => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(__live).map(e => ({
  key: __keyOf(e),
  title: ((e.layout && e.layout.title && e.layout.title.text) || '').replace(/<[^>]*>/g, ''),
  data: (e.data || []).map(t => ({name: t.name === undefined ? null : t.name, type: t.type || 'scatter',
                                   x: __arr(t.x), y: __arr(t.y), z: __arr(t.z)})),
}));
const gridRows = (key) => {
  const host = document.querySelector('.st-key-' + key);
  if (!host) return null;
  return Array.from(host.querySelectorAll('table tr')).map(r => Array.from(r.children).map(c => c.textContent));
};
const grids = (key) => {
  const host = document.querySelector('.st-key-' + key);
  if (!host) return [];
  return Array.from(host.querySelectorAll('[data-testid="stDataFrame"]')).filter(__live).map(g =>
    Array.from(g.querySelectorAll('table tr')).map(r => Array.from(r.children).map(c => c.textContent)));
};
const texts = (testid) => Array.from(document.querySelectorAll('[data-testid="' + testid + '"]')).filter(__live).map(e => e.innerText);
"""


def _eval(page, expr: str, arg=None):
    return page.evaluate(f"(arg) => {{ {JS_LIB}; return ({expr}); }}", arg)


def figures(page) -> list[dict]:
    """Every visible, current Plotly chart (the lessons' figures): {key, title, data: [{name, type, x, y, z}]}."""
    return _eval(page, "figures()")


def stage(page) -> dict:
    """What the stage shows now: mode, step, W rows, id cells, output rows, points, highlighted and selected tokens."""
    s = _eval(page, "stage()")
    if s is None:
        raise AssertionError("the stage is not on the page")
    return s


def stage_ids(page) -> list[list[int]]:
    """The (B, T) id matrix as the stage draws it."""
    return [[c["id"] for c in row] for row in stage(page)["ids"]]


def stage_w(page) -> dict[int, list[float]]:
    """W's rows on the stage: id → its numbers (2 decimals)."""
    return {r["id"]: [stage_number(c) for c in r["cells"]] for r in stage(page)["w"]}


def wait_stage(page, predicate: str = "s => true", arg=None, timeout: float = 30_000, idle: bool = True) -> dict:
    """Until the stage is drawn, nothing on it moves and ``predicate(stage(), arg)`` holds; returns `stage`."""
    wait_js(page, f"(a) => {{ const s = stage(); return s !== null && s.animating === '0' && ({predicate})(s, a); }}",
            arg, timeout=timeout, idle=idle)
    if idle:  # a rerun that arrived while waiting for idle can start a glide: let it settle
        page.wait_for_function(f"() => {{ {JS_LIB}; const s = stage(); return s !== null && s.animating === '0'; }}",
                               timeout=timeout, polling=50)
    return stage(page)


def wait_step(page, n: int, timeout: float = 60_000) -> dict:
    """Until the training stage shows step ``n``, settled; a timeout says which step it shows instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return wait_stage(page, "(s, n) => s.mode === 'train' && s.step === String(n) && s.stepText === String(n)", n,
                          timeout=timeout)
    except PlaywrightTimeout:
        s = _eval(page, "stage()") or {}
        raise AssertionError(f"the stage never showed step {n} settled: it shows step {s.get('step')} "
                             f"(counter {s.get('stepText')!r}, animating {s.get('animating')!r})") from None


def shown_step(page, timeout: float = 60_000) -> int:
    """The step the training stage shows once the page is idle, nothing glides and the counter agrees
    with the stage's data (no Play running): conditions only."""
    s = wait_stage(page, "s => s.mode === 'train' && s.playing !== '1' && s.step === s.stepText", timeout=timeout)
    return int(s["step"])


def play_until(page, lang: str, at_least: int, timeout: float = 60_000) -> dict:
    """Click Play, then wait until the stage's counter has passed ``at_least`` while playing."""
    click_until_sent(page, button(page, "play"), pressed("play"))
    wait_js(page, "(t) => document.querySelector('.st-key-play button').innerText.includes(t)",
            label(lang, "train.pause_button"), idle=False)
    wait_js(page, "(n) => { const s = stage(); return s !== null && s.playing === '1' && Number(s.stepText) >= n; }",
            at_least, timeout=timeout, idle=False)
    return stage(page)


def pause(page, lang: str, timeout: float = 60_000) -> int:
    """Click Pause and return the step the page says it stopped at: the Play label is back, the
    stage holds the data of a run that is not playing (the same run drew both), it has settled, and
    the page is idle. Conditions only: what the page says then is what the lab holds."""
    click_until_sent(page, button(page, "play"), pressed("play"))
    wait_js(page, "(t) => { const s = stage(); return document.querySelector('.st-key-play button').innerText.includes(t)"
                  " && s !== null && s.playing === '0'; }", label(lang, "train.play_button"), timeout=timeout)
    s = wait_stage(page, "s => s.mode === 'train' && s.playing === '0' && s.step === s.stepText", timeout=timeout)
    return int(s["step"])


def grid_rows(page, key: str) -> list[list[str]]:
    """The text of a keyed data grid, header row first, as the accessible table holds it."""
    rows = _eval(page, "gridRows(arg)", key)
    if rows is None:
        raise AssertionError(f"no grid with key {key!r}")
    return rows


def alerts(page, kind: str) -> list[str]:
    """Texts of visible alerts: kind is Error, Success, Info or Warning."""
    return _eval(page, "texts(arg)", f"stAlertContent{kind}")


def sidebar_title(page) -> str:
    return page.locator("[data-testid='stSidebar'] h1").first.inner_text()


# ---- the lookup view's tables (exact numbers) ----------------------------------------------------
def open_expander(page, key: str) -> None:
    """Open the keyed expander (built only while open: its content arrives with the rerun)."""
    details = page.locator(f".st-key-{key} details").first
    if details.get_attribute("open") is None:
        page.locator(f".st-key-{key} summary").first.click()
    wait_js(page, "(k) => { const d = document.querySelector('.st-key-' + k + ' details'); return d && d.open; }", key)


def lookup_tables(page, lang: str) -> dict:
    """Open `lookup_tables` and read its grids: the id matrix (cells '2 · 영화'), W and the output,
    each as {id or t: [float32 numbers]}, exactly as the grids hold them."""
    import numpy as np

    open_expander(page, "lookup_tables")
    col_id, col_count = label(lang, "label.col.id"), label(lang, "pipe.col.count")
    wait_js(page, "() => grids('lookup_tables').length >= 5 && grids('lookup_tables').every(g => g.length > 0)"
                  " && gridRows('id_cell') !== null")  # every grid drawn, none still empty
    found = {"ids": [row[1:] for row in grid_rows(page, "id_cell")[1:]]}
    for rows in _eval(page, "grids('lookup_tables')"):
        head = rows[0]
        e_cols = [j for j, h in enumerate(head) if h.startswith("e") and h[1:].isdigit()]
        if not e_cols:
            continue
        if col_count in head:
            found["w"] = {int(r[head.index(col_id)]): np.array([float(r[j]) for j in e_cols], np.float32) for r in rows[1:]}
        elif head[0] == "t":
            found["out_ids"] = [int(r[head.index(col_id)]) for r in rows[1:]]
            found["out"] = np.array([[float(r[j]) for j in e_cols] for r in rows[1:]], np.float32)
    assert "w" in found and "out" in found, f"W or the output table is missing: {_eval(page, 'grids(arg)', 'lookup_tables')}"
    return found


def close_expander(page, key: str) -> None:
    details = page.locator(f".st-key-{key} details").first
    if details.get_attribute("open") is not None:
        page.locator(f".st-key-{key} summary").first.click()
        wait_js(page, "(k) => { const d = document.querySelector('.st-key-' + k + ' details'); return d && !d.open; }", key)


# ---- what the browser sent -------------------------------------------------------------------
def record_sent(page) -> None:
    """Keep every message the page sends the server (call before the page opens the app)."""
    page.e2e_sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda p: page.e2e_sent.append(p) if isinstance(p, bytes) else None))


def _sent_states(page, since: int):
    """The widget states of each rerun the page asked for after message ``since``."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    for payload in page.e2e_sent[since:]:
        msg = BackMsg.FromString(payload)
        if msg.WhichOneof("type") == "rerun_script":
            yield msg.rerun_script.widget_states.widgets


def pressed(key: str):
    """A test of sent widget states: the keyed button's click is among them."""
    return lambda states: any(w.id.endswith("-" + key) and w.WhichOneof("value") == "trigger_value" and w.trigger_value
                              for w in states)


def stage_selected(token: int, key: str = "stage"):
    """A test of sent widget states: the stage reports ``token`` selected (anywhere, or as an id-matrix cell)."""
    def test(states) -> bool:
        for w in states:
            if w.id.endswith("-" + key) and w.WhichOneof("value") == "json_value":
                try:
                    state = json.loads(w.json_value)
                    if state.get("selected") == token or (state.get("cell") or {}).get("id") == token:
                        return True
                except (ValueError, AttributeError):
                    pass
        return False
    return test


def click_until_sent(page, locator, sent, tries: int = 3, wait_ms: int = 5_000) -> None:
    """Click ``locator`` until the browser has sent the server what the click means (``sent``, a test
    of a rerun's widget states). A click that left nothing in the browser's messages (under load,
    one landing while the element is redrawn may be dropped before it is sent) is made again; a
    click that was sent is never repeated: what the server does with it is the test's to check.
    Pages opened without `record_sent` are clicked once."""
    if getattr(page, "e2e_sent", None) is None:
        locator.click()
        return
    for _ in range(tries):
        since = len(page.e2e_sent)
        locator.click()
        deadline = time.monotonic() + wait_ms / 1000
        while time.monotonic() < deadline:
            if any(sent(states) for states in _sent_states(page, since)):
                return
            page.wait_for_timeout(50)  # lets Playwright deliver the frames it holds
    raise AssertionError(f"{tries} clicks and the browser sent none of them")


# ---- acting ---------------------------------------------------------------------------------
class OnePageAtATime:
    """Pages of the app kept by a key, one open at a time: asking for a new key closes the previous
    page's browser context (tests that visit the same page in several views reuse it)."""

    def __init__(self, browser, url: str, viewport: dict):
        self.browser, self.url, self.viewport, self.held = browser, url, dict(viewport), {}

    def get(self, key, locale: str, scheme: str = "light", prepare=None):
        """The page for ``key`` (opened with ``locale`` and ``scheme``, then ``prepare(page)``)."""
        if key not in self.held:
            self.close()
            ctx = self.browser.new_context(locale=locale, viewport=dict(self.viewport), color_scheme=scheme)
            ctx.set_default_timeout(30_000)
            page = ctx.new_page()
            record_sent(page)
            open_app(page, self.url)
            if prepare is not None:
                prepare(page)
            self.held[key] = (ctx, page)
        return self.held[key][1]

    def close(self) -> None:
        for ctx, _ in self.held.values():
            ctx.close()
        self.held.clear()


def open_app(page, url: str, timeout: float = 90_000) -> None:
    """Load the app and wait until the lookup stage has drawn W (the first run imports torch: slow)."""
    page.goto(url)
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    wait_stage(page, "s => s.w.length > 0", timeout=timeout)


def section(page, lang: str, name: str) -> None:
    """Switch the view with the segmented control (`section`); waits until the view is drawn and idle.

    Waits for the view's own element rather than counting script runs through stApp's
    ``data-test-script-state``: a run fast enough to be rendered in one React batch never shows
    "running" there.
    """
    button = page.locator(".st-key-section button", has_text=label(lang, f"section.{name}"))
    if button.get_attribute("aria-checked") != "true":
        button.click()
    wait_js(page, "(k) => { const e = document.querySelector('.st-key-' + k); return e !== null && __live(e); }",
            SECTION_MARKERS[name])
    if name in ("lookup", "train"):
        wait_stage(page, "(s, m) => s.mode === m", "train" if name == "train" else "lookup")


def open_editors(page) -> None:
    """Unfold the editors (vocabulary table and sentences) at the top of the page.

    Open it, let the page settle, and open it again if a rerun folded it.
    """
    details = page.locator(".st-key-editors details").first
    for _ in range(3):
        if details.get_attribute("open") is None:
            details.locator("summary").first.click()
        wait_idle(page)
        if details.get_attribute("open") is not None:
            break
    page.locator(".st-key-sentences textarea").wait_for(state="visible")
    # The grid is drawn once the box is open; its accessible copy (what grid_rows reads) fills a moment later.
    page.locator(".st-key-vocab [data-testid='stDataFrame']").wait_for(state="visible")
    page.locator(".st-key-vocab table tr").nth(1).wait_for(state="attached")


def button(page, key: str):
    """The button drawn with ``key``: the visible one (a button with help sits in a tooltip wrapper
    that repeats the key's class, and a narrow layout may draw a hidden copy first)."""
    return page.locator(f".st-key-{key} button:visible").first


def export_button(page, lang: str):
    """The share view's button that downloads the state as JSON (a file Streamlit serves from /media/)."""
    return page.locator(".st-key-export_state").get_by_role("button", name=label(lang, "share.export_state"))


def upload_and_apply(page, file_key: str, apply_key: str, path) -> None:
    """Pick the file at ``path`` in the uploader ``file_key`` and click ``apply_key`` once the upload's
    run has enabled it and the page is idle: the chip of the uploaded file moves what is below it, so a
    click before that run ends may land beside the button."""
    page.locator(f".st-key-{file_key} input[type=file]").set_input_files(str(path))
    wait_js(page, f"() => {{ const b = document.querySelector('.st-key-{apply_key} button'); return b && !b.disabled; }}")
    button(page, apply_key).click()


def import_state(page, path) -> None:
    """On the share view: upload the file at ``path`` (to /_stcore/upload_file) and apply it."""
    upload_and_apply(page, "import_state", "import_apply", path)


def click_token(page, selector: str) -> None:
    """Click a node on the stage (``selector`` inside it) and wait until the server's answer is drawn.
    A token not selected yet is clicked until the browser has sent the selection (`click_until_sent`)."""
    node = page.locator(f"{STAGE} {selector}").first
    token = node.get_attribute("data-token")
    if token is None or token in ((stage(page) or {}).get("sel") or []):
        node.click()  # nothing new to send
    else:
        click_until_sent(page, node, stage_selected(int(token)))
    wait_idle(page)


def edit_vocab_token(page, row: int, text: str, right: int = 0) -> str:
    """Type ``text`` into the token cell of vocabulary row ``row`` (0-based), or the cell ``right``
    columns right of it (1: the id); returns the text it replaced.

    fill works for Korean, which key-by-key typing into the canvas does not; Enter commits and
    Streamlit reruns.
    """
    from playwright.sync_api import expect

    editor = open_vocab_editor(page, row, right)
    old = editor.input_value()
    editor.fill(text)
    expect(editor).to_have_value(text)
    editor.press("Enter")
    editor.wait_for(state="hidden", timeout=5_000)
    return old


def open_vocab_editor(page, row: int, right: int = 0):
    """Open glide's overlay editor (a textarea) on the token cell of vocabulary row ``row``
    (0-based), or the cell ``right`` columns right of it; returns the editor's locator.

    Click selects the cell (arrow keys move the selection); Enter opens the editor. The editors'
    expander can fold itself after an edit (see `open_editors`): each try reopens it. A click on the
    cell that is already selected opens its editor by itself; a second Enter while the editor is
    still opening would open it anew over what was typed into the first (a loaded machine can take
    seconds), so Enter is pressed once per try, and only where the click did not open the editor.
    """
    grid = page.locator(".st-key-vocab [data-testid='stDataFrame']")
    cell = page.locator(".st-key-vocab table tr").nth(row + 1).locator("td").nth(1)  # the accessible copy; 0 = row number
    editor = page.locator("textarea.gdg-input")
    for _ in range(4):
        open_editors(page)
        wait_idle(page, quiet_ms=600)
        # Always click: the focus may be elsewhere (Enter would do nothing).
        grid.scroll_into_view_if_needed()  # page.mouse clicks at viewport coordinates
        opens = cell.get_attribute("aria-selected") == "true"  # Enter after the last edit moved the selection here
        box = grid.bounding_box()
        page.mouse.click(box["x"] + ROW_MARKER_W + VOCAB_INDEX_W + 30, box["y"] + HEADER_H + (row + 0.5) * ROW_H)
        try:
            page.wait_for_function("(c) => c.getAttribute('aria-selected') === 'true'", arg=cell.element_handle(),
                                   timeout=1_500, polling=50)
        except Exception:
            continue  # a click that only moved focus into the grid selects nothing: click again
        if opens:
            try:
                editor.wait_for(state="visible", timeout=5_000)
            except Exception:
                continue
            if not right:
                return editor
            page.keyboard.press("Escape")  # the token's editor: close it unchanged
            editor.wait_for(state="hidden", timeout=5_000)
        for _ in range(right):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        try:
            editor.wait_for(state="visible", timeout=5_000)
            return editor
        except Exception:
            continue
    raise AssertionError(f"could not open the editor of vocabulary row {row}")


def set_sentences(page, text: str) -> None:
    """Replace the sentences and submit them the way a learner does (Ctrl+Enter)."""
    open_editors(page)
    area = page.locator(".st-key-sentences textarea")
    area.fill(text)
    area.press("Control+Enter")


def choose(page, key: str, option: str) -> None:
    """Pick ``option`` in the selectbox drawn with ``key``; waits until the box shows it and the page is idle."""
    box = page.locator(f".st-key-{key} input[role=combobox]").first
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(3):  # a click during a rerun can focus the box without opening its list
        wait_idle(page)
        box.click()
        try:
            wanted.wait_for(timeout=3_000)
            break
        except Exception:
            page.keyboard.press("Escape")
    wanted.click()
    wait_js(page, "([k, s]) => document.querySelector('.st-key-' + k + ' input').value === s", [key, option])


def set_number(page, key: str, value) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")


def run_steps(page, lang: str, n: int, start: int) -> dict:
    """Type N into `n_steps`, click Run N, wait for the stage to show step ``start + n``."""
    set_number(page, "n_steps", n)
    wait_js(page, "(s) => document.querySelector('.st-key-run_steps button').innerText.includes(s)",
            label(lang, "train.run", n=n))
    button(page, "run_steps").click()
    return wait_step(page, start + n)


def step_once(page, n_after: int) -> dict:
    button(page, "step").click()
    return wait_step(page, n_after)


def screenshot(page, name: str, viewport: dict | None = None, path: Path | None = None) -> Path:
    """Save artifacts/screenshots/<name>.png (or ``path``) of the viewport."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = path or SCREENSHOTS / f"{name}.png"
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
