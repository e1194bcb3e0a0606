// What the grids show (components/stage/js/gridplan.mjs): W's rows, the heatmaps' columns, the id
// matrix's columns. planColumns is run against a model of a CSS grid and checked against brute force.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CONTEXT_ROW, MIN_FS, MIN_FS_PRESENT, MIN_ID_FS, MIN_SWATCH, ID_GAP, READABLE_ROW, READABLE_ROW_PRESENT, focusRows, gradFontSize,
  idPages, idWindow, numberSample, outputPlan, planColumns, planIdColumns, planRows, readW,
} from "../../components/stage/js/gridplan.mjs";

test("readW reads data.w defensively", () => {
  const w = readW({ w: { rows: [0, 1], values: [[1, -3], [0, 2]], touched: [1], grad_norm: [0.5, 0], counts: [2, 0] } }, true);
  assert.equal(w.e, 2);
  assert.equal(w.absmax, 3); // from the values when absmax is missing
  assert.equal(w.gmax, 0.5);
  assert.ok(w.touched.has("1") && !w.touched.has("0"));
  assert.equal(w.withGrad, true);
  assert.equal(w.hasCount, false);
  assert.equal(readW({ w: { rows: [0], values: [[1]], counts: [1] } }, false).hasCount, true);
  const empty = readW({}, true);
  assert.deepEqual([empty.rows, empty.e, empty.absmax, empty.gmax, empty.withGrad], [[], 0, 1e-9, 1, false]);
  assert.equal(readW({ w: { rows: [0], values: [[1]], absmax: 2.5, grad_norm: [0] } }, true).gmax, 1); // all zero
});

test("planRows: rows share the room alike when all can be readable (15 px rows, 30 presenting)", () => {
  const rows = [...Array(10).keys()];
  const p = planRows({ room: 200, rows, train: true, present: false, focus: new Set([1]) });
  assert.equal(p.rowH, 20);
  assert.equal(p.readable, true);
  assert.equal(p.shown, 10);
  assert.ok(p.heights.every((h) => h === 20) && p.focus.every(Boolean) && !p.scroll);
  assert.equal(planRows({ room: 300, rows, train: true, present: true, focus: new Set() }).readable, true);
  assert.equal(planRows({ room: 290, rows, train: true, present: true, focus: new Set() }).readable, false);
  assert.equal(planRows({ room: 1000, rows, train: true, present: false, focus: new Set() }).rowH, 44);
  assert.equal(planRows({ room: 1000, rows, train: false, present: false, focus: new Set() }).rowH, 62);
  assert.equal(planRows({ room: 1000, rows, train: false, present: true, focus: new Set() }).rowH, 76);
});

// The English reviews' lookup at 1280×720: 47 rows, one sentence of 3 tokens, PAD and UNK in focus.
test("planRows: focus and context, the rows in focus readable and the rest strips sharing what is left", () => {
  const rows = [...Array(47).keys()];
  const focus = new Set([0, 1, 5, 6, 7]);
  for (const present of [false, true]) {
    const room = 330;
    const p = planRows({ room, rows, train: false, present, focus });
    const read = present ? READABLE_ROW_PRESENT : READABLE_ROW;
    rows.forEach((id, r) => {
      assert.equal(p.focus[r], focus.has(id));
      if (focus.has(id)) assert.ok(p.heights[r] >= read, `row ${id}: ${p.heights[r]}`);
      else assert.ok(p.heights[r] >= CONTEXT_ROW && p.heights[r] <= read / 3, `row ${id}: ${p.heights[r]}`);
    });
    assert.equal(p.rowH, p.heights[0]);
    const total = p.heights.reduce((a, h) => a + h, 0);
    assert.equal(p.scroll, total > room);
    if (!p.scroll) assert.ok(total > room - 47, `${total}: the room is used`); // within a px per row
    if (!present) assert.ok(p.rowH >= 1.5 * READABLE_ROW, `${p.rowH}`); // the room left goes to the rows in focus
  }
});

test("planRows: when the rows in focus alone do not fit, they stay readable and the panel scrolls", () => {
  const rows = [...Array(160).keys()];
  const focus = new Set(rows.filter((i) => i % 4 === 0)); // 40 rows touched by the last step
  const p = planRows({ room: 300, rows, train: true, present: false, focus });
  assert.equal(p.scroll, true);
  assert.ok(p.heights.every((h, r) => (p.focus[r] ? h >= READABLE_ROW : h === CONTEXT_ROW)));
  const none = planRows({ room: 300, rows, train: true, present: false, focus: new Set() });
  assert.deepEqual([none.readable, none.rowH, none.scroll], [false, CONTEXT_ROW, true]); // 160 strips of 3 px
  assert.ok(none.focus.every((x) => !x));
});

test("focusRows: the current sentence's ids (lookup) or the touched rows (training), PAD, UNK and the selection", () => {
  const d = { pad: 1, unk: 0, ids: [[2, 3, 1], [4, 5, 6]], out: { b: 1 }, w: { touched: ["7", 8] } };
  assert.deepEqual([...focusRows(d, false, 9)].sort((a, b) => a - b), [0, 1, 4, 5, 6, 9]);
  assert.deepEqual([...focusRows(d, true, null)].sort((a, b) => a - b), [0, 1, 7, 8]);
  assert.deepEqual([...focusRows({}, false, undefined)], []);
});

test("numberSample is the widest number in zeros", () => {
  assert.equal(numberSample(0.8, 2), "\u22120.00");
  assert.equal(numberSample(12.3, 1), "\u221200.0");
  assert.equal(numberSample(150, 0), "\u2212000");
  assert.equal(numberSample(NaN, 2), "\u22120.00");
});

// A CSS grid of width G: a token column (80 px, or 40 px when narrowed), k value columns of equal
// width, and a "… +k" column of M px when k < e; cellW is a value cell less its 4 px of padding.
function gridModel({ G, e, M = 30, em = 0.55, absmax = 0.9 }) {
  const g = { cols: e, labw: null, calls: 0 };
  const width = (k) => (G - (g.labw ? 40 : 80) - (k < e ? M : 0)) / k - 4;
  g.m = {
    cellW: () => width(g.cols),
    widthAt: (k) => { g.calls++; g.cols = k; return width(k); },
    setCols: (k) => { g.cols = k; },
    labw: (v) => { g.labw = v; },
    per100: (dec) => em * numberSample(absmax, dec).length,
  };
  g.width = width;
  return g;
}

test("planColumns: 2 decimals at the largest size the row allows", () => {
  const g = gridModel({ G: 800, e: 4 });
  const plan = planColumns({ e: 4, rowH: 30, present: false, wanted: true }, g.m);
  assert.deepEqual(plan, { e: 4, shown: 4, dec: 2, fs: 15, nums: true });
  assert.equal(g.calls, 0); // measured as it stands
  assert.equal(planColumns({ e: 4, rowH: 80, present: false, wanted: true }, gridModel({ G: 800, e: 4 }).m).fs, 21);
  assert.equal(planColumns({ e: 4, rowH: 80, present: true, wanted: true }, gridModel({ G: 800, e: 4 }).m).fs, 28);
});

test("planColumns: presenting, a number is never set below 24 px: fewer columns instead", () => {
  for (const G of [300, 420, 600, 900]) {
    for (const e of [3, 8, 16]) {
      const plan = planColumns({ e, rowH: 30, present: true, wanted: true }, gridModel({ G, e }).m);
      if (plan.nums) assert.ok(plan.fs >= MIN_FS_PRESENT - 1e-9, `G=${G} e=${e}: ${plan.fs}`);
    }
  }
  const narrow = planColumns({ e: 8, rowH: 40, present: true, wanted: true }, gridModel({ G: 420, e: 8 }).m);
  assert.ok(narrow.nums && narrow.shown < 8 && narrow.fs >= MIN_FS_PRESENT);
});

test("planColumns: smaller type, then 1 decimal, before fewer columns", () => {
  const e = 8;
  // cell = 320/8 − 4 = 36 px: "−0.00" (2.75 px per px of type) at 13.1 px
  const two = planColumns({ e, rowH: 40, present: false, wanted: true }, gridModel({ G: 400, e }).m);
  assert.equal(two.dec, 2);
  assert.ok(two.fs >= MIN_FS && two.fs < 15 && two.shown === e);
  // cell = 264/8 − 4 = 29 px: too narrow for 2 decimals at 11 px (30.25), wide enough for 1 (24.2)
  const one = planColumns({ e, rowH: 40, present: false, wanted: true }, gridModel({ G: 344, e }).m);
  assert.deepEqual([one.dec, one.shown, one.nums], [1, e, true]);
});

test("planColumns: fewer columns, the most that fit a 2-decimal number (checked by brute force)", () => {
  for (const G of [220, 260, 300, 333, 400, 512, 640]) {
    for (const e of [16, 32, 64, 300]) {
      const g = gridModel({ G, e });
      const plan = planColumns({ e, rowH: 40, present: false, wanted: true }, g.m);
      const need = 2.75 * MIN_FS + 6;
      if (g.width(e) / 2.2 >= MIN_FS) continue; // fits all columns at 1 decimal: covered above
      let best = 0;
      for (let k = 1; k < e; k++) if (g.width(k) >= need - 4) best = k;
      if (best >= 1) {
        assert.deepEqual([plan.shown, plan.dec, plan.nums], [best, 2, true], `G=${G} e=${e}`);
        assert.ok(plan.fs >= MIN_FS - 1e-9, `${plan.fs}`);
        assert.equal(g.cols, best); // the grid is left with the columns shown
        assert.equal(g.labw, null);
      }
    }
  }
});

test("planColumns: a narrower token column as a last resort, then colours only", () => {
  // One column beside "… +k": 140 − 80 − 30 − 4 = 26 px, short of the 32.25 px a number needs;
  // with the token column narrowed to 40 px it is 66 px.
  const g = gridModel({ G: 140, e: 16 });
  const plan = planColumns({ e: 16, rowH: 40, present: false, wanted: true }, g.m);
  assert.deepEqual([plan.shown, plan.nums, g.labw], [1, true, "4.4em"]);
  const tiny = gridModel({ G: 90, e: 16 });
  const none = planColumns({ e: 16, rowH: 40, present: false, wanted: true }, tiny.m);
  assert.equal(none.nums, false);
  assert.equal(tiny.labw, null); // colours only: the stylesheet's token column again
});

test("planColumns, colours only: every column at least MIN_SWATCH px wide", () => {
  const g = gridModel({ G: 400, e: 300 });
  const plan = planColumns({ e: 300, rowH: 3, present: false, wanted: false }, g.m);
  let best = 1;
  for (let k = 1; k < 300; k++) if (g.width(k) >= MIN_SWATCH - 4) best = k;
  assert.deepEqual([plan.shown, plan.nums, plan.dec, plan.fs], [best, false, 2, MIN_FS]);
  assert.ok(plan.cw >= MIN_SWATCH);
  assert.equal(g.cols, best);
  const few = gridModel({ G: 400, e: 8 });
  const all = planColumns({ e: 8, rowH: 3, present: false, wanted: false }, few.m);
  assert.deepEqual([all.shown, all.cw], [8, few.width(8) + 4]);
  const zero = gridModel({ G: 400, e: 0 });
  assert.deepEqual(planColumns({ e: 0, rowH: 3, present: false, wanted: false }, zero.m).shown, 0);
});

test("the output shows W's columns, decimals and type", () => {
  const own = { e: 8, shown: 8, dec: 2, fs: 18, nums: true };
  const w = { e: 8, shown: 5, dec: 1, fs: 12, nums: true };
  assert.deepEqual(outputPlan(own, w, 8), { e: 8, shown: 5, dec: 1, fs: 12, nums: true });
  const colours = { e: 8, shown: 6, dec: 2, fs: MIN_FS, nums: false, cw: 9 };
  assert.deepEqual(outputPlan(own, colours, 8), { e: 8, shown: 6, dec: 2, fs: MIN_FS, nums: false, cw: 9 });
  assert.equal(outputPlan(own, w, 4), own); // another width of W: the output's own plan
  assert.equal(outputPlan(own, null, 8), own);
});

test("the id matrix shows every column that fits its widest id, else as many as fit beside '… +k'", () => {
  const width = (text, px, weight) => text.length * px * (weight === 700 ? 0.62 : 0.55);
  const ids = [[3, 12345, 7], [1, 1, 1]];
  assert.equal(planIdColumns({ ids, t: 1, fs: 15, room: 10 }, width), 1);
  assert.equal(planIdColumns({ ids, t: 3, fs: 15, room: 1000 }, width), 3);
  for (const room of [60, 120, 200, 300, 400, 700]) {
    for (const t of [2, 5, 20, 50]) {
      const rows = [Array.from({ length: t }, (_, j) => j * 999)];
      const got = planIdColumns({ ids: rows, t, fs: 15, room }, width);
      const zeros = (n) => String(n).replace(/\d/g, "0");
      const cell = Math.max(width(zeros((t - 1) * 999), MIN_ID_FS, 700), width("t=" + zeros(t - 1), 12, 400)) + 14;
      const head = width("b=0", 12, 400) + 4;
      const used = (k, more) => head + ID_GAP + k * cell + (k - 1) * ID_GAP + (more ? width(`\u2026 +${t}`, 12, 400) + ID_GAP : 0);
      let want = 1;
      if (used(t, false) <= room) want = t;
      else for (let k = 1; k < t; k++) if (used(k, true) <= room + 1e-9) want = k;
      assert.equal(got, want, `room ${room}, t ${t}`);
    }
  }
});

test("the gradient norms' type shrinks to fit, down to 8 px", () => {
  assert.equal(gradFontSize(40, 12, 30, 0), null);
  assert.equal(gradFontSize(40, 12, 60, 0), 8);
  assert.equal(gradFontSize(40, 12, 48, 0), 10);
  assert.equal(gradFontSize(41, 12, 48, 1), 10);
  assert.equal(gradFontSize(0, 12, 48, 0), null);
});

test("the id matrix's columns take in the selected token when it sits past the ones that fit", () => {
  // Nothing selected, or selected among the first columns: the first columns, as before.
  assert.deepEqual(idWindow(50, 6, []), { first: 0, shown: 6 });
  assert.deepEqual(idWindow(50, 6, [5, 40]), { first: 0, shown: 6 });
  assert.deepEqual(idWindow(5, 6, [4]), { first: 0, shown: 6 });
  for (const t of [8, 20, 50]) {
    for (const fits of [1, 2, 5, 7]) {
      if (fits >= t) continue;
      for (let at = fits; at < t; at++) {
        const { first, shown } = idWindow(t, fits, [at, t - 1]);
        assert.ok(first >= 1 && shown === Math.max(1, fits - 1) && first + shown <= t, `${t} ${fits} ${at}`);
        assert.ok(first <= at && at < first + shown, `t=${at} is among the shown columns (${t}, ${fits})`);
      }
    }
  }
});

test("a marker's page wins over the selection's window, and the markers page through every column", () => {
  assert.deepEqual(idWindow(30, 4, [29], 0), { first: 0, shown: 4 });
  assert.deepEqual(idWindow(30, 4, [], 4), { first: 4, shown: 3 });
  assert.deepEqual(idWindow(30, 4, [], 99), { first: 27, shown: 3 }); // never past the last column
  assert.deepEqual(idWindow(3, 4, [], 2), { first: 0, shown: 4 }); // everything fits: no paging
  for (const [t, fits] of [[30, 4], [30, 2], [7, 6], [50, 1]]) {
    let win = idWindow(t, fits, [], null);
    const seen = new Set();
    for (let guard = 0; guard < t + 2; guard++) { // Next, Next, …: every column once, in order
      for (let j = win.first; j < win.first + win.shown; j++) seen.add(j);
      const { next } = idPages(t, fits, win);
      if (next === null) break;
      assert.equal(next, win.first + win.shown);
      win = idWindow(t, fits, [], next);
    }
    assert.equal(seen.size, t, `${t} ${fits}`);
    for (let guard = 0; guard < t + 2 && win.first > 0; guard++) { // and back to the start with Prev
      const { prev } = idPages(t, fits, win);
      assert.ok(prev !== null && prev < win.first);
      win = idWindow(t, fits, [], prev);
    }
    assert.equal(win.first, 0);
    assert.equal(idPages(t, fits, win).prev, null);
  }
});
