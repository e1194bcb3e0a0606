import assert from "node:assert/strict";
import { test } from "node:test";

import { rawPieces } from "../../components/stage/js/rawplan.mjs";

test("each morpheme's characters carry its position, the space none", () => {
  // 영화가 정말 좋았다 under Kiwi: 영화 가 정말 좋 었 다 (었 came from 았)
  const spans = [[0, 2], [2, 3], [4, 6], [7, 8], [8, 9], [9, 10]];
  assert.deepEqual(rawPieces("영화가 정말 좋았다", spans), [
    { text: "영화", ts: [0] }, { text: "가", ts: [1] }, { text: " ", ts: [] }, { text: "정말", ts: [2] },
    { text: " ", ts: [] }, { text: "좋", ts: [3] }, { text: "았", ts: [4] }, { text: "다", ts: [5] },
  ]);
});

test("two tokens from one syllable share its piece", () => {
  assert.deepEqual(rawPieces("했다", [[0, 1], [0, 1], [1, 2]]), [{ text: "했", ts: [0, 1] }, { text: "다", ts: [2] }]);
});

test("no spans, or broken ones, leave the text whole and unmarked", () => {
  assert.deepEqual(rawPieces("영화 좋다", null), [{ text: "영화 좋다", ts: [] }]);
  assert.deepEqual(rawPieces("ab", [[1, 9], [1, 0], ["0", 1], [0.5, 1]]), [{ text: "ab", ts: [] }]);
  assert.deepEqual(rawPieces(undefined, [[0, 1]]), []);
});

test("offsets count code points, as Python's do", () => {
  assert.deepEqual(rawPieces("😀 a", [[0, 1], [2, 3]]), [{ text: "😀", ts: [0] }, { text: " ", ts: [] }, { text: "a", ts: [1] }]);
});
