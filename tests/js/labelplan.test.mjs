// Where the scatter's labels go (components/stage/js/labelplan.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FEW_POINTS, LABEL_GAP, candidates, overlap, padLabelY, planLabels } from "../../components/stage/js/labelplan.mjs";

const EXT = { l: -7, r: 7, t: -7, b: 7 };
const LABEL = { w: 30, asc: 10, desc: 3, y0: 5 };
const BOUNDS = { width: 400, bottom: 300 };
const mark = (i, x, y, extra = {}) => ({ i, x, y, ext: EXT, role: "used", selected: false, label: { ...LABEL }, ...extra });
const byId = (items) => new Map(items.map((it) => [it.i, it]));
// The label's box on screen, from the plan's x, y and anchor.
const boxOf = (m, it) => {
  const x = Number(it.x), y = Number(it.y), w = m.label.w;
  const l = it.a === "start" ? x : it.a === "end" ? x - w : x - w / 2;
  return { l: m.x + l, r: m.x + l + w, t: m.y + y - m.label.asc, b: m.y + y + m.label.desc };
};

test("a lone label sits LABEL_GAP right of its mark, centred on it", () => {
  const [it] = planLabels([mark(0, 100, 100)], BOUNDS);
  assert.deepEqual(it, { i: 0, x: (7 + LABEL_GAP).toFixed(2), y: "3.50", a: "start", crowd: false });
});

test("at the plot's right edge it goes left; at the top it is not placed above", () => {
  const [right] = planLabels([mark(0, 390, 100)], BOUNDS);
  assert.deepEqual([right.x, right.a], [(-7 - LABEL_GAP).toFixed(2), "end"]);
  const items = planLabels([mark(0, 390, 5, { label: { ...LABEL } })], BOUNDS);
  const b = boxOf(mark(0, 390, 5), items[0]);
  assert.ok(b.t >= 0 && b.r <= 400, JSON.stringify(b));
});

test("a label keeps off other marks and other labels", () => {
  const marks = [mark(0, 100, 100), mark(1, 130, 100)];
  const items = byId(planLabels(marks, BOUNDS));
  assert.equal(items.get(0).a, "end"); // its right side is point 1's mark
  assert.equal(items.get(1).a, "start");
  const boxes = marks.map((m) => boxOf(m, items.get(m.i)));
  assert.equal(overlap(boxes[0], boxes[1]), 0);
  for (const [k, m] of marks.entries()) {
    for (const o of marks) {
      const mb = { l: o.x - 9, r: o.x + 9, t: o.y - 9, b: o.y + 9 };
      assert.equal(overlap(boxes[k], mb), 0, `label ${m.i} over mark ${o.i}`);
    }
  }
});

test("PAD's label is placed first and never moves; others keep clear of it", () => {
  const pad = mark(0, 200, 150, { role: "pad", label: { w: 40, asc: 10, desc: 3, y0: padLabelY(13) } });
  const near = mark(1, 200, 126); // just above PAD, where its label is
  const items = byId(planLabels([near, pad], BOUNDS));
  assert.deepEqual(items.get(0), { i: 0, x: "0.00", y: padLabelY(13).toFixed(2), a: "middle", crowd: false });
  assert.equal(planLabels([near, pad], BOUNDS)[0].i, 0); // planned first although drawn last
  const padBox = boxOf(pad, items.get(0));
  assert.equal(overlap(boxOf(near, items.get(1)), padBox), 0);
});

test("a label with no free place is left for hover, except UNK's and the selection's", () => {
  // A tight grid of marks: every place around the middle one is covered.
  const marks = [];
  let i = 0;
  for (let gx = -2; gx <= 2; gx++) for (let gy = -2; gy <= 2; gy++) marks.push(mark(i++, 200 + gx * 16, 150 + gy * 12));
  const middle = marks.find((m) => m.x === 200 && m.y === 150);
  assert.equal(byId(planLabels(marks, BOUNDS)).get(middle.i).crowd, true);
  for (const extra of [{ role: "unk" }, { selected: true }]) {
    Object.assign(middle, { role: "used", selected: false }, extra);
    const it = byId(planLabels(marks, BOUNDS)).get(middle.i);
    assert.equal(it.crowd, false, JSON.stringify(extra));
    assert.ok(it.x !== undefined);
  }
});

test("labels not shown only lose 'crowd'; points without a label get nothing", () => {
  const items = planLabels([mark(0, 100, 100, { label: false }), mark(1, 200, 100, { label: null })], BOUNDS);
  assert.deepEqual(items, [{ i: 0, crowd: false }]);
});

test("further-off places only for few points or a label that must show", () => {
  assert.equal(candidates(EXT, 10, 3, false).length, 8);
  const far = candidates(EXT, 10, 3, true);
  assert.equal(far.length, 12);
  assert.equal(far[8].x, 7 + LABEL_GAP + 10);
  // Small unlabelled marks on each of the 8 near places of point 0, none on the 4 further ones.
  const dot = { l: -1, r: 1, t: -1, b: 1 };
  const ring = [[15, 0], [-15, 0], [0, -13], [0, 14], [15, -13], [-15, -13], [15, 14], [-15, 14]]
    .map(([dx, dy], k) => mark(k + 1, 200 + dx, 150 + dy, { ext: dot, label: null }));
  const few = byId(planLabels([mark(0, 200, 150), ...ring], BOUNDS)).get(0);
  assert.deepEqual([few.x, few.a, few.crowd], [(7 + LABEL_GAP + 10).toFixed(2), "start", false]);
  const crowd = Array.from({ length: FEW_POINTS }, (_, k) => mark(100 + k, 20 + k * 18, 280, { ext: dot, label: null }));
  const many = byId(planLabels([mark(0, 200, 150), ...ring, ...crowd], BOUNDS)).get(0);
  assert.equal(many.crowd, true);
  const unk = byId(planLabels([mark(0, 200, 150, { role: "unk" }), ...ring, ...crowd], BOUNDS)).get(0);
  assert.deepEqual([unk.x, unk.crowd], [(7 + LABEL_GAP + 10).toFixed(2), false]);
});

test("a placed label is an obstacle for the labels placed after it", () => {
  // Point 1 sits just below point 0: its right place would cover 0's label, so it goes left.
  const marks = [mark(0, 100, 100), mark(1, 100, 110)];
  const items = byId(planLabels(marks, BOUNDS));
  assert.deepEqual([items.get(0).a, items.get(1).a], ["start", "end"]);
  assert.equal(overlap(boxOf(marks[0], items.get(0)), boxOf(marks[1], items.get(1))), 0);
});

test("overlap is the shared area", () => {
  assert.equal(overlap({ l: 0, r: 10, t: 0, b: 10 }, { l: 5, r: 15, t: 5, b: 15 }), 25);
  assert.equal(overlap({ l: 0, r: 10, t: 0, b: 10 }, { l: 10, r: 15, t: 0, b: 10 }), 0);
});
