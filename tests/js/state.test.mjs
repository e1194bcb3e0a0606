// The stage's state is declared in one place (components/stage/js/state.mjs): every property any
// module reads or writes on a stage (`st`) or its scatter (`sc`, `st.scatter`) is one the factories
// create, and nothing else can be added.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createScatter, createStage } from "../../components/stage/js/state.mjs";

const DIR = new URL("../../components/stage/js/", import.meta.url);
const sources = readdirSync(DIR).filter((f) => f.endsWith(".mjs")).map((f) => [f, readFileSync(new URL(f, DIR), "utf8")]);
const used = (re) => {
  const out = new Map();
  for (const [f, text] of sources) for (const m of text.matchAll(re)) out.set(m[1], f);
  return out;
};

test("every property of a stage that a module uses is declared by createStage", () => {
  const declared = new Set(Object.keys(createStage({}, {})));
  const props = used(/\bst\.([A-Za-z_$][\w$]*)/g);
  assert.ok(props.size > 20);
  for (const [p, f] of props) assert.ok(declared.has(p), `${f} uses st.${p}, which state.mjs does not declare`);
});

test("every property of a scatter that a module uses is declared by createScatter", () => {
  const declared = new Set(Object.keys(createScatter({})));
  const props = new Map([...used(/\bsc\.([A-Za-z_$][\w$]*)/g), ...used(/\bst\.scatter\.([A-Za-z_$][\w$]*)/g)]);
  assert.ok(props.size > 20);
  for (const [p, f] of props) assert.ok(declared.has(p), `${f} uses sc.${p}, which state.mjs does not declare`);
});

test("no state is kept on DOM nodes", () => {
  for (const [f, text] of sources) assert.doesNotMatch(text, /\.\s*_[A-Za-z]\w*\s*=[^=]/, f);
});

test("a property added outside the factories is an error", () => {
  const st = createStage({}, {});
  st.selected = 3; // declared: assignable
  assert.throws(() => { st.somethingNew = 1; }, TypeError); // modules are strict: a sealed object refuses it
  const sc = createScatter({});
  assert.throws(() => { sc.extra = 1; }, TypeError);
  assert.equal(Object.isSealed(st) && Object.isSealed(sc), true);
});
