// The scatter's frame: data coordinates to pixels, axis ticks, the loss sparkline, the nearest
// point. Pure: no DOM.
import { num } from "./format.mjs";

// Round tick values covering [a, b], about `n` of them, at steps of 1, 2, 2.5 or 5 × 10^k.
export function niceTicks(a, b, n) {
  const span = b - a;
  if (!(span > 0)) return [a];
  const step0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) || step0;
  const out = [];
  for (let v = Math.ceil(a / step) * step; v <= b + 1e-9; v += step) out.push(Math.abs(v) < 1e-12 ? 0 : v);
  return out;
}

// data.scatter.range as [x0, x1, y0, y1], never empty (an empty axis is widened to one unit).
export function plotRange(range) {
  const rg = Array.isArray(range) && range.length === 2 ? range : [[-1, 1], [-1, 1]];
  const [x0, x1] = [num(rg[0][0]), num(rg[0][1])], [y0, y1] = [num(rg[1][0]), num(rg[1][1])];
  return [x0, x1 === x0 ? x0 + 1 : x1, y0, y1 === y0 ? y0 + 1 : y1];
}

// A point's pixel: a pure function of its coordinate, the range, the plot's size and margins
// (`sc` holds range, W, H and m), so a point whose coordinates stay put never moves.
export function mapX(sc, x) { const [a, b] = sc.range; return sc.m.l + ((x - a) / (b - a)) * (sc.W - sc.m.l - sc.m.r); }
export function mapY(sc, y) { const [, , a, b] = sc.range; return sc.H - sc.m.b - ((y - a) / (b - a)) * (sc.H - sc.m.t - sc.m.b); }

// The loss curve as polyline points in the sparkline's 200 × 48 box (lowest loss at the bottom).
export function sparkPoints(loss) {
  const lo = Math.min(...loss), hi = Math.max(...loss);
  const span = hi - lo || 1;
  const n = loss.length;
  return loss.map((v, i) => `${n === 1 ? 100 : (i / (n - 1)) * 196 + 2},${44 - ((v - lo) / span) * 40}`).join(" ");
}

// The sparkline as it was at `step` of a history whose last value is step `last`'s (`loss`: that
// history, or an even stride of it with its first and last values): the values of the steps before
// it and `value`, that step's loss, drawn as sparkPoints draws a whole history; the dot at its end.
export function sparkUpTo(loss, last, step, value) {
  const n = loss.length;
  const stepOf = (i) => (n === last ? i + 1 : 1 + (i * (last - 1)) / (n - 1));
  const values = step < last && last > 1 && Number.isFinite(value) ? [...loss.filter((_, i) => stepOf(i) < step), value] : loss;
  const points = sparkPoints(values);
  return { points, dot: points.split(" ").pop().split(",").map(Number) };
}

// The index of the point nearest (x, y) within `radius` px, or -1.
export function nearestIndex(px, py, x, y, radius) {
  let best = -1, bd = radius * radius;
  for (let i = 0; i < px.length; i++) {
    const dx = px[i] - x, dy = py[i] - y, dd = dx * dx + dy * dy;
    if (dd < bd) { bd = dd; best = i; }
  }
  return best;
}
