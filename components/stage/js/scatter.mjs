// The PCA scatter: its frame (axes, SVG layers over a canvas), one node per drawn point (or, on a
// canvas, only PAD, UNK and the selection), the neighbours row below, and each update's glide.
import { startAnimation } from "./animation.mjs";
import { CANVAS_POINTS } from "./canvas.mjs";
import { el, sv } from "./dom.mjs";
import { clamp, num, tickText, tokenOf, words } from "./format.mjs";
import { padLabelY } from "./labelplan.mjs";
import { glidePlan } from "./motion.mjs";
import { fillNeighbours } from "./neighbours.mjs";
import { look, shapePath } from "./paint.mjs";
import { mapX, mapY, niceTicks, plotRange } from "./scale.mjs";
import { createScatter } from "./state.mjs";

const LABEL_POINTS = 60; // every point is labelled up to this many

// The scatter's panel built empty: title, plot (canvas under SVG layers), neighbours row.
export function buildScatterFrame(st, d) {
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
  return createScatter({ plot, canvas, svg: svgEl, axes, trails, points, top, W, H, m, dpr });
}

// Axes, grid lines and ticks for data.scatter's range; rebuilt only when the range, the axis
// names or the plot's size changed (the frame is fixed: a Step usually keeps the same axes).
function drawAxes(d, sc) {
  const s = d.scatter || {};
  sc.range = plotRange(s.range);
  const { W, H, m } = sc;
  const names = Array.isArray(s.axes) ? s.axes : ["", ""];
  const axesSig = JSON.stringify([sc.range, names, W, H, m]);
  if (axesSig === sc.axesSig) return;
  sc.axesSig = axesSig;
  const ax = sc.axes;
  ax.textContent = "";
  sv("rect", { x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, class: "frame" }, ax);
  const [px, py] = [(x) => mapX(sc, x), (y) => mapY(sc, y)];
  for (const v of niceTicks(sc.range[0], sc.range[1], 5)) {
    sv("line", { x1: px(v), x2: px(v), y1: m.t, y2: H - m.b, class: v === 0 ? "zero" : "grid" }, ax);
    const t = sv("text", { x: px(v), y: H - m.b + 16, class: "tick", "text-anchor": "middle" }, ax);
    t.textContent = tickText(v);
  }
  for (const v of niceTicks(sc.range[2], sc.range[3], 4)) {
    sv("line", { x1: m.l, x2: W - m.r, y1: py(v), y2: py(v), class: v === 0 ? "zero" : "grid" }, ax);
    const t = sv("text", { x: m.l - 6, y: py(v) + 4, class: "tick", "text-anchor": "end" }, ax);
    t.textContent = tickText(v);
  }
  const xt = sv("text", { x: (m.l + W - m.r) / 2, y: H - 6, class: "axtitle", "text-anchor": "middle" }, ax);
  xt.textContent = String(names[0] || "");
  const yt = sv("text", { x: 0, y: 0, class: "axtitle", "text-anchor": "middle",
                          transform: `translate(13,${(m.t + H - m.b) / 2}) rotate(-90)` }, ax);
  yt.textContent = String(names[1] || "");
}

// The scatter for data `d` (its frame built already): point nodes rebuilt when which points are
// nodes, their roles, classes or the selection changed; then a glide from where the points are.
export function fillScatter(st, d, animate) {
  const s = d.scatter || {};
  const sc = st.scatter;
  drawAxes(d, sc);
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
    buildNodes(st, d, sc, nodeIdx, n);
  }
  // Targets, and where each point starts: where it is on screen now (new points start in place).
  const loss = Array.isArray(d.loss) && d.loss.length ? num(d.loss[d.loss.length - 1]) : null;
  // Each keyframe names its step's W grid and neighbours, which the glide shows as it reaches the step
  // (a frame's grid carries its cells only: the rows and counts are the data's).
  const fin = { step: num(s.step), x: new Float64Array(n), y: new Float64Array(n), loss, w: d.w || null,
                neighbours: d.neighbours || null };
  for (let i = 0; i < n; i++) { fin.x[i] = num(xs[i]); fin.y[i] = num(ys[i]); }
  const frames = (Array.isArray(s.frames) ? s.frames : []).map((f) => (f && f.w ? { ...f, w: { ...d.w, ...f.w } } : f));
  const glide = glidePlan({ prev: st.anim, shown: st.shown, ids, fin, frames,
                            play: d.play || {}, animate, now: performance.now() });
  sc.trail = s.trail && Array.isArray(s.trail.ids) ? s.trail : null;
  startAnimation(st, ids, glide.keyframes, glide.segMs, glide.linear, animate, glide.t0);
}

// One <g> per point: its mark and its label. Unused rows under looked-up ones, UNK above them, PAD
// on the top layer (always drawn last, its label always above it).
function buildNodes(st, d, sc, nodeIdx, n) {
  const { ids, roles, clss } = sc;
  const present = !!d.present;
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
    if (roles[i] === "pad") {
      lab.setAttribute("x", 0);
      lab.setAttribute("y", padLabelY(lk.r));
      lab.setAttribute("data-y0", padLabelY(lk.r)); // the place PAD's label prefers (labelplan.mjs)
      lab.setAttribute("text-anchor", "middle");
    }
    sc.nodes.set(i, g);
  }
}

// PAD stays the last child of the top layer: nothing is drawn over it.
export function raisePad(st) {
  const sc = st.scatter;
  const pad = sc.top.querySelector('[data-role="pad"]');
  if (pad && pad !== sc.top.lastChild) sc.top.appendChild(pad);
}

