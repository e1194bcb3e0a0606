// Where the scatter's labels go (components/stage/js/labelplan.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FEW_POINTS, HALO, LABEL_GAP, candidates, inside, overlap, padLabelY, planLabels } from "../../components/stage/js/labelplan.mjs";

const EXT = { l: -7, r: 7, t: -7, b: 7 };
const LABEL = { w: 30, asc: 10, desc: 3, y0: 5 };
const FRAME = { l: 0, t: 0, r: 400, b: 300 };
const mark = (i, x, y, extra = {}) => ({ i, x, y, ext: EXT, role: "used", selected: false, label: { ...LABEL }, ...extra });
const byId = (items) => new Map(items.map((it) => [it.i, it]));
// The label's box on screen, from the plan's x, y and anchor.
const boxOf = (m, it) => {
  const x = Number(it.x), y = Number(it.y), w = m.label.w;
  const l = it.a === "start" ? x : it.a === "end" ? x - w : x - w / 2;
  return { l: m.x + l, r: m.x + l + w, t: m.y + y - m.label.asc, b: m.y + y + m.label.desc };
};
// The two rules every plan keeps: shown labels (halos included) never meet, and lie inside the frame.
const shownBoxes = (marks, items) => {
  const at = new Map(marks.map((m) => [m.i, m]));
  return items.filter((it) => !it.crowd && it.x !== undefined).map((it) => ({ i: it.i, ...boxOf(at.get(it.i), it) }));
};
function assertRules(marks, items, frame = FRAME) {
  const boxes = shownBoxes(marks, items);
  for (const b of boxes) assert.ok(inside(b, frame), `label ${b.i} leaves the frame: ${JSON.stringify(b)}`);
  for (let p = 0; p < boxes.length; p++) for (let q = p + 1; q < boxes.length; q++) {
    const [a, b] = [boxes[p], boxes[q]];
    const grow = (x) => ({ l: x.l - HALO, r: x.r + HALO, t: x.t - HALO, b: x.b + HALO });
    assert.equal(overlap(grow(a), grow(b)), 0, `labels ${a.i} and ${b.i} meet`);
  }
  return boxes;
}
// A crowd of n points on a small grid: every label wants the same few places.
const pile = (n, cx = 200, cy = 150, extra = () => ({})) =>
  Array.from({ length: n }, (_, k) => mark(k, cx + (k % 5) * 9, cy + Math.floor(k / 5) * 7, extra(k)));

test("a lone label sits LABEL_GAP right of its mark, centred on it", () => {
  const [it] = planLabels([mark(0, 100, 100)], FRAME);
  assert.deepEqual(it, { i: 0, x: (7 + LABEL_GAP).toFixed(2), y: "3.50", a: "start", crowd: false });
});

test("at the frame's right edge it goes left; at its top it is not placed above", () => {
  const [right] = planLabels([mark(0, 390, 100)], FRAME);
  assert.deepEqual([right.x, right.a], [(-7 - LABEL_GAP).toFixed(2), "end"]);
  const items = planLabels([mark(0, 390, 5)], FRAME);
  const b = boxOf(mark(0, 390, 5), items[0]);
  assert.ok(b.t >= HALO && b.r <= 400 - HALO, JSON.stringify(b));
});

test("the frame is the plot's, not the panel's: a label stays off the axes' margins", () => {
  const frame = { l: 50, t: 12, r: 386, b: 258 }; // the margins of stage.js's scatter
  const marks = [mark(0, 60, 100, { label: { ...LABEL, w: 60 } }), mark(1, 380, 20, { label: { ...LABEL, w: 70 } }),
                 mark(2, 383, 255, { selected: true, label: { ...LABEL, w: 80 } })];
  const items = planLabels(marks, frame);
  assert.ok(items.every((it) => !it.crowd), JSON.stringify(items));
  assertRules(marks, items, frame);
});

test("a label keeps off other marks and other labels", () => {
  const marks = [mark(0, 100, 100), mark(1, 130, 100)];
  const items = byId(planLabels(marks, FRAME));
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

test("PAD's label stands above PAD where that place is free; others keep clear of it", () => {
  const pad = mark(0, 200, 150, { role: "pad", label: { w: 40, asc: 10, desc: 3, y0: padLabelY(13) } });
  const near = mark(1, 170, 150); // left of PAD: its label goes left too, away from PAD's
  const items = byId(planLabels([near, pad], FRAME));
  assert.deepEqual(items.get(0), { i: 0, x: "0.00", y: padLabelY(13).toFixed(2), a: "middle", crowd: false });
  assert.equal(planLabels([near, pad], FRAME)[0].i, 0); // planned first although drawn last
  assertRules([near, pad], [...items.values()]);
});

test("PAD, UNK and two more piled up in the middle (the report's <PAD>, <UNK>, 나쁘다, 조금): none meet", () => {
  const marks = [mark(2, 203, 147, { label: { ...LABEL, w: 34 } }), mark(3, 196, 153, { label: { ...LABEL, w: 24 } }),
                 mark(1, 201, 144, { role: "unk", label: { ...LABEL, w: 42 } }),
                 mark(0, 200, 150, { role: "pad", ext: { l: -13, r: 13, t: -13, b: 13 }, label: { w: 44, asc: 10, desc: 3, y0: padLabelY(13) } })];
  const items = byId(planLabels(marks, FRAME));
  assert.equal(items.get(0).crowd, false);
  assert.equal(items.get(1).crowd, false); // UNK's label finds a place further off
  assertRules(marks, [...items.values()]);
});

test("PAD's label stays next to PAD over part of a dot rather than stand far off (22 px), and leaves UNK's mark clear", () => {
  const ext = { l: -13, r: 13, t: -13, b: 13 }, lab = { w: 44, asc: 10, desc: 3, y0: padLabelY(13) };
  const padAt = () => mark(0, 200, 150, { role: "pad", ext, label: { ...lab } });
  const dot = (i, x, y, role = "used") => mark(i, x, y, { role, ext: { l: -5, r: 5, t: -5, b: 5 }, label: null });
  // A dot on each side of PAD, under every place next to it.
  const around = (role) => [dot(1, 200, 128, role), dot(2, 232, 152), dot(3, 168, 152), dot(4, 200, 176), dot(5, 232, 128),
                            dot(6, 168, 128), dot(7, 232, 176), dot(8, 168, 176)];
  const near = [{ x: 0, y: lab.y0, a: "middle" }, ...candidates(ext, lab.asc, lab.desc, true, false, 0.5)].map((c) => [c.x.toFixed(2), c.y.toFixed(2), c.a].join());
  const it = byId(planLabels([...around("used"), padAt()], FRAME)).get(0);
  assert.ok(near.includes([it.x, it.y, it.a].join()), JSON.stringify(it));
  const beside = byId(planLabels([...around("unk"), padAt()], FRAME)).get(0);
  const u = dot(1, 200, 128);
  assert.equal(overlap(boxOf(padAt(), beside), { l: u.x - 5, r: u.x + 5, t: u.y - 5, b: u.y + 5 }), 0, JSON.stringify(beside));
});

test("the selected label and the hovered one always show, and the others make room for them", () => {
  const marks = pile(25);
  marks[12].selected = true;
  marks[7].hovered = true;
  const items = byId(planLabels(marks, FRAME));
  assert.equal(items.get(12).crowd, false);
  assert.equal(items.get(7).crowd, false);
  assert.ok(items.get(12).x !== undefined && items.get(7).x !== undefined);
  assertRules(marks, [...items.values()]);
  // The selection is placed first of all: before PAD, UNK and the hovered label.
  const plan = planLabels([mark(0, 100, 100, { role: "pad" }), mark(1, 300, 100, { hovered: true }), mark(2, 50, 50, { selected: true })], FRAME);
  assert.deepEqual(plan.map((it) => it.i), [2, 1, 0]);
});

test("a label with no free place is left for hover; UNK's and PAD's may lie over a mark, never outside", () => {
  // A tight grid of marks: every place around the middle one covers a mark.
  const marks = [];
  let i = 0;
  for (let gx = -2; gx <= 2; gx++) for (let gy = -2; gy <= 2; gy++) marks.push(mark(i++, 200 + gx * 16, 150 + gy * 12, { label: null }));
  const middle = marks.find((m) => m.x === 200 && m.y === 150);
  middle.label = { ...LABEL };
  assert.equal(byId(planLabels(marks, FRAME)).get(middle.i).crowd, true);
  for (const role of ["unk", "pad"]) {
    middle.role = role;
    const it = byId(planLabels(marks, FRAME)).get(middle.i);
    assert.equal(it.crowd, false, role);
  }
  // No place of UNK's label inside the frame: it is hidden rather than drawn outside.
  const unk = mark(0, 200, 150, { role: "unk", label: { ...LABEL, w: 40 } });
  assert.equal(planLabels([unk], { l: 190, t: 140, r: 215, b: 160 })[0].crowd, true);
});

test("labels not shown only lose 'crowd'; points without a label get nothing", () => {
  const items = planLabels([mark(0, 100, 100, { label: false }), mark(1, 200, 100, { label: null })], FRAME);
  assert.deepEqual(items, [{ i: 0, crowd: false }]);
});

test("further-off places only for few points or a label that matters", () => {
  assert.equal(candidates(EXT, 10, 3, false).length, 8);
  const far = candidates(EXT, 10, 3, true);
  assert.equal(far.length, 12);
  assert.equal(far[8].x, 7 + LABEL_GAP + 10);
  assert.equal(candidates(EXT, 10, 3, true, true).length, 20);
  const diamond = candidates(EXT, 10, 3, false, false, 0.5); // diagonals off the diamond's edge, not its box's corner
  assert.deepEqual([diamond[4].x, diamond[4].y], [3.5 + LABEL_GAP, -3.5 - LABEL_GAP - 3]);
  assert.deepEqual(diamond.slice(0, 4), candidates(EXT, 10, 3, false).slice(0, 4));
  // Small unlabelled marks on each of the 8 near places of point 0, none on the 4 further ones.
  const dot = { l: -3, r: 3, t: -3, b: 3 };
  const ring = [[15, 0], [-15, 0], [0, -13], [0, 14], [15, -13], [-15, -13], [15, 14], [-15, 14]]
    .map(([dx, dy], k) => mark(k + 1, 200 + dx, 150 + dy, { ext: dot, label: null }));
  const few = byId(planLabels([mark(0, 200, 150), ...ring], FRAME)).get(0);
  assert.deepEqual([few.x, few.a, few.crowd], [(7 + LABEL_GAP + 10).toFixed(2), "start", false]);
  const crowd = Array.from({ length: FEW_POINTS }, (_, k) => mark(100 + k, 20 + k * 18, 280, { ext: dot, label: null }));
  const many = byId(planLabels([mark(0, 200, 150), ...ring, ...crowd], FRAME)).get(0);
  assert.equal(many.crowd, true);
  const unk = byId(planLabels([mark(0, 200, 150, { role: "unk" }), ...ring, ...crowd], FRAME)).get(0);
  assert.equal(unk.crowd, false); // UNK's label shows, over part of a dot if need be
});

test("a placed label is an obstacle for the labels placed after it", () => {
  // Point 1 sits just below point 0: its right place would cover 0's label, so it goes left.
  const marks = [mark(0, 100, 100), mark(1, 100, 110)];
  const items = byId(planLabels(marks, FRAME));
  assert.deepEqual([items.get(0).a, items.get(1).a], ["start", "end"]);
  assertRules(marks, [...items.values()]);
});

test("a label keeps the place it has while it still holds: gliding points do not make labels jump", () => {
  const at = (x) => [mark(0, x, 100, { label: { ...LABEL, prev: { x: (-7 - LABEL_GAP).toFixed(2), y: "3.50", a: "end" } } })];
  assert.equal(planLabels(at(100), FRAME)[0].a, "end"); // left, as before, though right is preferred
  assert.equal(planLabels(at(20), FRAME)[0].a, "start"); // no room on the left any more: it moves
});

test("every plan keeps both rules, for piles of any size, in a small frame and a large one", () => {
  for (const [n, frame] of [[8, FRAME], [30, FRAME], [60, { l: 50, t: 12, r: 300, b: 200 }]]) {
    const marks = pile(n, 120, 90, (k) => (k === 0 ? { role: "pad" } : k === 1 ? { role: "unk" } : k === 5 ? { selected: true } : {}));
    const items = planLabels(marks, frame);
    assertRules(marks, items, frame);
    assert.equal(byId(items).get(5).crowd, false);
  }
});

test("overlap is the shared area; inside is containment", () => {
  assert.equal(overlap({ l: 0, r: 10, t: 0, b: 10 }, { l: 5, r: 15, t: 5, b: 15 }), 25);
  assert.equal(overlap({ l: 0, r: 10, t: 0, b: 10 }, { l: 10, r: 15, t: 0, b: 10 }), 0);
  assert.equal(inside({ l: 1, r: 9, t: 1, b: 9 }, { l: 0, r: 10, t: 0, b: 10 }), true);
  assert.equal(inside({ l: 1, r: 11, t: 1, b: 9 }, { l: 0, r: 10, t: 0, b: 10 }), false);
});
