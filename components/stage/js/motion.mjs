// How the points move between pictures: where a glide starts, its keyframes (Play's steps queued
// after the ones still to be shown), and where the points are at a moment of it. Pure: no DOM;
// the clock comes in as a number.
import { clamp, num } from "./format.mjs";

export const TWEEN_MS = 320; // a single update glides this long
export const FRAME_MS = 17; // one frame at 60 Hz
export const CATCH_UP_MS = 2 * FRAME_MS; // the quickest step of Play catching up with late data

export function sameIds(a, b) {
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Whether two keyframes place any point differently.
export function differs(a, b) {
  for (let i = 0; i < a.x.length; i++) if (a.x[i] !== b.x[i] || a.y[i] !== b.y[i]) return true;
  return false;
}

// Where each id is drawn now (`shown`: ids and coordinates on screen, mid-glide included, or
// null); ids not on screen yet start at their target in `fin`.
export function startPositions(shown, ids, fin) {
  const n = ids.length, x = new Float64Array(n), y = new Float64Array(n);
  if (shown && sameIds(shown.ids, ids)) {
    x.set(shown.x);
    y.set(shown.y);
    return { x, y };
  }
  const at = new Map();
  if (shown) shown.ids.forEach((id, i) => at.set(id, i));
  for (let i = 0; i < n; i++) {
    const j = at.get(ids[i]);
    x[i] = j === undefined ? fin.x[i] : shown.x[j];
    y[i] = j === undefined ? fin.y[i] : shown.y[j];
  }
  return { x, y };
}

// Whether an update walks through Play's frames: Play is on, it has frames, it animates, and a
// picture is on screen to walk from (a stage that has just mounted shows the newest step at once).
export function walks(play, frames, animate, shown) {
  return !!(play && play.on) && Array.isArray(frames) && frames.length > 0 && !!animate && !!shown;
}

// The keyframes of the glide to `fin` and their pace. Play (see `walks`) walks through the frames
// at play.steps_per_second, linearly; anything else is one eased segment of TWEEN_MS. Play data that
// arrives while an earlier Play glide (`prev`) is under way is queued after its frames still to be
// shown: no jump, no skipped step, no step back. Its steps are due on Play's clock, one segment each
// after the earlier glide's last; the way still to go (from where the points are, mid-segment
// included) is paced to arrive then, never slower than Play's rate and never quicker than
// CATCH_UP_MS a step, each step shown for a frame at least. So data on time keeps the pace; data
// that came late, or in the middle of catching up, is walked quickly until back on the clock.
// `now` is the clock's time; `shown` as for startPositions.
export function glidePlan({ prev, shown, ids, fin, frames, play, animate, now }) {
  const n = ids.length;
  const playing = walks(play, frames, animate, shown);
  const sps = clamp(num(play.steps_per_second) || 10, 0.2, 120);
  let segMs = playing ? 1000 / sps : TWEEN_MS;
  let keyframes, t0 = null, queued = null;
  if (playing && prev && prev.linear && sameIds(prev.ids, ids)) {
    const k = Math.min(prev.keyframes.length - 2, Math.floor(Math.max(0, now - prev.t0) / prev.segMs));
    keyframes = prev.keyframes.slice(k);
    const done = clamp((now - prev.t0 - k * prev.segMs) / prev.segMs, 0, 1); // of the segment under way
    queued = { done, end: prev.t0 + (prev.keyframes.length - 1) * prev.segMs };
  } else {
    const at = startPositions(shown, ids, fin);
    keyframes = [{ step: null, x: at.x, y: at.y }];
  }
  if (playing) {
    for (const f of frames) {
      const fx = new Float64Array(n), fy = new Float64Array(n);
      for (let i = 0; i < n; i++) { fx[i] = Array.isArray(f.x) ? num(f.x[i]) : fin.x[i]; fy[i] = Array.isArray(f.y) ? num(f.y[i]) : fin.y[i]; }
      keyframes.push({ step: num(f.step), x: fx, y: fy, loss: f.loss === undefined ? null : num(f.loss),
                       w: f.w || null, neighbours: f.neighbours });
    }
  }
  keyframes.push(fin);
  if (queued) {
    const due = queued.end + (frames.length + 1) * segMs; // the new data's last step, on Play's clock
    const left = keyframes.length - 1 - queued.done; // segments still to travel
    segMs = clamp((due - now) / left, CATCH_UP_MS, segMs);
    t0 = now - queued.done * segMs; // the points stay where they are shown
  }
  return { keyframes, segMs, linear: playing, t0 };
}

// What the step counter shows when data `d` arrives: its step, or null to leave the counter to the
// glide, which writes each keyframe's step as it shows it. Null only when this data walks through
// Play's frames (`walks`; `shown` as for startPositions): writing the data's last step first and
// then its frames' earlier ones would count backwards (30, then 21, 22, …). Any other data, Pause's
// included, names its step at once, also while a Play glide is still under way: the timeline and
// the details drawn with it name that step too.
export function counterStep(d, animate, shown) {
  const s = d.scatter || {};
  return walks(d.play, s.frames, animate, shown) ? null : num(s.step);
}

// Ease in and out (cubic): a single update starts and lands softly.
export const ease = (u) => (u < 0.5 ? 4 * u * u * u : 1 - Math.pow(-2 * u + 2, 3) / 2);

// Where glide `a` is at time `t`: segment k (keyframes k → k + 1), the share w of it done (eased
// unless linear), and whether the glide is over. A frame's time can precede the glide's start.
export function frameAt(a, t) {
  const segs = a.keyframes.length - 1;
  const elapsed = Math.max(0, t - a.t0);
  const k = Math.min(segs - 1, Math.floor(elapsed / a.segMs));
  const u = clamp((elapsed - k * a.segMs) / a.segMs, 0, 1);
  return { k, w: a.linear ? u : ease(u), done: elapsed >= segs * a.segMs };
}

// The points a share w of the way from keyframe A to B, written into `cur`.
export function between(A, B, w, cur) {
  for (let i = 0; i < cur.x.length; i++) {
    cur.x[i] = A.x[i] + (B.x[i] - A.x[i]) * w;
    cur.y[i] = A.y[i] + (B.y[i] - A.y[i]) * w;
  }
  return cur;
}
