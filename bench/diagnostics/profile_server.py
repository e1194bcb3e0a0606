"""Where the server's time goes in the interactions that miss their goals: cProfile inside AppTest's script runs.

    python bench/diagnostics/profile_server.py              # chapter and reviews_ko, and the large preset (~1 min)
    python bench/diagnostics/profile_server.py --no-large   # ~30 s

A diagnostic, not in run_all.py: it answers no goal, it says where to look when one is missed.
AppTest runs the script in its own thread, which a profiler started here never sees, so the page
runs under ``_profiled_app.py`` (page.main() inside cProfile, each script run added to one stats
file). Printed per case: the app's own frames, a few heavy library ones and torch's built-in calls,
by cumulative time. cProfile inflates small calls; ``ablate_server.py`` measures parts in wall time.
"""

from __future__ import annotations

import argparse
import logging
import os
import pstats
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from _common import ROOT, machine_note, table  # noqa: E402

logging.getLogger("streamlit").setLevel(logging.ERROR)
from streamlit.testing.v1 import AppTest  # noqa: E402

PROFILED_APP = str(HERE / "_profiled_app.py")
TIMEOUT = 600


PROFILE_FRAMES = (re.escape(str(ROOT)) + r"|plotly/basedatatypes.py:(424|3293)|arrayprint.py|plotly_chart.py|dataframe_util.py|"
                  r"arrow.py|sklearn/base.py|torch/optim/|torch/nn/modules/module.py|marshal|_repr_html|style_render")


def print_profile(path: str, title: str, top: int = 20) -> None:
    """The app's own frames, a few heavy library ones and torch's built-in calls (≥ 2 %), by cumulative
    time, with their share of all the time the profiler saw in those script runs (frames nest, so
    shares do not add up)."""
    stats = pstats.Stats(path)
    total = stats.total_tt
    rows = []
    for (file, line, fn), (cc, nc, tt, ct, _) in stats.stats.items():
        short = file[len(str(ROOT)) + 1:] if file.startswith(str(ROOT)) else "/".join(file.split("/")[-2:])
        label = f"{short}:{line}({fn})"
        torch_builtin = file == "~" and ("torch" in fn or "Tensor" in fn) and ct >= 0.02 * total
        if torch_builtin:
            label = fn
        if torch_builtin or re.search(PROFILE_FRAMES, f"{file}:{line}"):
            rows.append((ct, tt, nc, label))
    rows.sort(key=lambda r: -r[0])
    body = [[f"{ct * 1e3:.0f}", f"{ct / total:.0%}", f"{tt * 1e3:.0f}", str(nc), label] for ct, tt, nc, label in rows[:top]]
    print(f"\n### cProfile: {title} ({total * 1e3:.0f} ms profiled in all)\n")
    print(table(["cumulative ms", "share", "own ms", "calls", "function"], body))


def profile_cases(presets: list[str], large: bool) -> list[tuple]:
    """(preset, title, setup(at), action(at), repetitions): the interactions that miss their goals."""
    train = lambda at: at.button_group(key="section").set_value("train").run()  # noqa: E731
    step = lambda at: at.button(key="step").click().run()  # noqa: E731

    def trained(at):
        train(at)
        at.button(key="run_steps").click().run()

    def trained_replay(at):
        trained(at)
        at.session_state["replay"] = True
        at.run()

    def lessons(at):
        at.button_group(key="section").set_value("lessons").run()

    def free(at):
        at.radio(key="mode").set_value("free").run()

    cases = [("chapter", "5 reruns with nothing changed (lookup view, step 0)", lambda at: None, lambda at: at.run(), 5)]
    for preset in presets:
        cases.append((preset, "3 Step clicks after 50 steps", trained, step, 3))
    cases.append(("chapter", "2 Step clicks with the replay open, after 50 steps", trained_replay, step, 2))
    cases.append(("reviews_ko", "lessons: guided→free, then 2 reruns in free mode", lessons,
                  lambda at: free(at) if at.radio(key="mode").value != "free" else at.run(), 3))
    if large:
        cases.append(("large", "the first Step at the large preset", train, step, 1))
        cases.append(("large", "2 more Steps at the large preset", lambda at: (train(at), step(at)), step, 2))
    return cases


def run_profiles(presets: list[str], large: bool, errors: list[str]) -> None:
    for preset, title, setup, action, n in profile_cases(presets, large):
        path = os.path.join(tempfile.mkdtemp(prefix="bench_prof_"), "prof.stats")
        at = AppTest.from_file(PROFILED_APP, default_timeout=TIMEOUT)
        at.session_state["lang"] = "en"
        at.run()
        if preset != "chapter":
            at.selectbox(key="preset").set_value(preset)
            at.button(key="load_preset").click().run()
        setup(at)
        os.environ["BENCH_PROFILE_OUT"] = path
        t = time.perf_counter()
        try:
            for _ in range(n):
                action(at)
        finally:
            os.environ.pop("BENCH_PROFILE_OUT")
        wall = time.perf_counter() - t
        if at.exception:
            errors.append(f"profile {preset} / {title}: {at.exception[0].message}"[:300])
        print_profile(path, f"{title}, {preset} ({wall * 1e3:.0f} ms AppTest wall)")
        print(f"  profiled {preset} {title}", file=sys.stderr)
        del at


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-large", action="store_true", help="skip the large preset")
    ap.add_argument("--presets", default="chapter,reviews_ko")
    args = ap.parse_args()
    print(f"# profile_server: where the time goes (cProfile inside the script runs)\n\n{machine_note()}")
    errors: list[str] = []
    run_profiles(args.presets.split(","), not args.no_large, errors)
    print("\n`share` = cumulative time of the frame / all the time the profiler saw in those runs; "
          "frames nest, so shares overlap.")
    for e in errors:
        print(f"- {e}")


if __name__ == "__main__":
    main()
