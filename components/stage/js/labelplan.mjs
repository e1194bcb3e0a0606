// Where the scatter's labels go. Pure: the marks and labels come in measured (labels.mjs measures
// them on the page), so the rules run under node's test runner.
//
// A label goes right, left, above or below its point (then diagonally, then, for few points or a
// label that must show, a little further off), whichever covers the fewest other marks and labels,
// at LABEL_GAP from the mark's own outline (a square, a triangle and a ring differ). PAD's label is
// placed first and never moves (always above PAD), then UNK's and the selection's, which always show
// where they cover the least; another label counts 10× a mark, PAD's 100×. Any other label that
// would cover something is left for hover ("crowd").

export const LABEL_GAP = 4; // px between a mark's outline and any label
export const FEW_POINTS = 20; // up to this many points, a label may stand a little further off its point

// PAD's label baseline: above the diamond (its stroke included) with a clear gap; it never moves.
export const padLabelY = (r) => -r - 9;

// The area two boxes {l, r, t, b} share.
export const overlap = (a, b) => Math.max(0, Math.min(a.r, b.r) - Math.max(a.l, b.l)) * Math.max(0, Math.min(a.b, b.b) - Math.max(a.t, b.t));

// The places tried for a label of ascent `asc` and descent `desc` around a mark of outline `ext`, in
// order of preference: x, baseline y (relative to the point) and text-anchor.
export function candidates(ext, asc, desc, further) {
  const gap = LABEL_GAP, far = gap + 10;
  const mid = (asc - desc) / 2; // baseline that centres the text on the mark
  const cands = [
    { x: ext.r + gap, y: mid, a: "start" },
    { x: ext.l - gap, y: mid, a: "end" },
    { x: 0, y: ext.t - gap - desc, a: "middle" },
    { x: 0, y: ext.b + gap + asc, a: "middle" },
    { x: ext.r + gap, y: ext.t - gap - desc, a: "start" },
    { x: ext.l - gap, y: ext.t - gap - desc, a: "end" },
    { x: ext.r + gap, y: ext.b + gap + asc, a: "start" },
    { x: ext.l - gap, y: ext.b + gap + asc, a: "end" },
  ];
  // Further off only where it cannot be read as another point's label.
  if (further) {
    cands.push(
      { x: ext.r + far, y: mid, a: "start" },
      { x: ext.l - far, y: mid, a: "end" },
      { x: 0, y: ext.t - far - desc, a: "middle" },
      { x: 0, y: ext.b + far + asc, a: "middle" },
    );
  }
  return cands;
}

/**
 * Every shown label's place.
 * @param {Array<{i: number, x: number, y: number, ext: {l: number, r: number, t: number, b: number},
 *   role: string, selected: boolean, label: null | false | {w: number, asc: number, desc: number, y0: number}}>} marks
 *   the points in drawing order: pixel, mark outline relative to the pixel, role, whether selected,
 *   and the label: null (none), false (not shown) or its measured box and current baseline y0
 * @param {{width: number, bottom: number}} bounds the plot's width and the bottom of its frame
 * @returns {Array<{i: number, x?: string, y?: string, a?: string, crowd: boolean}>} per label, in
 *   planning order: where it goes (x, y as written to the attributes, its text-anchor) and whether it
 *   is hidden as crowded; an unshown label only loses "crowd"
 */
export function planLabels(marks, { width, bottom }) {
  const items = [];
  const boxes = marks.map((m) => ({ l: m.x + m.ext.l - 2, r: m.x + m.ext.r + 2, t: m.y + m.ext.t - 2, b: m.y + m.ext.b + 2, i: m.i }));
  // PAD first, then the labels always shown (UNK, the selection), then the rest: the ones that must
  // be read get their places before the crowd does.
  const rank = (m) => (m.role === "pad" ? 0 : m.role === "unk" || m.selected ? 1 : 2);
  const order = marks.slice().sort((a, b) => rank(a) - rank(b));
  for (const m of order) {
    if (m.label === null) continue;
    if (m.label === false) { items.push({ i: m.i, crowd: false }); continue; }
    const { w, asc, desc, y0 } = m.label;
    const isPad = m.role === "pad";
    const list = isPad ? [{ x: 0, y: y0, a: "middle" }] : candidates(m.ext, asc, desc, rank(m) === 1 || marks.length <= FEW_POINTS);
    let best = null, cost = Infinity;
    for (const c of list) {
      const l = c.a === "start" ? c.x : c.a === "end" ? c.x - w : c.x - w / 2;
      c.box = { l: m.x + l, r: m.x + l + w, t: m.y + c.y - asc, b: m.y + c.y + desc };
      let k = 0;
      // A label over a point can still be read; a label over another label cannot, and PAD's must stay clear.
      for (const bx of boxes) if (bx.i !== m.i || bx.label) k += overlap(c.box, bx) * (bx.label ? (bx.pad ? 100 : 10) : 1);
      if (c.box.l < 0 || c.box.r > width || c.box.t < 0 || c.box.b > bottom + 2) k += 1e6;
      if (k < cost) { cost = k; best = c; }
      if (k === 0) break;
    }
    const keep = isPad || m.role === "unk" || m.selected;
    items.push({ i: m.i, x: best.x.toFixed(2), y: best.y.toFixed(2), a: best.a, crowd: cost > 0 && !keep });
    if (cost === 0 || keep) boxes.push({ ...best.box, i: m.i, label: true, pad: isPad });
  }
  return items;
}
