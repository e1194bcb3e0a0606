// Writing the canvas's points straight into its pixels (components/stage/js/canvas.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { paintSquares } from "../../components/stage/js/canvas.mjs";

const lit = (pixels, cw) => {
  const out = [];
  pixels.forEach((v, k) => { if (v) out.push([k % cw, Math.floor(k / cw), v]); });
  return out;
};

test("a 3 px square centred on its pixel, in its colour", () => {
  const cw = 10, ch = 8, px = new Uint32Array(cw * ch);
  paintSquares(px, cw, ch, Int32Array.from([0]), [4], [3], 3, 1, 7);
  const got = lit(px, cw);
  assert.equal(got.length, 9);
  for (const [x, y, v] of got) assert.ok(x >= 3 && x <= 5 && y >= 2 && y <= 4 && v === 7);
});

test("device pixels: twice the size at dpr 2, at twice the coordinates", () => {
  const cw = 20, ch = 20, px = new Uint32Array(cw * ch);
  paintSquares(px, cw, ch, Int32Array.from([0]), [5], [5], 2, 2, 1);
  const got = lit(px, cw);
  assert.equal(got.length, 16);
  assert.deepEqual([Math.min(...got.map((p) => p[0])), Math.max(...got.map((p) => p[0]))], [8, 11]);
});

test("only the listed points are drawn, and a square crossing an edge is left out", () => {
  const cw = 10, ch = 10, px = new Uint32Array(cw * ch);
  paintSquares(px, cw, ch, Int32Array.from([1, 2]), [5, 0, 9.4], [5, 5, 5], 3, 1, 3);
  assert.equal(lit(px, cw).length, 0); // point 0 is not listed; 1 and 2 cross the left and right edges
  paintSquares(px, cw, ch, Int32Array.from([0]), [5, 0, 9.4], [5, 5, 5], 3, 1, 3);
  assert.equal(lit(px, cw).length, 9);
});
