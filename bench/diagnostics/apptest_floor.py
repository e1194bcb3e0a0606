"""The floor under issue 14's AppTest goal: a Step of the app next to a page with the same widgets and no work.

    python bench/diagnostics/apptest_floor.py                 # chapter and reviews_ko, 40 rounds (~1 min)
    python bench/diagnostics/apptest_floor.py --rounds 20 --presets chapter

A diagnostic, not in run_all.py. AppTest runs the whole script for every click, so a Step there
costs every widget of the training view, not only the stage's fragment. ``_skeleton_app.py`` draws
those widgets (same keys, types, places and fragments) fed constants: no torch, no explorer, the
stage with the chapter's amount of sample data and without its code.
Its Step click is the floor for any page that keeps these controls; ``lean`` is the same page with
the editors box, the PAD editor and the axis popover closed and empty (built only while open).
Each round clicks the app's Step, the skeleton's, the lean skeleton's and the bare page's button
(bench/bare_app.py), so noise hits all of them; ratios are medians of each round's ratio to the
bare click. The widget keys of the app's training view and of the skeleton are compared first.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
sys.path.insert(0, str(BENCH))
from _common import fmt_ms, machine_note, table  # noqa: E402

logging.getLogger("streamlit").setLevel(logging.ERROR)
from streamlit.testing.v1 import AppTest  # noqa: E402

SKELETON = HERE / "_skeleton_app.py"


def widget_keys(at: AppTest) -> set[str]:
    """User keys of the widgets (and keyed custom components) on the page AppTest holds."""
    keys, todo = set(), [at._tree]
    while todo:
        node = todo.pop()
        key = getattr(node, "key", None)
        if isinstance(key, str) and key:
            keys.add(key)
        children = getattr(node, "children", None) or {}
        todo.extend(children.values() if isinstance(children, dict) else children)
    return keys


def skeleton(lean: bool) -> AppTest:
    os.environ["SKELETON"] = "lean" if lean else ""
    return AppTest.from_file(str(SKELETON), default_timeout=600).run()


def click(at: AppTest, key: str, lean: bool | None = None) -> float:
    if lean is not None:
        os.environ["SKELETON"] = "lean" if lean else ""
    t0 = time.perf_counter()
    at.button(key=key).click().run()
    if at.exception:
        raise SystemExit(f"{key}: {at.exception[0].message}")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--presets", default="chapter,reviews_ko")
    args = ap.parse_args()
    print(f"# apptest_floor: a Step through AppTest, the app vs the same widgets with no work\n\n{machine_note()}\n")
    bare = AppTest.from_file(str(BENCH / "bare_app.py"), default_timeout=600).run()
    full, lean = skeleton(False), skeleton(True)
    rows = []
    for preset in args.presets.split(","):
        app = AppTest.from_file(str(BENCH.parent / "app.py"), default_timeout=600)
        app.session_state["lang"] = "en"
        app.run()
        if preset != "chapter":
            app.selectbox(key="preset").set_value(preset)
            app.button(key="load_preset").click().run()
        app.button_group(key="section").set_value("train").run()
        app.button(key="run_steps").click().run()
        click(app, "step")
        theirs, ours = widget_keys(app), widget_keys(full)
        if theirs != ours:
            print(f"{preset}: widget keys differ. Only in the app: {sorted(theirs - ours)}; "
                  f"only in the skeleton: {sorted(ours - theirs)}\n")
        times = {"app": [], "skeleton": [], "lean": [], "bare": []}
        for _ in range(args.rounds):
            times["app"].append(click(app, "step"))
            times["skeleton"].append(click(full, "step", lean=False))
            times["lean"].append(click(lean, "step", lean=True))
            times["bare"].append(click(bare, "click"))
        for name, label in (("app", "the app's Step"), ("skeleton", "skeleton: the same widgets, no work"),
                            ("lean", "skeleton, editors / PAD / axis built only while open"),
                            ("bare", "bare page's click")):
            xs = times[name]
            ratio = statistics.median(a / b for a, b in zip(xs, times["bare"]))
            rows.append([preset, label, fmt_ms(statistics.median(xs)), f"{ratio:.2f}×", str(len(xs))])
    print(table(["preset", "page", "click p50 ms", "/ bare (paired)", "n"], rows))
    print(f"\n{machine_note()}")


if __name__ == "__main__":
    main()
