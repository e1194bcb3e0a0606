// The lookup's layout: the id matrix, W, the output (a copy of W's rows, one per position of the
// current sentence) and, on a wide screen, the scatter; wires join the selection across panels.
import { el, sv } from "./dom.mjs";
import { clamp, num, tokenOf, words } from "./format.mjs";
import { THIN_COL, outputPlan, planColumns, planRows } from "./gridplan.mjs";
import { fitText } from "./measure.mjs";
import { columnMeasurer, fillCells, fillHeadRow, labelSize } from "./wgrid.mjs";

export const WIDE_LOOKUP = 1500; // px: from this width on, the lookup shows the scatter too
const STRIP_LABEL = 12; // px: the lowest strip of the output that keeps its "t=5 좋다" (at 10 px type)

export function layoutLookup(st, d) {
  const root = st.root;
  const wide = d.scatter && st.width >= WIDE_LOOKUP;
  const body = el("div", "body lookup" + (wide ? " withscatter" : ""), root);
  st.idsPanel = el("section", "panel idspanel", body);
  st.wPanel = el("section", "panel wpanel", body);
  st.outPanel = el("section", "panel outpanel", body);
  st.scatterPanel = wide ? el("section", "panel scatter", body) : null;
  st.wires = sv("svg", { class: "wires", "aria-hidden": "true" }, root);  // lines that echo a hover: nothing to read
}

export function fillOut(st, d) {
  const p = st.outPanel;
  p.textContent = "";
  const out = d.out || {};
  const b = Number.isInteger(out.b) ? out.b : 0;
  const present = !!d.present;
  const title = el("div", "ptitle", p);
  const named = words(d, "out_title", "out"); // "문장 b={b}의 출력 벡터": the sentence named as the id matrix names it
  el("span", "", title, named.includes("{b}") ? named.replace("{b}", String(b)) : `${named} [${b}]`);
  const vals = Array.isArray(out.values) ? out.values : [];
  const e = vals.length ? vals[0].length : 0;
  const ids = (Array.isArray(d.ids) && d.ids[b]) || [];
  const absmax = num((d.w || {}).absmax) || 1;
  const grid = el("div", "wgrid outgrid", p);
  grid.style.setProperty("--cols", `var(--labw) repeat(${e}, minmax(0, 1fr))`);
  const head = el("div", "wrow whead", grid);
  fillHeadRow(head, "t", e, e, false, false);
  // The output's rows are planned as W's are (planRows): when a long sentence's rows cannot all be
  // readable, the selected token's positions stay readable and the others are strips of their colours;
  // with no token selected (or one not in this sentence) every position is readable and the rows scroll.
  const room = p.clientHeight - 14 - title.offsetHeight - head.offsetHeight - 8 - vals.length;
  const rows = vals.map((_, t) => ids[t]);
  const sel = st.selected;
  const focus = new Set(Number.isInteger(sel) && rows.includes(sel) ? [sel] : rows.filter(Number.isInteger));
  const rp = planRows({ room, rows, train: false, present, focus });
  const rowH = rp.rowH;
  grid.style.setProperty("--rowh", rowH + "px");
  const own = planColumns({ e, rowH, present, wanted: rp.readable },
                          columnMeasurer(st, grid, head, e, "var(--labw) %COLS%", absmax));
  const plan = outputPlan(own, st.wPlan, e);
  grid.style.setProperty("--cols", `var(--labw) repeat(${plan.shown}, minmax(0, 1fr))` + (plan.shown < e ? " minmax(2.6em, 0.4fr)" : ""));
  fillHeadRow(head, "t", e, plan.shown, false, false);
  grid.style.setProperty("--cellfs", plan.fs + "px");
  grid.style.setProperty("--labfs", labelSize(rowH, present) + "px");
  grid.classList.toggle("nonums", !plan.nums);
  grid.classList.toggle("nolabels", rowH < 8);
  grid.classList.toggle("thincols", plan.cw < THIN_COL);
  grid.classList.toggle("scroll", rp.scroll);
  const built = vals.map((row, t) => {
    const r = el("div", "wrow", grid);
    const id = ids[t];
    const h = rp.heights[t];
    if (!rp.focus[t]) { // a strip of context, as in W; its label only where it can be read
      r.classList.add("ctx");
      if (h !== rowH) r.style.height = h + "px";
      r.style.setProperty("--labfs", (h >= STRIP_LABEL ? labelSize(h, present) : 0) + "px");
    }
    if (id !== undefined) r.setAttribute("data-token", String(id));
    if (id === d.pad) r.classList.add("pad");
    if (id === d.unk) r.classList.add("unk");
    r.setAttribute("data-t", String(t));
    const lab = el("div", "wlab", r);
    el("span", "wid", lab, "t=" + t);
    el("span", "wtok", lab, id === undefined ? "" : tokenOf(d, id));
    fillCells(st, r, row, plan, plan.nums && rp.focus[t], absmax);
    return r;
  });
  if (st.outB !== b) st.outScroll = 0; // another sentence starts at its first position
  st.outB = b;
  if (rp.scroll) { // kept across rebuilds, unless no selected position would be in view
    grid.scrollTop = st.outScroll;
    const mine = built.filter((_, t) => rows[t] === sel);
    const g = grid.getBoundingClientRect(), hh = head.offsetHeight;
    const seen = (r) => { const q = r.getBoundingClientRect(); return q.top >= g.top + hh - 1 && q.bottom <= g.bottom + 1; };
    if (mine.length && !mine.some(seen)) grid.scrollTop += mine[0].getBoundingClientRect().top - g.top - hh;
    st.outScroll = grid.scrollTop;
    grid.addEventListener("scroll", () => { st.outScroll = grid.scrollTop; }, { passive: true });
  }
  fitText(p, ".wtok");
  requestAnimationFrame(() => fitText(p, ".wtok"));
}

// The selected id's cells, its W row and its output rows, joined by lines: one connected thing.
export function drawConnectors(st) {
  const svgEl = st.wires;
  if (!svgEl || !svgEl.isConnected) return;
  svgEl.textContent = "";
  const sel = st.selected;
  const root = st.root.getBoundingClientRect();
  svgEl.setAttribute("width", root.width);
  svgEl.setAttribute("height", root.height);
  if (sel === null || sel === undefined) return;
  const q = (panel, extra) => panel ? Array.from(panel.querySelectorAll(`[data-token="${sel}"]${extra || ""}`)) : [];
  // Only ends in view: a cell or row scrolled out of its grid, or under its sticky heads, has no wire.
  const inView = (e) => {
    const g = e.closest(".idgrid, .wgrid");
    if (!g || g.scrollHeight <= g.clientHeight + 1) return true;
    const r = e.getBoundingClientRect(), v = g.getBoundingClientRect();
    const head = g.querySelector(":scope > .whead, :scope > .idh.colh");
    const top = head ? Math.max(v.top, head.getBoundingClientRect().bottom) : v.top;
    return (r.top + r.bottom) / 2 > top && (r.top + r.bottom) / 2 < v.bottom;
  };
  const cells = q(st.idsPanel, ".idcell.cur").filter(inView);
  const wrow = q(st.wPanel, ".wrow").filter(inView)[0];
  const outs = q(st.outPanel, ".wrow").filter(inView);
  if (!wrow) return;
  const box = (e) => { const r = e.getBoundingClientRect(); return { l: r.left - root.left, r: r.right - root.left, t: r.top - root.top, b: r.bottom - root.top }; };
  const W = box(wrow);
  const link = (a, bb) => {
    const x1 = a.r, y1 = (a.t + a.b) / 2, x2 = bb.l, y2 = (bb.t + bb.b) / 2, mx = (x1 + x2) / 2;
    sv("path", { d: `M${x1},${y1}C${mx},${y1} ${mx},${y2} ${x2},${y2}`, class: "wire" }, svgEl);
    sv("circle", { cx: x1, cy: y1, r: 4, class: "wiredot" }, svgEl);
    sv("circle", { cx: x2, cy: y2, r: 4, class: "wiredot" }, svgEl);
  };
  for (const c of cells) link(box(c), W);
  for (const o of outs) link(W, box(o));
}
