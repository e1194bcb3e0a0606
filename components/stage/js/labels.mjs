// The scatter's labels on the page: their marks and boxes measured, planned (labelplan.mjs) and
// written. Written when the picture settles; worked out while the points glide, for where they will
// arrive, so that arriving costs only writing them.
import { planLabels } from "./labelplan.mjs";
import { labelBox, markExtent } from "./measure.mjs";
import { FRAME_MS } from "./motion.mjs";
import { mapX, mapY } from "./scale.mjs";

// What a label plan depends on besides the points' positions: the point nodes, the data (the final
// positions), the hovered and the selected token.
const labelKey = (st) => [st.scatter.sig, st.renders, st.hover, st.selected].join("|");

// The labels at the points as drawn now: the plan made during the glide if it still holds.
export function placeLabels(st) {
  const sc = st.scatter;
  if (!sc || !sc.px) return;
  const plan = st.labelPlan;
  st.labelPlan = null;
  applyLabels((plan && plan.key === labelKey(st) && plan) || planAt(st, sc.px, sc.py, true));
}

// The labels' places at the glide's end, worked out between its first frames (the points' final
// pixels are known).
export function planLabelsLater(st, a, fin) {
  st.labelPlan = null;
  setTimeout(() => {
    const sc = st.scatter;
    if (st.anim !== a || !sc || !sc.range) return;
    const n = fin.x.length, px = new Float32Array(n), py = new Float32Array(n);
    for (let i = 0; i < n; i++) { px[i] = mapX(sc, fin.x[i]); py[i] = mapY(sc, fin.y[i]); }
    const plan = planAt(st, px, py, false);
    st.labelPlan = plan ? { key: labelKey(st), ...plan } : null;
  }, 2 * FRAME_MS);
}

// The plan for the points at pixels (px, py), and each point's label node. Shown labels are the
// always-on ones and the hovered or selected point's (stage.css, crowding aside). With `now` false
// nothing is written, and a shown label never measured (hidden as crowded since it was made) makes
// the plan null; with `now` it is shown to be measured.
function planAt(st, px, py, now) {
  const sc = st.scatter;
  const marks = [];
  const labs = new Map();
  for (const [i, g] of sc.nodes) {
    marks.push({ i, g, x: px[i], y: py[i], ext: markExtent(st, g), role: sc.roles[i], selected: sc.ids[i] === st.selected, label: null });
  }
  for (const m of marks) {
    const lab = m.g.querySelector(".lbl");
    if (!lab) continue;
    labs.set(m.i, lab);
    if (!(lab.classList.contains("on") || m.g.classList.contains("hl") || m.g.classList.contains("sel"))) { m.label = false; continue; }
    let box = labelBox(st, lab, m.g);
    if (!box && now) { lab.classList.remove("crowd"); box = labelBox(st, lab, m.g); }
    if (!box && !now) return null;
    m.label = box ? { w: box.w, asc: box.asc, desc: box.desc, y0: Number(lab.getAttribute("y")) || 0 } : false;
  }
  return { items: planLabels(marks, { width: sc.W, bottom: sc.H - sc.m.b }), labs };
}

function applyLabels({ items, labs }) {
  for (const it of items) {
    const lab = labs.get(it.i);
    if (it.x !== undefined) {
      lab.setAttribute("x", it.x);
      lab.setAttribute("y", it.y);
      lab.setAttribute("text-anchor", it.a);
    }
    lab.classList.toggle("crowd", it.crowd);
  }
}
