// Streamlit's own widget texts in the page's language (Streamlit 1.67 writes them in English only).
//
// data = {lang: "ko" | "en", rules: [[english, korean] | [streamlit's english, korean, english], ...]};
// "{x}" in a rule stands for any text. A three-form rule rewrites Streamlit's own English in either
// language (and the page's other-language form of it, after a switch).
// On a Korean page every text node and label attribute Streamlit draws that matches a rule's English
// form is rewritten in Korean; on an English page, the other way (a page switched back from Korean).
// A MutationObserver keeps it so as Streamlit redraws. Only Streamlit's chrome is rewritten: never
// the learner's tokens, sentences or any Markdown, table or chart text (see `allowedText`).
//
// The same pass mends two things a screen reader would otherwise read badly (see `fixA11y`):
// Plotly's pictures with nothing to say (`DECORATIVE`) are hidden from the accessibility tree (each
// was read as a nameless image or graphic); and a field whose aria-labelledby names itself and its
// visible label, both with the same words (Streamlit's slider), is named by the label alone (it was
// read twice: "Scrub through steps Scrub through steps").

const ATTRS = ["aria-label", "title", "placeholder", "data-title", "aria-placeholder", "aria-description"];
const CHROME_TEXT = '[data-testid="stFileUploaderDropzone"], [data-testid="stSkipToContent"], '
  + '[data-testid="InputInstructions"], [data-testid="stStatusWidget"], [data-testid="stDownloadButtonError"], [role="listbox"], [aria-live]';
const CONTENT = '[data-testid="stMarkdownContainer"]:not([data-testid="stFileUploaderDropzone"] *), '
  + '.st-key-stage, [data-testid="stDataFrame"], [data-testid="stTable"], code, pre, [role="option"][aria-selected]';
// SVG with nothing to say: the icon inside each button of Plotly's mode bar (the button has its own
// aria-label), the SVG Plotly keeps off-screen to measure text, and a chart's drag layer (the
// transparent rectangles that take the mouse's zoom and pan, each a nameless graphic in the tree).
// tests/streamlit_dom.py reads this list; tests/e2e/test_streamlit_dom.py checks each selector
// still matches on a page with a chart.
const DECORATIVE = [".modebar-btn > svg", "svg#js-plotly-tester", ".js-plotly-plot g.draglayer"];
const DECORATIVE_SEL = DECORATIVE.join(", ");
let state = null;

export default function ({ data }) {
  const lang = data && (data.lang === "ko" || data.lang === "en") ? data.lang : null;
  const rules = data && Array.isArray(data.rules) ? data.rules : [];
  if (!lang) return;
  if (!state) {
    state = { lang, compiled: [], observer: new MutationObserver(onMutations) };
    state.observer.observe(document.body, { subtree: true, childList: true, characterData: true,
                                             attributes: true, attributeFilter: [...ATTRS, "aria-labelledby"] });
  }
  state.lang = lang;
  state.compiled = compile(rules, lang);
  fix(document.body);
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// [from, to] pairs for this page's language: from a regexp of the other language's form (and, for
// a three-form rule, of Streamlit's own English too).
function compile(rules, lang) {
  const out = [];
  const add = (from, to) => {
    const parts = from.split("{x}").map(escapeRe);
    const re = new RegExp("^" + parts.join("(.+?)") + "$", "s");
    out.push({ re, to, words: from.trim().split(/\s+/).length });
  };
  for (const r of rules.slice(0, 500)) {
    if (!Array.isArray(r) || typeof r[0] !== "string" || typeof r[1] !== "string") continue;
    if (typeof r[2] === "string") {
      const [mine, other] = lang === "ko" ? [r[1], r[2]] : [r[2], r[1]];
      add(r[0], mine);
      add(other, mine);
    } else {
      const [from, to] = lang === "ko" ? [r[0], r[1]] : [r[1], r[0]];
      add(from, to);
    }
  }
  return out;
}

function translate(text, anyLength) {
  const t = text.trim();
  if (!t) return null;
  for (const c of state.compiled) {
    if (!anyLength && c.words < 2 && !c.to.includes("{x}")) continue;
    const m = c.re.exec(t);
    if (m) return text.replace(t, c.to.replace("{x}", m[1] !== undefined ? m[1] : ""));
  }
  return null;
}

// Text inside Streamlit's chrome; a one-word rule ("Upload", "Open") only where it cannot be a
// learner's token (tokens have no spaces, so a many-word rule can never be one).
function allowedText(node) {
  const p = node.parentElement;
  if (!p || p.closest(CONTENT)) return null;
  if (p.closest('[data-testid="stFileUploaderDropzone"]')) return true;
  if (p.closest(CHROME_TEXT)) return false;
  return null;
}

function fixText(node) {
  const anyLength = allowedText(node);
  if (anyLength === null) return;
  const out = translate(node.nodeValue, anyLength);
  if (out !== null && out !== node.nodeValue) node.nodeValue = out;
}

function fixAttrs(el) {
  if (el.closest(".st-key-stage")) return;
  for (const a of ATTRS) {
    const v = el.getAttribute(a);
    if (!v) continue;
    const out = translate(v, true);
    if (out !== null && out !== v) el.setAttribute(a, out);
  }
}

// A decorative picture hidden; an element's aria-labelledby without its own id when the other
// elements it names say the same as its own aria-label (Streamlit's slider names its input and the
// slider's group, both labelled with the widget's label: the name would say the words twice).
function fixA11y(el) {
  if ((el.tagName === "svg" || el.tagName === "g") && el.getAttribute("aria-hidden") !== "true"
      && el.matches(DECORATIVE_SEL)) {
    el.setAttribute("aria-hidden", "true");
    return;
  }
  const by = el.id && el.getAttribute("aria-labelledby");
  if (!by) return;
  const ids = by.split(/\s+/);
  if (!ids.includes(el.id) || ids.length < 2) return;
  const own = (el.getAttribute("aria-label") || "").trim();
  const others = ids.filter(i => i !== el.id);
  const said = others.map(i => {
    const o = document.getElementById(i);
    return o ? (o.getAttribute("aria-label") || o.textContent).trim() : "";
  }).join(" ");
  if (own && said === own) el.setAttribute("aria-labelledby", others.join(" "));
}

function fixElement(el) {
  fixAttrs(el);
  fixA11y(el);
}

function fix(root) {
  if (root.nodeType === 3) { fixText(root); return; }
  if (root.nodeType !== 1) return;
  fixElement(root);
  const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  let n;
  while ((n = tw.nextNode())) {
    if (n.nodeType === 3) fixText(n);
    else fixElement(n);
  }
}

function onMutations(list) {
  if (!state) return;
  for (const m of list) {
    if (m.type === "childList") m.addedNodes.forEach(fix);
    else if (m.type === "characterData") fixText(m.target);
    else if (m.type === "attributes") fixElement(m.target);
  }
}
