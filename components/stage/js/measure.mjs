// Measuring in the stage's own font: a canvas to measure text off the page, text set smaller
// until it fits its box, and the marks' and labels' boxes (kept per node in the stage's state
// until the page's fonts change).

// The stage's canvas context for measuring text (no layout of the page).
export function measureContext(st) {
  if (!st.measure) st.measure = document.createElement("canvas").getContext("2d");
  return st.measure;
}

// The next type size for text `width` px wide in `room` px at `fs` px, or null when it fits
// (or is already 8 px). Never below 8 px; at least half a pixel smaller each round.
export function shrunk(fs, room, width) {
  if (!(width > room - 0.5 && fs > 8)) return null;
  return Math.max(8, Math.min(fs - 0.5, (fs * (room - 0.5)) / width));
}

// Text wider than its box (a long token, "<UNK>" in a narrow cell) is set smaller, down to 8 px, rather than clipped.
// Every node is measured first and written after, in rounds: the browser lays the panel out once a
// round rather than once a node (thousands of id cells). A node's box never depends on another's type.
export function fitText(panel, selector) {
  let items = [];
  for (const n of panel.querySelectorAll(selector)) {
    const cs = getComputedStyle(n);
    const room = n.getBoundingClientRect().width - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0)
      - (parseFloat(cs.borderLeftWidth) || 0) - (parseFloat(cs.borderRightWidth) || 0); // the text's own box (a chip has a border)
    if (!(room > 0)) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    items.push({ n, range, room, fs: parseFloat(cs.fontSize) || 12 });
  }
  // The text's own width (unrounded, unlike scrollWidth), so a glyph's fraction never turns into "…".
  for (let i = 0; i < 16 && items.length; i++) {
    const widths = items.map((it) => it.range.getBoundingClientRect().width);
    items = items.filter((it, k) => {
      const fs = shrunk(it.fs, it.room, widths[k]);
      if (fs === null) return false;
      it.fs = fs;
      return true;
    });
    for (const it of items) it.n.style.fontSize = it.fs + "px";
  }
}

// A point's mark outline (its shape and, measured, its stroke) around the point, kept until the
// node's classes change (hover and selection widen the stroke).
export function markExtent(st, g) {
  const cls = g.getAttribute("class");
  const kept = st.boxes.marks.get(g);
  if (kept && kept.cls === cls) return kept.ext;
  const mk = g.querySelector(".mark");
  const bb = mk ? mk.getBBox() : { x: -8, y: -8, width: 16, height: 16 };
  const sw = (parseFloat(mk ? getComputedStyle(mk).strokeWidth : "2") || 2) / 2;
  const ext = { l: bb.x - sw, r: bb.x + bb.width + sw, t: bb.y - sw, b: bb.y + bb.height + sw };
  st.boxes.marks.set(g, { cls, ext });
  return ext;
}

// A label's text box (width, height, extent above and below its baseline), kept per node: its text
// never changes, and a label hidden as crowded (display: none) has no box to measure (null).
export function labelBox(st, lab, g) {
  const cls = g.getAttribute("class") + "/" + lab.getAttribute("class").replace(/\s*crowd/, "");
  const kept = st.boxes.labels.get(lab);
  if (kept && kept.cls === cls) return kept;
  const tb = lab.getBBox();
  if (!tb.width) return null;
  const y0 = Number(lab.getAttribute("y")) || 0;
  const box = { cls, w: tb.width, h: tb.height, asc: y0 - tb.y, desc: tb.y + tb.height - y0 };
  st.boxes.labels.set(lab, box);
  return box;
}

// Every box measured so far, and the label plan made with them, forgotten (the fonts changed).
export function forgetBoxes(st) {
  st.labelPlan = null;
  st.boxes = { marks: new WeakMap(), labels: new WeakMap() };
}
