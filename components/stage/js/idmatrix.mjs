// The id matrix of the lookup: one row per sentence (b), one cell per position (t) with the id and its
// token; above each row, when the data has `raw`, the raw sentence and its tokens (rawrow.mjs),
// else, in a cell the vocabulary changed (UNK), the word as typed; the selection's note below.
import { el } from "./dom.mjs";
import { clamp, lookupMath, tokenOf, words } from "./format.mjs";
import { idPages, idWindow, planIdColumns } from "./gridplan.mjs";
import { fitText, measureContext } from "./measure.mjs";
import { addChipRow, addRawRow } from "./rawrow.mjs";

// The lookup's batch as the id matrix draws it: its rows, the output's sentence b and the longest T.
export function idShape(d) {
  const ids = Array.isArray(d.ids) ? d.ids : [];
  return { ids, b: d.out && Number.isInteger(d.out.b) ? d.out.b : 0, t: ids.length ? Math.max(...ids.map((r) => r.length)) : 0 };
}

export function fillIds(st, d) {
  const p = st.idsPanel;
  p.textContent = "";
  const title = el("div", "ptitle", p);
  el("span", "", title, words(d, "ids_title", "ids"));
  const { ids, b, t } = idShape(d);
  const grid = el("div", "idgrid", p);
  // The selected token's places in the output's sentence: a window of columns that shows one.
  const sel = st.selected;
  const row = ids[b] || [];
  const where = row.map((id, j) => (id === sel ? j : -1)).filter((j) => j >= 0);
  // Which columns: a page the learner moved to with a "… +k" marker, or the window they clicked a
  // cell in (st.idPage, while the selection and the sentence are those it was made for); else the
  // window drawn last while it shows one of the selected token's places; else one around its first.
  const pg = st.idPage;
  const mine = pg && pg.sel === sel && pg.b === b && pg.t === t;
  const targets = mine && pg.at !== null ? [pg.at] : where;
  const last = st.idWin;
  let page = mine ? pg.first : null;
  if (page === null && last && last.b === b && last.t === t && targets.some((j) => j >= last.first && j < last.first + last.shown)) {
    page = last.first;
  }
  const fits = idColumns(st, p, ids, t);
  const win = idWindow(t, fits, targets, page);
  const { first, shown } = win;
  st.idWin = { first, shown, b, t };
  const pages = idPages(t, fits, win);
  const left = first > 0, right = first + shown < t;
  grid.style.gridTemplateColumns = `auto ${left ? "auto " : ""}repeat(${shown}, minmax(0, 1fr))` + (right ? " auto" : "");
  // Cells grow with the room a tall screen leaves (the selection note below keeps ~7 em), after
  // each sentence's raw text and tokens (about three lines). Presenting, a cell holds a 34 px id and its token (80 px).
  const withRaw = Array.isArray(d.raw);
  const fs = parseFloat(getComputedStyle(p).getPropertyValue("--fs")) || 15;
  const rawH = withRaw ? 3.2 * fs + 12 : 0;
  const cellH = clamp((p.clientHeight - title.offsetHeight - 160) / Math.max(1, ids.length) - 8 - rawH, d.present ? 80 : 58, d.present ? 120 : 96);
  grid.style.setProperty("--cellh", cellH + "px");
  const corner = el("div", "idh colh", grid, "");
  // The column markers page the window: a button each, named for what it shows (the stage's click
  // handler reads data-page; index.mjs).
  const marker = (text, to, name, side) => {
    const m = el("div", "idh colh idmore", grid, text);
    m.setAttribute("data-page", String(to));
    m.setAttribute("data-side", side);
    m.setAttribute("role", "button");
    m.tabIndex = 0;
    m.title = words(d, name, "");
    m.setAttribute("aria-label", `${text}: ${m.title}`);
  };
  if (left) marker(`\u2026 +${first}`, pages.prev, "ids_prev", "prev");
  for (let j = first; j < first + shown; j++) el("div", "idh colh", grid, "t=" + j);
  if (right) marker(`\u2026 +${t - first - shown}`, pages.next, "ids_next", "next");
  const addRow = (i) => {
    const row = ids[i];
    const rh = el("div", "idh rowh" + (i === b ? " cur" : ""), grid, "b=" + i);
    rh.setAttribute("data-b", String(i));
    if (withRaw) { // b=i beside its three lines: raw text, tokens, ids
      rh.classList.add("span3");
      const line = addRawRow(grid, d, i, i === b);
      addChipRow(grid, d, i, i === b, { first, shown, left, right });
      if (left) showFrom(line, first);
    }
    const typed = (Array.isArray(d.sentences) && d.sentences[i]) || [];
    if (left) el("div", "idh idmore", grid, "\u2026");
    for (let j = first; j < first + shown; j++) {
      const id = row[j];
      const c = el("div", "idcell" + (i === b ? " cur" : ""), grid);
      if (id === undefined) continue;
      c.setAttribute("data-token", String(id));
      c.tabIndex = 0;
      c.setAttribute("data-b", String(i));
      c.setAttribute("data-t", String(j));
      if (id === d.pad) c.classList.add("pad");
      if (id === d.unk) c.classList.add("unk");
      // Read as one thing: "b=0, t=1: 정말, 번호 0, <UNK>" (the word as typed, its id, the id's token),
      // a name from its content (a hidden line), the visible pieces hidden from screen readers: an
      // aria-label would not contain the visible text, which speech input users say (WCAG 2.5.3).
      c.setAttribute("role", "button");
      const tok = tokenOf(d, id);
      el("span", "srname", c, cellName(d, i, j, typed[j], id, tok));
      el("div", "idnum", c, String(id)).setAttribute("aria-hidden", "true");
      el("div", "idtok", c, tok).setAttribute("aria-hidden", "true");
      if (!withRaw && typed[j] !== undefined && String(typed[j]) !== tok) el("div", "idtyped", c, String(typed[j])).setAttribute("aria-hidden", "true");
    }
    if (right) el("div", "idh idmore", grid, "\u2026");
  };
  // Only the rows in view are built (a batch of 256 sentences is thousands of cells), and every
  // sentence can be reached: the grid scrolls, and rows are added as it scrolls towards its end.
  // A first build reaches the current row and the last scroll offset (kept across reruns, which
  // build the grid again); a panel that grows with its rows (stacked, on a phone) gets them all.
  let built = 0;
  const buildTo = (need, top) => { // rows up to `need`, and one screen past the view at scroll offset `top`
    for (let chunk = Math.max(1, need - built); built < ids.length; chunk *= 2) {
      const stop = Math.min(ids.length, built + chunk);
      while (built < stop) addRow(built++);
      if (built >= need && grid.scrollHeight > top + 2 * grid.clientHeight) break;
    }
    grid.dataset.rows = String(built);
  };
  const kept = st.idB === b ? st.idScroll : 0; // the learner's scroll, unless the output shows another sentence now
  buildTo(b + 1, kept);
  grid.scrollTop = kept;
  st.idB = b;
  grid.addEventListener("scroll", () => {
    st.idScroll = grid.scrollTop;
    if (built < ids.length && grid.scrollTop + grid.clientHeight > grid.scrollHeight - 2 * (cellH + 6)) {
      buildTo(built + 1, grid.scrollTop);
    }
  }, { passive: true });
  if (built < ids.length) {
    // The row labels' column stays as wide as the widest label, built or not ("b=255": digits are tabular).
    const widest = el("span", "", corner, "b=" + (ids.length - 1));
    widest.style.cssText = "visibility: hidden; padding-right: 2px;";
  }
  // What the selection means, in symbols: the cell's id picks a row of W, copied to the output.
  const note = el("div", "selnote", p);
  if (sel !== null && sel !== undefined && where.length) {
    el("div", "sellabel", note, words(d, "selected", ""));
    const line = el("div", "selline", note);
    line.setAttribute("data-token", String(sel));
    el("span", "seltok", line, `${sel} · ${tokenOf(d, sel)}`);
    el("span", "selmath", line, lookupMath(sel, b, where));
  }
  // Measured once the note below has taken its room from the grid (a taller grid would have cut
  // the kept offset short).
  if (kept === 0) showCurrentRow(grid);
  else grid.scrollTop = kept;
  st.idScroll = grid.scrollTop;
  // A token wider than its cell ("<UNK>" in a narrow one) is set smaller rather than clipped.
  const fit = () => {
    fitText(p, ".idnum, .idtok, .idtyped, .tokchip, .selmath");
    // Every id at one size, that of the longest: a short id set larger would read as more important.
    const nums = [...p.querySelectorAll(".idnum")];
    const least = Math.min(...nums.map((n) => parseFloat(n.style.fontSize) || Infinity));
    if (isFinite(least)) for (const n of nums) n.style.fontSize = least + "px";
  };
  fit();
  requestAnimationFrame(fit); // again once every panel has its width
}

// The output's sentence in view: the grid scrolls until its id cells are whole, but never so far that
// its first line (its raw text, or its row of ids) goes under the sticky column heads.
function showCurrentRow(grid) {
  const first = grid.querySelector(".idh.rowh.cur");
  const cells = grid.querySelectorAll(".idcell.cur");
  const head = grid.querySelector(".idh.colh");
  if (!first || !cells.length || !head) return;
  const g = grid.getBoundingClientRect();
  const below = cells[cells.length - 1].getBoundingClientRect().bottom - g.bottom;
  const room = first.getBoundingClientRect().top - (g.top + head.offsetHeight + 6);
  if (below > 0) grid.scrollTop += Math.max(0, Math.min(below + 2, room));
}

// The raw text above columns that start at t = first: scrolled (its overflow is hidden) so that it
// starts at that token's characters, as the chips and id cells under it do.
function showFrom(line, first) {
  const piece = line.querySelector(`.rawtok[data-t="${first}"]`);
  if (!piece) return;
  line.style.textOverflow = "clip"; // an ellipsis would leave the characters past the unscrolled edge undrawn
  line.scrollLeft += piece.getBoundingClientRect().left - line.getBoundingClientRect().left;
}

// How many of the T columns show (planIdColumns), measured in the panel's font on a canvas.
// Fifty columns of five-digit ids in a third of a projector's width would otherwise print over each other.
function idColumns(st, p, ids, t) {
  if (t <= 1) return t;
  const cs = getComputedStyle(p);
  const fs = parseFloat(cs.getPropertyValue("--fs")) || 15;
  const ctx = measureContext(st);
  const width = (text, size, weight) => { ctx.font = `${weight} ${size}px ${cs.fontFamily}`; return ctx.measureText(text).width; };
  const room = p.clientWidth - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0);
  return planIdColumns({ ids, t, fs, room }, width);
}

// A cell's accessible name, from the stage's words ("cell_name": "b={b}, t={t}: {typed}, 번호 {id}, {token}").
function cellName(d, b, t, typed, id, tok) {
  const pattern = words(d, "cell_name", "b={b}, t={t}: {typed}, id {id}, {token}");
  const word = typed === undefined ? tok : String(typed);
  const values = { b: String(b), t: String(t), typed: word, id: String(id), token: tok };
  return pattern.replace(/\{(b|t|typed|id|token)\}/g, (_, k) => values[k]);
}
