// How the points move (components/stage/js/motion.mjs): where a glide starts, its keyframes, Play's
// queue, and where the points are at a moment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CATCH_UP_MS, TWEEN_MS, between, counterStep, differs, ease, frameAt, glidePlan, sameIds, startPositions, walks } from "../../components/stage/js/motion.mjs";

const F = (a) => Float64Array.from(a);
const fin = (x, y, step = 5) => ({ step, x: F(x), y: F(y) });
const ON = (ids) => ({ ids, x: F(ids.map(() => 0)), y: F(ids.map(() => 0)) }); // a picture on screen

test("sameIds and differs", () => {
  assert.equal(sameIds([1, 2], [1, 2]), true);
  assert.equal(sameIds([1, 2], [2, 1]), false);
  assert.equal(sameIds(null, []), false);
  assert.equal(differs({ x: [1, 2], y: [0, 0] }, { x: [1, 2], y: [0, 0] }), false);
  assert.equal(differs({ x: [1, 2], y: [0, 0] }, { x: [1, 2], y: [0, 1e-9] }), true);
});

test("a glide starts where the points are shown; new points start at their target", () => {
  const target = fin([10, 20, 30], [1, 2, 3]);
  const same = startPositions({ ids: [7, 8, 9], x: F([0, 1, 2]), y: F([5, 5, 5]) }, [7, 8, 9], target);
  assert.deepEqual([[...same.x], [...same.y]], [[0, 1, 2], [5, 5, 5]]);
  const moved = startPositions({ ids: [9, 7], x: F([2, 0]), y: F([6, 4]) }, [7, 8, 9], target);
  assert.deepEqual([[...moved.x], [...moved.y]], [[0, 20, 2], [4, 2, 6]]);
  const first = startPositions(null, [7, 8, 9], target);
  assert.deepEqual([...first.x], [10, 20, 30]);
});

test("one update: one eased segment of TWEEN_MS from the screen to the data", () => {
  const target = fin([1, 1], [1, 1]);
  const g = glidePlan({ prev: null, shown: { ids: [0, 1], x: F([0, 0]), y: F([0, 0]) }, ids: [0, 1], fin: target,
                        frames: [], play: {}, animate: true, now: 1000 });
  assert.equal(g.keyframes.length, 2);
  assert.deepEqual([g.segMs, g.linear, g.t0], [TWEEN_MS, false, null]);
  assert.equal(g.keyframes[0].step, null);
  assert.equal(g.keyframes[1], target);
  // Frames are only walked through when Play is on and the update animates.
  const off = glidePlan({ prev: null, shown: null, ids: [0, 1], fin: target, frames: [{ step: 4, x: [0, 0], y: [0, 0] }],
                          play: { on: true }, animate: false, now: 0 });
  assert.equal(off.keyframes.length, 2);
});

test("Play walks through every frame, one step per 1/steps_per_second, linearly", () => {
  const target = fin([3, 3], [0, 0], 3);
  const frames = [{ step: 1, x: [1, 1], y: [0, 0] }, { step: 2, x: [2, "bad"], y: [0, 0] }];
  const g = glidePlan({ prev: null, shown: ON([0, 1]), ids: [0, 1], fin: target, frames, play: { on: true, steps_per_second: 4 },
                        animate: true, now: 0 });
  assert.deepEqual(g.keyframes.map((k) => k.step), [null, 1, 2, 3]);
  assert.deepEqual([...g.keyframes[2].x], [2, 0]);
  assert.deepEqual(g.keyframes.slice(1, 3).map((k) => k.loss), [null, null]); // these frames name no loss
  const named = glidePlan({ prev: null, shown: ON([0, 1]), ids: [0, 1], fin: target, frames: frames.map((f, i) => ({ ...f, loss: 0.5 - i / 10 })),
                            play: { on: true, steps_per_second: 4 }, animate: true, now: 0 });
  assert.deepEqual(named.keyframes.slice(1, 3).map((k) => k.loss), [0.5, 0.4]); // each walked step carries its loss
  assert.deepEqual([g.segMs, g.linear], [250, true]);
  const fast = glidePlan({ prev: null, shown: ON([0]), ids: [0], fin: fin([1], [1]), frames: [{ step: 0, x: [0], y: [0] }],
                           play: { on: true, steps_per_second: 1e6 }, animate: true, now: 0 });
  assert.equal(fast.segMs, 1000 / 120);
});

test("a stage with no picture yet (just mounted) shows Play's newest step at once, walking nothing", () => {
  const frames = [{ step: 1, x: [1], y: [0] }, { step: 2, x: [2], y: [0] }];
  const g = glidePlan({ prev: null, shown: null, ids: [0], fin: fin([3], [0], 3), frames, play: { on: true }, animate: true, now: 0 });
  assert.deepEqual([g.keyframes.map((k) => k.step), g.linear], [[null, 3], false]);
  assert.equal(walks({ on: true }, frames, true, null), false);
  assert.equal(walks({ on: true }, frames, true, ON([0])), true);
  assert.equal(walks({ on: false }, frames, true, ON([0])), false);
  assert.equal(walks({ on: true }, [], true, ON([0])), false);
  assert.equal(walks({ on: true }, frames, false, ON([0])), false);
});

test("Play data arriving mid-glide is queued after the frames still to show, on the same clock", () => {
  const ids = [0];
  const kf = (s) => ({ step: s, x: F([s]), y: F([0]) });
  const prev = { ids, keyframes: [kf(null), kf(1), kf(2), kf(3), kf(4)], segMs: 100, linear: true, t0: 1000 };
  const frames = [{ step: 5, x: [5], y: [0] }, { step: 6, x: [6], y: [0] }];
  const g = glidePlan({ prev, shown: ON(ids), ids, fin: fin([7], [0], 7), frames, play: { on: true, steps_per_second: 10 },
                        animate: true, now: 1250 });
  // 250 ms in: segment 2 (keyframes 2 → 3) is under way, so the glide goes on from keyframe 2.
  assert.deepEqual(g.keyframes.map((k) => k.step), [2, 3, 4, 5, 6, 7]);
  assert.equal(g.t0, 1200);
  // Long after the last frame: from the last segment (never past the end), on from step 4 now, as
  // quick as Play catches up (the old clock is long past), so that the late data's steps are each shown, none
  // passed over (on the old clock all were due at once: 7 at every moment).
  const late = glidePlan({ prev, shown: ON(ids), ids, fin: fin([7], [0], 7), frames, play: { on: true }, animate: true, now: 9999 });
  assert.deepEqual(late.keyframes.map((k) => k.step), [3, 4, 5, 6, 7]);
  assert.deepEqual([late.segMs, late.t0], [CATCH_UP_MS, 9999 - CATCH_UP_MS]);
  const shownAt = (g, t) => { const f = frameAt(g, t); return g.keyframes[f.w >= 1 ? f.k + 1 : f.k].step; };  // as animation.mjs
  assert.deepEqual([0, 1, 2, 3].map((i) => shownAt(late, 9999 + 1 + i * CATCH_UP_MS)), [4, 5, 6, 7]);
  // A little late (the last frame was due 50 ms ago): quicker, and back on the old clock at the end.
  const behind = glidePlan({ prev, shown: ON(ids), ids, fin: fin([7], [0], 7), frames, play: { on: true, steps_per_second: 10 },
                             animate: true, now: 1450 });
  assert.equal(behind.t0 + (behind.keyframes.length - 1) * behind.segMs > 1450, true);
  assert.equal(Math.abs(behind.t0 + behind.segMs + 3 * behind.segMs - (1300 + 4 * 100)) < 1e-9, true);
  assert.deepEqual([1, 2, 3].map((i) => shownAt(behind, 1450 + 1 + (i - 1) * behind.segMs)), [4, 5, 6]);
  // Other ids, or an eased glide under way: start again from the screen.
  const other = glidePlan({ prev: { ...prev, ids: [1] }, shown: ON(ids), ids, fin: fin([7], [0], 7), frames, play: { on: true },
                            animate: true, now: 1250 });
  assert.deepEqual(other.keyframes.map((k) => k.step), [null, 5, 6, 7]);
  const eased = glidePlan({ prev: { ...prev, linear: false }, shown: ON(ids), ids, fin: fin([7], [0], 7), frames, play: { on: true },
                            animate: true, now: 1250 });
  assert.equal(eased.t0, null);
});

test("Play data arriving in the middle of a catch-up goes on catching up from where the points are", () => {
  const ids = [0];
  const kf = (s) => ({ step: s, x: F([s]), y: F([0]) });
  const play = { on: true, steps_per_second: 10 };
  // Steps 4…7 came late: walked at CATCH_UP_MS each from 9965, back on Play's clock at their end, 10101.
  const catching = { ids, keyframes: [kf(3), kf(4), kf(5), kf(6), kf(7)], segMs: CATCH_UP_MS, linear: true, t0: 9999 - CATCH_UP_MS };
  const frames = [{ step: 8, x: [8], y: [0] }, { step: 9, x: [9], y: [0] }];
  const now = 10010; // a third of the way from step 4 to step 5, the next batch arrives on time
  const g = glidePlan({ prev: catching, shown: ON(ids), ids, fin: fin([10], [0], 10), frames, play, animate: true, now });
  assert.deepEqual(g.keyframes.map((k) => k.step), [4, 5, 6, 7, 8, 9, 10]);
  const at = (a, t) => { const f = frameAt(a, t); return a.keyframes[f.k].x[0] + (a.keyframes[f.k + 1].x[0] - a.keyframes[f.k].x[0]) * f.w; };
  assert.ok(Math.abs(at(g, now) - at(catching, now)) < 1e-9, "the points go on from where they are");
  assert.ok(g.segMs > CATCH_UP_MS && g.segMs < 100, g.segMs); // still quicker than Play's rate
  const end = catching.t0 + 4 * CATCH_UP_MS + 3 * 100; // steps 8, 9 and 10 each a tenth of a second after 7
  assert.ok(Math.abs(g.t0 + (g.keyframes.length - 1) * g.segMs - end) < 1e-9); // back on the clock at the end
  for (let t = now; t <= end; t += 5) assert.ok(at(g, t + 5) >= at(g, t)); // never a step back
});

test("ease goes from 0 to 1, symmetric, always forward", () => {
  assert.equal(ease(0), 0);
  assert.equal(ease(1), 1);
  assert.equal(ease(0.5), 0.5);
  for (let u = 0.01; u <= 1; u += 0.01) {
    assert.ok(ease(u) >= ease(u - 0.01));
    assert.ok(Math.abs(ease(u) + ease(1 - u) - 1) < 1e-12);
  }
});

test("frameAt: the segment and share done at a moment, and when the glide is over", () => {
  const a = { keyframes: [0, 1, 2, 3], segMs: 100, linear: true, t0: 1000 };
  assert.deepEqual(frameAt(a, 900), { k: 0, w: 0, done: false }); // a frame stamped before the start
  assert.deepEqual(frameAt(a, 1050), { k: 0, w: 0.5, done: false });
  assert.deepEqual(frameAt(a, 1100), { k: 1, w: 0, done: false });
  assert.deepEqual(frameAt(a, 1299), { k: 2, w: 0.99, done: false });
  assert.deepEqual(frameAt(a, 1300), { k: 2, w: 1, done: true });
  assert.deepEqual(frameAt(a, 5000), { k: 2, w: 1, done: true });
  const e = frameAt({ ...a, linear: false }, 1025);
  assert.equal(e.w, ease(0.25));
});

test("between interpolates every point", () => {
  const cur = { x: new Float64Array(2), y: new Float64Array(2) };
  between({ x: [0, 10], y: [0, -10] }, { x: [10, 20], y: [10, 10] }, 0.25, cur);
  assert.deepEqual([[...cur.x], [...cur.y]], [[2.5, 12.5], [2.5, -5]]);
});

test("the step counter never counts backwards: Play's data leaves it to the glide through its frames", () => {
  const tick = { play: { on: true }, scatter: { step: 30, frames: [{ step: 21 }, { step: 25 }] } };
  // A Play tick: writing 30 now, then the frames' 21… would go back; the glide writes each step.
  assert.equal(counterStep(tick, true, ON([0])), null);
  assert.equal(counterStep(tick, false, ON([0])), 30); // redrawn in place (resize, fonts): no glide, the data's step
  assert.equal(counterStep(tick, true, null), 30); // a stage just mounted: the newest step at once
  assert.equal(counterStep({ play: { on: true }, scatter: { step: 8, frames: [] } }, true, ON([0])), 8);
});

test("any data that does not walk names its step at once, also while a Play glide is under way (Pause)", () => {
  // The timeline and the details drawn in the same run as this data name its step: the counter must too.
  assert.equal(counterStep({ play: { on: false }, scatter: { step: 7 } }, true, ON([0])), 7); // a Step
  assert.equal(counterStep({ play: { on: false }, scatter: { step: 243, frames: [] } }, true, ON([0])), 243); // Pause
});
