// The neighbours row under the plot: the selected token and its nearest rows by cosine, as chips.
import { el } from "./dom.mjs";
import { num, tokenOf } from "./format.mjs";

// The selected token's nearest rows by cosine, as chips (a row with nothing keeps its height).
export function fillNeighbours(st, d) {
  const box = st.neighBox;
  if (!box) return;
  box.textContent = "";
  const nb = d.neighbours;
  if (!nb || !Array.isArray(nb.ids) || !nb.ids.length) return; // the row keeps its height: the plot never resizes
  const of = el("span", "nof", box, tokenOf(d, nb.of));
  of.setAttribute("data-token", String(nb.of));
  el("span", "narrow", box, "\u2192");
  nb.ids.forEach((id, i) => {
    const c = el("span", "chip", box);
    c.setAttribute("data-token", String(id));
    c.tabIndex = 0;
    el("span", "ctok", c, tokenOf(d, id));
    if (Array.isArray(nb.cos)) el("span", "ccos", c, num(nb.cos[i]).toFixed(2));
  });
}
