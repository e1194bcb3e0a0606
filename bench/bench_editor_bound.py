"""What a vocabulary-editor message with 300,000 added rows costs the server now that it is refused
before Streamlit applies it (issue 17: one such 16 MB websocket message used to hold a core for
over 7 minutes).

    python bench/bench_editor_bound.py            # 300,000 rows, 3 repetitions
    python bench/bench_editor_bound.py --rows 8000 --reps 5

Prints, interleaved per repetition:

- the script rerun in AppTest with the pending edit in session state (refused, then dropped)
  against the same rerun with no pending edit: the refusal's own cost;
- Streamlit's own decoding of that edit as the websocket delivers it (``DataEditorSerde.deserialize``
  of the JSON string, the only part of a real message AppTest skips) and the message's size.

A benchmark, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import time

from _common import ROOT  # noqa: F401  (puts the repository on sys.path)
from streamlit.elements.widgets.data_editor import DataEditorSerde
from streamlit.testing.v1 import AppTest


def rows(n: int) -> list[dict]:
    return [{"token": f"w{i:06d}", "id": 6 + i, "role": "normal"} for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=300_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    edit = {"edited_rows": {}, "added_rows": rows(args.rows), "deleted_rows": []}
    message = json.dumps(edit)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()
    refused, plain, decode = [], [], []
    for _ in range(args.reps):
        at.session_state["vocab"] = edit
        t0 = time.perf_counter()
        at.run()
        refused.append(time.perf_counter() - t0)
        assert not at.session_state["vocab"]["added_rows"], "the edit was not dropped"
        t0 = time.perf_counter()
        at.run()
        plain.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        DataEditorSerde().deserialize(message)
        decode.append(time.perf_counter() - t0)
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    print(f"pending edit: {args.rows:,} added rows, {len(message) / 1e6:.1f} MB as JSON, {args.reps} repetitions")
    print(f"rerun with the edit (refused): median {med(refused) * 1000:.0f} ms  (all: {', '.join(f'{x * 1000:.0f}' for x in refused)})")
    print(f"rerun without an edit:         median {med(plain) * 1000:.0f} ms")
    print(f"Streamlit decoding the message: median {med(decode) * 1000:.0f} ms")
    print(f"server cost of one such message ≈ {(med(refused) + med(decode)) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
