// Above each sentence's ids, the step before them: the raw sentence (data.raw[b].text), each token's
// characters marked in it, and the tokens as chips, one per column of the id matrix. A raw piece, a
// chip and an id cell of one token share data-token, data-b and data-t, so hovering or selecting any
// of them lights all three (index.mjs), and a click on any of them is a click on that cell.
import { el } from "./dom.mjs";
import { words } from "./format.mjs";
import { rawPieces } from "./rawplan.mjs";

// The raw text's row: spans the id columns. Tokens past the id matrix's T are struck through.
export function addRawRow(grid, d, i, cur) {
  const raw = Array.isArray(d.raw) ? d.raw[i] : null;
  const ids = (Array.isArray(d.ids) && d.ids[i]) || [];
  const kept = ((Array.isArray(d.sentences) && d.sentences[i]) || []).length; // tokens that got an id
  const line = el("div", "rawrow" + (cur ? " cur" : ""), grid);
  line.setAttribute("data-b", String(i));
  if (!raw || typeof raw.text !== "string") return line;
  const name = words(d, "raw_name", "sentence b={b}: {sentence}");
  // Functions as replacements: a sentence's own "$&" or "$1" stays as typed.
  line.setAttribute("title", name.replace("{b}", () => String(i)).replace("{sentence}", () => raw.text));
  for (const piece of rawPieces(raw.text, raw.spans)) {
    let at = line;
    for (const t of piece.ts) { // two tokens of one syllable: one inside the other
      const span = el("span", "rawtok" + (t % 2 ? " odd" : ""), at);
      if (t < kept && ids[t] !== undefined) {
        span.setAttribute("data-token", String(ids[t]));
        span.setAttribute("data-b", String(i));
        span.setAttribute("data-t", String(t));
      } else {
        span.classList.add("cut");
        span.setAttribute("title", words(d, "cut", "cut off at T"));
      }
      at = span;
    }
    at.appendChild(document.createTextNode(piece.text));
  }
  return line;
}

// The tokens' row: a chip per shown column (`cols`: the id matrix's window, idWindow) with the token
// as the tokenizer gave it (before the vocabulary turned it into <UNK>); the id cell under it says
// what the vocabulary made of it. Hidden from screen readers: each id cell's name already says the
// token (idmatrix.mjs).
export function addChipRow(grid, d, i, cur, cols) {
  const ids = (Array.isArray(d.ids) && d.ids[i]) || [];
  const typed = (Array.isArray(d.sentences) && d.sentences[i]) || [];
  const { first, shown, left, right } = cols;
  if (left) el("div", "tokslot", grid).setAttribute("aria-hidden", "true");
  for (let j = first; j < first + shown; j++) {
    const slot = el("div", "tokslot", grid);
    slot.setAttribute("aria-hidden", "true");
    if (typed[j] === undefined || ids[j] === undefined) continue;
    const chip = el("span", "tokchip" + (cur ? " cur" : ""), slot, String(typed[j]));
    chip.setAttribute("data-token", String(ids[j]));
    chip.setAttribute("data-b", String(i));
    chip.setAttribute("data-t", String(j));
    if (ids[j] === d.unk) chip.classList.add("unk");
  }
  if (right) el("div", "tokslot", grid).setAttribute("aria-hidden", "true");
}
