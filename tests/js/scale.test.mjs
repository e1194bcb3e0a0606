// The scatter's frame (components/stage/js/scale.mjs): ticks, pixels, sparkline, nearest point.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mapX, mapY, nearestIndex, niceTicks, plotRange, sparkPoints, sparkUpTo } from "../../components/stage/js/scale.mjs";

test("niceTicks: round steps inside the range", () => {
  assert.deepEqual(niceTicks(-5, 5, 5), [-4, -2, 0, 2, 4]);
  assert.deepEqual(niceTicks(0, 1, 4), [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual(niceTicks(-4, 4, 4), [-4, -2, 0, 2, 4]);
  assert.deepEqual(niceTicks(3, 3, 5), [3]);
  assert.deepEqual(niceTicks(3, 1, 5), [3]);
});

test("niceTicks over many ranges: evenly spaced by 1, 2, 2.5 or 5 × 10^k, about n of them, zero exact", () => {
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let trial = 0; trial < 500; trial++) {
    const scale = 10 ** Math.floor(rnd() * 8 - 4);
    const a = (rnd() * 20 - 10) * scale, b = a + (0.01 + rnd() * 20) * scale;
    const n = 3 + Math.floor(rnd() * 5);
    const t = niceTicks(a, b, n);
    assert.ok(t.length >= 1 && t.length <= n + 1, `${a}..${b}/${n}: ${t.length}`);
    const span = b - a;
    for (const v of t) assert.ok(v >= a - 1e-9 * span && v <= b + 1e-9 + 1e-9 * span, `${v} outside ${a}..${b}`);
    if (t.length > 1) {
      const step = t[1] - t[0];
      const m = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
      assert.ok([1, 2, 2.5, 5, 10].some((x) => Math.abs(m - x) < 1e-6), `step ${step}`);
      for (let i = 1; i < t.length; i++) assert.ok(Math.abs(t[i] - t[i - 1] - step) < 1e-6 * step);
      assert.ok(step >= span / n - 1e-12);
    }
    if (a < 0 && b > 0 && t.some((v) => Math.abs(v) < 1e-9 * span)) assert.ok(t.includes(0));
  }
});

test("plotRange never returns an empty axis", () => {
  assert.deepEqual(plotRange([[-5, 5], [-4, 4]]), [-5, 5, -4, 4]);
  assert.deepEqual(plotRange([[2, 2], [1, 1]]), [2, 3, 1, 2]);
  assert.deepEqual(plotRange(undefined), [-1, 1, -1, 1]);
  assert.deepEqual(plotRange([[0, 1]]), [-1, 1, -1, 1]);
  assert.deepEqual(plotRange([["a", 1], [0, NaN]]), [0, 1, 0, 1]);
});

test("a point's pixel depends only on its coordinates, the range and the plot's box", () => {
  const sc = { range: [-5, 5, -4, 4], W: 600, H: 400, m: { l: 50, r: 14, t: 12, b: 42 } };
  assert.equal(mapX(sc, -5), 50);
  assert.equal(mapX(sc, 5), 600 - 14);
  assert.equal(mapY(sc, -4), 400 - 42);
  assert.equal(mapY(sc, 4), 12);
  assert.equal(mapX(sc, 0), (50 + 586) / 2);
  // y grows upwards on screen
  assert.ok(mapY(sc, 1) < mapY(sc, 0));
  const again = { ...sc, m: { ...sc.m } };
  assert.equal(mapX(again, 0.6), mapX(sc, 0.6));
});

test("sparkline: 2 px inside the box, lowest loss at the bottom", () => {
  assert.equal(sparkPoints([0.5]), "100,44");
  const pts = sparkPoints([0.7, 0.4, 0.1]).split(" ").map((p) => p.split(",").map((v) => Math.round(Number(v) * 1e6) / 1e6));
  assert.deepEqual(pts, [[2, 4], [100, 24], [198, 44]]);
  assert.deepEqual(sparkPoints([1, 1]).split(" ").map((p) => p.split(",").map(Number)), [[2, 44], [198, 44]]);
});

test("sparkline at an earlier step: the history as it was then, drawn whole, the dot at that step's loss", () => {
  const loss = [0.7, 0.5, 0.4, 0.1, 0.3]; // steps 1…5
  const whole = sparkUpTo(loss, 5, 5, 0.3);
  assert.equal(whole.points, sparkPoints(loss));
  assert.deepEqual(whole.dot, sparkPoints(loss).split(" ").pop().split(",").map(Number)); // the last point
  const at3 = sparkUpTo(loss, 5, 3, 0.4);
  assert.equal(at3.points, sparkPoints([0.7, 0.5, 0.4])); // as the line was drawn at step 3
  assert.deepEqual(at3.dot, [198, 44]);
  // A strided history (steps 1, 3, 5 of five): at step 4, the values of steps 1 and 3, then step 4's.
  assert.equal(sparkUpTo([0.7, 0.4, 0.3], 5, 4, 0.35).points, sparkPoints([0.7, 0.4, 0.35]));
  assert.equal(sparkUpTo([0.7], 1, 1, 0.7).points, "100,44");
  assert.equal(sparkUpTo(loss, 5, 2, NaN).points, sparkPoints(loss)); // no loss for that step: the whole line
});

test("nearestIndex finds the nearest point within the radius", () => {
  const px = [10, 50, 52], py = [10, 50, 58];
  assert.equal(nearestIndex(px, py, 12, 11, 9), 0);
  assert.equal(nearestIndex(px, py, 51, 52, 9), 1);
  assert.equal(nearestIndex(px, py, 52, 57, 9), 2);
  assert.equal(nearestIndex(px, py, 30, 30, 9), -1);
  assert.equal(nearestIndex(px, py, 19, 10, 9), -1); // exactly 9 px away is outside
  assert.equal(nearestIndex([], [], 0, 0, 9), -1);
});
