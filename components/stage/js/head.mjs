// The training layout: the head (step counter, loss sparkline and number, legend) above the
// scatter and W side by side. The head's height is fixed (stage.css), so the plot's box never moves.
import { el, sv } from "./dom.mjs";
import { num, sig, words } from "./format.mjs";
import { counterStep } from "./motion.mjs";
import { legendLooks, shapePath } from "./paint.mjs";
import { sparkUpTo } from "./scale.mjs";

export function layoutTrain(st, d) {
  const root = st.root;
  const head = el("div", "head", root);
  const step = el("div", "stepbox", head);
  el("div", "steplabel", step, words(d, "step", "step"));
  // A layout built again (a resize, presentation mode) keeps the step the counter showed.
  st.stepNum = el("div", "stepnum", step, st.stepNum ? st.stepNum.textContent : "0");
  st.stepNum.setAttribute("data-testid", "stage-step");
  const loss = el("div", "lossbox", head);
  el("div", "losslabel", loss, words(d, "loss", "loss"));
  st.lossSvg = sv("svg", { class: "spark", viewBox: "0 0 200 48", preserveAspectRatio: "none", role: "img",
                           "aria-label": words(d, "loss", "loss") }, loss);
  st.lossNum = el("div", "lossnum", loss, "");
  st.legend = el("div", "legend", head);
  st.legend.setAttribute("aria-label", words(d, "legend_title", "legend"));
  const body = el("div", "body train", root);
  st.scatterPanel = el("section", "panel scatter", body);
  st.wPanel = el("section", "panel wpanel", body);
}

export function fillHeader(st, d, animate) {
  st.loss = Array.isArray(d.loss) ? d.loss.map(num) : [];
  st.lossLast = num((d.scatter || {}).step);
  st.headStep = null; // a glide under way draws the head again at its next frame, on the new history
  const step = counterStep(d, animate, st.shown);
  // Null: Play's glide walks this data's steps and names each as it shows it (animation.mjs).
  if (step !== null) showStep(st, step, st.loss[st.loss.length - 1]);
  fillLegend(d, st.legend);
}

// The counter at `step` and, beside it, that step's loss (`value`): its number, the sparkline drawn
// up to it and the dot there. The head names one step, the one the points are drawn at. A Play
// frame that names no loss (null) leaves the loss as it was.
export function showStep(st, step, value) {
  if (!st.stepNum) return;
  st.stepNum.textContent = String(step);
  const loss = st.loss || [], svgEl = st.lossSvg;
  if (!loss.length || step < 1) {
    svgEl.textContent = "";
    st.lossNum.textContent = "\u2013";
    return;
  }
  if (value === null || value === undefined) return;
  svgEl.textContent = "";
  const line = sparkUpTo(loss, st.lossLast, step, num(value));
  sv("polyline", { points: line.points, class: "sparkline" }, svgEl);
  sv("circle", { cx: line.dot[0], cy: line.dot[1], r: 3.5, class: "sparkdot" }, svgEl);
  st.lossNum.textContent = sig(num(value), 4);
}

function legendIcon(parent, lk) {
  // Decorative: the words beside it name the kind of point (a screen reader reads those).
  const s = sv("svg", { width: 26, height: 26, viewBox: "-13 -13 26 26", class: "icon", "aria-hidden": "true" }, parent);
  const r = Math.min(lk.r, 10);
  sv("path", { d: shapePath(lk.shape, r), fill: lk.fill, stroke: lk.stroke === "var(--bg)" ? "var(--fg-soft)" : lk.stroke,
               "stroke-width": lk.cls === "unused" ? 2 : 1.5 }, s);
  return s;
}

// PAD, UNK, never looked up, then looked up by class, and the looked-up rows with no majority
// class when the scatter draws one: each with its mark as drawn in the scatter (paint.legendLooks).
function fillLegend(d, box) {
  box.textContent = "";
  el("div", "legendtitle", box, words(d, "legend_title", ""));
  const items = el("div", "legenditems", box);
  const classes = Array.isArray(d.classes) ? d.classes : [];
  const points = d.scatter || {};
  const prefix = words(d, "used", "used");
  for (const { kind, look: lk, cls } of legendLooks(points.role, points.cls, classes)) {
    const label = kind !== "used" ? words(d, kind, kind.toUpperCase())
      : cls === null || !classes.length ? prefix
      : cls < 0 ? words(d, "noclass", prefix)
      : `${prefix}: ${words(d, "class_prefix", "")}${classes[cls]}`;
    const it = el("span", "lg " + (kind === "used" ? "lg-used" : "lg-" + kind), items);
    legendIcon(it, lk);
    el("span", cls !== null && cls >= 0 && classes.length ? "lgname lgclass" : "lgname", it, label);
    it.setAttribute("title", label);
  }
}
