// The keeper: keeps the learner's work in this browser's localStorage and reports it back.
//
// data (JSON bytes, as the stage's) = {role: "write" | "watch" | "watch+write", session, saved: {s, steps, at} | null, keepable,
//         pristine, prefix, max_chars, max_entries, text: {kept, held, not_kept}}
//   saved: the page's state, to write (null for a mount that only watches, or a state too large).
//   session: the server session's token; this page keeps its work under it (its "slot"), so it
//   never overwrites what another page session kept. pristine: the state the session opened with.
// localStorage[prefix + "." + slot] = {s, steps, at, tab}; sessionStorage[prefix + ".tab"] = this
// tab's id (it survives a reload of the tab, not a new tab).
// A watcher (mounted outside every fragment) sends the state "report" = {n, had, entries}: when the
// page opens and the browser holds other entries, and when the page finds a new server session
// under it (a reconnect, or new data naming another session; had = the session it had before).
// Every word shown comes from data.text and is set with textContent.

const KEEPERS = new WeakMap(); // mount point → its keeper
const SLOT = /^[A-Za-z0-9_-]{1,40}$/;
const LEGACY_SLOT = "v1"; // the one entry an older version kept under the bare prefix
const POLL_MS = 1000;
const STATUS = '[data-testid="stConnectionStatus"]'; // Streamlit shows it in every state but "connected"

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let k = KEEPERS.get(parentElement);
  if (!k || !k.root.isConnected) {
    k = mount(parentElement);
    KEEPERS.set(parentElement, k);
  }
  k.setStateValue = setStateValue;
  update(k, (data instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(data)) : data) || {});
  return () => {
    // Streamlit also calls this for a render that a newer one superseded: tear down only when gone.
    setTimeout(() => {
      if (!k.root.isConnected) {
        clearInterval(k.timer);
        if (k.observer) k.observer.disconnect();
        window.removeEventListener("online", k.check);
        window.removeEventListener("offline", k.check);
        KEEPERS.delete(parentElement);
      }
    }, 0);
  };
}

function mount(parent) {
  const root = document.createElement("div");
  root.className = "keeper-root";
  const banner = document.createElement("div");
  banner.className = "keeper-banner";
  banner.setAttribute("role", "status");
  banner.setAttribute("aria-live", "polite");
  banner.hidden = true;
  root.appendChild(banner);
  parent.appendChild(root);
  return {
    root, banner, text: {}, prefix: "nn-embedding-explorer.work", maxChars: 10000, maxEntries: 8,
    watching: false, // this mount reports (it sits outside every fragment)
    started: false, // the first data was seen (and the browser's entries reported, if any)
    session: null, // the server session this page is in, as far as it knows
    awaiting: false, // a reconnect was reported: the next data names the session the page is in now
    n: 0, // reports sent
    savedNull: false, // the page's state cannot be kept here (too large)
    offline: false, setStateValue: null, timer: null, observer: null, check: null,
  };
}

function configure(k, data) {
  k.text = data.text && typeof data.text === "object" ? data.text : {};
  if (typeof data.prefix === "string" && data.prefix) k.prefix = data.prefix;
  if (Number.isInteger(data.max_chars) && data.max_chars > 0) k.maxChars = data.max_chars;
  if (Number.isInteger(data.max_entries) && data.max_entries > 0) k.maxEntries = Math.min(data.max_entries, 50);
}

function update(k, data) {
  configure(k, data);
  const role = typeof data.role === "string" ? data.role : "";
  const session = typeof data.session === "string" && SLOT.test(data.session) ? data.session : null;
  const saved = validEntry(data.saved) ? data.saved : null;
  if (role.includes("watch")) {
    watchConnection(k);
    k.savedNull = data.keepable === false;
    if (session !== null) arrived(k, session);
  }
  if (role.includes("write") && session !== null) write(k, session, saved, data.pristine === true);
  render(k);
}

// ---- reports ---------------------------------------------------------------------------------
function arrived(k, session) {
  if (!k.started) {
    k.started = true;
    k.session = session;
    migrateLegacy(k);
    if (entries(k, session).length > 0) report(k, null, session);
  } else if (k.awaiting) {
    k.awaiting = false; // the reconnect's report already went to this session
    k.session = session;
  } else if (session !== k.session) {
    const had = k.session; // the page moved to a new session without our noticing the reconnect
    k.session = session;
    report(k, had, session);
  }
}

function report(k, had, exclude) {
  const tab = tabId(k);
  const list = entries(k, exclude).map((e) => {
    const out = { slot: e.slot, mine: e.tab === tab, s: e.s };
    if (typeof e.steps === "number" && Number.isFinite(e.steps)) out.steps = e.steps;
    if (typeof e.at === "number" && Number.isFinite(e.at)) out.at = e.at;
    return out;
  });
  k.n += 1;
  const value = { n: k.n, had, entries: list };
  const set = k.setStateValue;
  if (set) setTimeout(() => set("report", value), 0); // not from inside Streamlit's render
}

function entries(k, exclude) {
  return slots(k).filter((e) => e.slot !== exclude).sort((a, b) => time(b) - time(a)).slice(0, k.maxEntries);
}

// ---- storage ---------------------------------------------------------------------------------
function validEntry(e) {
  return e !== null && typeof e === "object" && typeof e.s === "string" && e.s.length > 0;
}

function time(e) {
  return typeof e.at === "number" && Number.isFinite(e.at) ? e.at : -1;
}

function parse(raw, k) {
  if (typeof raw !== "string" || raw.length > k.maxChars) return null;
  try {
    const e = JSON.parse(raw);
    return validEntry(e) ? e : null;
  } catch (err) {
    return null;
  }
}

function slots(k) {
  const out = [];
  try {
    const store = window.localStorage;
    const head = k.prefix + ".";
    for (let i = 0; i < store.length; i++) {
      const key = store.key(i);
      if (key === null || !key.startsWith(head)) continue;
      const slot = key.slice(head.length);
      const e = SLOT.test(slot) ? parse(store.getItem(key), k) : null;
      if (e) out.push({ slot, s: e.s, steps: e.steps, at: e.at, tab: typeof e.tab === "string" ? e.tab : "" });
    }
  } catch (err) {
    // no storage (private mode, a cross-site frame): nothing kept, nothing to offer
  }
  return out;
}

function migrateLegacy(k) {
  try {
    const store = window.localStorage;
    const raw = store.getItem(k.prefix);
    if (raw === null) return;
    const e = parse(raw, k);
    if (e) store.setItem(k.prefix + "." + LEGACY_SLOT, JSON.stringify({ s: e.s, steps: e.steps, at: e.at, tab: "" }));
    store.removeItem(k.prefix);
  } catch (err) {
    // left as it is
  }
}

function tabId(k) {
  if (k.tab) return k.tab;
  let id = null;
  try {
    id = window.sessionStorage.getItem(k.prefix + ".tab");
    if (id === null || !SLOT.test(id)) {
      id = randomId();
      window.sessionStorage.setItem(k.prefix + ".tab", id);
    }
  } catch (err) {
    id = id && SLOT.test(id) ? id : randomId();
  }
  k.tab = id;
  return id;
}

function randomId() {
  const bytes = new Uint8Array(12);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// This session's slot holds the page's state; a state the session opened with is not kept (the
// address gives it back), and an entry of this tab's earlier sessions with the same state goes (it
// was restored into this one). Past max_entries, the oldest entries of other slots go.
function write(k, session, saved, pristine) {
  const key = k.prefix + "." + session;
  try {
    const store = window.localStorage;
    if (saved === null) return;
    if (pristine) {
      store.removeItem(key);
      return;
    }
    const tab = tabId(k);
    const raw = JSON.stringify({ s: saved.s, steps: saved.steps, at: saved.at, tab });
    if (raw.length > k.maxChars) return;
    const held = parse(store.getItem(key), k);
    if (held === null || held.s !== saved.s) store.setItem(key, raw);
    const all = slots(k);
    for (const e of all) {
      if (e.slot !== session && e.tab === tab && e.s === saved.s) store.removeItem(k.prefix + "." + e.slot);
    }
    const rest = slots(k).filter((e) => e.slot !== session).sort((a, b) => time(a) - time(b));
    while (rest.length + 1 > k.maxEntries) store.removeItem(k.prefix + "." + rest.shift().slot);
  } catch (err) {
    // quota or storage blocked: the banner says nothing is kept
  }
}

// ---- the connection --------------------------------------------------------------------------
function watchConnection(k) {
  if (k.watching) return;
  k.watching = true;
  k.check = () => watch(k);
  k.timer = setInterval(k.check, POLL_MS);
  window.addEventListener("online", k.check);
  window.addEventListener("offline", k.check);
  if (typeof MutationObserver === "function") {
    // The status appears and goes with every reconnect, however short: watch for it as it changes.
    const where = document.querySelector('[data-testid="stHeader"]') || document.body;
    k.observer = new MutationObserver(k.check);
    k.observer.observe(where, { childList: true, subtree: true });
  }
}

function watch(k) {
  const lost = document.querySelector(STATUS) !== null || navigator.onLine === false;
  if (lost === k.offline) return;
  k.offline = lost;
  if (!lost && k.started) {
    // Back. The server may be a new one (a restart, an expired session, another replica), whose
    // fragments are not this page's: report, which reruns the whole page in whatever session it is.
    k.awaiting = true;
    report(k, k.session, null);
  }
  render(k);
}

function render(k) {
  if (!k.watching) return;
  let words = "";
  if (k.offline) {
    const mine = k.session === null ? null : slots(k).find((e) => e.slot === k.session);
    if (mine && typeof k.text.kept === "string") {
      words = k.text.kept.replace("{steps}", String(Number.isFinite(mine.steps) ? mine.steps : 0));
    } else if (k.savedNull && typeof k.text.not_kept === "string") {
      words = k.text.not_kept;
    } else if (slots(k).length > 0 && typeof k.text.held === "string") {
      words = k.text.held;
    }
  }
  k.banner.textContent = words;
  k.banner.hidden = !words;
}
