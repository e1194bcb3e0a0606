// The embedding stage: one mounted view of the lookup and of training (see README.md for the data).
//
// Streamlit (components v2) calls the default export at mount and again with every new `data`,
// on the same DOM node (the component is mounted with a stable key). The picture therefore
// animates from what is on screen to the new data instead of being redrawn from scratch.
// Every visible word comes from data.text; token text is always set with textContent.

const SVG = "http://www.w3.org/2000/svg";
const STAGES = new WeakMap(); // mount point → its stage (one per mounted component)

const CLASS_COLORS = ["#0072B2", "#E69F00", "#CC79A7", "#009E73", "#D55E00", "#56B4E9"]; // Okabe–Ito
const CLASS_SHAPES = ["circle", "triangle", "square45", "tri_down", "hexagon", "cross"];
const TWEEN_MS = 320; // a single update glides this long
const FRAME_MS = 17; // one frame at 60 Hz
const CANVAS_POINTS = 1500; // more points than this are drawn on a canvas
const LABEL_POINTS = 60; // every point is labelled up to this many

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let st = STAGES.get(parentElement);
  if (!st || !st.root.isConnected) {
    st = mount(parentElement);
    STAGES.set(parentElement, st);
  }
  st.setStateValue = setStateValue;
  update(st, data || {});
  return () => {
    // Streamlit also calls this for a render that a newer one superseded: tear down only when gone.
    setTimeout(() => {
      if (!st.root.isConnected) {
        cancelAnimationFrame(st.raf);
        st.resize.disconnect();
        if (st.onFonts) document.fonts.removeEventListener("loadingdone", st.onFonts);
        STAGES.delete(parentElement);
      }
    }, 0);
  };
}

// ---- small helpers -------------------------------------------------------------------------
function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (parent) parent.appendChild(e);
  return e;
}
function sv(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
const clamp = (v, a, b) => Math.max(a, Math.min(b, v));
const num = (v) => (typeof v === "number" && isFinite(v) ? v : 0);
const fmt = (v, dec = 2) => {
  const s = num(v).toFixed(dec);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s.replace("-", "\u2212");
};
// `n` significant digits, never rounded to zero: 0.6931, 0.0021, 2.1e−4 (an exact 0 stays "0").
const sig = (v, n) => {
  const x = num(v), a = Math.abs(x);
  if (x === 0) return "0";
  let s;
  if (a >= Math.pow(10, n - 1)) s = String(Math.round(x));
  else if (a >= 1e-3) s = x.toPrecision(n);
  else s = x.toExponential(n - 1);
  return s.replace(/-/g, "\u2212");
};
const words = (d, k, fallback) => (d.text && typeof d.text[k] === "string" ? d.text[k] : fallback);
const tokenOf = (d, id) => {
  const t = d.tokens && d.tokens[String(id)];
  return t === undefined || t === null ? String(id) : String(t);
};

function shapePath(kind, r) {
  switch (kind) {
    case "diamond": return `M0,${-r}L${r},0L0,${r}L${-r},0Z`;
    case "square": { const s = r * 0.82; return `M${-s},${-s}H${s}V${s}H${-s}Z`; }
    case "square45": { const s = r * 1.05; return `M0,${-s}L${s},0L0,${s}L${-s},0Z`; }
    case "triangle": return `M0,${-r * 1.2}L${r * 1.1},${r * 0.7}L${-r * 1.1},${r * 0.7}Z`;
    case "tri_down": return `M0,${r * 1.2}L${r * 1.1},${-r * 0.7}L${-r * 1.1},${-r * 0.7}Z`;
    case "hexagon": {
      let p = "";
      for (let i = 0; i < 6; i++) {
        const a = Math.PI / 3 * i;
        p += (i ? "L" : "M") + (r * Math.cos(a)).toFixed(2) + "," + (r * Math.sin(a)).toFixed(2);
      }
      return p + "Z";
    }
    case "cross": { const a = r * 0.38, b = r; return `M${-a},${-b}H${a}V${-a}H${b}V${a}H${a}V${b}H${-a}V${a}H${-b}V${-a}H${-a}Z`; }
    default: return `M${r},0A${r},${r} 0 1,1 ${-r},0A${r},${r} 0 1,1 ${r},0Z`;
  }
}

// What a point looks like: shape, colour and size by role, then by class (shape AND colour).
function look(role, cls, present, crowd) {
  const k = (present ? 1.3 : 1) * (role === "pad" || role === "unk" ? 1 : crowd || 1);
  if (role === "pad") return { shape: "diamond", r: 13 * k, fill: "var(--pad)", stroke: "var(--bg)", cls: "pad" };
  if (role === "unk") return { shape: "square", r: 10 * k, fill: "var(--bg)", stroke: "var(--fg)", cls: "unk" };
  if (role === "unused") return { shape: "circle", r: 5 * k, fill: "none", stroke: "var(--muted)", cls: "unused" };
  if (cls >= 0) {
    const i = cls % CLASS_COLORS.length;
    return { shape: CLASS_SHAPES[i], r: 7.5 * k, fill: CLASS_COLORS[i], stroke: "var(--bg)", cls: "used c" + i };
  }
  return { shape: "circle", r: 7 * k, fill: "var(--noclass)", stroke: "var(--bg)", cls: "used" };
}

// A diverging blue ↔ orange scale (safe under deuteranopia), centred on the panel's background.
function heat(v, absmax, dark) {
  const t = clamp(num(v) / (absmax || 1), -1, 1);
  const mid = dark ? [38, 41, 48] : [247, 247, 247];
  const end = t < 0 ? (dark ? [86, 170, 230] : [0, 90, 160]) : (dark ? [240, 170, 40] : [200, 110, 0]);
  const u = Math.pow(Math.abs(t), 0.85);
  const c = mid.map((m, i) => Math.round(m + (end[i] - m) * u));
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, ink: inkOn(c) };
}

// The text colour that reads best on an rgb background: black or white, whichever has the higher
// WCAG contrast. One of the two always reaches at least 4.58:1, whatever the background.
function inkOn(c) {
  const lin = c.map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
  const L = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? "#000" : "#fff";
}

function niceTicks(a, b, n) {
  const span = b - a;
  if (!(span > 0)) return [a];
  const step0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) || step0;
  const out = [];
  for (let v = Math.ceil(a / step) * step; v <= b + 1e-9; v += step) out.push(Math.abs(v) < 1e-12 ? 0 : v);
  return out;
}

// ---- mounting -------------------------------------------------------------------------------
function mount(parentElement) {
  const host = parentElement.querySelector(".stage-host") || parentElement;
  host.textContent = "";
  const root = el("div", "stage", host);
  root.setAttribute("data-testid", "stage");
  const st = {
    root, parentElement, data: null, sig: "", layoutSig: "", raf: 0, frames: 0,
    shown: null, // {ids, x, y}: where the points are drawn now (data coordinates)
    anim: null, hover: null, selected: null, width: 0, setStateValue: null,
  };
  root.addEventListener("pointerover", (e) => {
    const t = e.target.closest && e.target.closest("[data-token]");
    if (t) highlight(st, t.getAttribute("data-token"));
  });
  root.addEventListener("pointerout", (e) => {
    const t = e.target.closest && e.target.closest("[data-token]");
    const to = e.relatedTarget && e.relatedTarget.closest && e.relatedTarget.closest("[data-token]");
    if (t && (!to || to.getAttribute("data-token") !== t.getAttribute("data-token"))) highlight(st, null);
  });
  // Keyboard: W rows, id cells and neighbour chips take focus; focus highlights, Enter or Space selects.
  root.addEventListener("focusin", (e) => {
    const t = e.target.closest && e.target.closest("[data-token]");
    if (t) highlight(st, t.getAttribute("data-token"));
  });
  root.addEventListener("keydown", (e) => {
    const t = e.target.closest && e.target.closest("[data-token]");
    if (t && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      select(st, Number(t.getAttribute("data-token")));
    }
  });
  root.addEventListener("click", (e) => {
    const t = e.target.closest && e.target.closest("[data-token]");
    if (t) select(st, Number(t.getAttribute("data-token")));
  });
  st.resize = new ResizeObserver(() => {
    const w = root.clientWidth;
    if (w && Math.abs(w - st.width) > 0.5 && st.data) {
      st.width = w;
      st.layoutSig = "";
      render(st, st.data, false);
    }
  });
  st.resize.observe(root);
  // Sizes are measured in the page's font: when a web font arrives later, measure and draw again.
  if (document.fonts && document.fonts.addEventListener) {
    // Panels are refilled in place (a glide in progress is left alone; its end refills nothing, so
    // the next font event or update does it); the scatter keeps its nodes and positions.
    st.onFonts = () => {
      if (st.fontsRaf) return;
      st.fontsRaf = requestAnimationFrame(() => {
        st.fontsRaf = 0;
        forgetBoxes(st); // measured with the fallback font
        if (st.data && st.root.isConnected && !st.anim) render(st, st.data, false);
      });
    };
    document.fonts.addEventListener("loadingdone", st.onFonts);
  }
  return st;
}

function highlight(st, token) {
  if (st.hover === token) return;
  st.hover = token;
  st.root.querySelectorAll(".hl").forEach((n) => n.classList.remove("hl"));
  if (token !== null) {
    st.root.querySelectorAll(`[data-token="${CSS.escape(token)}"]`).forEach((n) => n.classList.add("hl"));
    if (st.scatter && st.scatter.canvasMode) drawHoverMarker(st, token);
  } else if (st.scatter && st.scatter.hoverMarker) {
    st.scatter.hoverMarker.remove();
    st.scatter.hoverMarker = null;
  }
}

function select(st, id) {
  if (!Number.isInteger(id)) return;
  st.selected = id;
  markSelected(st);
  if (st.setStateValue) st.setStateValue("selected", id);
}

function markSelected(st) {
  st.root.querySelectorAll(".sel").forEach((n) => n.classList.remove("sel"));
  if (st.selected !== null && st.selected !== undefined) {
    st.root.querySelectorAll(`[data-token="${st.selected}"]`).forEach((n) => n.classList.add("sel"));
  }
  if (st.scatter) raisePad(st);
  if (st.data && st.data.mode === "lookup") requestAnimationFrame(() => drawConnectors(st));
}

// ---- updating -------------------------------------------------------------------------------
function update(st, d) {
  // A rerun that changed nothing calls this again with equal data: keep whatever is moving, moving.
  // (Huge tables skip the comparison: serialising megabytes costs more than drawing them again.)
  const sig = d.big ? d : JSON.stringify(d);
  theme(st);
  if (sig === st.sig) return;
  st.sig = sig;
  st.selected = d.selected === undefined ? st.selected : d.selected;
  st.width = st.root.clientWidth;
  const t0 = performance.now();
  render(st, d, true);
  st.root.dataset.renderMs = (performance.now() - t0).toFixed(1);
}

function theme(st) {
  const cs = getComputedStyle(st.root);
  const bg = (cs.getPropertyValue("--st-background-color") || "").trim();
  let dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  const m = bg.match(/^#([0-9a-f]{6})$/i) || bg.match(/^#([0-9a-f]{3})$/i);
  if (m) {
    const h = m[1].length === 3 ? m[1].split("").map((c) => c + c).join("") : m[1];
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
    dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
  } else if (/^rgb/.test(bg)) {
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
  }
  if (st.dark !== dark) {
    st.dark = dark;
    st.root.classList.toggle("dark", dark);
    if (st.data) { st.layoutSig = ""; render(st, st.data, false); }
  }
}

function render(st, d, animate) {
  st.data = d;
  st.renders = (st.renders || 0) + 1; // a label plan made for earlier data is not used (labelKey)
  const root = st.root;
  const mode = d.mode === "lookup" ? "lookup" : "train";
  const height = num(d.height) > 0 ? num(d.height) : 560;
  root.style.height = height + "px";
  root.classList.toggle("present", !!d.present);
  root.classList.toggle("big", !!d.big);
  root.setAttribute("lang", d.lang === "en" ? "en" : "ko");
  root.dataset.mode = mode;
  root.dataset.playing = d.play && d.play.on ? "1" : "0"; // whether this data is a Play tick's (tests wait for Pause's)
  const layoutSig = [mode, !!d.present, !!d.big, d.lang, height, st.width, !!d.scatter].join("|");
  if (layoutSig !== st.layoutSig) {
    st.layoutSig = layoutSig;
    root.textContent = "";
    st.scatter = null;
    if (mode === "train") layoutTrain(st, d);
    else layoutLookup(st, d);
  }
  if (mode === "train") {
    fillHeader(st, d);
    fillW(st, st.wPanel, d, true);
    if (st.scatterPanel) fillScatter(st, d, animate);
    fillNeighbours(st, d);
  } else {
    fillIds(st, d);
    fillW(st, st.wPanel, d, false);
    fillOut(st, d);
    if (st.scatterPanel) fillScatter(st, d, animate);
    else {
      st.root.dataset.animating = "0";
      st.root.dataset.step = String(num((d.scatter || {}).step));
    }
    requestAnimationFrame(() => drawConnectors(st));
  }
  if (st.hover !== null) { const h = st.hover; st.hover = undefined; highlight(st, h); }
  markSelected(st);
  describe(st, d);
  if (animate) root.dataset.updates = String((Number(root.dataset.updates) || 0) + 1); // for tests and benchmarks
}

// What a screen reader hears: each panel named by a sentence the server wrote (data.alt), the
// scatter and the loss sparkline as images with that sentence (their numbers are in the page's tables).
function describe(st, d) {
  const alt = d.alt && typeof d.alt === "object" ? d.alt : {};
  const say = (node, text, img) => {
    if (!node) return;
    if (typeof text !== "string" || !text) { node.removeAttribute("aria-label"); return; }
    node.setAttribute("aria-label", text);
    if (img) node.setAttribute("role", "img");
  };
  say(st.scatterPanel, alt.scatter, false);
  say(st.scatter && st.scatter.svg, alt.scatter, true);
  say(st.wPanel, alt.w, false);
  say(st.idsPanel, alt.ids, false);
  say(st.outPanel, alt.out, false);
  say(st.lossSvg, alt.loss, true);
}

// ---- train layout ----------------------------------------------------------------------------
function layoutTrain(st, d) {
  const root = st.root;
  const head = el("div", "head", root);
  const step = el("div", "stepbox", head);
  el("div", "steplabel", step, words(d, "step", "step"));
  st.stepNum = el("div", "stepnum", step, "0");
  st.stepNum.setAttribute("data-testid", "stage-step");
  const loss = el("div", "lossbox", head);
  el("div", "losslabel", loss, words(d, "loss", "loss"));
  st.lossSvg = sv("svg", { class: "spark", viewBox: "0 0 200 48", preserveAspectRatio: "none" }, loss);
  st.lossNum = el("div", "lossnum", loss, "");
  st.legend = el("div", "legend", head);
  st.legend.setAttribute("aria-label", words(d, "legend_title", "legend"));
  const body = el("div", "body train", root);
  st.scatterPanel = el("section", "panel scatter", body);
  st.wPanel = el("section", "panel wpanel", body);
}

function fillHeader(st, d) {
  const s = d.scatter || {};
  if (!st.anim) st.stepNum.textContent = String(num(s.step));
  const loss = Array.isArray(d.loss) ? d.loss.map(num) : [];
  const svgEl = st.lossSvg;
  svgEl.textContent = "";
  if (loss.length) {
    const lo = Math.min(...loss), hi = Math.max(...loss);
    const span = hi - lo || 1;
    const n = loss.length;
    const pts = loss.map((v, i) => `${n === 1 ? 100 : (i / (n - 1)) * 196 + 2},${44 - ((v - lo) / span) * 40}`).join(" ");
    sv("polyline", { points: pts, class: "sparkline" }, svgEl);
    const [lx, ly] = pts.split(" ").pop().split(",");
    sv("circle", { cx: lx, cy: ly, r: 3.5, class: "sparkdot" }, svgEl);
    st.lossNum.textContent = sig(loss[n - 1], 4);
  } else {
    st.lossNum.textContent = "\u2013";
  }
  fillLegend(st, d, st.legend);
}

function legendIcon(parent, lk) {
  const s = sv("svg", { width: 26, height: 26, viewBox: "-13 -13 26 26", class: "icon" }, parent);
  const r = Math.min(lk.r, 10);
  sv("path", { d: shapePath(lk.shape, r), fill: lk.fill, stroke: lk.stroke === "var(--bg)" ? "var(--fg-soft)" : lk.stroke,
               "stroke-width": lk.cls === "unused" ? 2 : 1.5 }, s);
  return s;
}

function fillLegend(st, d, box) {
  box.textContent = "";
  el("div", "legendtitle", box, words(d, "legend_title", ""));
  const items = el("div", "legenditems", box);
  const item = (lk, label, kind) => {
    const it = el("span", "lg " + kind, items);
    legendIcon(it, lk);
    el("span", "", it, label);
  };
  item(look("pad", -1, false), words(d, "pad", "PAD"), "lg-pad");
  item(look("unk", -1, false), words(d, "unk", "UNK"), "lg-unk");
  item(look("unused", -1, false), words(d, "unused", "unused"), "lg-unused");
  const classes = Array.isArray(d.classes) ? d.classes : [];
  const prefix = words(d, "used", "used");
  if (!classes.length) item(look("used", -1, false), prefix, "lg-used");
  classes.forEach((c, i) => item(look("used", i, false), `${prefix}: ${words(d, "class_prefix", "")}${c}`, "lg-used"));
}

// ---- W heatmap --------------------------------------------------------------------------------
function fillW(st, panel, d, train) {
  const w = d.w || {};
  const rows = Array.isArray(w.rows) ? w.rows : [];
  const values = Array.isArray(w.values) ? w.values : [];
  const e = values.length ? values[0].length : 0;
  const absmax = num(w.absmax) || Math.max(1e-9, ...values.flat().map((v) => Math.abs(num(v))));
  const touched = new Set((w.touched || []).map(String));
  const grads = Array.isArray(w.grad_norm) ? w.grad_norm.map(num) : null;
  const gmax = grads && grads.length ? Math.max(...grads) || 1 : 1;
  const counts = Array.isArray(w.counts) ? w.counts : null;
  const present = !!d.present;
  const withGrad = train && grads !== null;
  const hasCount = !train && counts !== null;
  // The same rows, columns, tokens and room as the last update (a Step, a Play tick): only the numbers,
  // colours, gradient bars and marks change, so they are written into the cells already there. Building
  // the grid again costs a few layouts of the panel (the rows' height, the columns that fit).
  const digits = String(Math.floor(Math.abs(num(absmax)))).length;
  const shape = JSON.stringify([train, present, st.dark, rows, e, withGrad, hasCount, d.pad, d.unk, digits,
    rows.map((id) => tokenOf(d, id)), words(d, "w_title", "W"), words(d, "touched", ""), words(d, "pad_zero_grad", ""),
    st.selected]); // a selected row that does not fit takes the last place: the rows built depend on it
  const kept = panel._w;
  if (kept && kept.shape === shape) {
    kept.keyLo.textContent = "\u2212" + num(absmax).toFixed(2);
    kept.keyHi.textContent = "+" + num(absmax).toFixed(2);
    const gradCells = [];
    for (const k of kept.rows) {
      k.row.classList.toggle("touched", touched.has(String(k.id)));
      paintCells(st, k.cells, values[k.r] || [], kept.plan, kept.plan.nums, absmax);
      if (k.gc) fillGrad(d, k.gc, grads[k.r] || 0, gmax, k.role, kept.plan.nums, gradCells);
      if (k.cnt) k.cnt.textContent = counts[k.r] ? String(counts[k.r]) : "";
    }
    fitGradTextKept(st, kept, gradCells);
    return;
  }
  panel.textContent = "";
  const title = el("div", "ptitle", panel);
  el("span", "", title, words(d, "w_title", "W"));
  const grid = el("div", "wgrid", panel);
  const extra = (withGrad ? " minmax(4.6em, 0.9fr)" : "") + (hasCount ? " 2.4em" : "");
  const foot = el("div", "pfoot", panel);
  // The colour key sits in the footer, so the title keeps the whole width.
  const key = el("span", "heatkey", foot);
  const keyLo = el("span", "", key, "\u2212" + num(absmax).toFixed(2));
  el("span", "heatbar", key);
  const keyHi = el("span", "", key, "+" + num(absmax).toFixed(2));
  if (train) {
    const t = el("span", "fitem", foot);
    el("span", "touchmark", t);
    el("span", "", t, words(d, "touched", ""));
    if (rows.includes(d.pad)) el("span", "fitem padnote", foot, words(d, "pad_zero_grad", ""));
  }
  foot.insertBefore(key, null); // the key last: right-aligned after the notes
  const head = el("div", "wrow whead", grid);
  // Rows share the room left; numbers are written only when a row is tall enough to read them.
  // Room for the rows: the panel less its padding, title, column header, footer, gaps (4 px) and row gaps (1 px).
  grid.style.setProperty("--cols", `var(--labw) repeat(${e}, minmax(0, 1fr))` + extra);
  fillHeadRow(head, "id", e, e, withGrad, hasCount);
  const avail = panel.clientHeight - 20 - title.offsetHeight - head.offsetHeight - foot.offsetHeight - 12 - rows.length;
  // Lookup shows a few rows: they may grow taller (and their numbers larger) to use the height.
  const rowH = Math.floor(clamp(avail / Math.max(1, rows.length), 3, train ? (present ? 54 : 44) : (present ? 76 : 62)));
  const plan = planNumbers(st, grid, head, e, rowH, absmax, present, `var(--labw) %COLS%` + extra, rowH >= (present ? 20 : 15));
  st.wPlan = plan;
  fillHeadRow(head, "id", e, plan.shown, withGrad, hasCount);
  const showNums = plan.nums;
  const showLabels = rowH >= 8;
  grid.style.setProperty("--rowh", rowH + "px");
  grid.style.setProperty("--cellfs", plan.fs + "px");
  grid.style.setProperty("--labfs", clamp(rowH * 0.85, 7, present ? 20 : 15) + "px");
  grid.classList.toggle("nonums", !showNums);
  grid.classList.toggle("nolabels", !showLabels);
  grid.classList.toggle("tinyrows", rowH <= 4);
  grid.classList.toggle("thincols", plan.cw < THIN_COL);
  const gradCells = [];
  // Rows past the room (the shortest rows, 3 px, and still too many) would be drawn over the footer: not
  // built. The selected row takes the last place when it is among them (its wires need it).
  const fit = Math.max(1, Math.floor((avail + rows.length) / (rowH + 1)));
  const built = rows.map((_, r) => r < fit);
  const selRow = fit < rows.length ? rows.indexOf(st.selected) : -1;
  if (selRow >= fit) { built[fit - 1] = false; built[selRow] = true; }
  grid.dataset.rows = String(Math.min(fit, rows.length));
  const kept_ = [];
  rows.forEach((id, r) => {
    if (!built[r]) return;
    const row = el("div", "wrow", grid);
    row.setAttribute("data-token", String(id));
    row.tabIndex = 0;
    const role = id === d.pad ? "pad" : id === d.unk ? "unk" : "";
    if (role) row.classList.add(role);
    if (touched.has(String(id))) row.classList.add("touched");
    const lab = el("div", "wlab", row);
    el("span", "wid", lab, String(id));
    el("span", "wtok", lab, tokenOf(d, id));
    const cells = fillCells(st, row, values[r] || [], plan, showNums, absmax);
    const gc = withGrad ? el("div", "wgrad", row) : null;
    if (gc) fillGrad(d, gc, grads[r] || 0, gmax, role, showNums, gradCells);
    const cnt = hasCount ? el("div", "wcnt", row, counts[r] ? String(counts[r]) : "") : null;
    kept_.push({ id, r, row, cells, gc, cnt, role });
  });
  if (!train) { fitText(panel, ".wtok"); requestAnimationFrame(() => fitText(panel, ".wtok")); }
  const gf = gradFit(gradCells); // before fitGradText sets a smaller type
  fitGradText(grid, gradCells, gf);
  panel._w = { shape, plan, grid, keyLo, keyHi, rows: kept_, gradFit: gf };
}

// A row's gradient norm: a bar as long as its share of the largest, and the number when rows are tall
// enough; an exact zero is PAD's (always, hatched) or a row no batch looked up, never "0.00".
function fillGrad(d, gc, g, gmax, role, showNums, gradCells) {
  gc.textContent = "";
  gc.className = "wgrad";
  gc.removeAttribute("title");
  if (g === 0) {
    gc.classList.add("zero");
    if (role === "pad") { gc.classList.add("padzero"); gc.title = words(d, "pad_zero_grad", ""); }
    if (showNums || role === "pad") el("span", "gtext", gc, "0");
  } else {
    const bar = el("span", "gbar", gc);
    bar.style.width = `calc((100% - 8px) * ${Math.max(0.06, g / gmax).toFixed(4)})`;
    if (showNums) gradCells.push(el("span", "gtext", gc, sig(g, 2)));
  }
}

// What fitting the norms' type needs once the grid stands: the room in a cell and the type it starts
// from (the grid is rebuilt whenever its columns or rows change, so these hold until then).
function gradFit(gradCells) {
  if (!gradCells.length) return null;
  const cell = gradCells[0].parentElement;
  const cs = getComputedStyle(cell);
  return { room: cell.clientWidth - 8, fs: parseFloat(cs.fontSize) || 12, family: cs.fontFamily };
}

// "2.1e−4" in a narrow column: the norms' type shrinks until the widest (``widest`` px at the
// starting type) fits the room less ``margin`` px.
function shrinkGradType(grid, fit, widest, margin) {
  const room = fit.room - margin;
  if (widest > room && fit.room > 0) grid.style.setProperty("--gradfs", Math.max(8, (fit.fs * room) / widest) + "px");
  else grid.style.removeProperty("--gradfs");
}

// For a grid just built: the numbers' own boxes on the page.
function fitGradText(grid, gradCells, fit) {
  if (!fit) { grid.style.removeProperty("--gradfs"); return; }
  shrinkGradType(grid, fit, Math.max(...gradCells.map((g) => g.getBoundingClientRect().width)), 0);
}

// For a grid kept from the last update: the numbers measured on a canvas instead of the page, since
// reading their boxes would lay the whole stage out in the middle of writing it. The numbers are set
// in tabular figures (stage.css), so every digit is as wide as "0".
function fitGradTextKept(st, kept, gradCells) {
  const fit = kept.gradFit;
  if (!fit || !gradCells.length) { // no numbers when the grid was built: measure them on the page, at the starting type
    kept.grid.style.removeProperty("--gradfs");
    fitGradText(kept.grid, gradCells, gradFit(gradCells));
    return;
  }
  const ctx = (st.measure = st.measure || document.createElement("canvas").getContext("2d"));
  ctx.font = `600 ${fit.fs}px ${fit.family}`;
  const digit = ctx.measureText("0").width;
  const width = (text) => {
    let w = 0;
    for (const ch of text) w += ch >= "0" && ch <= "9" ? digit : ctx.measureText(ch).width;
    return w;
  };
  shrinkGradType(kept.grid, fit, Math.max(...gradCells.map((g) => width(g.textContent))), 1);
}

// Text wider than its box (a long token, "<UNK>" in a narrow cell) is set smaller, down to 8 px, rather than clipped.
// Every node is measured first and written after, in rounds: the browser lays the panel out once a
// round rather than once a node (thousands of id cells). A node's box never depends on another's type.
function fitText(panel, selector) {
  let items = [];
  for (const n of panel.querySelectorAll(selector)) {
    const cs = getComputedStyle(n);
    const room = n.getBoundingClientRect().width - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0);
    if (!(room > 0)) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    items.push({ n, range, room, fs: parseFloat(cs.fontSize) || 12 });
  }
  // The text's own width (unrounded, unlike scrollWidth), so a glyph's fraction never turns into "…".
  for (let i = 0; i < 16 && items.length; i++) {
    const widths = items.map((it) => it.range.getBoundingClientRect().width);
    items = items.filter((it, k) => {
      if (!(widths[k] > it.room - 0.5 && it.fs > 8)) return false;
      it.fs = Math.max(8, Math.min(it.fs - 0.5, (it.fs * (it.room - 0.5)) / widths[k]));
      return true;
    });
    for (const it of items) it.n.style.fontSize = it.fs + "px";
  }
}

function fillHeadRow(head, label, e, shown, withGrad, hasCount) {
  head.textContent = "";
  el("div", "wlab", head, label);
  for (let j = 0; j < shown; j++) el("div", "wdim", head, String(j));
  if (shown < e) el("div", "wmore", head, `\u2026 +${e - shown}`);
  if (withGrad) el("div", "wgradh", head, "\u2016\u2207\u2016");
  if (hasCount) el("div", "wcnth", head, "\u00d7");
}

function fillCells(st, row, vals, plan, showNums, absmax) {
  const cells = [];
  for (let j = 0; j < plan.shown; j++) cells.push(el("div", "wcell", row));
  paintCells(st, cells, vals, plan, showNums, absmax);
  if (plan.shown < plan.e) el("div", "wmore", row, "\u2026");
  return cells;
}

function paintCells(st, cells, vals, plan, showNums, absmax) {
  cells.forEach((c, j) => {
    const h = heat(vals[j], absmax, st.dark);
    c.textContent = showNums ? fmt(vals[j], plan.dec) : "";
    c.style.background = h.bg;
    c.style.color = h.ink;
  });
}

// How the numbers of a row of cells fit their width: type size, decimals, and how many columns are
// shown. Measured with the stage's own font: 2 decimals at the largest size the row height allows,
// then smaller type (down to 11 px), then 1 decimal, then fewer columns (the rest "… +k").
// Colours only (rows too short for numbers, or no column wide enough): every column that is at
// least MIN_SWATCH px wide; hundreds of columns in a narrow panel would otherwise be 0 px, unseen.
const MIN_FS = 11;
const MIN_SWATCH = 4;
const THIN_COL = 12; // px: columns narrower than this have no index in the header (the digits would overlap)
function planNumbers(st, grid, head, e, rowH, absmax, present, colsTemplate, wanted) {
  const setCols = (k) => grid.style.setProperty("--cols", colsTemplate.replace("%COLS%",
    `repeat(${k}, minmax(0, 1fr))` + (k < e ? " minmax(2.6em, 0.4fr)" : "")));
  const cellW = () => { const c = head.querySelector(".wdim"); return c ? c.getBoundingClientRect().width - 4 : 0; };
  const widthAt = (k) => {
    setCols(k);
    fillHeadRow(head, "", e, k, false, false); // measured with the "… +k" column in place
    return cellW();
  };
  // The most columns, at most hi, whose cells are `need` px wide (0: none). Fewer columns are never
  // narrower, so a binary search finds it: a few layouts of the panel, not one per column.
  const most = (hi, need) => {
    let lo = 0;
    while (lo < hi) {
      const k = Math.ceil((lo + hi) / 2);
      if (widthAt(k) >= need - 4) lo = k;
      else hi = k - 1;
    }
    return lo;
  };
  const coloursOnly = () => {
    grid.style.removeProperty("--labw");
    let k = e, cw = Infinity;
    if (e) cw = widthAt(e) + 4;
    else setCols(e);
    if (e > 1 && cw < MIN_SWATCH) {
      k = Math.max(1, most(e - 1, MIN_SWATCH));
      cw = widthAt(k) + 4; // the grid is left with the columns it shows
    }
    return { e, shown: k, dec: 2, fs: MIN_FS, nums: false, cw };
  };
  if (!wanted) return coloursOnly(); // rows too short to read
  const maxFs = clamp(rowH * 0.5, MIN_FS, present ? 26 : 21);
  const ctx = (st.measure = st.measure || document.createElement("canvas").getContext("2d"));
  const cs = getComputedStyle(st.root);
  ctx.font = `600 100px ${cs.fontFamily}`;
  const digits = String(Math.max(1, Math.floor(Math.abs(num(absmax))) || 0)).replace(/\d/g, "0");
  const per100 = (dec) => ctx.measureText("\u2212" + digits + (dec ? "." + "0".repeat(dec) : "")).width / 100;
  let w = cellW();
  for (const dec of [2, 1]) {
    const fs = Math.min(maxFs, w / per100(dec));
    if (fs >= MIN_FS) return { e, shown: e, dec, fs, nums: true };
  }
  // Too narrow even for "−0.0" at 11 px: show fewer columns, each wide enough for 2 decimals.
  const need = per100(2) * MIN_FS + 6;
  for (const labw of [null, "4.4em"]) { // last resort: a narrower token column
    if (labw) grid.style.setProperty("--labw", labw);
    const k = most(labw ? 1 : e - 1, need);
    if (k >= 1) {
      w = widthAt(k);
      return { e, shown: k, dec: 2, fs: Math.min(maxFs, w / per100(2)), nums: true };
    }
  }
  // Not even one column fits a number.
  return coloursOnly();
}

// ---- scatter ---------------------------------------------------------------------------------
function buildScatterFrame(st, d) {
  const panel = st.scatterPanel;
  panel.textContent = "";
  const title = el("div", "ptitle", panel);
  el("span", "", title, words(d, "scatter_title", ""));
  const plot = el("div", "plot", panel);
  st.neighBox = el("div", "neigh", panel);
  fillNeighbours(st, d); // before measuring: the row takes its height from the plot
  const W = plot.clientWidth || 400, H = plot.clientHeight || 300;
  const present = !!d.present;
  const m = present ? { l: 62, r: 18, t: 16, b: 52 } : { l: 50, r: 14, t: 12, b: 42 };
  const canvas = el("canvas", "pcanvas", plot);
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  canvas.style.width = W + "px";
  canvas.style.height = H + "px";
  const svgEl = sv("svg", { class: "psvg", width: W, height: H, viewBox: `0 0 ${W} ${H}` }, plot);
  const axes = sv("g", { class: "axes" }, svgEl);
  const trails = sv("g", { class: "trails" }, svgEl);
  const points = sv("g", { class: "points" }, svgEl);
  const top = sv("g", { class: "top" }, svgEl);
  const sc = { plot, canvas, svg: svgEl, axes, trails, points, top, W, H, m, dpr, nodes: new Map(), sig: "", canvasMode: false,
               hoverMarker: null, range: null };
  svgEl.addEventListener("pointermove", (ev) => canvasHover(st, ev));
  svgEl.addEventListener("pointerleave", () => { if (sc.canvasMode) highlight(st, null); });
  svgEl.addEventListener("click", (ev) => {
    if (!sc.canvasMode || ev.target.closest("[data-token]")) return;
    const id = nearest(st, ev);
    if (id !== null) select(st, id);
  });
  return sc;
}

function drawAxes(st, d, sc) {
  const s = d.scatter || {};
  const rg = Array.isArray(s.range) && s.range.length === 2 ? s.range : [[-1, 1], [-1, 1]];
  const [x0, x1] = [num(rg[0][0]), num(rg[0][1])], [y0, y1] = [num(rg[1][0]), num(rg[1][1])];
  sc.range = [x0, x1 === x0 ? x0 + 1 : x1, y0, y1 === y0 ? y0 + 1 : y1];
  const { W, H, m } = sc;
  const names = Array.isArray(s.axes) ? s.axes : ["", ""];
  const axesSig = JSON.stringify([sc.range, names, W, H, m]);
  if (axesSig === sc.axesSig) return; // the frame is fixed: a Step usually keeps the same axes
  sc.axesSig = axesSig;
  const ax = sc.axes;
  ax.textContent = "";
  sv("rect", { x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, class: "frame" }, ax);
  const [px, py] = [(x) => mapX(sc, x), (y) => mapY(sc, y)];
  for (const v of niceTicks(sc.range[0], sc.range[1], 5)) {
    sv("line", { x1: px(v), x2: px(v), y1: m.t, y2: H - m.b, class: v === 0 ? "zero" : "grid" }, ax);
    const t = sv("text", { x: px(v), y: H - m.b + 16, class: "tick", "text-anchor": "middle" }, ax);
    t.textContent = fmt(v).replace(/\.?0+$/, "") || "0";
  }
  for (const v of niceTicks(sc.range[2], sc.range[3], 4)) {
    sv("line", { x1: m.l, x2: W - m.r, y1: py(v), y2: py(v), class: v === 0 ? "zero" : "grid" }, ax);
    const t = sv("text", { x: m.l - 6, y: py(v) + 4, class: "tick", "text-anchor": "end" }, ax);
    t.textContent = fmt(v).replace(/\.?0+$/, "") || "0";
  }
  const xt = sv("text", { x: (m.l + W - m.r) / 2, y: H - 6, class: "axtitle", "text-anchor": "middle" }, ax);
  xt.textContent = String(names[0] || "");
  const yt = sv("text", { x: 0, y: 0, class: "axtitle", "text-anchor": "middle",
                          transform: `translate(13,${(m.t + H - m.b) / 2}) rotate(-90)` }, ax);
  yt.textContent = String(names[1] || "");
}

function mapX(sc, x) { const [a, b] = sc.range; return sc.m.l + ((x - a) / (b - a)) * (sc.W - sc.m.l - sc.m.r); }
function mapY(sc, y) { const [, , a, b] = sc.range; return sc.H - sc.m.b - ((y - a) / (b - a)) * (sc.H - sc.m.t - sc.m.b); }

function fillScatter(st, d, animate) {
  const s = d.scatter || {};
  if (!st.scatter) st.scatter = buildScatterFrame(st, d);
  const sc = st.scatter;
  drawAxes(st, d, sc);
  const ids = Array.isArray(s.ids) ? s.ids : [];
  const xs = Array.isArray(s.x) ? s.x : [], ys = Array.isArray(s.y) ? s.y : [];
  const roles = Array.isArray(s.role) ? s.role : [];
  const clss = Array.isArray(s.cls) ? s.cls : [];
  const n = ids.length;
  sc.ids = ids;
  sc.roles = roles;
  sc.clss = clss;
  sc.canvasMode = !!d.big || n > CANVAS_POINTS;
  const present = !!d.present;
  // Which points are SVG nodes: all of them, or (on a canvas) only PAD, UNK and the selection.
  const special = (i) => roles[i] === "pad" || roles[i] === "unk" || ids[i] === st.selected;
  const nodeIdx = [];
  for (let i = 0; i < n; i++) if (!sc.canvasMode || special(i)) nodeIdx.push(i);
  const sig = [sc.canvasMode, present, st.selected, nodeIdx.map((i) => `${ids[i]}:${roles[i]}:${clss[i]}`).join(",")].join("|");
  if (sig !== sc.sig) {
    sc.sig = sig;
    sc.points.textContent = "";
    sc.top.textContent = "";
    sc.nodes = new Map();
    const order = { unused: 0, used: 1, unk: 2, pad: 4 };
    const sorted = nodeIdx.slice().sort((a, b) => (order[roles[a]] ?? 1) - (order[roles[b]] ?? 1));
    const labelAll = !d.big && n <= LABEL_POINTS;
    const crowd = clamp(Math.sqrt(40 / Math.max(1, n)), 0.55, 1); // smaller marks when there are many
    sc.svg.classList.toggle("crowded", n > LABEL_POINTS);
    for (const i of sorted) {
      const id = ids[i];
      const lk = look(roles[i], num(clss[i]) === clss[i] ? clss[i] : -1, present, crowd);
      const parent = roles[i] === "pad" ? sc.top : sc.points;
      const g = sv("g", { class: "pt " + lk.cls, "data-token": String(id) }, parent);
      g.setAttribute("data-role", roles[i] || "used");
      sv("path", { d: shapePath(lk.shape, lk.r), fill: lk.fill, stroke: lk.stroke, class: "mark" }, g);
      const lab = sv("text", { x: lk.r + 4, y: 5, class: "lbl" + (labelAll || roles[i] === "pad" || roles[i] === "unk" ? " on" : "") }, g);
      lab.textContent = tokenOf(d, id);
      if (roles[i] === "pad") { lab.setAttribute("x", 0); lab.setAttribute("y", padLabelY(lk.r)); lab.setAttribute("text-anchor", "middle"); }
      sc.nodes.set(i, g);
    }
  }
  // Targets, and where each point starts: where it is on screen now (new points start in place).
  const fin = { step: num(s.step), x: new Float64Array(n), y: new Float64Array(n) };
  for (let i = 0; i < n; i++) { fin.x[i] = num(xs[i]); fin.y[i] = num(ys[i]); }
  const play = d.play || {};
  const frames = Array.isArray(s.frames) ? s.frames : [];
  const playing = !!play.on && frames.length > 0 && animate;
  const sps = clamp(num(play.steps_per_second) || 10, 0.2, 120);
  const segMs = playing ? 1000 / sps : TWEEN_MS;
  const prev = st.anim;
  let keyframes, t0 = null;
  if (playing && prev && prev.linear && sameIds(prev.ids, ids)) {
    // Play data arrived before the last frames were shown: queue after them, no jump, no skipped
    // step, and on the same clock (the segment under way keeps its start time, so the time taken to
    // take the new data in is not lost from the rate).
    const k = Math.min(prev.keyframes.length - 2, Math.floor(Math.max(0, performance.now() - prev.t0) / prev.segMs));
    keyframes = prev.keyframes.slice(k);
    t0 = prev.t0 + k * prev.segMs;
  } else {
    const now = startPositions(st, ids, fin);
    keyframes = [{ step: null, x: now.x, y: now.y }];
  }
  if (playing) {
    for (const f of frames) {
      const fx = new Float64Array(n), fy = new Float64Array(n);
      for (let i = 0; i < n; i++) { fx[i] = Array.isArray(f.x) ? num(f.x[i]) : fin.x[i]; fy[i] = Array.isArray(f.y) ? num(f.y[i]) : fin.y[i]; }
      keyframes.push({ step: num(f.step), x: fx, y: fy });
    }
  }
  keyframes.push(fin);
  sc.trail = s.trail && Array.isArray(s.trail.ids) ? s.trail : null;
  startAnimation(st, ids, keyframes, segMs, playing, animate, t0);
}

function sameIds(a, b) {
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Where each id is drawn now (mid-glide included); ids not on screen yet start at their target.
function startPositions(st, ids, fin) {
  const n = ids.length, x = new Float64Array(n), y = new Float64Array(n);
  const shown = st.shown;
  if (shown && sameIds(shown.ids, ids)) {
    x.set(shown.x);
    y.set(shown.y);
    return { x, y };
  }
  const at = new Map();
  if (shown) shown.ids.forEach((id, i) => at.set(id, i));
  for (let i = 0; i < n; i++) {
    const j = at.get(ids[i]);
    x[i] = j === undefined ? fin.x[i] : shown.x[j];
    y[i] = j === undefined ? fin.y[i] : shown.y[j];
  }
  return { x, y };
}

function startAnimation(st, ids, keyframes, segMs, linear, animate, t0) {
  cancelAnimationFrame(st.raf);
  const sc = st.scatter;
  const moving = animate && keyframes.some((k, j) => j > 0 && differs(k, keyframes[0]));
  if (!moving) {
    st.anim = null;
    drawPoints(st, keyframes[keyframes.length - 1]);
    finish(st);
    return;
  }
  const a = { ids, keyframes, segMs, linear, t0: t0 === null || t0 === undefined ? performance.now() : t0, k: 0, u: 0 };
  st.anim = a;
  st.root.dataset.animating = "1";
  const cur = { x: new Float64Array(keyframes[0].x.length), y: new Float64Array(keyframes[0].y.length) };
  const tick = (t) => {
    if (st.anim !== a || st.scatter !== sc) return;
    st.frames += 1;
    st.root.dataset.frames = String(st.frames);
    const segs = a.keyframes.length - 1;
    const el_ = Math.max(0, t - a.t0); // a frame's timestamp can precede the update that started the glide
    const k = Math.min(segs - 1, Math.floor(el_ / a.segMs));
    let u = clamp((el_ - k * a.segMs) / a.segMs, 0, 1);
    a.k = k;
    a.u = u;
    if (!a.linear) u = u < 0.5 ? 4 * u * u * u : 1 - Math.pow(-2 * u + 2, 3) / 2;
    const A = a.keyframes[k], B = a.keyframes[k + 1];
    for (let i = 0; i < cur.x.length; i++) {
      cur.x[i] = A.x[i] + (B.x[i] - A.x[i]) * u;
      cur.y[i] = A.y[i] + (B.y[i] - A.y[i]) * u;
    }
    drawPoints(st, cur);
    const stepNow = (u >= 1 ? B.step : A.step);
    if (stepNow !== null && stepNow !== undefined && st.stepNum) st.stepNum.textContent = String(stepNow);
    if (el_ >= segs * a.segMs) {
      st.anim = null;
      drawPoints(st, B);
      finish(st);
      return;
    }
    st.raf = requestAnimationFrame(tick);
  };
  st.raf = requestAnimationFrame(tick);
  planLabelsLater(st, a, keyframes[keyframes.length - 1]);
}

// The labels' places at the glide's end, worked out between its first frames (the points' final
// pixels are known), so that arriving costs only writing them (placeLabels).
function planLabelsLater(st, a, fin) {
  st.labelPlan = null;
  setTimeout(() => {
    const sc = st.scatter;
    if (st.anim !== a || !sc || !sc.range) return;
    const n = fin.x.length, px = new Float32Array(n), py = new Float32Array(n);
    for (let i = 0; i < n; i++) { px[i] = mapX(sc, fin.x[i]); py[i] = mapY(sc, fin.y[i]); }
    const items = planLabels(st, px, py, false);
    st.labelPlan = items ? { key: labelKey(st), items } : null;
  }, 2 * FRAME_MS);
}

function differs(a, b) {
  for (let i = 0; i < a.x.length; i++) if (a.x[i] !== b.x[i] || a.y[i] !== b.y[i]) return true;
  return false;
}

function finish(st) {
  if (st.stepNum && st.data && st.data.scatter) st.stepNum.textContent = String(num(st.data.scatter.step));
  placeLabels(st);
  st.root.dataset.animating = "0";
  st.root.dataset.step = String(st.data && st.data.scatter ? num(st.data.scatter.step) : 0);
  st.root.dataset.settled = String((Number(st.root.dataset.settled) || 0) + 1);
}

// PAD's label baseline: above the diamond (its stroke included) with a clear gap; it never moves.
const padLabelY = (r) => -r - 9;
const LABEL_GAP = 4; // px between a mark's outline and any label
const FEW_POINTS = 20; // up to this many points, a label may stand a little further off its point

// Labels go right, left, above or below their point (then diagonally, then, for few points or a
// label that must show, a little further off), whichever
// covers the fewest other points and labels (PAD first, so its label is never the one pushed aside),
// at LABEL_GAP from the mark's own outline (measured: a square, a triangle and a ring differ).
// Written when the picture settles; worked out while the points glide (planLabelsLater).
function placeLabels(st) {
  const sc = st.scatter;
  if (!sc || !sc.px) return;
  const plan = st.labelPlan;
  st.labelPlan = null;
  applyLabels((plan && plan.key === labelKey(st) && plan.items) || planLabels(st, sc.px, sc.py, true));
}

// What a label plan depends on besides the points' positions: the point nodes, the data (the final
// positions), the hovered and the selected token.
const labelKey = (st) => [st.scatter.sig, st.renders, st.hover, st.selected].join("|");

// The mark's outline (its shape and, measured, its stroke) around the point, kept per node until its
// classes change (hover and selection widen the stroke).
function markExtent(g) {
  const cls = g.getAttribute("class");
  if (g._ext && g._ext.cls === cls) return g._ext.ext;
  const mk = g.querySelector(".mark");
  const bb = mk ? mk.getBBox() : { x: -8, y: -8, width: 16, height: 16 };
  const sw = (parseFloat(mk ? getComputedStyle(mk).strokeWidth : "2") || 2) / 2;
  const ext = { l: bb.x - sw, r: bb.x + bb.width + sw, t: bb.y - sw, b: bb.y + bb.height + sw };
  g._ext = { cls, ext };
  return ext;
}

function forgetBoxes(st) {
  st.labelPlan = null;
  if (!st.scatter) return;
  for (const g of st.scatter.nodes.values()) {
    g._ext = null;
    const lab = g.querySelector(".lbl");
    if (lab) lab._box = null;
  }
}

// A label's text box (width, height, extent above and below its baseline), kept per node: its text
// never changes, and a label hidden as crowded (display: none) has no box to measure.
function labelBox(lab, g) {
  const cls = g.getAttribute("class") + "/" + lab.getAttribute("class").replace(/\s*crowd/, "");
  if (lab._box && lab._box.cls === cls) return lab._box;
  const tb = lab.getBBox();
  if (!tb.width) return null;
  const y0 = Number(lab.getAttribute("y")) || 0;
  lab._box = { cls, w: tb.width, h: tb.height, asc: y0 - tb.y, desc: tb.y + tb.height - y0 };
  return lab._box;
}

// Where each shown label goes with the points at (px, py). With ``now`` false it writes nothing, so it
// can be worked out while the points still glide (startAnimation) and written when they arrive; it
// gives null then if a label it must place was never measured (hidden as crowded since it was made).
function planLabels(st, px, py, now) {
  const sc = st.scatter;
  const items = [];
  const marks = [];
  for (const [i, g] of sc.nodes) marks.push({ i, g, x: px[i], y: py[i], ext: markExtent(g) });
  const boxes = marks.map((m) => ({ l: m.x + m.ext.l - 2, r: m.x + m.ext.r + 2, t: m.y + m.ext.t - 2, b: m.y + m.ext.b + 2, i: m.i }));
  const overlap = (a, b) => Math.max(0, Math.min(a.r, b.r) - Math.max(a.l, b.l)) * Math.max(0, Math.min(a.b, b.b) - Math.max(a.t, b.t));
  // PAD first, then the labels always shown (UNK, the selection), then the rest: the ones that must
  // be read get their places before the crowd does.
  const rank = (m) => (sc.roles[m.i] === "pad" ? 0 : sc.roles[m.i] === "unk" || sc.ids[m.i] === st.selected ? 1 : 2);
  const order = marks.slice().sort((a, b) => rank(a) - rank(b));
  for (const m of order) {
    const lab = m.g.querySelector(".lbl");
    if (!lab) continue;
    // Shown: always-on labels and the hovered or selected point's (stage.css, crowding aside).
    if (!(lab.classList.contains("on") || m.g.classList.contains("hl") || m.g.classList.contains("sel"))) {
      items.push({ lab, crowd: false });
      continue;
    }
    let box = labelBox(lab, m.g);
    if (!box && now) { lab.classList.remove("crowd"); box = labelBox(lab, m.g); }
    if (!box && !now) return null;
    if (!box) { items.push({ lab, crowd: false }); continue; }
    const { w, asc, desc } = box;
    const y0 = Number(lab.getAttribute("y")) || 0;
    const { ext } = m, gap = LABEL_GAP;
    const mid = (asc - desc) / 2; // baseline that centres the text on the mark
    const far = gap + 10;
    // Right, left, above, below; then diagonally, to keep clear of other marks and labels.
    const cands = [
      { x: ext.r + gap, y: mid, a: "start" },
      { x: ext.l - gap, y: mid, a: "end" },
      { x: 0, y: ext.t - gap - desc, a: "middle" },
      { x: 0, y: ext.b + gap + asc, a: "middle" },
      { x: ext.r + gap, y: ext.t - gap - desc, a: "start" },
      { x: ext.l - gap, y: ext.t - gap - desc, a: "end" },
      { x: ext.r + gap, y: ext.b + gap + asc, a: "start" },
      { x: ext.l - gap, y: ext.b + gap + asc, a: "end" },
    ];
    // Further off only where it cannot be read as another point's label: few points, or a label that
    // must show (UNK's, the selection's).
    if (rank(m) === 1 || marks.length <= FEW_POINTS) {
      cands.push(
        { x: ext.r + far, y: mid, a: "start" },
        { x: ext.l - far, y: mid, a: "end" },
        { x: 0, y: ext.t - far - desc, a: "middle" },
        { x: 0, y: ext.b + far + asc, a: "middle" },
      );
    }
    const isPad = sc.roles[m.i] === "pad";
    const list = isPad ? [{ x: 0, y: y0, a: "middle" }] : cands; // PAD's label never moves: always above it
    let best = null, cost = Infinity;
    for (const c of list) {
      const l = c.a === "start" ? c.x : c.a === "end" ? c.x - w : c.x - w / 2;
      c.box = { l: m.x + l, r: m.x + l + w, t: m.y + c.y - asc, b: m.y + c.y + desc };
      let k = 0;
      // A label over a point can still be read; a label over another label cannot, and PAD's must stay clear.
      for (const bx of boxes) if (bx.i !== m.i || bx.label) k += overlap(c.box, bx) * (bx.label ? (bx.pad ? 100 : 10) : 1);
      if (c.box.l < 0 || c.box.r > sc.W || c.box.t < 0 || c.box.b > sc.H - sc.m.b + 2) k += 1e6;
      if (k < cost) { cost = k; best = c; }
      if (k === 0) break;
    }
    // A label that would cover another is left for hover (PAD's, UNK's and the selection's never are).
    const keep = isPad || sc.roles[m.i] === "unk" || sc.ids[m.i] === st.selected;
    items.push({ lab, x: best.x.toFixed(2), y: best.y.toFixed(2), a: best.a, crowd: cost > 0 && !keep });
    if (cost === 0 || keep) boxes.push({ ...best.box, i: m.i, label: true, pad: isPad });
  }
  return items;
}

function applyLabels(items) {
  for (const it of items) {
    if (it.x !== undefined) {
      it.lab.setAttribute("x", it.x);
      it.lab.setAttribute("y", it.y);
      it.lab.setAttribute("text-anchor", it.a);
    }
    it.lab.classList.toggle("crowd", it.crowd);
  }
}

function drawPoints(st, p) {
  const sc = st.scatter;
  const n = sc.ids.length;
  const px = new Float32Array(n), py = new Float32Array(n);
  for (let i = 0; i < n; i++) { px[i] = mapX(sc, p.x[i]); py[i] = mapY(sc, p.y[i]); }
  sc.px = px; sc.py = py;
  if (!st.shown || st.shown.ids !== sc.ids) st.shown = { ids: sc.ids, x: new Float64Array(n), y: new Float64Array(n) };
  st.shown.x.set(p.x);
  st.shown.y.set(p.y);
  for (const [i, g] of sc.nodes) g.setAttribute("transform", `translate(${px[i].toFixed(2)},${py[i].toFixed(2)})`);
  drawTrails(st, p);
  if (sc.canvasMode) drawCanvas(st);
  else if (sc.canvasDirty !== false) {
    const ctx = sc.canvas.getContext("2d");
    ctx.clearRect(0, 0, sc.canvas.width, sc.canvas.height);
    sc.canvasDirty = false;
  }
}

// Each trail is its past steps (fixed for one data update and one axis range) plus the point's
// position now, the only part that moves during a glide: the past part's text and the polylines are
// built once per update, and each frame only rewrites each polyline's last point.
function drawTrails(st, p) {
  const sc = st.scatter;
  const tr = sc.trail;
  if (!tr || sc.canvasMode) {
    if (sc.trailCache) { sc.trails.textContent = ""; sc.trailCache = null; }
    return;
  }
  const [a, b, c, d] = sc.range;
  let cache = sc.trailCache;
  if (!cache || cache.tr !== tr || cache.ids !== sc.ids || cache.range.join() !== [a, b, c, d, sc.W, sc.H].join()) {
    sc.trails.textContent = "";
    const idx = new Map(sc.ids.map((id, i) => [id, i]));
    const lines = [];
    tr.ids.forEach((id, j) => {
      const i = idx.get(id);
      if (i === undefined) return;
      const xs = (tr.x && tr.x[j]) || [], ys = (tr.y && tr.y[j]) || [];
      let past = "";
      for (let k = 0; k < xs.length; k++) past += `${mapX(sc, num(xs[k])).toFixed(1)},${mapY(sc, num(ys[k])).toFixed(1)} `;
      const colour = num(sc.clss[i]) >= 0 && sc.roles[i] !== "unused" ? CLASS_COLORS[sc.clss[i] % CLASS_COLORS.length] : "var(--muted)";
      const node = sv("polyline", { class: "trail", stroke: colour, "data-token": String(id) }, sc.trails);
      lines.push({ i, past, node });
    });
    cache = sc.trailCache = { tr, ids: sc.ids, range: [a, b, c, d, sc.W, sc.H], lines };
  }
  for (const l of cache.lines) l.node.setAttribute("points", `${l.past}${sc.px[l.i].toFixed(1)},${sc.py[l.i].toFixed(1)}`);
}

// Many points: written straight into the canvas's pixels (a fillRect per point costs ~10× more),
// faint never-looked-up rows first, then looked-up rows by class; PAD/UNK/selection are SVG on top.
function drawCanvas(st) {
  const sc = st.scatter;
  const n = sc.ids.length;
  const cw = sc.canvas.width, ch = sc.canvas.height, dpr = sc.dpr;
  if (!sc.groups || sc.groups.ids !== sc.ids || sc.groups.dark !== st.dark) {
    const unused = [], byClass = CLASS_COLORS.map(() => []), plain = [];
    for (let i = 0; i < n; i++) {
      if (sc.roles[i] === "unused") unused.push(i);
      else if (sc.roles[i] === "used") (num(sc.clss[i]) >= 0 ? byClass[sc.clss[i] % CLASS_COLORS.length] : plain).push(i);
    }
    sc.groups = { ids: sc.ids, dark: st.dark, list: [
      [Int32Array.from(unused), 2, rgba(st.dark ? "#4a4f57" : "#c9ccd0")],
      [Int32Array.from(plain), 3, rgba(st.dark ? "#bdc1c6" : "#5f6368")],
      ...byClass.map((g, c) => [Int32Array.from(g), 3, rgba(CLASS_COLORS[c])]),
    ] };
  }
  if (!sc.image || sc.image.width !== cw || sc.image.height !== ch) {
    sc.image = sc.canvas.getContext("2d").createImageData(cw, ch);
    sc.pixels = new Uint32Array(sc.image.data.buffer);
  }
  const px = sc.pixels;
  px.fill(0);
  for (const [idx, size, colour] of sc.groups.list) {
    const s = Math.max(1, Math.round(size * dpr)), h = s >> 1;
    for (let k = 0; k < idx.length; k++) {
      const i = idx[k];
      const x0 = Math.round(sc.px[i] * dpr) - h, y0 = Math.round(sc.py[i] * dpr) - h;
      if (x0 < 0 || y0 < 0 || x0 + s > cw || y0 + s > ch) continue;
      for (let dy = 0; dy < s; dy++) px.fill(colour, (y0 + dy) * cw + x0, (y0 + dy) * cw + x0 + s);
    }
  }
  sc.canvas.getContext("2d").putImageData(sc.image, 0, 0);
}

// "#rrggbb" as one pixel of a little-endian RGBA Uint32Array (alpha 255).
function rgba(hex) {
  const v = parseInt(hex.slice(1), 16);
  return ((255 << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff)) >>> 0;
}

function nearest(st, ev) {
  const sc = st.scatter;
  if (!sc || !sc.px) return null;
  const r = sc.svg.getBoundingClientRect();
  const x = ev.clientX - r.left, y = ev.clientY - r.top;
  let best = -1, bd = 81; // within 9 px
  for (let i = 0; i < sc.px.length; i++) {
    const dx = sc.px[i] - x, dy = sc.py[i] - y, dd = dx * dx + dy * dy;
    if (dd < bd) { bd = dd; best = i; }
  }
  return best < 0 ? null : sc.ids[best];
}

function canvasHover(st, ev) {
  const sc = st.scatter;
  if (!sc || !sc.canvasMode || ev.target.closest("[data-token]")) return;
  if (sc.hoverPending) return;
  sc.hoverPending = true;
  requestAnimationFrame(() => {
    sc.hoverPending = false;
    const id = nearest(st, ev);
    highlight(st, id === null ? null : String(id));
  });
}

function drawHoverMarker(st, token) {
  const sc = st.scatter;
  if (sc.hoverMarker) sc.hoverMarker.remove();
  sc.hoverMarker = null;
  const i = sc.ids.indexOf(Number(token));
  if (i < 0 || sc.nodes.has(i)) return;
  const g = sv("g", { class: "pt hl probe", "data-token": token, transform: `translate(${sc.px[i].toFixed(2)},${sc.py[i].toFixed(2)})` }, sc.points);
  sv("circle", { r: 7, class: "probe-ring" }, g);
  const t = sv("text", { x: 10, y: 5, class: "lbl on" }, g);
  t.textContent = tokenOf(st.data, token);
  sc.hoverMarker = g;
}

function raisePad(st) {
  // PAD stays the last child of the top layer: nothing is drawn over it.
  const sc = st.scatter;
  const pad = sc.top.querySelector('[data-role="pad"]');
  if (pad && pad !== sc.top.lastChild) sc.top.appendChild(pad);
}

function fillNeighbours(st, d) {
  const box = st.neighBox;
  if (!box) return;
  box.textContent = "";
  const nb = d.neighbours;
  if (!nb || !Array.isArray(nb.ids) || !nb.ids.length) return; // the row keeps its height: the plot never resizes
  const of = el("span", "nof", box, tokenOf(d, nb.of));
  of.setAttribute("data-token", String(nb.of));
  el("span", "narrow", box, "\u2192");
  nb.ids.forEach((id, i) => {
    const c = el("span", "chip", box);
    c.setAttribute("data-token", String(id));
    c.tabIndex = 0;
    el("span", "ctok", c, tokenOf(d, id));
    if (Array.isArray(nb.cos)) el("span", "ccos", c, num(nb.cos[i]).toFixed(2));
  });
}

// ---- lookup layout ---------------------------------------------------------------------------
function layoutLookup(st, d) {
  const root = st.root;
  const body = el("div", "body lookup" + (d.scatter && st.width >= 1500 ? " withscatter" : ""), root);
  st.idsPanel = el("section", "panel idspanel", body);
  st.wPanel = el("section", "panel wpanel", body);
  st.outPanel = el("section", "panel outpanel", body);
  st.scatterPanel = d.scatter && st.width >= 1500 ? el("section", "panel scatter", body) : null;
  st.wires = sv("svg", { class: "wires" }, root);
}

function fillIds(st, d) {
  const p = st.idsPanel;
  p.textContent = "";
  const title = el("div", "ptitle", p);
  el("span", "", title, words(d, "ids_title", "ids"));
  const ids = Array.isArray(d.ids) ? d.ids : [];
  const b = d.out && Number.isInteger(d.out.b) ? d.out.b : 0;
  const t = ids.length ? Math.max(...ids.map((r) => r.length)) : 0;
  const grid = el("div", "idgrid", p);
  const shown = idColumns(st, p, ids, t);
  grid.style.gridTemplateColumns = `auto repeat(${shown}, minmax(0, 1fr))` + (shown < t ? " auto" : "");
  // Cells grow with the room a tall screen leaves (the selection note below keeps ~7 em).
  const cellH = clamp((p.clientHeight - title.offsetHeight - 160) / Math.max(1, ids.length) - 8, 58, d.present ? 120 : 96);
  grid.style.setProperty("--cellh", cellH + "px");
  const corner = el("div", "idh", grid, "");
  for (let j = 0; j < shown; j++) el("div", "idh", grid, "t=" + j);
  if (shown < t) el("div", "idh idmore", grid, `\u2026 +${t - shown}`);
  const addRow = (i) => {
    const row = ids[i];
    const rh = el("div", "idh rowh" + (i === b ? " cur" : ""), grid, "b=" + i);
    rh.setAttribute("data-b", String(i));
    const typed = (Array.isArray(d.sentences) && d.sentences[i]) || [];
    for (let j = 0; j < shown; j++) {
      const id = row[j];
      const c = el("div", "idcell" + (i === b ? " cur" : ""), grid);
      if (id === undefined) continue;
      c.setAttribute("data-token", String(id));
      c.tabIndex = 0;
      c.setAttribute("data-b", String(i));
      c.setAttribute("data-t", String(j));
      if (id === d.pad) c.classList.add("pad");
      if (id === d.unk) c.classList.add("unk");
      el("div", "idnum", c, String(id));
      const tok = tokenOf(d, id);
      el("div", "idtok", c, tok);
      if (typed[j] !== undefined && String(typed[j]) !== tok) el("div", "idtyped", c, String(typed[j]));
    }
    if (shown < t) el("div", "idh idmore", grid, "\u2026");
  };
  // Only the rows the panel shows are built (a batch of 256 sentences is thousands of cells): rows are
  // added until the grid reaches past the panel's bottom, which clips the rest, and the current row
  // is in. A panel that grows with its rows (stacked, on a phone) never clips, so it gets them all.
  const clipBottom = () => p.getBoundingClientRect().top + p.clientTop + p.clientHeight;
  let built = 0;
  for (let chunk = Math.max(b + 1, Math.ceil(p.clientHeight / (cellH + 6)) + 1); built < ids.length; chunk *= 2) {
    const stop = Math.min(ids.length, built + chunk);
    while (built < stop) addRow(built++);
    if (built > b && built < ids.length && grid.getBoundingClientRect().bottom >= clipBottom()) break;
  }
  grid.dataset.rows = String(built);
  if (built < ids.length) {
    // The row labels' column stays as wide as the widest label, built or not ("b=255": digits are tabular).
    const widest = el("span", "", corner, "b=" + (ids.length - 1));
    widest.style.cssText = "visibility: hidden; padding-right: 2px;";
  }
  // A token wider than its cell ("<UNK>" in a narrow one) is set smaller rather than clipped.
  // What the selection means, in symbols: the cell's id picks a row of W, copied to the output.
  const sel = st.selected;
  const row = ids[b] || [];
  const where = row.map((id, j) => (id === sel ? j : -1)).filter((j) => j >= 0);
  const note = el("div", "selnote", p);
  if (sel !== null && sel !== undefined && where.length) {
    el("div", "sellabel", note, words(d, "selected", ""));
    const line = el("div", "selline", note);
    line.setAttribute("data-token", String(sel));
    el("span", "seltok", line, `${sel} · ${tokenOf(d, sel)}`);
    el("span", "selmath", line, `W[${sel}, :] = out[${b}, ${where.join(", ")}]`);
  }
  const fit = () => {
    fitText(p, ".idnum, .idtok, .idtyped, .selmath");
    // Every id at one size, that of the longest: a short id set larger would read as more important.
    const nums = [...p.querySelectorAll(".idnum")];
    const least = Math.min(...nums.map((n) => parseFloat(n.style.fontSize) || Infinity));
    if (isFinite(least)) for (const n of nums) n.style.fontSize = least + "px";
  };
  fit();
  requestAnimationFrame(fit); // again once every panel has its width
}

// How many of the T columns of the id matrix are shown: all of them when each can be as wide as its
// widest id at MIN_ID_FS px (the numbers shrink to fit, down to that size) and its "t=j" header;
// else as many as fit beside a "… +k" column, as W does with its columns. Fifty columns of five-digit
// ids in a third of a projector's width would otherwise print over each other.
const MIN_ID_FS = 13;
const ID_GAP = 6; // px: .idgrid's gap
function idColumns(st, p, ids, t) {
  if (t <= 1) return t;
  let maxId = 0;
  for (const r of ids) for (const v of r) if (v > maxId) maxId = v;
  const cs = getComputedStyle(p);
  const fs = parseFloat(cs.getPropertyValue("--fs")) || 15;
  const ctx = (st.measure = st.measure || document.createElement("canvas").getContext("2d"));
  const width = (text, size, weight) => { ctx.font = `${weight} ${size}px ${cs.fontFamily}`; return ctx.measureText(text).width; };
  const zeros = (n) => String(n).replace(/\d/g, "0");
  const cell = Math.max(width(zeros(maxId), MIN_ID_FS, 700), width("t=" + zeros(t - 1), fs * 0.8, 400)) + 14; // padding and border
  const rowHead = width("b=" + zeros(Math.max(0, ids.length - 1)), fs * 0.8, 400) + 4;
  const room = p.clientWidth - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0) - rowHead - ID_GAP;
  if (t * (cell + ID_GAP) - ID_GAP <= room) return t;
  const more = width(`\u2026 +${t}`, fs * 0.8, 400) + ID_GAP;
  return clamp(Math.floor((room - more + ID_GAP) / (cell + ID_GAP)), 1, t);
}

function fillOut(st, d) {
  const p = st.outPanel;
  p.textContent = "";
  const out = d.out || {};
  const b = Number.isInteger(out.b) ? out.b : 0;
  const present = !!d.present;
  const title = el("div", "ptitle", p);
  el("span", "", title, words(d, "out_title", "out") + ` [${b}]`);
  const vals = Array.isArray(out.values) ? out.values : [];
  const e = vals.length ? vals[0].length : 0;
  const ids = (Array.isArray(d.ids) && d.ids[b]) || [];
  const absmax = num((d.w || {}).absmax) || 1;
  const grid = el("div", "wgrid outgrid", p);
  grid.style.setProperty("--cols", `var(--labw) repeat(${e}, minmax(0, 1fr))`);
  const head = el("div", "wrow whead", grid);
  fillHeadRow(head, "t", e, e, false, false);
  const avail = p.clientHeight - 14 - title.offsetHeight - head.offsetHeight - 8 - vals.length;
  const rowH = Math.floor(clamp(avail / Math.max(1, vals.length), 14, present ? 76 : 62));
  grid.style.setProperty("--rowh", rowH + "px");
  let plan = planNumbers(st, grid, head, e, rowH, absmax, present, "var(--labw) %COLS%", true);
  // A row of the output is a copy of a row of W: the same columns, decimals and type as W shows.
  const wp = st.wPlan;
  if (wp && wp.e === e && wp.nums && plan.nums) {
    plan = { e, shown: Math.min(plan.shown, wp.shown), dec: Math.min(plan.dec, wp.dec), fs: Math.min(plan.fs, wp.fs), nums: true };
  } else if (wp && wp.e === e && !wp.nums) {
    plan = { e, shown: wp.shown, dec: 2, fs: MIN_FS, nums: false }; // W shows colours only: so does its copy
  }
  grid.style.setProperty("--cols", `var(--labw) repeat(${plan.shown}, minmax(0, 1fr))` + (plan.shown < e ? " minmax(2.6em, 0.4fr)" : ""));
  fillHeadRow(head, "t", e, plan.shown, false, false);
  grid.style.setProperty("--cellfs", plan.fs + "px");
  grid.style.setProperty("--labfs", clamp(rowH * 0.85, 7, present ? 20 : 15) + "px");
  grid.classList.toggle("nonums", !plan.nums);
  grid.classList.toggle("thincols", (wp && wp.e === e && !wp.nums ? wp.cw : plan.cw) < THIN_COL);
  vals.forEach((row, t) => {
    const r = el("div", "wrow", grid);
    const id = ids[t];
    if (id !== undefined) r.setAttribute("data-token", String(id));
    if (id === d.pad) r.classList.add("pad");
    if (id === d.unk) r.classList.add("unk");
    r.setAttribute("data-t", String(t));
    const lab = el("div", "wlab", r);
    el("span", "wid", lab, "t=" + t);
    el("span", "wtok", lab, id === undefined ? "" : tokenOf(d, id));
    fillCells(st, r, row, plan, plan.nums, absmax);
  });
  fitText(p, ".wtok");
  requestAnimationFrame(() => fitText(p, ".wtok"));
}

// The selected id's cells, its W row and its output rows, joined by lines: one connected thing.
function drawConnectors(st) {
  const svgEl = st.wires;
  if (!svgEl || !svgEl.isConnected) return;
  svgEl.textContent = "";
  const sel = st.selected;
  const root = st.root.getBoundingClientRect();
  svgEl.setAttribute("width", root.width);
  svgEl.setAttribute("height", root.height);
  if (sel === null || sel === undefined) return;
  const q = (panel, extra) => panel ? Array.from(panel.querySelectorAll(`[data-token="${sel}"]${extra || ""}`)) : [];
  const cells = q(st.idsPanel, ".cur");
  const wrow = q(st.wPanel, ".wrow")[0];
  const outs = q(st.outPanel, ".wrow");
  if (!wrow) return;
  const box = (e) => { const r = e.getBoundingClientRect(); return { l: r.left - root.left, r: r.right - root.left, t: r.top - root.top, b: r.bottom - root.top }; };
  const W = box(wrow);
  const link = (a, bb) => {
    const x1 = a.r, y1 = (a.t + a.b) / 2, x2 = bb.l, y2 = (bb.t + bb.b) / 2, mx = (x1 + x2) / 2;
    sv("path", { d: `M${x1},${y1}C${mx},${y1} ${mx},${y2} ${x2},${y2}`, class: "wire" }, svgEl);
    sv("circle", { cx: x1, cy: y1, r: 4, class: "wiredot" }, svgEl);
    sv("circle", { cx: x2, cy: y2, r: 4, class: "wiredot" }, svgEl);
  };
  for (const c of cells) link(box(c), W);
  for (const o of outs) link(W, box(o));
}
