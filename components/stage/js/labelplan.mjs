// Where the scatter's labels go, and which are left out. Pure: the marks and labels come in
// measured (labels.mjs measures them on the page), so the rules run under node's test runner.
//
// Two rules hold for every plan: no two shown labels cover each other (their halos included), and
// every shown label lies inside the plot's frame. The selected token's label and the hovered one
// always show; they are placed first, selected before hovered, where they cover the fewest marks
// (and keep off the place PAD's label prefers). Then PAD's label (above PAD, over the ordinary dots
// that glide under it; only when UNK's mark, the selected one or a label is there, the best free
// place), UNK's, and the rest in drawing order. A label goes right, left, above
// or below its point (then diagonally, then, for few points or a label that matters, further off),
// at LABEL_GAP from the mark's own outline (a square, a triangle and a ring differ). PAD's and UNK's
// labels may lie over a mark, where no free place is left; any other label must cover nothing. A
// label with no place left is hidden ("crowd": the hover shows it). A label keeps the place it has
// while that place still holds, so labels do not jump about while the points glide.

export const LABEL_GAP = 4; // px between a mark's outline and any label
export const HALO = 2; // px each side: a label's outline stroke (stage.css), kept clear of other labels and the frame
export const FEW_POINTS = 20; // up to this many points, a label may stand a little further off its point

// PAD's label baseline: above the diamond (its stroke included) with a clear gap.
export const padLabelY = (r) => -r - 9;

// The area two boxes {l, r, t, b} share.
export const overlap = (a, b) => Math.max(0, Math.min(a.r, b.r) - Math.max(a.l, b.l)) * Math.max(0, Math.min(a.b, b.b) - Math.max(a.t, b.t));

// Whether box `a` lies inside box `f`.
export const inside = (a, f) => a.l >= f.l && a.r <= f.r && a.t >= f.t && a.b <= f.b;

// A box grown by `d` px on every side.
const grown = (a, d) => ({ l: a.l - d, r: a.r + d, t: a.t - d, b: a.b + d });

// What standing further off costs a label that matters, in the units of the marks it covers (px² of
// a mark's box): a label next to its point over part of a dot reads better than one far from it.
export const FAR_COST = [0, 150, 2000];

// The places tried for a label of ascent `asc` and descent `desc` around a mark of outline `ext`, in
// order of preference: x, baseline y (relative to the point), text-anchor and how far off (an index
// of FAR_COST). `further`: also a ring 10 px further off; `farthest`: and one 22 px further (the
// labels that matter). `diag`: the share of the outline's corner the mark fills (PAD's diamond
// reaches half way along its diagonals), so a diagonal place stands off the mark, not its box.
export function candidates(ext, asc, desc, further, farthest = false, diag = 1) {
  const mid = (asc - desc) / 2; // baseline that centres the text on the mark
  const [dl, dr, dt, db] = [ext.l * diag, ext.r * diag, ext.t * diag, ext.b * diag];
  const ring = (gap, far) => [
    { x: ext.r + gap, y: mid, a: "start", far },
    { x: ext.l - gap, y: mid, a: "end", far },
    { x: 0, y: ext.t - gap - desc, a: "middle", far },
    { x: 0, y: ext.b + gap + asc, a: "middle", far },
    { x: dr + gap, y: dt - gap - desc, a: "start", far },
    { x: dl - gap, y: dt - gap - desc, a: "end", far },
    { x: dr + gap, y: db + gap + asc, a: "start", far },
    { x: dl - gap, y: db + gap + asc, a: "end", far },
  ];
  const cands = ring(LABEL_GAP, 0);
  // Further off only where it cannot be read as another point's label.
  if (further) cands.push(...ring(LABEL_GAP + 10, 1).slice(0, 4));
  if (farthest) cands.push(...ring(LABEL_GAP + 22, 2));
  return cands;
}

const PAD_DIAG = 0.5; // PAD's diamond: its edge crosses the diagonal half way to the box's corner

const RANK = { selected: 0, hovered: 1, pad: 2, unk: 3, other: 4 };
const rankOf = (m) => (m.selected ? RANK.selected : m.hovered ? RANK.hovered : m.role === "pad" ? RANK.pad : m.role === "unk" ? RANK.unk : RANK.other);
const sameSpot = (c, prev) => !!prev && c.x.toFixed(2) === prev.x && c.y.toFixed(2) === prev.y && c.a === prev.a;

/**
 * Every shown label's place.
 * @param {Array<{i: number, x: number, y: number, ext: {l: number, r: number, t: number, b: number},
 *   role: string, selected: boolean, hovered?: boolean,
 *   label: null | false | {w: number, asc: number, desc: number, y0: number, prev?: {x: string, y: string, a: string}}}>} marks
 *   the points in drawing order: pixel, mark outline relative to the pixel, role, whether selected or
 *   hovered, and the label: null (none), false (not shown) or its measured box, the baseline y0 PAD's
 *   label prefers and the place it has now (`prev`, as written to its attributes)
 * @param {{l: number, t: number, r: number, b: number}} frame the plot's frame, in the same pixels
 * @returns {Array<{i: number, x?: string, y?: string, a?: string, crowd: boolean}>} per label, in
 *   planning order: where it goes (x, y as written to the attributes, its text-anchor) and whether it
 *   is hidden as crowded; an unshown label only loses "crowd"
 */
export function planLabels(marks, frame) {
  const items = [];
  const markBoxes = marks.map((m) => ({ l: m.x + m.ext.l - 2, r: m.x + m.ext.r + 2, t: m.y + m.ext.t - 2, b: m.y + m.ext.b + 2, i: m.i,
                                        weight: m.role === "pad" || m.role === "unk" || m.selected ? 5 : 1 }));
  const placed = []; // label boxes shown so far, grown by their halo
  const boxAt = (m, c, w, asc, desc) => {
    const l = c.a === "start" ? c.x : c.a === "end" ? c.x - w : c.x - w / 2;
    return { l: m.x + l, r: m.x + l + w, t: m.y + c.y - asc, b: m.y + c.y + desc };
  };
  // Where PAD's label would like to be: the labels that must show keep off it when they can.
  const pad = marks.find((m) => m.role === "pad" && m.label);
  const padWish = pad ? grown(boxAt(pad, { x: 0, y: pad.label.y0, a: "middle" }, pad.label.w, pad.label.asc, pad.label.desc), HALO) : null;
  const order = marks.filter((m) => m.label !== null).sort((a, b) => rankOf(a) - rankOf(b));
  for (const m of order) {
    if (m.label === false) { items.push({ i: m.i, crowd: false }); continue; }
    const { w, asc, desc, y0, prev } = m.label;
    const rank = rankOf(m);
    const must = rank <= RANK.hovered, matters = rank < RANK.other;
    let list = candidates(m.ext, asc, desc, matters || marks.length <= FEW_POINTS, matters, m.role === "pad" ? PAD_DIAG : 1);
    if (m.role === "pad") list = [{ x: 0, y: y0, a: "middle", far: 0 }, ...list];
    const k = list.findIndex((c) => sameSpot(c, prev));
    if (k > 0) list = [list[k], ...list.slice(0, k), ...list.slice(k + 1)]; // the place it has, tried first
    let best = null, cost = Infinity, bestFree = false;
    for (const c of list) {
      const box = boxAt(m, c, w, asc, desc), halo = grown(box, HALO);
      const fits = inside(halo, frame);
      let onLabels = 0;
      for (const p of placed) onLabels += overlap(halo, p);
      let onMarks = 0;
      // PAD's label stays above PAD over the ordinary dots gliding under it (the still point keeps a
      // still name); it moves only off UNK's mark, the selected one's or a label.
      for (const mb of markBoxes) if (mb.i !== m.i && (m.role !== "pad" || mb.weight > 1)) onMarks += overlap(box, mb) * mb.weight;
      const onPad = must && padWish ? overlap(halo, padWish) : 0;
      const free = fits && onLabels === 0;
      // Outside the frame or over a label: the last resort of a label that must show. Any other
      // label takes the first place that covers nothing.
      const k2 = (fits ? 0 : 1e9) + onLabels * 1e4 + onMarks + (matters ? onPad * 2 + FAR_COST[c.far] : 0);
      if (k2 < cost) { cost = k2; best = { ...c, box: halo }; bestFree = free; }
      if (k2 === 0) break;
    }
    const shown = must || (bestFree && (rank !== RANK.other || cost === 0));
    items.push(shown ? { i: m.i, x: best.x.toFixed(2), y: best.y.toFixed(2), a: best.a, crowd: false } : { i: m.i, crowd: true });
    if (shown) placed.push(best.box);
  }
  return items;
}
