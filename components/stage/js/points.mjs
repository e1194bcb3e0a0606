// Drawing the scatter's points where they are at one moment: SVG nodes moved, trails ended at
// the points, and (many points) the canvas repainted.
import { num } from "./format.mjs";
import { drawCanvas } from "./canvas.mjs";
import { sv } from "./dom.mjs";
import { CLASS_COLORS } from "./paint.mjs";
import { mapX, mapY } from "./scale.mjs";

// Draw the points at data coordinates `p` ({x, y} per scatter id) and remember them as shown.
export function drawPoints(st, p) {
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
  else if (sc.canvasDirty) {
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
