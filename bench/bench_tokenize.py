"""The tokenizers' costs (issue 36, part 2): Kiwi's load, each split, WordPiece's training, and the first page.

    python bench/bench_tokenize.py              # ~1 min
    python bench/bench_tokenize.py --runs 1

Each measurement that includes an import or a load runs in a fresh Python process:

- Kiwi: ``import kiwipiepy``, ``Kiwi()``, its first ``tokenize`` (core/morphemes.py loads both in a thread).
- The morpheme split of the 40 Korean reviews, and of the largest text the app takes (512 sentences).
- WordPiece trained on the 40 Korean reviews and on 512 sentences (core/tokenize.py, subword_vocab=100).
- The first page under AppTest (the chapter, ``streamlit.testing``), and which of kiwipiepy and
  tokenizers that page imported: the first page must not load Kiwi unless the address asks for
  ``tokenizer=morpheme``; then the same page with ``?tokenizer=morpheme``, which waits for Kiwi.

The browser's first page against the bare page (the issue's ≤ 1.5×) is bench_warm.py's. Nothing
here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, machine_note, table  # noqa: E402

KIWI = """
import json, time
t0 = time.perf_counter(); from kiwipiepy import Kiwi; t1 = time.perf_counter()
kiwi = Kiwi(); t2 = time.perf_counter(); kiwi.tokenize("영화"); t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "first": t3 - t2}))
"""

SPLITS = """
import json, sys, time
sys.path.insert(0, ".")
from assets import presets
from core import morphemes, tokenize
texts = [" ".join(l.rsplit("|", 1)[0].split()) for l in presets.load("reviews_ko")["sentences"].splitlines() if l.strip()]
big = (texts * 13)[:512]
a = morphemes.wait(300)
out = {}
for name, xs in (("reviews_ko", texts), ("512 sentences", big)):
    t = time.perf_counter(); [tokenize.split(x, "morpheme", a) for x in xs]; out["morpheme " + name] = time.perf_counter() - t
    t = time.perf_counter(); sw = tokenize.train_subword(xs, 100); out["subword train " + name] = time.perf_counter() - t
    t = time.perf_counter(); [sw.spans(x) for x in xs]; out["subword split " + name] = time.perf_counter() - t
print(json.dumps(out))
"""

PAGE = """
import json, sys, time
sys.path.insert(0, ".")
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=300)
at.session_state["lang"] = "en"
if {morpheme}:
    at.query_params["tokenizer"] = "morpheme"
t = time.perf_counter(); at.run(); dt = time.perf_counter() - t
assert not at.exception, at.exception
print(json.dumps({{"page": dt, "kiwipiepy": "kiwipiepy" in sys.modules, "tokenizers": "tokenizers" in sys.modules}}))
"""


def run(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per measurement (at most 5)")
    runs = max(1, min(5, ap.parse_args().runs))
    print("## bench_tokenize: Kiwi, WordPiece and the first page\n")
    print(machine_note() + "\n")
    kiwi = [run(KIWI) for _ in range(runs)]
    rows = [[k, f"{median(kiwi, k) * 1000:.0f}", f"{min(r[k] for r in kiwi) * 1000:.0f}–{max(r[k] for r in kiwi) * 1000:.0f}"]
            for k in ("import", "load", "first")]
    print(f"### Kiwi in a fresh process (ms, {runs} runs)\n")
    print(table(["step", "median", "range"], [["import kiwipiepy", *rows[0][1:]], ["Kiwi()", *rows[1][1:]],
                                              ["first tokenize", *rows[2][1:]]]) + "\n")
    splits = [run(SPLITS) for _ in range(runs)]
    print(f"### Splits and training (ms, {runs} runs, after Kiwi is loaded)\n")
    print(table(["what", "median", "range"], [[k, f"{median(splits, k) * 1000:.1f}",
                                                f"{min(r[k] for r in splits) * 1000:.1f}–{max(r[k] for r in splits) * 1000:.1f}"]
                                               for k in splits[0]]) + "\n")
    page_rows = []
    for morpheme in (False, True):
        pages = [run(PAGE.format(morpheme=morpheme)) for _ in range(runs)]
        page_rows.append(["?tokenizer=morpheme" if morpheme else "the chapter (default)",
                          f"{median(pages, 'page') * 1000:.0f}",
                          f"{min(p['page'] for p in pages) * 1000:.0f}–{max(p['page'] for p in pages) * 1000:.0f}",
                          "yes" if any(p["kiwipiepy"] for p in pages) else "no",
                          "yes" if any(p["tokenizers"] for p in pages) else "no"])
    print(f"### The first page under AppTest, a fresh process each ({runs} runs)\n")
    print(table(["page", "median ms", "range ms", "imported kiwipiepy", "imported tokenizers"], page_rows))


if __name__ == "__main__":
    main()
