"""Where a Step's AppTest time goes, in wall time: the Step with one part of the page left out.

    python bench/diagnostics/ablate_server.py                 # 20 rounds, after 150 steps (~30 s)
    python bench/diagnostics/ablate_server.py --rounds 20 --steps 0
    python bench/diagnostics/ablate_server.py --preset reviews_ko

A diagnostic, not in run_all.py. cProfile (profile_server.py) inflates small calls; this
takes each part out instead. Every round clicks Step once per variant, in turn, so machine noise
hits all of them; a variant's saving is the median Step time of the page as it is minus its own.
Parts that return values the page needs (the sidebar's knobs, the vocabulary editor's table) return
the value of their first call and draw nothing; the others draw nothing. What a part saves includes
its elements' share of Streamlit's and AppTest's per-element work.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))
from _common import fmt_ms, machine_note, table  # noqa: E402

logging.getLogger("streamlit").setLevel(logging.ERROR)


def parts():
    """name → (module, attribute, replacement or None for 'the first call's value, drawing nothing')."""
    import page
    from components import inputs, keeper, predict, sidebar, style, training
    from sections import training_details, training_section
    from views import training as view_model

    noop = lambda *a, **k: None  # noqa: E731
    return {
        "sidebar knobs (config_inputs)": (sidebar, "config_inputs", None),
        "editors box (vocabulary table + sentences)": (page, "editors", noop),
        "vocabulary editor alone": (inputs, "vocab_editor", None),
        "page style (CSS)": (style, "page_style", noop),
        "page language component": (page, "page_lang", noop),
        "keeper (work kept in the browser)": (keeper, "keep", noop),
        "stage's data (views.training.train_data)": (view_model, "train_data", None),
        "stage component (the element)": (training_section, "stage", noop),
        "timeline slider": (training, "timeline", noop),
        "details below the stage (all of it)": (training_details, "render", noop),
        "guesses beside Step": (predict, "guesses", noop),
        "PAD editor": (training, "pad_editor", noop),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--steps", type=int, default=150, help="train this many steps first (Run 50 clicks)")
    ap.add_argument("--preset", default="chapter")
    args = ap.parse_args()
    from streamlit.testing.v1 import AppTest

    print(f"# ablate_server: a Step in AppTest ({args.preset}) with one part left out\n\n{machine_note()}\n")
    at = AppTest.from_file(str(BENCH.parent / "app.py"), default_timeout=600)
    at.session_state["lang"] = "en"
    at.run()
    if args.preset != "chapter":
        at.selectbox(key="preset").set_value(args.preset)
        at.button(key="load_preset").click().run()
    bare = AppTest.from_file(str(BENCH / "bare_app.py"), default_timeout=600).run()
    at.button_group(key="section").set_value("train").run()
    for _ in range(args.steps // 50):
        at.button(key="run_steps").click().run()
    variants = {"(the page as it is)": None, "(the bare page's click, for scale)": "bare", **parts()}
    first: dict[str, object] = {}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, part in variants.items():
            saved = None
            if part == "bare":
                t = time.perf_counter()
                bare.button(key="click").click().run()
                times[name].append(time.perf_counter() - t)
                continue
            if part is not None:
                mod, attr, repl = part
                saved = getattr(mod, attr)
                if repl is None:
                    def repl(*a, _f=saved, _name=name, **k):
                        if _name not in first:
                            first[_name] = _f(*a, **k)
                        return first[_name]
                setattr(mod, attr, repl)
            try:
                t = time.perf_counter()
                at.button(key="step").click().run()
                times[name].append(time.perf_counter() - t)
            finally:
                if part is not None:
                    setattr(part[0], part[1], saved)
            if at.exception:
                raise SystemExit(f"{name}: {at.exception[0].message}")
    base = statistics.median(times["(the page as it is)"])
    rows = [[name, fmt_ms(statistics.median(v)), "—" if name.startswith("(") else fmt_ms(base - statistics.median(v)),
             str(len(v))] for name, v in times.items()]
    print(table(["left out", "Step p50 ms", "saves ms", "n"], rows))
    print(f"\nsteps trained before: {at.session_state['_ws'].lab.steps - args.rounds * (len(variants) - 1)}; "
          f"{machine_note()}")


if __name__ == "__main__":
    main()
