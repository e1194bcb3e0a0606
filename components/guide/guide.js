// The first-visit guide: five steps through the chapter's example, each pointing at the real element.
//
// data = {enabled, reopen, steps: [{title, text, host, inner}], text: {next, back, done, close, of},
//         storage, view}
//   enabled: false when the teacher turned the guide off (it then opens only when asked: reopen).
//   reopen: a counter the page raises when the learner asks for the guide again.
//   host: the `st-key-<key>` of the element a step points at; inner: a selector inside it (the
//   stage's parts live in its shadow root), tried first, the host itself if it is not there.
// localStorage[storage] = {"v": 1, "done": true} once the learner closed the guide; anything else
// read there (another version, garbage, a value too long) counts as "not closed yet".
// It sends the state "step" (0-4) as the learner moves: the page shows the view that step is on.
// Every word comes from data and is set with textContent.

const GUIDES = new WeakMap(); // mount point → its guide
const POLL_MS = 250; // while open, the ring follows its element (scroll, resize, a rerun)
const MAX_STORED = 200; // characters: a longer stored value is not ours
const SETTLE_MAX_MS = 30000; // the longest the guide waits for the page to settle before it opens

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let g = GUIDES.get(parentElement);
  if (!g || !g.root.isConnected) {
    g = mount(parentElement);
    GUIDES.set(parentElement, g);
  }
  g.setStateValue = setStateValue;
  update(g, data || {});
  return () => {
    setTimeout(() => {
      if (!g.root.isConnected) {
        clearInterval(g.timer);
        clearInterval(g.waiting);
        GUIDES.delete(parentElement);
      }
    }, 0);
  };
}

function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function mount(parent) {
  const root = el("div", "guide-root", parent);
  const ring = el("div", "guide-ring", root);
  ring.hidden = true;
  const box = el("div", "guide-box", root);
  box.hidden = true;
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-modal", "false");
  box.setAttribute("data-testid", "guide");
  const head = el("div", "guide-head", box);
  const count = el("span", "guide-count", head);
  const close = el("button", "guide-close", head, "\u00d7");
  close.type = "button";
  const title = el("h2", "guide-title", box);
  title.id = "guide-title-" + Math.random().toString(36).slice(2);
  box.setAttribute("aria-labelledby", title.id);
  const text = el("p", "guide-text", box);
  text.setAttribute("aria-live", "polite");
  const nav = el("div", "guide-nav", box);
  const back = el("button", "guide-back", nav);
  back.type = "button";
  const next = el("button", "guide-next", nav);
  next.type = "button";
  const g = { root, ring, box, count, close, title, text, back, next, steps: [], words: {}, at: 0, open: false,
              reopen: null, started: false, storage: "nn-embedding-explorer.guide", timer: null, waiting: null,
              setStateValue: null };
  back.addEventListener("click", () => go(g, g.at - 1));
  next.addEventListener("click", () => (g.at >= g.steps.length - 1 ? finish(g) : go(g, g.at + 1)));
  close.addEventListener("click", () => finish(g));
  box.addEventListener("keydown", (e) => { if (e.key === "Escape") finish(g); });
  return g;
}

function validSteps(steps) {
  if (!Array.isArray(steps)) return [];
  return steps.slice(0, 10).filter((s) => s && typeof s === "object" && typeof s.title === "string"
    && typeof s.text === "string" && typeof s.host === "string" && /^[A-Za-z0-9_-]{1,60}$/.test(s.host));
}

function closedBefore(key) {
  try {
    const raw = window.localStorage.getItem(key);
    if (typeof raw !== "string" || raw.length > MAX_STORED) return false;
    const v = JSON.parse(raw);
    return !!v && typeof v === "object" && !Array.isArray(v) && v.v === 1 && v.done === true;
  } catch (e) {
    return false; // storage blocked, or not JSON
  }
}

function remember(key) {
  try {
    window.localStorage.setItem(key, JSON.stringify({ v: 1, done: true }));
  } catch (e) { /* storage blocked: the guide opens again next time */ }
}

function update(g, data) {
  g.steps = validSteps(data.steps);
  g.words = data.text && typeof data.text === "object" ? data.text : {};
  if (typeof data.storage === "string" && data.storage) g.storage = data.storage;
  g.view = typeof data.view === "string" ? data.view : "";
  const reopen = Number.isInteger(data.reopen) ? data.reopen : 0;
  if (!g.started) {
    g.started = true;
    g.reopen = reopen;
    if (data.enabled === true && data.view === "lookup" && !closedBefore(g.storage)) whenSettled(g, () => g.open || start(g, 0));
  } else if (reopen !== g.reopen) {
    g.reopen = reopen;
    start(g, 0);
  }
  if (g.open) draw(g);
}

// The page is settled when Streamlit has no widget left to draw (a widget whose code is still
// loading shows a skeleton) and no run going. Until then a click would rerun the page before the
// browser holds those widgets' values, and Streamlit would send them back empty: the guide opens
// by itself only on a settled page. Bounded: it opens anyway after SETTLE_MAX_MS.
function settled() {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.dataset.testScriptState === "notRunning" && !app.querySelector('[data-testid="stSkeleton"]');
}

function whenSettled(g, then) {
  const t0 = Date.now();
  clearInterval(g.waiting);
  const check = () => {
    if (!settled() && Date.now() - t0 < SETTLE_MAX_MS) return;
    clearInterval(g.waiting);
    g.waiting = null;
    if (g.root.isConnected) then();
  };
  g.waiting = setInterval(check, POLL_MS);
  check();
}

// Opening reports nothing: the page needs no run for the first step, and a report sent while the
// page is still mounting its widgets would rerun it before the browser holds their values (a
// widget Streamlit has not drawn yet is sent back empty on the next run: the learner's sentences and
// knobs would be lost). Only the learner's own moves report.
function start(g, at) {
  g.open = true;
  g.box.hidden = false;
  go(g, at, false);
  g.next.focus({ preventScroll: true });
  clearInterval(g.timer);
  g.timer = setInterval(() => place(g), POLL_MS);
}

function go(g, at, report = true) {
  if (!g.steps.length) return;
  g.at = Math.max(0, Math.min(g.steps.length - 1, at));
  draw(g);
  if (report && g.setStateValue) g.setStateValue("step", g.at);
}

function finish(g) {
  g.open = false;
  g.box.hidden = true;
  g.ring.hidden = true;
  clearInterval(g.timer);
  g.timer = null;
  remember(g.storage);
}

function draw(g) {
  const s = g.steps[g.at];
  if (!s) return;
  const w = (k, d) => (typeof g.words[k] === "string" ? g.words[k] : d);
  g.box.dataset.step = String(g.at);
  g.count.textContent = w("of", "{i} / {n}").replace("{i}", String(g.at + 1)).replace("{n}", String(g.steps.length));
  g.title.textContent = s.title;
  g.text.textContent = s.text;
  g.back.textContent = w("back", "Back");
  g.back.disabled = g.at === 0;
  g.next.textContent = g.at >= g.steps.length - 1 ? w("done", "Done") : w("next", "Next");
  g.close.setAttribute("aria-label", w("close", "Close"));
  g.close.title = w("close", "Close");
  place(g);
}

// The element a step points at: `inner` inside the host (in the host's shadow roots too), else the host.
function target(s) {
  const hosts = Array.from(document.querySelectorAll(".st-key-" + s.host)).filter((h) => h.getClientRects().length);
  for (const host of hosts) {
    if (typeof s.inner === "string" && s.inner) {
      const found = inside(host, s.inner);
      if (found) return found;
    }
  }
  return hosts[0] || null;
}

function inside(host, selector) {
  try {
    const direct = host.querySelector(selector);
    if (direct && direct.getClientRects().length) return direct;
    for (const e of host.querySelectorAll("*")) {
      if (e.shadowRoot) {
        const n = e.shadowRoot.querySelector(selector);
        if (n && n.getClientRects().length) return n;
      }
    }
  } catch (e) { /* a bad selector: point at the host */ }
  return null;
}

function place(g) {
  if (!g.open) return;
  const s = g.steps[g.at];
  // The learner went to another view than this step's: the guide waits, out of the way, until
  // they come back (or reopen it); it is not closed, so nothing is remembered.
  const away = !!s && typeof s.view === "string" && !!g.view && s.view !== g.view;
  g.box.hidden = away;
  if (away) {
    g.ring.hidden = true;
    return;
  }
  const t = s ? target(s) : null;
  if (!t) {
    g.ring.hidden = true;
    g.box.dataset.target = "";
    return;
  }
  const r = t.getBoundingClientRect();
  if (r.bottom < 0 || r.top > window.innerHeight) t.scrollIntoView({ block: "center" });
  const pad = 4;
  Object.assign(g.ring.style, { left: `${r.left - pad}px`, top: `${r.top - pad}px`,
                                width: `${r.width + 2 * pad}px`, height: `${r.height + 2 * pad}px` });
  g.ring.hidden = false;
  g.box.dataset.target = s.host + (s.inner ? " " + s.inner : "");
  // The box sits beside the element, where there is the most room, and inside the window.
  const bw = g.box.offsetWidth, bh = g.box.offsetHeight, W = window.innerWidth, H = window.innerHeight, m = 12;
  let left, top;
  if (r.right + m + bw <= W) { left = r.right + m; top = r.top; }
  else if (r.left - m - bw >= 0) { left = r.left - m - bw; top = r.top; }
  else if (r.bottom + m + bh <= H) { left = r.left; top = r.bottom + m; }
  else { left = r.left; top = r.top - m - bh; }
  left = Math.max(m, Math.min(W - bw - m, left));
  top = Math.max(m, Math.min(H - bh - m, top));
  Object.assign(g.box.style, { left: `${left}px`, top: `${top}px` });
}
