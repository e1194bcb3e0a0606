// Colours and shapes (components/stage/js/paint.mjs), checked against WCAG's formulas written out here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CLASS_COLORS, CLASS_SHAPES, darkBackground, heat, inkOn, legendLooks, look, rgba, shapePath } from "../../components/stage/js/paint.mjs";

// WCAG 2.1 relative luminance and contrast ratio.
const luminance = ([r, g, b]) => {
  const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const rgbOf = (s) => s.match(/\d+/g).map(Number);
const BLACK = [0, 0, 0], WHITE = [255, 255, 255];

const points = (path) => [...path.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));

test("every shape is a closed path centred on the point and about r in size", () => {
  for (const kind of ["diamond", "square", ...CLASS_SHAPES]) {
    const p = shapePath(kind, 10);
    assert.ok(p.startsWith("M") && p.endsWith("Z"), kind);
    const far = Math.max(...points(p).map(Math.abs)); // an arc's numbers are its radii and flags: within r too
    assert.ok(far >= 8 && far <= 12.5, `${kind}: ${far}`);
  }
  assert.equal(shapePath("diamond", 13), "M0,-13L13,0L0,13L-13,0Z");
  assert.equal(shapePath("circle", 5), "M5,0A5,5 0 1,1 -5,0A5,5 0 1,1 5,0Z");
  assert.equal(shapePath("unknown", 5), shapePath("circle", 5));
});

test("looks: PAD and UNK stand out and never shrink; classes differ in shape and colour", () => {
  const pad = look("pad", -1, false, 0.55), unk = look("unk", -1, false, 0.55);
  assert.deepEqual([pad.shape, pad.r, pad.cls], ["diamond", 13, "pad"]);
  assert.deepEqual([unk.shape, unk.r, unk.cls], ["square", 10, "unk"]);
  assert.equal(look("pad", -1, true).r, 13 * 1.3);
  assert.equal(look("unused", 0, false).fill, "none");
  assert.equal(look("unused", 0, false, 0.5).r, 2.5);
  const used = CLASS_COLORS.map((_, c) => look("used", c, false));
  assert.equal(new Set(used.map((l) => l.shape)).size, CLASS_COLORS.length);
  assert.equal(new Set(used.map((l) => l.fill)).size, CLASS_COLORS.length);
  const later = look("used", CLASS_COLORS.length + 1, false), first = look("used", 1, false);
  assert.ok(later.fill === first.fill && later.shape !== first.shape); // colours cycle, the shape turns
  assert.equal(look("used", -1, false).fill, "var(--noclass)");
});

test("heat is centred on the background, diverging, and saturates at absmax", () => {
  assert.equal(heat(0, 2, false).bg, "rgb(247,247,247)");
  assert.equal(heat(0, 2, true).bg, "rgb(38,41,48)");
  assert.equal(heat(2, 2, false).bg, "rgb(200,110,0)");
  assert.equal(heat(-2, 2, false).bg, "rgb(0,90,160)");
  assert.equal(heat(50, 2, false).bg, heat(2, 2, false).bg);
  assert.equal(heat(NaN, 2, false).bg, heat(0, 2, false).bg);
  // Larger |v| moves further from the centre colour.
  const dist = (v) => { const c = rgbOf(heat(v, 1, false).bg); return Math.hypot(c[0] - 247, c[1] - 247, c[2] - 247); };
  for (let v = 0.1; v <= 1; v += 0.1) assert.ok(dist(v) > dist(v - 0.1) && dist(-v) > dist(-(v - 0.1)));
});

test("the ink on every heat colour is the better of black and white, and reads at 4.5:1", () => {
  for (const dark of [false, true]) {
    for (let v = -1; v <= 1.0001; v += 0.01) {
      const h = heat(v, 1, dark);
      const bg = rgbOf(h.bg);
      const [cb, cw] = [contrast(bg, BLACK), contrast(bg, WHITE)];
      assert.equal(h.ink, cb >= cw ? "#000" : "#fff", `${h.bg}`);
      assert.ok(Math.max(cb, cw) >= 4.5, `${h.bg}: ${cb} / ${cw}`);
    }
  }
  for (let g = 0; g <= 255; g += 5) {
    const c = [g, 255 - g, (g * 7) % 256];
    assert.equal(inkOn(c), contrast(c, BLACK) >= contrast(c, WHITE) ? "#000" : "#fff");
  }
});

test("rgba packs a colour as the canvas's bytes r, g, b, 255", () => {
  const px = new Uint32Array([rgba("#0072B2"), rgba("#ffffff")]);
  const bytes = new Uint8Array(px.buffer);
  assert.deepEqual([...bytes.slice(0, 4)], [0x00, 0x72, 0xb2, 255]);
  assert.deepEqual([...bytes.slice(4, 8)], [255, 255, 255, 255]);
});

test("dark or light from Streamlit's background colour", () => {
  assert.equal(darkBackground("#131314", false), true);
  assert.equal(darkBackground("#ffffff", true), false);
  assert.equal(darkBackground("#000", false), true);
  assert.equal(darkBackground("#fff", true), false);
  assert.equal(darkBackground("rgb(19, 19, 20)", false), true);
  assert.equal(darkBackground("rgb(250,250,250)", true), false);
  assert.equal(darkBackground("", true), true);
  assert.equal(darkBackground("transparent", false), false);
});

test("the legend names every mark the scatter draws, and only those looked-up marks it draws", () => {
  const key = (lk) => `${lk.shape}|${lk.fill}|${lk.cls}`;
  const cases = [
    { roles: ["pad", "unk", "used", "used", "unused", "used"], clss: [-1, -1, 0, 1, 0, -1], classes: ["neg", "pos"] },
    { roles: ["pad", "unk", "used", "used"], clss: [-1, -1, 1, 0], classes: ["neg", "pos"] },
    { roles: ["pad", "unk", "used", "unused"], clss: [-1, -1, -1, -1], classes: [] },
    { roles: ["pad", "unk", "used", "used", "used"], clss: [-1, -1, 7, 3, -1], classes: ["a", "b", "c", "d", "e", "f", "g", "h"] },
  ];
  for (const { roles, clss, classes } of cases) {
    const entries = legendLooks(roles, clss, classes);
    const named = new Set(entries.map((e) => key(e.look)));
    roles.forEach((r, i) => assert.ok(named.has(key(look(r, clss[i], false))), `${r}/${clss[i]} has no legend entry`));
    const noMajority = entries.filter((e) => e.cls === -1);
    const drawsOne = roles.some((r, i) => r === "used" && (clss[i] < 0 || !classes.length));
    assert.equal(noMajority.length, drawsOne ? 1 : 0);
  }
});

test("twenty classes: no two share both colour and shape", () => {
  const seen = new Set();
  for (let c = 0; c < 20; c++) {
    const l = look("used", c, false);
    const key = l.fill + "|" + l.shape;
    assert.ok(!seen.has(key), `class ${c} looks like an earlier one (${key})`);
    seen.add(key);
  }
  assert.equal(look("used", 2, false).shape, CLASS_SHAPES[2]); // the first six are as they were
});
