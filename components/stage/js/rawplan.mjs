// The raw sentence cut into pieces by the tokens' spans (data.raw, ../README.md): which characters
// of the text each token came from, so that the text itself can carry each token's highlight.
// Pure: no DOM (tests/js/rawplan.test.mjs).

/**
 * The text as consecutive pieces, each with the positions t of the tokens whose span covers it
 * (several when a tokenizer gives two tokens one syllable: Kiwi's 했 → 하 + 었; none between words).
 * `spans[t]` is [start, end) in characters; a span out of range, reversed or not two integers is
 * left out, so data that breaks the contract shows the text unmarked rather than throwing.
 * @param {string} text
 * @param {Array<[number, number]>|null|undefined} spans
 * @returns {Array<{text: string, ts: number[]}>}
 */
export function rawPieces(text, spans) {
  const s = typeof text === "string" ? Array.from(text) : []; // by code point, as Python counts
  const n = s.length;
  const ok = (Array.isArray(spans) ? spans : []).map((sp, t) => {
    const good = Array.isArray(sp) && sp.length === 2 && Number.isInteger(sp[0]) && Number.isInteger(sp[1])
      && sp[0] >= 0 && sp[0] < sp[1] && sp[1] <= n;
    return good ? { a: sp[0], b: sp[1], t } : null;
  }).filter(Boolean);
  const cuts = new Set([0, n]);
  for (const { a, b } of ok) { cuts.add(a); cuts.add(b); }
  const edges = [...cuts].sort((x, y) => x - y);
  const out = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const a = edges[i], b = edges[i + 1];
    const ts = ok.filter((sp) => sp.a <= a && b <= sp.b).map((sp) => sp.t);
    const prev = out[out.length - 1];
    const piece = s.slice(a, b).join("");
    // Uncovered text next to uncovered text is one piece (a space, or the whole text unmarked).
    if (prev && !ts.length && !prev.ts.length) prev.text += piece;
    else out.push({ text: piece, ts });
  }
  return out;
}
