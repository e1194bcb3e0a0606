"""Server-side cost of each interaction: AppTest rerun time of the app versus a bare page (one button,
one Plotly chart: bench/bare_app.py), at the chapter example and the 40-review preset, and the
large preset's interactions once each (load, switch, Step, the replay, switch back).

    python bench/bench_server.py               # ~2–4 min
    python bench/bench_server.py --quick       # fewer repetitions, no large preset (~30 s)
    python bench/bench_server.py --threads 1   # torch.set_num_threads(1) in this process first

AppTest runs the script in this process, so a rerun's time is the script's own work plus
Streamlit's (widget state, element protos, serialising the stage's data, figures and tables),
without the browser and the network: what the server spends per click. The training bar's
buttons (Step, Run N, Play, Reset) sit outside the training view's ``st.fragment``, so a Step
reruns the whole script in the browser too; only Play's ticks rerun the fragment alone. Each app
sample is paired with one bare-page click taken right before it; the ratio column is the median of
those paired ratios (so a burst of machine noise hits both), with its p10–p90 range. Goals: ≤ 4×
bare at the chapter example, ≤ 10× at the review preset; and issue 14's: a Step on the training
view ≤ 2× the bare page (``--step-pairs`` interleaved pairs, 40 by default; its own table).

Interactions, in this order (the order matters: training adds snapshots the training view draws):
rerun with nothing changed; edit a sentence (two texts alternate); edit the vocabulary (a token
renamed through ``session_state["vocab"]["edited_rows"]``, two names alternate); switch
lookup→train and train→lookup at step 0; Step; Run 50 steps (and, as a reference row, the same 50
steps in ``core`` with no page: the floor of any page that trains); Step again after those runs; open and
close the replay animation's expander (key ``replay``: the animation is built only while it is open)
and Step with it open; the same for the last step's details (key ``details``); the lookup view's
tables (key ``lookup_tables``); switch train→lookup and lookup→train after training; switch to the lessons
view, walk through every
lesson with "next" (guided mode), show every lesson at once (free mode), then the share view and
back to training.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, fmt_ms, fmt_ratio, goal, machine_note, ms_cells, summary, table  # noqa: E402

import logging  # noqa: E402

logging.getLogger("streamlit").setLevel(logging.ERROR)
from streamlit import config as st_config  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

st_config.set_option("client.showErrorDetails", "full")  # the app's config redacts them; a benchmark wants them

APP = str(ROOT / "app.py")
BARE = str(ROOT / "bench" / "bare_app.py")
GOALS = {"chapter": 4.0, "reviews_ko": 10.0}
STEP_GOAL = 2.0  # issue 14: through AppTest, a Step on the training view ≤ 2× the bare page
STEP_ROW = "Step (train view)"
REFERENCE = "(reference) "  # a row that is not an interaction: what part of one costs on its own
TIMEOUT = 600


class Bench:
    def __init__(self, app_path: str):
        self.bare = AppTest.from_file(BARE, default_timeout=TIMEOUT).run()
        self.at = AppTest.from_file(app_path, default_timeout=TIMEOUT)
        self.at.session_state["lang"] = "en"
        self.at.run()
        self.rows: list[dict] = []
        self.errors: list[str] = []

    def bare_click(self) -> float:
        t = time.perf_counter()
        self.bare.button(key="click").click().run()
        return time.perf_counter() - t

    def measure(self, preset: str, name: str, action, reps: int, pair: bool = True) -> None:
        """``action(i)`` prepares the i-th change and returns the AppTest call that performs it."""
        app_t, bare_t, ratios = [], [], []
        for i in range(reps):
            b = self.bare_click() if pair else float("nan")
            run = action(i)
            t = time.perf_counter()
            run()
            dt = time.perf_counter() - t
            app_t.append(dt)
            bare_t.append(b)
            ratios.append(dt / b)
            if self.at.exception:
                e = self.at.exception[0]
                where = " ← ".join(l.strip() for l in (e.stack_trace or [])[-3:])
                self.errors.append(f"{preset} / {name} (rep {i}): {e.message} [{where}]"[:600])
        self.rows.append({"preset": preset, "name": name, "app": app_t, "bare": bare_t, "ratios": ratios,
                          "steps": self.ws_steps()})
        print(f"  {preset:10s} {name:38s} p50 {fmt_ms(summary(app_t)['p50']):>8} ms", file=sys.stderr)

    def ws_steps(self) -> int | str:
        try:
            return self.at.session_state["_ws"].lab.steps
        except Exception:  # noqa: BLE001 - the workspace's layout is not this script's business
            return "?"

    # ---- the interactions ----------------------------------------------------------------------
    def section(self, value: str):
        return lambda: self.at.button_group(key="section").set_value(value).run()

    def click(self, key: str):
        return lambda: self.at.button(key=key).click().run()


def find_widget(at: AppTest, key: str):
    """The widget with this key, whatever its kind (the lessons view is being written elsewhere)."""
    for kind in ("selectbox", "radio", "button_group", "select_slider", "tabs"):
        try:
            return getattr(at, kind)(key=key)
        except (KeyError, AttributeError, TypeError):
            continue
    return None


def replay(at: AppTest, open_: bool, key: str = "replay"):
    """Open or close an expander built only while open (st.expander(key=…, on_change="rerun")): the
    replay animation (``replay``), the last step's details (``details``), the lookup tables (``lookup_tables``)."""
    def run():
        at.session_state[key] = open_
        at.run()
    return run


def run_preset(b: Bench, preset: str, reps: int, run_reps: int, step_pairs: int) -> None:
    at = b.at
    if preset != "chapter":
        def load(i):
            at.selectbox(key="preset").set_value(preset)
            return lambda: at.button(key="load_preset").click().run()
        b.measure(preset, "load the preset", load, 3)
    at.button_group(key="section").set_value("lookup").run()
    base_text = at.text_area(key="sentences").value
    first_line = base_text.splitlines()[0]
    texts = (base_text + "\n" + first_line, base_text)
    vocab_rows = len(at.session_state["_ws"].vocab.tokens)
    last_row = str(vocab_rows - 1)  # a normal token (the presets put <UNK>, <PAD> first)

    b.measure(preset, "rerun, nothing changed", lambda i: at.run, reps)
    b.measure(preset, "edit a sentence", lambda i: at.text_area(key="sentences").input(texts[i % 2]).run, reps)

    def edit_vocab(i):
        at.session_state["vocab"] = {"edited_rows": {last_row: {"token": f"bench{i % 2}"}}, "added_rows": [],
                                     "deleted_rows": []}
        return at.run
    b.measure(preset, "edit the vocabulary (rename a token)", edit_vocab, reps)
    at.session_state["vocab"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}
    at.text_area(key="sentences").input(base_text).run()  # back to the preset's data (a fresh lab)

    switch_pairs = max(2, reps // 2)
    for i in range(switch_pairs):  # lookup→train and train→lookup at step 0, measured alternately
        b.measure(preset, "switch lookup→train (step 0)", lambda _: b.section("train"), 1)
        b.measure(preset, "switch train→lookup (step 0)", lambda _: b.section("lookup"), 1)
    at.button_group(key="section").set_value("train").run()
    b.measure(preset, STEP_ROW, lambda i: b.click("step"), step_pairs)
    b.measure(preset, "Run 50 steps", lambda i: b.click("run_steps"), run_reps)

    def core_run(i):  # the same 50 steps with no page: what any page that trains must spend first
        from core.training import Lab
        lab = Lab(at.session_state["_ws"].lab.recipe)
        lab.run(5)
        return lambda: lab.run(50)
    b.measure(preset, REFERENCE + "Run 50's steps alone (Lab.run(50), no page)", core_run, max(3, run_reps))
    b.measure(preset, f"Step after {run_reps}×50 steps", lambda i: b.click("step"), reps)
    for i in range(switch_pairs):  # the replay expander, opened and closed alternately
        b.measure(preset, "open the replay (trained)", lambda _: replay(at, True), 1)
        b.measure(preset, "close the replay (trained)", lambda _: replay(at, False), 1)
    replay(at, True)()
    b.measure(preset, "Step with the replay open", lambda i: b.click("step"), max(2, reps // 2))
    replay(at, False)()
    for i in range(switch_pairs):  # the last step's details (loss, predictions, gradient, rows moved)
        b.measure(preset, "open the step's details (trained)", lambda _: replay(at, True, "details"), 1)
        b.measure(preset, "close the step's details (trained)", lambda _: replay(at, False, "details"), 1)
    replay(at, True, "details")()
    b.measure(preset, "Step with the details open", lambda i: b.click("step"), max(2, reps // 2))
    replay(at, False, "details")()
    for i in range(switch_pairs):
        b.measure(preset, "switch train→lookup (trained)", lambda _: b.section("lookup"), 1)
        b.measure(preset, "open the lookup tables (trained)", lambda _: replay(at, True, "lookup_tables"), 1)
        b.measure(preset, "close the lookup tables (trained)", lambda _: replay(at, False, "lookup_tables"), 1)
        b.measure(preset, "switch lookup→train (trained)", lambda _: b.section("train"), 1)
    b.measure(preset, "switch train→lessons", lambda _: b.section("lessons"), 1)
    lesson = find_widget(at, "lesson")
    if lesson is not None:  # guided mode: walk through every lesson with "next"
        n_lessons = len(getattr(lesson, "options", []) or [])

        def next_lesson(i):
            return b.click("lesson_next")
        before = len(b.rows)
        b.measure(preset, "next lesson (every lesson once, guided)", next_lesson, max(1, n_lessons - 1))
        times = b.rows[before]["app"]
        ids = list(getattr(lesson, "options", []))[1:]
        if ids and times:
            worst = max(range(len(times)), key=times.__getitem__)
            b.rows[before]["name"] += f"; slowest {str(ids[worst]).split(' ')[0]} {fmt_ms(times[worst])} ms"
        mode = find_widget(at, "mode")
        if mode is not None:
            b.measure(preset, "lessons: guided→free (every lesson at once)", lambda _: mode.set_value("free").run, 1)
            b.measure(preset, "lessons: rerun in free mode", lambda _: at.run, 2)
            at.radio(key="mode").set_value("guided").run()
    b.measure(preset, "switch lessons→share", lambda _: b.section("share"), 1)
    b.measure(preset, "switch share→train", lambda _: b.section("train"), 1)
    for i in range(switch_pairs - 1):
        b.measure(preset, "switch train→lessons", lambda _: b.section("lessons"), 1)
        b.measure(preset, "switch lessons→share", lambda _: b.section("share"), 1)
        b.measure(preset, "switch share→train", lambda _: b.section("train"), 1)
    if preset == "chapter":  # a long history: the picture draws at most MAX_DRAWN_STEPS kept steps
        at.number_input(key="n_steps").set_value(500).run()
        while b.ws_steps() != "?" and b.ws_steps() < 5000:
            at.button(key="run_steps").click().run()
        b.measure(preset, "Step after 5,000 steps", lambda i: b.click("step"), reps)
        at.number_input(key="n_steps").set_value(50).run()
    # merge the rows measured one at a time
    merged: dict[tuple, dict] = {}
    for row in b.rows:
        key = (row["preset"], row["name"])
        if key in merged:
            for k in ("app", "bare", "ratios"):
                merged[key][k] += row[k]
            merged[key]["steps"] = row["steps"]
        else:
            merged[key] = {**row, "app": list(row["app"]), "bare": list(row["bare"]), "ratios": list(row["ratios"])}
    b.rows = list(merged.values())


def run_large(out: list[list[str]], errors: list[str], app_path: str) -> None:
    """The large preset: load it, open the training view, one Step (each once: they take seconds)."""
    at = AppTest.from_file(app_path, default_timeout=TIMEOUT)
    at.session_state["lang"] = "en"
    at.run()
    for name, call in (
        ("load the large preset", lambda: (at.selectbox(key="preset").set_value("large"), at.button(key="load_preset").click().run())),
        ("rerun, nothing changed (lookup)", lambda: at.run()),
        ("switch lookup→train (step 0)", lambda: at.button_group(key="section").set_value("train").run()),
        ("Step", lambda: at.button(key="step").click().run()),
        ("Step (again)", lambda: at.button(key="step").click().run()),
        ("open the replay", replay(at, True)),
        ("Step with the replay open", lambda: at.button(key="step").click().run()),
        ("close the replay", replay(at, False)),
        ("switch train→lookup", lambda: at.button_group(key="section").set_value("lookup").run()),
    ):
        t = time.perf_counter()
        call()
        dt = time.perf_counter() - t
        out.append(["large", name, fmt_ms(dt), "1", goal(dt < 2.0)])
        if at.exception:
            errors.append(f"large / {name}: {at.exception[0].value}"[:300])
        print(f"  large      {name:38s} {dt:8.2f} s", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions; skip the large preset")
    ap.add_argument("--no-large", action="store_true", help="skip the large preset")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads first (0: torch's default)")
    ap.add_argument("--presets", default="chapter,reviews_ko")
    ap.add_argument("--step-pairs", type=int, default=0,
                    help="interleaved pairs for the Step on the training view (default 40; 10 with --quick)")
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    reps, run_reps = (4, 1) if args.quick else (8, 3)
    step_pairs = args.step_pairs or (10 if args.quick else 40)
    print(f"# bench_server: AppTest rerun time, app vs a bare page\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    rows, errors, step_rows = [], [], []
    for preset in args.presets.split(","):
        b = Bench(APP)
        run_preset(b, preset, reps, run_reps, step_pairs)
        errors += b.errors
        for r in b.rows:
            if r["name"] == STEP_ROW:
                s = summary(r["ratios"])
                step_rows.append([preset, str(s["n"]), *ms_cells(r["app"])[:2], *ms_cells(r["bare"])[:2],
                                  fmt_ratio(s["p50"]), f"{fmt_ratio(s['p10'])}–{fmt_ratio(s['p90'])}",
                                  goal(s["p50"] <= STEP_GOAL)])
            s = summary(r["ratios"])
            limit = GOALS.get(preset)
            rows.append([preset, r["name"], str(r["steps"]), *ms_cells(r["app"])[:2], ms_cells(r["bare"])[0],
                         fmt_ratio(s["p50"]), f"{fmt_ratio(s['p10'])}–{fmt_ratio(s['p90'])}", str(s["n"]),
                         "reference" if r["name"].startswith(REFERENCE) else goal(s["p50"] <= limit) if limit else "–"])
        del b
    if step_rows:
        print(f"## Issue 14: a Step on the training view through AppTest, app vs the bare page's click ({step_pairs} interleaved pairs)\n")
        print(table(["preset", "pairs", "app p50 ms", "app p10–p90", "bare p50 ms", "bare p10–p90", "app/bare p50 (paired)",
                     "app/bare p10–p90", f"goal ≤ {STEP_GOAL:.0f}×"], step_rows))
        print()
    if rows:
        print("## AppTest time per interaction (ms), app vs the bare page's button click\n")
        print(table(["preset", "interaction", "steps after", "app p50", "app p10–p90", "bare p50", "app/bare p50",
                     "app/bare p10–p90", "n", "goal (≤4× chapter, ≤10× reviews)"], rows))

    if not (args.quick or args.no_large):
        large_rows: list[list[str]] = []
        run_large(large_rows, errors, APP)
        print("\n## The large preset (V=100,000, E=300, B=256, T≤50), one sample each\n")
        print(table(["preset", "interaction", "AppTest ms", "n", "goal < 2 s"], large_rows))

    if errors:
        print("\n## Exceptions raised by the app during the benchmark\n")
        for e in errors:
            print(f"- {e}")
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
