// The embedding stage: one mounted view of the lookup and of training (see ../README.md for the data).
//
// Streamlit (components v2) calls the default export at mount and again with every new `data`,
// on the same DOM node (the component is mounted with a stable key). The picture therefore
// animates from what is on screen to the new data instead of being redrawn from scratch.
// Every visible word comes from data.text; token text is always set with textContent.
// This module wires the stage together: mounting, events, hover and selection, and one render.
import { drawHoverMarker, nearest } from "./canvas.mjs";
import { el } from "./dom.mjs";
import { num } from "./format.mjs";
import { fillHeader, layoutTrain } from "./head.mjs";
import { fillIds, idShape } from "./idmatrix.mjs";
import { drawConnectors, fillOut, layoutLookup } from "./lookup.mjs";
import { placeLabels } from "./labels.mjs";
import { forgetBoxes } from "./measure.mjs";
import { walks } from "./motion.mjs";
import { darkBackground } from "./paint.mjs";
import { fillNeighbours } from "./neighbours.mjs";
import { buildScatterFrame, fillScatter, raisePad } from "./scatter.mjs";
import { createStage } from "./state.mjs";
import { fillW } from "./wgrid.mjs";

const STAGES = new WeakMap(); // mount point → its stage (one per mounted component)
const DEFAULT_HEIGHT = 560; // px, when the data says none

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let st = STAGES.get(parentElement);
  if (!st || !st.root.isConnected) {
    st = mount(parentElement);
    STAGES.set(parentElement, st);
  }
  st.setStateValue = setStateValue;
  // The server sends the data as JSON bytes (components/stage/__init__.py says why).
  update(st, (data instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(data)) : data) || {});
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

function mount(parentElement) {
  const host = parentElement.querySelector(".stage-host") || parentElement;
  host.textContent = "";
  const root = el("div", "stage", host);
  root.setAttribute("data-testid", "stage");
  const st = createStage(root, parentElement);
  const token = (e) => e.target.closest && e.target.closest("[data-token]");
  root.addEventListener("pointerover", (e) => {
    const t = token(e);
    if (t) highlight(st, t.getAttribute("data-token"));
  });
  root.addEventListener("pointerout", (e) => {
    const t = token(e);
    const to = e.relatedTarget && e.relatedTarget.closest && e.relatedTarget.closest("[data-token]");
    if (t && (!to || to.getAttribute("data-token") !== t.getAttribute("data-token"))) highlight(st, null);
  });
  // Keyboard: W rows, id cells and neighbour chips take focus; focus highlights, Enter or Space selects.
  root.addEventListener("focusin", (e) => {
    const t = token(e);
    if (t) highlight(st, t.getAttribute("data-token"));
  });
  const marker = (e) => e.target.closest && e.target.closest(".idmore[data-page]");
  root.addEventListener("keydown", (e) => {
    if (marker(e) && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      pageIds(st, marker(e), true);
      return;
    }
    const t = token(e);
    if (t && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      select(st, Number(t.getAttribute("data-token")), cellOf(t));
    } else if (t && e.key in STEPS && !e.altKey && !e.ctrlKey && !e.metaKey && moveFocus(st, t, e.key)) {
      e.preventDefault();
    }
  });
  root.addEventListener("click", (e) => {
    if (marker(e)) { pageIds(st, marker(e), false); return; }
    const t = token(e);
    if (t) select(st, Number(t.getAttribute("data-token")), cellOf(t));
  });
  // The id matrix and W's rows may scroll: the wires follow (scroll events reach the root when captured).
  root.addEventListener("scroll", () => {
    if (st.data && st.data.mode === "lookup") requestAnimationFrame(() => drawConnectors(st));
  }, { capture: true, passive: true });
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

// Hover: every node of the same token gets class "hl" (`again`: even if it is the hovered one).
function highlight(st, token, again) {
  if (st.hover === token && !again) return;
  st.hover = token;
  st.root.querySelectorAll(".hl").forEach((n) => n.classList.remove("hl"));
  if (token !== null) {
    st.root.querySelectorAll(`[data-token="${CSS.escape(token)}"]`).forEach((n) => n.classList.add("hl"));
    if (st.scatter && st.scatter.canvasMode) drawHoverMarker(st, token);
  } else if (st.scatter && st.scatter.hoverMarker) {
    st.scatter.hoverMarker.remove();
    st.scatter.hoverMarker = null;
  }
  labelsAgain(st);
}

// The hovered or selected label always shows, and the others make room for it: the labels are
// planned again (a glide under way does it at its next frame).
function labelsAgain(st) {
  st.labelPlan = null;
  if (st.scatter && !st.anim) placeLabels(st);
}

// A click (or Enter) on a token: the one piece of state the server sees. On a cell of the id
// matrix it is the cell ({"cell": {id, b, t, n}}), so that the output follows that cell's sentence
// in the same rerun; `n` makes a click on the same cell again a new value (the learner may have
// picked another sentence since). Anywhere else it is the id ({"selected": id}).
function select(st, id, cell) {
  if (!Number.isInteger(id)) return;
  st.selected = id;
  const d = st.data;
  if (d && d.mode === "lookup") {
    // The id matrix's columns: a clicked cell (or its text or chip) stays where it is, in view; any
    // other click lets the columns go to the token's first place unless one is in view already.
    const { b, t } = idShape(d);
    st.idPage = { first: null, at: cell ? cell.t : null, sel: id, b: cell ? cell.b : b, t };
    if (!cell) fillIds(st, d); // a cell's click reruns the page, which draws the matrix again
  }
  markSelected(st);
  if (!st.setStateValue) return;
  if (cell) st.setStateValue("cell", { id, b: cell.b, t: cell.t, n: Date.now() });
  else st.setStateValue("selected", id);
}

// A "… +k" marker of the id matrix, clicked or pressed: its columns move to the page it names (a
// view of the same data: the server is not asked). Keyboard focus stays on that side's marker.
function pageIds(st, m, keyboard) {
  const d = st.data;
  if (!d || d.mode !== "lookup") return;
  const side = m.dataset.side;
  const { b, t } = idShape(d);
  st.idPage = { first: Number(m.dataset.page), at: null, sel: st.selected, b, t };
  fillIds(st, d);
  if (st.hover !== null) highlight(st, st.hover, true);
  markSelected(st);
  if (keyboard) {
    const again = st.idsPanel.querySelector(`.idmore[data-side="${side}"]`) || st.idsPanel.querySelector(".idmore[data-page]");
    if (again) again.focus();
  }
}

// The (b, t) of an id-matrix cell, or of the raw text's piece or the token chip above it (one
// token in three forms), or null for any other token node.
const CELLS = ["idcell", "tokchip", "rawtok"];
function cellOf(node) {
  if (!node.hasAttribute("data-b") || !node.hasAttribute("data-t") || !CELLS.some((c) => node.classList.contains(c))) return null;
  return { b: Number(node.getAttribute("data-b")), t: Number(node.getAttribute("data-t")) };
}

function markSelected(st) {
  st.root.querySelectorAll(".sel").forEach((n) => n.classList.remove("sel"));
  if (st.selected !== null && st.selected !== undefined) {
    st.root.querySelectorAll(`[data-token="${st.selected}"]`).forEach((n) => n.classList.add("sel"));
  }
  if (st.scatter) raisePad(st);
  labelsAgain(st);
  if (st.data && st.data.mode === "lookup") requestAnimationFrame(() => drawConnectors(st));
}

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

// The browser's "reduce motion" preference (the system's accessibility setting): no glide, no walk
// through Play's steps; each data is drawn where it lands.
function reducedMotion() {
  return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

// Light or dark follows Streamlit's background colour (the browser's preference when unreadable).
function theme(st) {
  const bg = (getComputedStyle(st.root).getPropertyValue("--st-background-color") || "").trim();
  const prefers = !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  const dark = darkBackground(bg, prefers);
  if (st.dark !== dark) {
    st.dark = dark;
    st.root.classList.toggle("dark", dark);
    if (st.data) { st.layoutSig = ""; render(st, st.data, false); }
  }
}

// Draw data `d`: the layout rebuilt only when what it depends on changed, then every panel filled;
// `animate` false (a resize, the theme, fonts) draws the points where they are going at once.
function render(st, d, animate) {
  const focused = focusedSelector(st); // a redraw replaces the nodes: focus goes back where it was
  renderNodes(st, d, animate);
  if (focused) {
    const again = st.root.querySelector(focused);
    if (again && again !== st.root.getRootNode().activeElement) again.focus({ preventScroll: true });
  }
}

// A selector for the focused node of the stage, that finds its counterpart after a redraw, or null.
function focusedSelector(st) {
  const active = st.root.getRootNode().activeElement;
  if (!active || !st.root.contains(active) || !active.hasAttribute("data-token")) return null;
  const token = CSS.escape(active.getAttribute("data-token"));
  if (active.classList.contains("idcell")) {
    return `.idcell[data-b="${active.getAttribute("data-b")}"][data-t="${active.getAttribute("data-t")}"]`;
  }
  const panel = active.closest(".panel, .neigh");
  const where = panel ? "." + Array.from(panel.classList).filter((c) => c !== "panel").join(".") + " " : "";
  return `${where}[data-token="${token}"][tabindex]`;
}

// Arrow keys move between the id matrix's cells (and up and down W's rows), as in a table.
const STEPS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
function moveFocus(st, node, key) {
  const [db, dt] = STEPS[key];
  let next = null;
  if (node.classList.contains("idcell")) {
    const b = Number(node.getAttribute("data-b")) + db, t = Number(node.getAttribute("data-t")) + dt;
    next = st.root.querySelector(`.idcell[data-b="${b}"][data-t="${t}"]`);
  } else if (node.classList.contains("wrow") && db !== 0) {
    const rows = Array.from(node.parentElement.querySelectorAll(".wrow[tabindex]"));
    next = rows[rows.indexOf(node) + db] || null;
  }
  if (!next) return false;
  next.focus();
  next.scrollIntoView({ block: "nearest", inline: "nearest" });
  return true;
}

function renderNodes(st, d, animate) {
  st.data = d;
  const glides = animate && !reducedMotion(); // a learner who asked their system for less motion sees each step at once
  st.renders += 1;
  const root = st.root;
  const mode = d.mode === "lookup" ? "lookup" : "train";
  const height = num(d.height) > 0 ? num(d.height) : DEFAULT_HEIGHT;
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
    fillHeader(st, d, glides);
    // Play's walk fills W and the neighbours at each step it reaches (animation.mjs): drawn now,
    // they would name the newest step while the points and the counter are still on earlier ones.
    const s = d.scatter || {};
    const walked = walks(d.play, s.frames, glides, st.shown) && s.frames.some((f) => f && f.w) && st.w && st.w.panel === st.wPanel;
    if (!walked) fillW(st, st.wPanel, d, true);
    if (st.scatterPanel) drawScatter(st, d, glides);
    if (!walked) fillNeighbours(st, d);
  } else {
    fillIds(st, d);
    fillW(st, st.wPanel, d, false);
    fillOut(st, d);
    if (st.scatterPanel) drawScatter(st, d, glides);
    else {
      st.root.dataset.animating = "0";
      st.root.dataset.step = String(num((d.scatter || {}).step));
    }
    requestAnimationFrame(() => drawConnectors(st));
  }
  if (st.hover !== null) highlight(st, st.hover, true);
  markSelected(st);
  describe(st, d);
  if (animate) { st.updates += 1; root.dataset.updates = String(st.updates); } // for tests and benchmarks
}

function drawScatter(st, d, animate) {
  if (!st.scatter) {
    st.scatter = buildScatterFrame(st, d);
    listenScatter(st, st.scatter);
  }
  fillScatter(st, d, animate);
}

// On a canvas the bulk of the points are pixels, not nodes: hover and click find the nearest point.
function listenScatter(st, sc) {
  sc.svg.addEventListener("pointermove", (ev) => {
    if (!sc.canvasMode || ev.target.closest("[data-token]") || sc.hoverPending) return;
    sc.hoverPending = true;
    requestAnimationFrame(() => {
      sc.hoverPending = false;
      const id = nearest(st, ev);
      highlight(st, id === null ? null : String(id));
    });
  });
  sc.svg.addEventListener("pointerleave", () => { if (sc.canvasMode) highlight(st, null); });
  sc.svg.addEventListener("click", (ev) => {
    if (!sc.canvasMode || ev.target.closest("[data-token]")) return;
    const id = nearest(st, ev);
    if (id !== null) select(st, id);
  });
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
