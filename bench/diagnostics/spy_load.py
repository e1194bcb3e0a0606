"""Where a click's CPU goes on the server under a class: py-spy sampling the real server while bench_load's class clicks.

    python bench/diagnostics/spy_load.py                  # 100 learners × 3 Steps (~2–3 min)
    python bench/diagnostics/spy_load.py --sessions 60 --top 30 --app bench/bare_app.py

Starts ``streamlit run app.py`` (127.0.0.1, a free port), lets one learner in first (not sampled:
the server warms), then runs bench_load.py's class against it (the learners open the page,
switch to the training view and click Step) and attaches py-spy (``pip install py-spy``;
``record --format raw --function``, ``--rate`` samples a second of every thread that is running,
idle threads left out; ``--gil``: only the thread holding the GIL, which is the Python CPU; each
sample pauses the server briefly, ``--nonblocking`` does not, but its stacks can be torn: it put
10 % in a function that takes 0.01 ms) once the whole class is in: the clicks alone are sampled
(``--with-opening``: the pages' opening too). The samples are ranked three ways: by the thread kind
(a session's script run, Streamlit's event loop, other), by the function a sample is in (its own
time), and by every function on the stack (inclusive), each as a share of all samples and as ms
of CPU per click served. ``--app`` profiles another script (the bare page: the floor).
No time is asserted; the server is stopped by its pid.

The thread kinds' shares are shares of samples, not of CPU: under a class, ``--gil`` gave the event
loop two thirds of the samples while its thread used about 15 % of the server's CPU (bench_load.py reads
each thread's CPU from /proc: its "(event loop)" figure). A torch operation runs without the GIL and a
thread waiting for the GIL can be sampled as holding it; rank functions within a kind, and read CPU
from bench_load.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import ROOT, fmt_ms, machine_note, quantile, table  # noqa: E402
import bench_load  # noqa: E402


def frames_of(line: str) -> tuple[str, list[str], int]:
    """A raw py-spy line → (thread, frames root first, samples)."""
    stack, _, count = line.rstrip().rpartition(" ")
    parts = stack.split(";")
    return parts[0], parts[1:], int(count)


def short(frame: str) -> str:
    """A py-spy frame 'fn (<absolute path>:<line>)' as 'fn (<file name>)'; the app's files keep their folder."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    root = str(ROOT) + "/"
    if path.startswith(root):
        path = path[len(root):]
    elif "site-packages/" in path:
        path = path.split("site-packages/", 1)[1]
    return f"{name} ({path})"


def kind(thread: str, frames: list[str]) -> str:
    joined = ";".join(frames)
    if "_run_script" in joined or "exec_func_with_error_handling" in joined:
        return "a session's script run"
    if "asyncio" in joined or "uvicorn" in joined or "run_until_complete" in joined or "_run_once" in joined:
        return "the server's event loop (websocket, messages)"
    return "other threads"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--clicks", type=int, default=3)
    ap.add_argument("--rate", type=int, default=50)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--app", default=str(ROOT / "app.py"))
    ap.add_argument("--loads-at-once", type=int, default=10)
    ap.add_argument("--think", type=float, default=1.0)
    ap.add_argument("--out", help="keep the raw samples in this file")
    ap.add_argument("--gil", action="store_true",
                    help="only samples of the thread holding the GIL: Python's own CPU (waits, sleeps and GIL queues left out)")
    ap.add_argument("--nonblocking", action="store_true",
                    help="py-spy reads stacks without pausing the server (lighter, but its stacks can be torn)")
    ap.add_argument("--with-opening", action="store_true", help="sample the pages' opening too, not only the clicks")
    args = ap.parse_args()
    spy = shutil.which("py-spy")
    if spy is None:
        raise SystemExit("spy_load needs py-spy: pip install py-spy")
    bench_load.need_websockets()
    n = max(1, min(args.sessions, bench_load.MAX_SESSIONS))
    bare = Path(args.app).name == "bare_app.py"
    raw = Path(args.out) if args.out else Path(tempfile.mkstemp(prefix="spy_load_", suffix=".txt")[1])
    print(f"# spy_load: py-spy on the server under {n} learners × {args.clicks} clicks ({Path(args.app).name})\n\n"
          f"{machine_note()}\n")
    with bench_load.StreamlitServer(Path(args.app).resolve()) as server:
        asyncio.run(bench_load.classroom(server.ws_url, bare, 1, 1, 1, 0, 60, 120))  # not sampled
        recording: list = []

        def record() -> float:
            """Attach py-spy (once) and return the server's CPU time then."""
            if not recording:
                recording.append(subprocess.Popen(
                    [spy, "record", "--pid", str(server.pid), "--format", "raw", "--function",
                     *(["--nonblocking"] if args.nonblocking else []),
                     "--threads", "--rate", str(args.rate), "--output", str(raw), *(["--gil"] if args.gil else [])],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            return server.cpu()

        if args.with_opening:
            cpu0 = record()
            time.sleep(1.0)  # py-spy attached
        s = asyncio.run(bench_load.classroom(server.ws_url, bare, n, args.clicks, args.loads_at_once, args.think,
                                             240, 60, cpu=record))
        s["cpu_class_end"] = server.cpu()
        if not args.with_opening:
            cpu0 = s["cpu_class_start"]  # sampled from the moment the whole class was in: the clicks alone
        cpu = s["cpu_class_end"] - cpu0
        asyncio.run(bench_load.close_all(s.pop("tabs")))
        rec = recording[0]
        rec.send_signal(2)  # SIGINT: py-spy writes its file and exits
        try:
            rec.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rec.kill()
    lines = [ln for ln in raw.read_text().splitlines() if ln.strip()]
    if not args.out:
        raw.unlink(missing_ok=True)
    clicks = len(s["clicks"])
    total = sum(frames_of(ln)[2] for ln in lines) or 1
    ms_per_sample = cpu / total  # the samples share the CPU the server used while they were taken
    by_kind, own, incl = collections.Counter(), collections.Counter(), collections.Counter()
    for ln in lines:
        thread, frames, c = frames_of(ln)
        by_kind[kind(thread, frames)] += c
        if frames:
            own[short(frames[-1])] += c
        for f in {short(f) for f in frames}:
            incl[f] += c
    print(f"{clicks} clicks served (p50 {fmt_ms(quantile(s['clicks'], 0.5))} ms, p95 {fmt_ms(quantile(s['clicks'], 0.95))} ms, "
          f"{len(s['errors'])} errors); server CPU while sampled {cpu:.1f} s "
          f"({fmt_ms(cpu / clicks) if clicks else '–'} ms per click{', opening the pages included' if args.with_opening else ''}); "
          f"{total} samples\n")

    def rows(counter, k):
        return [[name, f"{100 * c / total:.1f} %", fmt_ms(c * ms_per_sample / clicks) if clicks else "–"]
                for name, c in counter.most_common(k)]

    print("### By thread kind\n")
    print(table(["thread", "share of samples", "ms CPU per click"], rows(by_kind, 5)))
    print(f"\n### Own time (the function a sample was in), top {args.top}\n")
    print(table(["function (file)", "share", "ms per click"], rows(own, args.top)))
    print(f"\n### Inclusive (on the stack), top {args.top * 2}\n")
    print(table(["function (file)", "share", "ms per click"], rows(incl, args.top * 2)))
    print(f"\n{machine_note()}")


if __name__ == "__main__":
    main()
