// Colours and shapes: the points' looks, W's heatmap, the canvas's pixels, light or dark. Pure: no DOM.
import { clamp, num } from "./format.mjs";
import { PALETTE } from "./palette.mjs";

export const CLASS_COLORS = PALETTE.classes.colors; // Okabe–Ito
export const CLASS_SHAPES = PALETTE.classes.shapes;

// An SVG path of a mark of radius `r` centred on 0,0.
export function shapePath(kind, r) {
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

// A class's shape. The first six classes take colour i and shape i; after them the shapes turn by
// one each round of colours, so no two of up to 36 classes share both colour and shape (20 classes
// are allowed, and six colours are what reads apart, also under deuteranopia). components/palette.py
// applies the same rule for the Plotly charts.
export function classShape(cls) {
  const n = CLASS_COLORS.length;
  return CLASS_SHAPES[((cls % n) + Math.floor(cls / n)) % CLASS_SHAPES.length];
}

// What a point looks like: shape, colour and size by role, then by class (shape AND colour).
// `crowd` (≤ 1) shrinks the marks of looked-up and unused rows when there are many points.
export function look(role, cls, present, crowd) {
  const k = (present ? 1.3 : 1) * (role === "pad" || role === "unk" ? 1 : crowd || 1);
  if (role === "pad") return { shape: "diamond", r: 13 * k, fill: "var(--pad)", stroke: "var(--bg)", cls: "pad" };
  if (role === "unk") return { shape: "square", r: 10 * k, fill: "var(--bg)", stroke: "var(--fg)", cls: "unk" };
  if (role === "unused") return { shape: "circle", r: 5 * k, fill: "none", stroke: "var(--muted)", cls: "unused" };
  if (cls >= 0) {
    const i = cls % CLASS_COLORS.length;
    return { shape: classShape(cls), r: 7.5 * k, fill: CLASS_COLORS[i], stroke: "var(--bg)", cls: "used c" + i };
  }
  return { shape: "circle", r: 7 * k, fill: "var(--noclass)", stroke: "var(--bg)", cls: "used" };
}

// The legend's entries, one per kind of mark the scatter draws (and PAD, UNK, never looked up, which
// it always names): {kind, look, cls} with cls the class index, -1 for a looked-up row with no
// majority class (a tie, or no labelled sentence), null for the roles. `roles`/`clss` are the
// scatter's per point; `classes` the class names.
export function legendLooks(roles, clss, classes) {
  const out = [["pad", -1], ["unk", -1], ["unused", -1]].map(([kind]) => ({ kind, look: look(kind, -1, false), cls: null }));
  const n = Array.isArray(classes) ? classes.length : 0;
  const usedCls = new Set();
  (roles || []).forEach((r, i) => { if (r === "used") usedCls.add(num((clss || [])[i]) >= 0 && n ? num(clss[i]) : -1); });
  for (let c = 0; c < n; c++) out.push({ kind: "used", look: look("used", c, false), cls: c });
  if (!n || usedCls.has(-1)) out.push({ kind: "used", look: look("used", -1, false), cls: -1 });
  return out;
}

// A diverging blue ↔ orange scale (safe under deuteranopia), centred on the panel's background.
export function heat(v, absmax, dark) {
  const c = heatRgb(v, absmax, dark);
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, ink: inkOn(c) };
}

// heat's background as [r, g, b].
export function heatRgb(v, absmax, dark) {
  const t = clamp(num(v) / (absmax || 1), -1, 1);
  const scale = dark ? PALETTE.heat.dark : PALETTE.heat.light;
  const mid = scale.mid;
  const end = t < 0 ? scale.neg : scale.pos;
  const u = Math.pow(Math.abs(t), PALETTE.heat.gamma);
  return mid.map((m, i) => Math.round(m + (end[i] - m) * u));
}

// The text colour that reads best on an rgb background: black or white, whichever has the higher
// WCAG contrast. One of the two always reaches at least 4.58:1, whatever the background.
export function inkOn(c) {
  const lin = c.map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
  const L = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? "#000" : "#fff";
}

// "#rrggbb" as one pixel of a little-endian RGBA Uint32Array (alpha 255).
export function rgba(hex) {
  const v = parseInt(hex.slice(1), 16);
  return ((255 << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff)) >>> 0;
}

// Whether Streamlit's background colour ("#rrggbb", "#rgb" or "rgb(…)") is dark; `fallback` (the
// browser's preference) when it is none of these.
export function darkBackground(bg, fallback) {
  const m = bg.match(/^#([0-9a-f]{6})$/i) || bg.match(/^#([0-9a-f]{3})$/i);
  if (m) {
    const h = m[1].length === 3 ? m[1].split("").map((c) => c + c).join("") : m[1];
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
  }
  if (/^rgb/.test(bg)) {
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
  }
  return fallback;
}
