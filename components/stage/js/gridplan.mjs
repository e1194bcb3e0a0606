// What the grids show, decided from sizes: W's rows, the columns of W and of the output, the id
// matrix's columns, the gradient norms' type. Pure: measurements come in as numbers or as
// functions the DOM side supplies, so every rule here runs under node's test runner.
import { clamp, num } from "./format.mjs";

export const MIN_FS = 12; // px: the smallest type W's numbers are written in
export const MIN_FS_PRESENT = 24; // px: the same in presentation mode (read across a classroom)
export const MAX_FS = 21; // px: the largest type of W's numbers
export const MAX_FS_PRESENT = 28;
// px: the shortest row whose number (and label) is readable, at MIN_FS or MIN_FS_PRESENT with its line.
export const READABLE_ROW = 15;
export const READABLE_ROW_PRESENT = 30;
export const CONTEXT_ROW = 3; // px: the shortest row of context (a strip of its colours)
export const MIN_SWATCH = 4; // px: the narrowest column shown when W shows colours only
export const THIN_COL = 12; // px: columns narrower than this have no index in the header (the digits would overlap)
export const MIN_ID_FS = 13; // px: the smallest type of an id in the id matrix
export const ID_GAP = 6; // px: .idgrid's gap

// What W's panel draws, read from data.w: `train` adds the gradient column, lookup the counts.
export function readW(d, train) {
  const w = d.w || {};
  const rows = Array.isArray(w.rows) ? w.rows : [];
  const values = Array.isArray(w.values) ? w.values : [];
  const e = values.length ? values[0].length : 0;
  const absmax = num(w.absmax) || Math.max(1e-9, ...values.flat().map((v) => Math.abs(num(v))));
  const touched = new Set((w.touched || []).map(String));
  const grads = Array.isArray(w.grad_norm) ? w.grad_norm.map(num) : null;
  const gmax = grads && grads.length ? Math.max(...grads) || 1 : 1;
  const counts = Array.isArray(w.counts) ? w.counts : null;
  return { rows, values, e, absmax, touched, grads, gmax, counts,
           withGrad: train && grads !== null, hasCount: !train && counts !== null };
}

export const minFs = (present) => (present ? MIN_FS_PRESENT : MIN_FS);

// The rows of W that matter now, as a set of ids: in lookup the current sentence's ids (d.ids[out.b]),
// in training the rows the last step touched; in both PAD, UNK and the selected row. They keep a
// readable label and number however many rows W has (planRows).
export function focusRows(d, train, selected) {
  const f = new Set();
  const add = (v) => { if (Number.isInteger(v)) f.add(v); };
  if (train) for (const id of (d.w && d.w.touched) || []) add(Number(id));
  else {
    const b = d.out && Number.isInteger(d.out.b) ? d.out.b : 0;
    for (const id of (Array.isArray(d.ids) && d.ids[b]) || []) add(id);
  }
  add(d.pad);
  add(d.unk);
  add(selected);
  return f;
}

// W's rows in `room` px (the panel less its title, header, footer and gaps, a 1 px gap per row
// already taken off): each row's height and whether it is a readable row or a strip of context.
// When every row can be readable, all share the room alike (training keeps rows short; lookup lets a
// few grow). Otherwise focus and context: the rows in `focus` (focusRows) stay readable, the others
// are strips of a third of that at most, down to CONTEXT_ROW px, and the rows in focus take the rest
// of the room; when even that does not fit, the panel scrolls.
// `rowH` is the readable rows' height (the numbers' type follows it); `alike`: every row readable, so
// the plan does not depend on `focus`.
export function planRows({ room, rows, train, present, focus }) {
  const n = rows.length;
  const read = present ? READABLE_ROW_PRESENT : READABLE_ROW;
  const most = train ? (present ? 54 : 44) : (present ? 76 : 62);
  const even = Math.floor(clamp(room / Math.max(1, n), CONTEXT_ROW, most));
  const inFocus = rows.map((id) => !!(focus && focus.has(id)));
  const f = inFocus.filter(Boolean).length;
  if (even >= read || f === 0) { // all readable alike, or (nothing in focus) all a strip of colours alike
    return { rowH: even, readable: even >= read, heights: rows.map(() => even), focus: rows.map(() => even >= read),
             shown: n, scroll: n * even > room + 0.5, alike: even >= read };
  }
  const c = n - f;
  const ctx = c ? Math.floor(clamp((room - f * read) / c, CONTEXT_ROW, Math.max(CONTEXT_ROW, read / 3))) : 0; // strips stay strips
  const rowH = Math.floor(clamp((room - c * ctx) / f, read, most));
  const heights = inFocus.map((x) => (x ? rowH : ctx));
  return { rowH, readable: true, heights, focus: inFocus, shown: n, scroll: f * rowH + c * ctx > room + 0.5, alike: false };
}

// The widest number of a column at `dec` decimals, in digits of "0" (tabular figures): "−00.00".
export function numberSample(absmax, dec) {
  const digits = String(Math.max(1, Math.floor(Math.abs(num(absmax))) || 0)).replace(/\d/g, "0");
  return "\u2212" + digits + (dec ? "." + "0".repeat(dec) : "");
}

// How the numbers of a row of `e` cells fit: type size, decimals and how many columns show.
// 2 decimals at the largest size the row height allows, then smaller type (down to minFs), then
// 1 decimal, then fewer columns (the rest "… +k"), then a narrower token column. Colours only
// (rows too short to read, `wanted` false, or no column wide enough): every column at least
// MIN_SWATCH px wide; hundreds of columns in a narrow panel would otherwise be 0 px, unseen.
// `m` measures the grid: cellW() the cell's width as it stands, widthAt(k) its width with k
// columns shown, setCols(k) k columns without measuring, labw(v) the token column's width
// (null: the stylesheet's), per100(dec) a number's width per px of type. The grid is left with
// the columns the plan shows.
export function planColumns({ e, rowH, present, wanted }, m) {
  // The most columns, at most hi, whose cells are `need` px wide (0: none). Fewer columns are never
  // narrower, so a binary search finds it: a few layouts of the panel, not one per column.
  const most = (hi, need) => {
    let lo = 0;
    while (lo < hi) {
      const k = Math.ceil((lo + hi) / 2);
      if (m.widthAt(k) >= need - 4) lo = k;
      else hi = k - 1;
    }
    return lo;
  };
  const coloursOnly = () => {
    m.labw(null);
    let k = e, cw = Infinity;
    if (e) cw = m.widthAt(e) + 4;
    else m.setCols(e);
    if (e > 1 && cw < MIN_SWATCH) {
      k = Math.max(1, most(e - 1, MIN_SWATCH));
      cw = m.widthAt(k) + 4;
    }
    return { e, shown: k, dec: 2, fs: minFs(present), nums: false, cw };
  };
  if (!wanted) return coloursOnly();
  const least = minFs(present);
  const maxFs = clamp(rowH * (present ? 0.8 : 0.5), least, present ? MAX_FS_PRESENT : MAX_FS);
  let w = m.cellW();
  for (const dec of [2, 1]) {
    const fs = Math.min(maxFs, w / m.per100(dec));
    if (fs >= least) return { e, shown: e, dec, fs, nums: true };
  }
  // Too narrow even for "−0.0" at the least type: fewer columns, each wide enough for 2 decimals.
  const need = m.per100(2) * least + 6;
  for (const labw of [null, "4.4em"]) { // last resort: a narrower token column
    if (labw) m.labw(labw);
    const k = most(labw ? 1 : e - 1, need);
    if (k >= 1) {
      w = m.widthAt(k);
      return { e, shown: k, dec: 2, fs: Math.min(maxFs, w / m.per100(2)), nums: true };
    }
  }
  return coloursOnly(); // not even one column fits a number
}

// The output's plan given its own and W's (`wp`): a row of the output is a copy of a row of W, so it
// shows the same columns, decimals and type as W does (colours only when W shows colours only).
export function outputPlan(own, wp, e) {
  if (wp && wp.e === e && wp.nums && own.nums) {
    return { e, shown: Math.min(own.shown, wp.shown), dec: Math.min(own.dec, wp.dec), fs: Math.min(own.fs, wp.fs), nums: true };
  }
  if (wp && wp.e === e && !wp.nums) return { e, shown: wp.shown, dec: 2, fs: MIN_FS, nums: false, cw: wp.cw };
  return own;
}

// How many of the id matrix's `t` columns show in `room` px: all when each can be as wide as its
// widest id at MIN_ID_FS and its "t=j" header, else as many as fit beside a "… +k" column.
// `width(text, px, weight)` measures text in the stage's font; `fs` is the panel's type size.
export function planIdColumns({ ids, t, fs, room }, width) {
  if (t <= 1) return t;
  let maxId = 0;
  for (const r of ids) for (const v of r) if (v > maxId) maxId = v;
  const zeros = (n) => String(n).replace(/\d/g, "0");
  const cell = Math.max(width(zeros(maxId), MIN_ID_FS, 700), width("t=" + zeros(t - 1), fs * 0.8, 400)) + 14; // padding and border
  const rowHead = width("b=" + zeros(Math.max(0, ids.length - 1)), fs * 0.8, 400) + 4;
  const left = room - rowHead - ID_GAP;
  if (t * (cell + ID_GAP) - ID_GAP <= left) return t;
  const more = width(`\u2026 +${t}`, fs * 0.8, 400) + ID_GAP;
  return clamp(Math.floor((left - more + ID_GAP) / (cell + ID_GAP)), 1, t);
}

// Which of a row's T columns the id matrix shows, given how many fit (`fits`, planIdColumns) and the
// positions `where` of the selected token in the output's sentence: the first `fits`, unless the
// token is at none of them; then a window around its first position, "… +k" on both sides (one
// column gives way to the second marker). `page`: the first column the learner paged to with a
// "… +k" marker (null: none), which wins over the selection's window.
export function idWindow(t, fits, where, page = null) {
  if (fits >= t) return { first: 0, shown: fits };
  if (Number.isInteger(page)) {
    if (page <= 0) return { first: 0, shown: fits };
    const shown = Math.max(1, fits - 1);
    return { first: clamp(page, 1, t - shown), shown };
  }
  if (!where.length || where[0] < fits) return { first: 0, shown: fits };
  const shown = Math.max(1, fits - 1);
  return { first: clamp(where[0] - Math.floor(shown / 2), 1, t - shown), shown };
}

// Where each "… +k" marker of the id matrix pages to: the columns just past the window on the
// right (`next`), the page before it on the left (`prev`, back to the first column at the start).
export function idPages(t, fits, { first, shown }) {
  return { prev: first > 0 ? Math.max(0, first - Math.max(1, fits - 1)) : null,
           next: first + shown < t ? first + shown : null };
}

// The gradient norms' type when the widest (`widest` px at type `fs`) must fit `room` less
// `margin` px: smaller, down to 8 px; null when it fits as it is.
export function gradFontSize(room, fs, widest, margin) {
  const r = room - margin;
  return widest > r && room > 0 ? Math.max(8, (fs * r) / widest) : null;
}
