// Many points (`big`, or more than CANVAS_POINTS): the bulk are small squares written straight into
// a canvas's pixels, faint never-looked-up rows first, then looked-up rows by class; PAD, UNK and the
// selection stay SVG nodes on top. Hover and click find the nearest point within HOVER_PX.
import { num, tokenOf } from "./format.mjs";
import { sv } from "./dom.mjs";
import { CLASS_COLORS, rgba } from "./paint.mjs";
import { nearestIndex } from "./scale.mjs";

export const CANVAS_POINTS = 1500; // more points than this are drawn on a canvas
const HOVER_PX = 9;

// Squares of `size` css px (× dpr) centred on the points `idx` at (px, py), as `colour` into
// `pixels` (cw × ch, row-major); squares that would cross the edge are left out.
export function paintSquares(pixels, cw, ch, idx, px, py, size, dpr, colour) {
  const s = Math.max(1, Math.round(size * dpr)), h = s >> 1;
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k];
    const x0 = Math.round(px[i] * dpr) - h, y0 = Math.round(py[i] * dpr) - h;
    if (x0 < 0 || y0 < 0 || x0 + s > cw || y0 + s > ch) continue;
    for (let dy = 0; dy < s; dy++) pixels.fill(colour, (y0 + dy) * cw + x0, (y0 + dy) * cw + x0 + s);
  }
}

// The points in drawing order: [indices, size, pixel colour] per group. Pixels are written into
// the image directly: a fillRect per point would cost far more at this many points.
function groups(sc, dark) {
  const unused = [], byClass = CLASS_COLORS.map(() => []), plain = [];
  for (let i = 0; i < sc.ids.length; i++) {
    if (sc.roles[i] === "unused") unused.push(i);
    else if (sc.roles[i] === "used") (num(sc.clss[i]) >= 0 ? byClass[sc.clss[i] % CLASS_COLORS.length] : plain).push(i);
  }
  return [
    [Int32Array.from(unused), 2, rgba(dark ? "#4a4f57" : "#c9ccd0")],
    [Int32Array.from(plain), 3, rgba(dark ? "#bdc1c6" : "#5f6368")],
    ...byClass.map((g, c) => [Int32Array.from(g), 3, rgba(CLASS_COLORS[c])]),
  ];
}

export function drawCanvas(st) {
  const sc = st.scatter;
  const cw = sc.canvas.width, ch = sc.canvas.height;
  if (!sc.groups || sc.groups.ids !== sc.ids || sc.groups.dark !== st.dark) sc.groups = { ids: sc.ids, dark: st.dark, list: groups(sc, st.dark) };
  if (!sc.image || sc.image.width !== cw || sc.image.height !== ch) {
    sc.image = sc.canvas.getContext("2d").createImageData(cw, ch);
    sc.pixels = new Uint32Array(sc.image.data.buffer);
  }
  sc.pixels.fill(0);
  for (const [idx, size, colour] of sc.groups.list) paintSquares(sc.pixels, cw, ch, idx, sc.px, sc.py, size, sc.dpr, colour);
  sc.canvas.getContext("2d").putImageData(sc.image, 0, 0);
  sc.canvasDirty = true; // cleared when the points are SVG again
}

// The id of the point nearest the pointer of event `ev`, or null.
export function nearest(st, ev) {
  const sc = st.scatter;
  if (!sc || !sc.px) return null;
  const r = sc.svg.getBoundingClientRect();
  const best = nearestIndex(sc.px, sc.py, ev.clientX - r.left, ev.clientY - r.top, HOVER_PX);
  return best < 0 ? null : sc.ids[best];
}

// A hovered point that is only pixels gets an SVG ring and label while hovered.
export function drawHoverMarker(st, token) {
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
