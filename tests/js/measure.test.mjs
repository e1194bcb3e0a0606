// Shrinking text to fit (components/stage/js/measure.mjs's pure rule).
import { test } from "node:test";
import assert from "node:assert/strict";
import { shrunk } from "../../components/stage/js/measure.mjs";

test("text that fits keeps its size", () => {
  assert.equal(shrunk(15, 100, 80), null);
  assert.equal(shrunk(15, 100, 99.5), null);
});

test("text too wide shrinks in proportion, at least half a pixel, never below 8 px", () => {
  assert.equal(shrunk(20, 100.5, 200), 10);
  assert.equal(shrunk(15, 100, 100), 14.5);
  assert.equal(shrunk(15, 10, 200), 8);
  assert.equal(shrunk(8, 10, 200), null);
});

test("shrinking round after round (width in proportion to size) ends with the text inside its room", () => {
  for (const [fs0, room, w0] of [[15, 40, 90], [21, 33.3, 34], [12, 60, 61], [15, 20, 400]]) {
    let fs = fs0, rounds = 0, next;
    while ((next = shrunk(fs, room, (w0 * fs) / fs0)) !== null && rounds < 16) { fs = next; rounds++; }
    assert.ok((w0 * fs) / fs0 <= room - 0.5 || fs === 8, `${fs0},${room},${w0}: ${fs}`);
    assert.ok(rounds <= 3, `${rounds} rounds`);
  }
});
