// W as a heatmap: one row per shown row of W (its id and token, a cell per column, in training its
// gradient norm, in lookup its count), the colour key in the footer. The output panel (lookup.mjs)
// reuses the row and cell builders, so a row of the output looks like its row of W.
import { el } from "./dom.mjs";
import { clamp, fmt, num, sig, tokenOf, words } from "./format.mjs";
import { THIN_COL, focusRows, gradFontSize, numberSample, planColumns, planRows, readW } from "./gridplan.mjs";
import { fitText, measureContext } from "./measure.mjs";
import { heatRgb, inkOn } from "./paint.mjs";

// Fill W's panel. The same rows, columns, tokens and room as the last update (a Step, a Play tick):
// only the numbers, colours, gradient bars and marks change, so they are written into the cells
// already there (st.w). Building the grid again costs a few layouts of the panel.
// `walkFocus`: the rows a Play walk keeps readable (animation.mjs), in place of the rows in focus of
// each walked step (its touched rows): building the grid at every step would cost the walk its
// frames, so it is built once for the walk and each step's numbers are written into it.
export function fillW(st, panel, d, train, walkFocus = null) {
  const w = readW(d, train);
  const present = !!d.present;
  const digits = String(Math.floor(Math.abs(num(w.absmax)))).length;
  const shape = JSON.stringify([train, present, st.dark, w.rows, w.e, w.withGrad, w.hasCount, d.pad, d.unk, digits,
    w.rows.map((id) => tokenOf(d, id)), words(d, "w_title", "W"), words(d, "touched", ""), words(d, "pad_zero_grad", ""),
  ]);
  // The rows that stay readable: the rows' heights depend on them, unless every row is readable alike.
  const focus = walkFocus || focusRows(d, train, st.selected);
  const focusKey = [...focus].sort((a, b) => a - b).join(",");
  const kept = st.w;
  if (kept && kept.panel === panel && kept.shape === shape && (kept.focusKey === null || kept.focusKey === focusKey)) {
    refreshW(st, kept, d, w, walkFocus !== null);
  } else st.w = buildW(st, panel, d, w, train, shape, focus, focusKey);
}

function refreshW(st, kept, d, w, walking) {
  setIfNew(kept.keyLo, "textContent", "\u2212" + num(w.absmax).toFixed(2));
  setIfNew(kept.keyHi, "textContent", "+" + num(w.absmax).toFixed(2));
  const gradCells = [];
  for (const k of kept.rows) {
    const touched = w.touched.has(String(k.id));
    if (k.row.classList.contains("touched") !== touched) k.row.classList.toggle("touched", touched);
    paintCells(st, k.cells, w.values[k.r] || [], kept.plan, k.nums, w.absmax, walking);
    if (k.gc) fillGrad(d, k.gc, w.grads[k.r] || 0, w.gmax, k.role, k.nums, gradCells);
    if (k.cnt) setIfNew(k.cnt, "textContent", w.counts[k.r] ? String(w.counts[k.r]) : "");
  }
  fitGradTextKept(st, kept, gradCells);
}

function buildW(st, panel, d, w, train, shape, focus, focusKey) {
  const { rows, values, e, absmax, touched, grads, gmax, counts, withGrad, hasCount } = w;
  const present = !!d.present;
  panel.textContent = "";
  const title = el("div", "ptitle", panel);
  el("span", "", title, words(d, "w_title", "W"));
  const grid = el("div", "wgrid", panel);
  const extra = (withGrad ? " minmax(4.6em, 0.9fr)" : "") + (hasCount ? " 2.4em" : "");
  const foot = el("div", "pfoot", panel);
  // The colour key sits in the footer, so the title keeps the whole width.
  const key = el("span", "heatkey", foot);
  const keyLo = el("span", "", key, "\u2212" + num(absmax).toFixed(2));
  el("span", "heatbar", key);
  const keyHi = el("span", "", key, "+" + num(absmax).toFixed(2));
  if (train) {
    const t = el("span", "fitem", foot);
    el("span", "touchmark", t);
    el("span", "", t, words(d, "touched", ""));
    if (rows.includes(d.pad)) el("span", "fitem padnote", foot, words(d, "pad_zero_grad", ""));
  }
  foot.insertBefore(key, null); // the key last: right-aligned after the notes
  const head = el("div", "wrow whead", grid);
  grid.style.setProperty("--cols", `var(--labw) repeat(${e}, minmax(0, 1fr))` + extra);
  const names = { grad: words(d, "grad_col", ""), count: words(d, "count_col", "") };
  fillHeadRow(head, "id", e, e, withGrad, hasCount, names);
  // Room for the rows: the panel less its padding, title, column header, footer, gaps (4 px) and row gaps (1 px).
  const room = panel.clientHeight - 20 - title.offsetHeight - head.offsetHeight - foot.offsetHeight - 12 - rows.length;
  const rp = planRows({ room, rows, train, present, focus });
  const rowH = rp.rowH;
  const plan = planColumns({ e, rowH, present, wanted: rp.readable },
                           columnMeasurer(st, grid, head, e, `var(--labw) %COLS%` + extra, absmax));
  st.wPlan = plan;
  fillHeadRow(head, "id", e, plan.shown, withGrad, hasCount, names);
  const showNums = plan.nums;
  grid.style.setProperty("--rowh", rowH + "px");
  grid.style.setProperty("--cellfs", plan.fs + "px");
  grid.style.setProperty("--labfs", labelSize(rowH, present) + "px");
  grid.classList.toggle("nonums", !showNums);
  grid.classList.toggle("nolabels", rowH < 8);
  grid.classList.toggle("tinyrows", rowH <= 4);
  grid.classList.toggle("thincols", plan.cw < THIN_COL);
  grid.classList.toggle("scroll", rp.scroll);
  grid.dataset.rows = String(rp.shown);
  // A count is written where its line fits its row: a strip of context never prints over its neighbours.
  const countLine = 1.25 * (present ? 1.2 : 0.85) * (parseFloat(getComputedStyle(panel).fontSize) || 15); // stage.css .wcnt
  const gradCells = [];
  const built = [];
  rows.forEach((id, r) => {
    const row = el("div", "wrow", grid);
    const h = rp.heights[r];
    if (!rp.focus[r]) { // a strip of context: colours, and its label only when there is room for one
      row.classList.add("ctx");
      if (h !== rowH) row.style.height = h + "px";
      row.style.setProperty("--labfs", (h >= 8 ? labelSize(h, present) : 0) + "px");
      if (h < countLine) row.classList.add("nocount");
    }
    row.setAttribute("data-token", String(id));
    row.tabIndex = 0;
    const role = id === d.pad ? "pad" : id === d.unk ? "unk" : "";
    if (role) row.classList.add(role);
    if (touched.has(String(id))) row.classList.add("touched");
    const lab = el("div", "wlab", row);
    el("span", "wid", lab, String(id));
    el("span", "wtok", lab, tokenOf(d, id));
    const nums = showNums && rp.focus[r];
    const cells = fillCells(st, row, values[r] || [], plan, nums, absmax);
    const gc = withGrad ? el("div", "wgrad", row) : null;
    if (gc) fillGrad(d, gc, grads[r] || 0, gmax, role, nums, gradCells);
    const cnt = hasCount ? el("div", "wcnt", row, counts[r] ? String(counts[r]) : "") : null;
    built.push({ id, r, row, cells, gc, cnt, role, nums });
  });
  if (rp.scroll) { // rows that scroll keep their offset when built again (a Step, a click)
    grid.scrollTop = st.wScroll;
    grid.addEventListener("scroll", () => { st.wScroll = grid.scrollTop; }, { passive: true });
  }
  if (!train) { fitText(panel, ".wtok"); requestAnimationFrame(() => fitText(panel, ".wtok")); }
  const gf = gradFit(gradCells); // before fitGradText sets a smaller type
  fitGradText(grid, gradCells, gf);
  return { panel, shape, focusKey: rp.alike ? null : focusKey, plan, grid, keyLo, keyHi, rows: built, gradFit: gf };
}

// The type of a row's label (id and token) for a row `h` px tall: the numbers' least size from a readable row on.
export function labelSize(h, present) {
  return clamp(h * 0.85, 7, present ? 24 : 15);
}

// planColumns' measurements of a grid whose column template is `colsTemplate` (%COLS% stands for
// the value columns): the header row's first value cell, with k columns in place.
export function columnMeasurer(st, grid, head, e, colsTemplate, absmax) {
  const setCols = (k) => grid.style.setProperty("--cols", colsTemplate.replace("%COLS%",
    `repeat(${k}, minmax(0, 1fr))` + (k < e ? " minmax(2.6em, 0.4fr)" : "")));
  const cellW = () => { const c = head.querySelector(".wdim"); return c ? c.getBoundingClientRect().width - 4 : 0; };
  let font = null;
  return {
    setCols,
    cellW,
    widthAt: (k) => {
      setCols(k);
      fillHeadRow(head, "", e, k, false, false); // measured with the "… +k" column in place
      return cellW();
    },
    labw: (v) => { if (v) grid.style.setProperty("--labw", v); else grid.style.removeProperty("--labw"); },
    per100: (dec) => {
      const ctx = measureContext(st);
      if (font === null) font = `600 100px ${getComputedStyle(st.root).fontFamily}`;
      ctx.font = font;
      return ctx.measureText(numberSample(absmax, dec)).width / 100;
    },
  };
}

// A row's gradient norm: a bar as long as its share of the largest, and the number when rows are tall
// enough; an exact zero is PAD's (always, hatched) or a row no batch looked up, never "0.00". The
// cell's structure is built when its kind changes; otherwise only what differs is written (a Play
// walk refreshes it at every step, and each write costs the page a new style and layout).
function fillGrad(d, gc, g, gmax, role, showNums, gradCells) {
  const form = `${g === 0}|${role}|${showNums}`;
  if (gc.wForm !== form) {
    gc.wForm = form;
    gc.textContent = "";
    gc.className = "wgrad";
    gc.removeAttribute("title");
    gc.wBar = gc.wText = null;
    if (g === 0) {
      gc.classList.add("zero");
      if (role === "pad") { gc.classList.add("padzero"); gc.title = words(d, "pad_zero_grad", ""); }
      if (showNums || role === "pad") el("span", "gtext", gc, "0");
    } else {
      gc.wBar = el("span", "gbar", gc);
      if (showNums) gc.wText = el("span", "gtext", gc, "");
    }
  }
  if (g === 0) return;
  setIfNew(gc.wBar.style, "width", `calc((100% - 8px) * ${Math.max(0.06, g / gmax).toFixed(4)})`);
  if (gc.wText) {
    setIfNew(gc.wText, "textContent", sig(g, 2));
    gradCells.push(gc.wText);
  }
}

// Write `value` only when it differs from what is there.
function setIfNew(target, name, value) {
  if (target[name] !== value) target[name] = value;
}

// What fitting the norms' type needs once the grid stands: the room in a cell and the type it starts
// from (the grid is rebuilt whenever its columns or rows change, so these hold until then).
function gradFit(gradCells) {
  if (!gradCells.length) return null;
  const cell = gradCells[0].parentElement;
  const cs = getComputedStyle(cell);
  return { room: cell.clientWidth - 8, fs: parseFloat(cs.fontSize) || 12, family: cs.fontFamily };
}

// "2.1e−4" in a narrow column: the norms' type shrinks until the widest fits.
function shrinkGradType(grid, fit, widest, margin) {
  const fs = gradFontSize(fit.room, fit.fs, widest, margin);
  const now = grid.style.getPropertyValue("--gradfs");
  if (fs !== null && now !== fs + "px") grid.style.setProperty("--gradfs", fs + "px");
  else if (fs === null && now) grid.style.removeProperty("--gradfs");
}

// For a grid just built: the numbers' own boxes on the page.
function fitGradText(grid, gradCells, fit) {
  if (!fit) { grid.style.removeProperty("--gradfs"); return; }
  shrinkGradType(grid, fit, Math.max(...gradCells.map((g) => g.getBoundingClientRect().width)), 0);
}

// For a grid kept from the last update: the numbers measured on a canvas instead of the page, since
// reading their boxes would lay the whole stage out in the middle of writing it. The numbers are set
// in tabular figures (stage.css), so every digit is as wide as "0". A grid built with no numbers in
// its gradient column measures a cell's room and type on the page once, at the first numbers.
function fitGradTextKept(st, kept, gradCells) {
  if (!gradCells.length) {
    if (kept.grid.style.getPropertyValue("--gradfs")) kept.grid.style.removeProperty("--gradfs");
    return;
  }
  if (!kept.gradFit) {
    kept.grid.style.removeProperty("--gradfs");
    kept.gradFit = gradFit(gradCells);
  }
  const fit = kept.gradFit;
  const ctx = measureContext(st);
  ctx.font = `600 ${fit.fs}px ${fit.family}`;
  const digit = ctx.measureText("0").width;
  const width = (text) => {
    let w = 0;
    for (const ch of text) w += ch >= "0" && ch <= "9" ? digit : ctx.measureText(ch).width;
    return w;
  };
  shrinkGradType(kept.grid, fit, Math.max(...gradCells.map((g) => width(g.textContent))), 1);
}

// The header row: the label column, `shown` of `e` column indices ("… +k" for the rest), then the
// gradient and count columns' headings.
// `names`: what the two symbols mean ({grad, count}), as their tooltip and accessible name.
export function fillHeadRow(head, label, e, shown, withGrad, hasCount, names) {
  head.textContent = "";
  el("div", "wlab", head, label);
  for (let j = 0; j < shown; j++) el("div", "wdim", head, String(j));
  if (shown < e) el("div", "wmore", head, `\u2026 +${e - shown}`);
  const named = (node, name) => { if (name) { node.title = name; node.setAttribute("aria-label", name); } };
  if (withGrad) named(el("div", "wgradh", head, "\u2016\u2207\u2016"), names && names.grad);
  if (hasCount) named(el("div", "wcnth", head, "\u00d7"), names && names.count);
}

export function fillCells(st, row, vals, plan, showNums, absmax) {
  const cells = [];
  for (let j = 0; j < plan.shown; j++) cells.push(el("div", "wcell", row));
  paintCells(st, cells, vals, plan, showNums, absmax);
  if (plan.shown < plan.e) el("div", "wmore", row, "\u2026");
  return cells;
}

// How far (in any of r, g, b) a cell's background may lag behind its value while Play walks: a
// walk writes every moved number at every step, and a colour only once it has moved this far, so
// the page repaints far fewer backgrounds per step; the walk's end writes every colour exactly.
const WALK_COLOUR_SLACK = 8;

function paintCells(st, cells, vals, plan, showNums, absmax, walking = false) {
  cells.forEach((c, j) => {
    const rgb = heatRgb(vals[j], absmax, st.dark);
    const ink = inkOn(rgb);
    const text = showNums ? fmt(vals[j], plan.dec) : "";
    setIfNew(c, "textContent", text); // most rows stand still in a step: only the moved ones are written
    const moved = c.wRgb ? Math.max(...rgb.map((x, i) => Math.abs(x - c.wRgb[i]))) : Infinity;
    if (c.wInk !== ink || moved > (walking ? WALK_COLOUR_SLACK : 0)) {
      c.wRgb = rgb;
      c.wInk = ink;
      c.style.background = `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;
      c.style.color = ink;
    }
  });
}
