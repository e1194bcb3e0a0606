// Number and word formatting of the stage (components/stage/js/format.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { MATH_POSITIONS, clamp, fmt, lookupMath, num, sig, tickText, tokenOf, words } from "../../components/stage/js/format.mjs";

const MINUS = "\u2212";

test("num keeps finite numbers and turns anything else into 0", () => {
  assert.equal(num(2.5), 2.5);
  for (const v of [NaN, Infinity, -Infinity, "3", null, undefined, [1], true]) assert.equal(num(v), 0);
  assert.equal(clamp(5, 0, 3), 3);
  assert.equal(clamp(-1, 0, 3), 0);
});

test("fmt writes a true minus sign and never a negative zero", () => {
  assert.equal(fmt(1.234), "1.23");
  assert.equal(fmt(-1.235, 1), `${MINUS}1.2`);
  assert.equal(fmt(-0.001), "0.00");
  assert.equal(fmt(-0.04, 1), "0.0");
  assert.equal(fmt(-0), "0.00");
  assert.equal(fmt("x"), "0.00");
});

test("sig keeps n significant digits and never rounds a non-zero value to 0", () => {
  assert.equal(sig(0.693147, 4), "0.6931");
  assert.equal(sig(0.00213, 2), "0.0021");
  assert.equal(sig(2.13e-4, 2), `2.1e${MINUS}4`);
  assert.equal(sig(3.5e-6, 2), `3.5e${MINUS}6`);
  assert.equal(sig(-2.5e-7, 2), `${MINUS}2.5e${MINUS}7`);
  assert.equal(sig(1234.5, 4), "1235");
  assert.equal(sig(999999.4, 4), "999999");
  assert.equal(sig(1.9717310773110554e35, 4), "1.972e35"); // a diverged loss fits its box
  assert.equal(sig(-2.5e7, 2), `${MINUS}2.5e7`);
  assert.equal(sig(12.34, 2), "12");
  assert.equal(sig(0, 2), "0");
  for (let e = -12; e <= 3; e++) {
    const v = 1.7 * 10 ** e;
    const s = sig(v, 2);
    assert.notEqual(s, "0");
    assert.ok(Math.abs(Number(s.replace(MINUS, "-")) - v) <= 0.05 * v + 0.5, `${v} → ${s}`);
  }
});

test("tick labels drop trailing zeros", () => {
  assert.equal(tickText(2.5), "2.5");
  assert.equal(tickText(-1), `${MINUS}1`);
  assert.equal(tickText(0), "0");
  assert.equal(tickText(10), "10");
  assert.equal(tickText(0.25), "0.25");
  assert.equal(tickText(-0.0000001), "0");
});

test("words and tokens come from the data, with fallbacks", () => {
  const d = { text: { step: "스텝", bad: 3 }, tokens: { 3: "좋다", 4: null } };
  assert.equal(words(d, "step", "step"), "스텝");
  assert.equal(words(d, "bad", "fallback"), "fallback");
  assert.equal(words({}, "loss", "loss"), "loss");
  assert.equal(tokenOf(d, 3), "좋다");
  assert.equal(tokenOf(d, 4), "4");
  assert.equal(tokenOf(d, 9), "9");
  assert.equal(tokenOf({}, 1), "1");
  assert.equal(tokenOf({ tokens: { 1: "<b>x</b>" } }, 1), "<b>x</b>"); // a string, drawn with textContent
});

test("lookupMath writes the selected row's places in the output as PyTorch indexes them", () => {
  assert.equal(lookupMath(4, 0, [3]), "out[0, 3] == W[4]");
  assert.equal(lookupMath(4, 1, [3, 9]), "out[1, [3, 9]] == W[4]");
  const many = Array.from({ length: MATH_POSITIONS + 1 }, (_, i) => i);
  assert.equal(lookupMath(2, 0, many.slice(0, MATH_POSITIONS)), `out[0, [${many.slice(0, MATH_POSITIONS).join(", ")}]] == W[2]`);
  assert.equal(lookupMath(2, 0, many), "out[0, ids[0] == 2] == W[2]");
});
