// Running a glide: one requestAnimationFrame loop per stage that draws the points along the
// keyframes (motion.mjs) with their labels placed for each frame, keeps the step counter in step,
// and settles the picture at the end.
import { num } from "./format.mjs";
import { showStep } from "./head.mjs";
import { placeLabels } from "./labels.mjs";
import { between, differs, frameAt } from "./motion.mjs";
import { drawPoints } from "./points.mjs";
import { fillNeighbours } from "./neighbours.mjs";
import { fillW } from "./wgrid.mjs";

// Glide the scatter's points through `keyframes`; with nothing moving (or `animate` false) draw the
// last one at once. `t0`: the start time of a queued Play glide (null: now).
export function startAnimation(st, ids, keyframes, segMs, linear, animate, t0) {
  cancelAnimationFrame(st.raf);
  const sc = st.scatter;
  const moving = animate && keyframes.some((k, j) => j > 0 && differs(k, keyframes[0]));
  if (!moving) {
    st.anim = null;
    drawPoints(st, keyframes[keyframes.length - 1]);
    finish(st);
    return;
  }
  const a = { ids, keyframes, segMs, linear, t0: t0 === null || t0 === undefined ? performance.now() : t0,
              focus: linear ? walkFocus(st, keyframes) : null };
  st.anim = a;
  st.root.dataset.animating = "1";
  const cur = { x: new Float64Array(keyframes[0].x.length), y: new Float64Array(keyframes[0].y.length) };
  const tick = (t) => {
    if (st.anim !== a || st.scatter !== sc) return;
    st.frames += 1;
    st.root.dataset.frames = String(st.frames);
    const f = frameAt(a, t);
    const A = a.keyframes[f.k], B = a.keyframes[f.k + 1];
    drawPoints(st, between(A, B, f.w, cur));
    placeLabels(st); // where the points are in this frame: no two labels meet, none leaves the frame
    const shown = f.w >= 1 ? B : A;
    if (shown.step !== null && shown.step !== undefined && shown.step !== st.headStep) {
      st.headStep = shown.step;
      showStep(st, shown.step, shown.loss);
      if (a.linear) showTables(st, shown, a.focus);
    }
    if (f.done) {
      st.anim = null;
      drawPoints(st, B);
      if (a.linear) settleTables(st);
      finish(st);
      return;
    }
    st.raf = requestAnimationFrame(tick);
  };
  st.raf = requestAnimationFrame(tick);
}

// Play's walk reached keyframe `k`'s step: W's grid and the neighbours row at that step, where the
// keyframe has them (a frame without them leaves the panel at the step it showed last).
function showTables(st, k, focus) {
  if (!st.data) return;
  if (k.w && st.wPanel) fillW(st, st.wPanel, { ...st.data, w: k.w }, true, focus);
  if (k.neighbours !== undefined) fillNeighbours(st, { ...st.data, neighbours: k.neighbours });
}

// The rows W's grid keeps readable through a walk: every row one of its steps touched, with PAD,
// UNK and the selected row. The grid is laid out for them once, and each step's numbers fill it.
function walkFocus(st, keyframes) {
  const d = st.data || {};
  const f = new Set([d.pad, d.unk, st.selected].filter(Number.isInteger));
  for (const k of keyframes) for (const id of (k.w && k.w.touched) || []) f.add(Number(id));
  return f;
}

// The walk has ended on the data's own step: W's grid as a settled picture has it, its rows in focus
// the ones that step touched.
function settleTables(st) {
  if (st.data && st.data.w && st.wPanel) fillW(st, st.wPanel, st.data, true);
}

// The picture has settled: the step counter on the data's step, the labels in place, and the
// hooks tests and benchmarks read (data-animating, data-step, data-settled).
export function finish(st) {
  st.headStep = null;
  if (st.stepNum && st.data && st.data.scatter) showStep(st, num(st.data.scatter.step), st.loss[st.loss.length - 1]);
  placeLabels(st);
  st.root.dataset.animating = "0";
  st.root.dataset.step = String(st.data && st.data.scatter ? num(st.data.scatter.step) : 0);
  st.settled += 1;
  st.root.dataset.settled = String(st.settled);
}
