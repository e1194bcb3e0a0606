// The scatter's labels on the page: their marks and boxes measured, planned (labelplan.mjs) and
// written. Planned again at every frame of a glide, for where the points are drawn in it, so that
// no two labels cover each other and none leaves the frame while the points move, and again when
// the hover or the selection changes.
import { planLabels } from "./labelplan.mjs";
import { labelBox, markExtent } from "./measure.mjs";

// What a label plan depends on besides the points' positions: the point nodes, the renders (the
// data), the hovered and the selected token, the hovered canvas point's node.
const labelKey = (st) => [st.scatter.sig, st.renders, st.hover, st.selected, !!st.scatter.hoverMarker].join("|");

// The labels at the points as drawn now (sc.px, sc.py).
export function placeLabels(st) {
  const sc = st.scatter;
  if (!sc || !sc.px) return;
  let kept = st.labelPlan;
  if (!kept || kept.key !== labelKey(st)) kept = st.labelPlan = { key: labelKey(st), ...scaffold(st) };
  for (const m of kept.marks) {
    m.x = sc.px[m.i];
    m.y = sc.py[m.i];
    if (m.label) m.label.prev = placeOf(kept.labs.get(m.i));
  }
  const { W, H, m } = sc;
  applyLabels(planLabels(kept.marks, { l: m.l, t: m.t, r: W - m.r, b: H - m.b }), kept.labs);
}

const placeOf = (lab) => ({ x: lab.getAttribute("x"), y: lab.getAttribute("y"), a: lab.getAttribute("text-anchor") || "start" });

// The marks and labels to plan, measured: kept while the label key holds, so a glide's frames only
// move them. Shown labels are the always-on ones and the hovered or selected point's (stage.css,
// crowding aside); a label hidden as crowded is shown for a moment to be measured the first time
// (nothing is painted in between).
function scaffold(st) {
  const sc = st.scatter;
  const marks = [];
  const labs = new Map();
  const nodes = [...sc.nodes];
  if (sc.hoverMarker) { // a hovered point drawn only in pixels has its own node, with its label
    const i = sc.ids.indexOf(Number(sc.hoverMarker.getAttribute("data-token")));
    if (i >= 0) nodes.push([i, sc.hoverMarker]);
  }
  for (const [i, g] of nodes) {
    const hovered = g.classList.contains("hl");
    const m = { i, x: 0, y: 0, ext: markExtent(st, g), role: sc.roles[i], selected: sc.ids[i] === st.selected, hovered, label: null };
    marks.push(m);
    const lab = g.querySelector(".lbl");
    if (!lab) continue;
    labs.set(i, lab);
    if (!(lab.classList.contains("on") || hovered || g.classList.contains("sel"))) { m.label = false; continue; }
    let box = labelBox(st, lab, g);
    if (!box) { lab.classList.remove("crowd"); box = labelBox(st, lab, g); }
    if (!box) { m.label = false; continue; }
    // PAD's label prefers the baseline it was built with (data-y0), wherever it stands now.
    const y0 = lab.hasAttribute("data-y0") ? Number(lab.getAttribute("data-y0")) : Number(lab.getAttribute("y")) || 0;
    m.label = { w: box.w, asc: box.asc, desc: box.desc, y0, prev: null };
  }
  return { marks, labs };
}

// Written only where something changed: a glide writes the plan at every frame.
function applyLabels(items, labs) {
  for (const it of items) {
    const lab = labs.get(it.i);
    if (it.x !== undefined) {
      if (lab.getAttribute("x") !== it.x) lab.setAttribute("x", it.x);
      if (lab.getAttribute("y") !== it.y) lab.setAttribute("y", it.y);
      if (lab.getAttribute("text-anchor") !== it.a) lab.setAttribute("text-anchor", it.a);
    }
    if (lab.classList.contains("crowd") !== it.crowd) lab.classList.toggle("crowd", it.crowd);
  }
}
