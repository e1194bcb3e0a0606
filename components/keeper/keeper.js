// The keeper: keeps the learner's work in this browser's localStorage and offers it back.
//
// data = {saved: {s, steps, at} | null, storage_key, max_chars, text: {kept, not_kept}}
//   saved: the page's current state as a share-link parameter (null when it cannot be kept).
// State sent back: "found" = the entry this browser held when the page opened (or reconnected),
// when it differs from the page's state; null once the page has moved on from it.
// Every word shown comes from data.text and is set with textContent.

const KEEPERS = new WeakMap(); // mount point → its keeper
const DEFAULT_KEY = "nn-embedding-explorer.work";
const DEFAULT_MAX = 200000; // characters: a larger entry is not stored (the page still works)
const POLL_MS = 1000;

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let k = KEEPERS.get(parentElement);
  if (!k || !k.root.isConnected) {
    k = mount(parentElement);
    KEEPERS.set(parentElement, k);
  }
  k.setStateValue = setStateValue;
  update(k, data || {});
  return () => {
    // Streamlit also calls this for a render that a newer one superseded: tear down only when gone.
    setTimeout(() => {
      if (!k.root.isConnected) {
        clearInterval(k.timer);
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
  const k = {
    root, banner, text: {}, storageKey: DEFAULT_KEY, maxChars: DEFAULT_MAX,
    checked: false, // the stored entry was compared with the page's state (at mount, after a reconnect)
    baseline: null, // the page's state when it was checked
    holding: null, // the stored entry offered back: not overwritten until the learner moves on
    kept: false, // the page's current state is in localStorage
    offline: false, setStateValue: null,
  };
  k.check = () => watch(k);
  k.timer = setInterval(k.check, POLL_MS);
  window.addEventListener("online", k.check);
  window.addEventListener("offline", k.check);
  return k;
}

function validEntry(e) {
  return e && typeof e === "object" && typeof e.s === "string" && e.s.length > 0;
}

function readStored(k) {
  try {
    const raw = window.localStorage.getItem(k.storageKey);
    if (!raw || raw.length > k.maxChars) return null;
    const e = JSON.parse(raw);
    return validEntry(e) ? { s: e.s, steps: e.steps, at: e.at } : null;
  } catch (err) {
    return null; // no storage (private mode, blocked) or garbage: nothing to offer
  }
}

function store(k, entry) {
  if (!validEntry(entry)) return false;
  const raw = JSON.stringify({ s: entry.s, steps: entry.steps, at: entry.at });
  if (raw.length > k.maxChars) return false; // too large to keep here: export a file instead
  try {
    window.localStorage.setItem(k.storageKey, raw);
    return true;
  } catch (err) {
    return false; // quota or storage blocked
  }
}

function send(k, value) {
  const set = k.setStateValue;
  if (set) setTimeout(() => set("found", value), 0); // not from inside Streamlit's render
}

function update(k, data) {
  k.text = data.text && typeof data.text === "object" ? data.text : {};
  if (typeof data.storage_key === "string" && data.storage_key) k.storageKey = data.storage_key;
  if (typeof data.max_chars === "number" && data.max_chars > 0) k.maxChars = data.max_chars;
  const current = validEntry(data.saved) ? data.saved : null;
  const cur = current ? current.s : null;
  if (!k.checked) {
    k.checked = true;
    k.baseline = cur;
    const stored = readStored(k);
    if (stored && stored.s !== cur) {
      k.holding = stored.s;
      send(k, stored);
    } else {
      k.holding = null;
    }
  }
  if (k.holding !== null) {
    // Keep the offered work until the page restores it or the learner trains something new;
    // a language switch or an edit at step 0 must not overwrite hours of saved steps.
    const restored = cur === k.holding;
    const newWork = current !== null && cur !== k.baseline && current.steps > 0;
    if (!restored && !newWork) {
      k.kept = false;
      render(k);
      return;
    }
    k.holding = null;
    send(k, null);
  }
  k.kept = current !== null && store(k, current);
  render(k);
}

function watch(k) {
  const lost = document.querySelector('[data-testid="stConnectionStatus"]') !== null || navigator.onLine === false;
  if (k.offline && !lost) k.checked = false; // back: the server may have restarted; compare again on the next data
  k.offline = lost;
  render(k);
}

function render(k) {
  const words = k.holding !== null ? k.text.held : k.kept ? k.text.kept : k.text.not_kept;
  k.banner.textContent = typeof words === "string" ? words : "";
  k.banner.hidden = !k.offline || !k.banner.textContent;
}
