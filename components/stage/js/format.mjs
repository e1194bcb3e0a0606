// Numbers and words as the stage writes them. Pure: no DOM.

export const clamp = (v, a, b) => Math.max(a, Math.min(b, v));

// A finite number, or 0 for anything else (data is read defensively).
export const num = (v) => (typeof v === "number" && isFinite(v) ? v : 0);

// `dec` decimals with a true minus sign; a value that rounds to zero never reads "−0.00".
export const fmt = (v, dec = 2) => {
  const s = num(v).toFixed(dec);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s.replace("-", "\u2212");
};

// `n` significant digits, never rounded to zero: 0.6931, 0.0021, 2.1e−4 (an exact 0 stays "0").
export const sig = (v, n) => {
  const x = num(v), a = Math.abs(x);
  if (x === 0) return "0";
  let s;
  if (a >= 1e6) s = x.toExponential(n - 1).replace("+", ""); // a diverging loss: "1.972e35", never 22 digits
  else if (a >= Math.pow(10, n - 1)) s = String(Math.round(x));
  else if (a >= 1e-3) s = x.toPrecision(n);
  else s = x.toExponential(n - 1);
  return s.replace(/-/g, "\u2212");
};

// An axis tick: at most 2 decimals, trailing zeros dropped ("2.5", "−1", "0").
export const tickText = (v) => fmt(v).replace(/\.?0+$/, "") || "0";

// A word of the page's language from data.text, or `fallback` when the server sent none.
export const words = (d, k, fallback) => (d.text && typeof d.text[k] === "string" ? d.text[k] : fallback);

// A token as the vocabulary writes it; its id when the data has no text for it.
export const tokenOf = (d, id) => {
  const t = d.tokens && d.tokens[String(id)];
  return t === undefined || t === null ? String(id) : String(t);
};

// What a selected id means for the output, as a PyTorch expression that holds (every element
// True): the output's rows at the positions `where` of sentence `b` equal W's row `sel`
// ("out[0, 3] == W[4]", "out[0, [3, 7]] == W[4]"); past a handful of positions, the boolean mask
// that picks them ("out[0, ids[0] == 2] == W[2]", `ids` as the exported code names the batch).
export const MATH_POSITIONS = 6;
export const lookupMath = (sel, b, where) => {
  const at = where.length === 1 ? String(where[0])
    : where.length <= MATH_POSITIONS ? `[${where.join(", ")}]` : `ids[${b}] == ${sel}`;
  return `out[${b}, ${at}] == W[${sel}]`;
};
