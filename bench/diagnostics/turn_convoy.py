"""Why the server's runs take turns (server/turn.py): chapter Steps in N threads at once, free and in turn.

    python bench/diagnostics/turn_convoy.py                 # 1, 8 and 32 threads, 3 rounds (~30 s)
    python bench/diagnostics/turn_convoy.py --threads 16 --rounds 5

Each thread is one learner's run: some pure-Python work (a stand-in for Streamlit's and the page's
own, about as long as a Step), then `Explorer.step` on its own chapter explorer, then the same
Python work again; every thread does ``--steps`` of them. Each torch operation lets go of the
interpreter's lock, so with many threads runnable each operation waits for the lock to come back.
"free": the threads run as Streamlit's script threads do; "turn": each run holds `server.turn.Turn`
(one at a time, first come first served), as the page's runs do. With ``--beside``, one more
thread does Python work outside every turn the whole time, as the server's event loop does.
Torch runs one thread per operation, as in the server. Printed per round, interleaved: the
learners' CPU per run (their threads' own, the thread beside left out), the wall time for every run to end, and
their ratios turn / free. No time is asserted.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from contextlib import nullcontext
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _common import fmt_ratio, machine_note, table  # noqa: E402

from assets import presets  # noqa: E402
from core.explorer import Explorer  # noqa: E402
from server.turn import Turn  # noqa: E402
from page import TORCH_THREADS  # noqa: E402


def python_work(n: int = 3000) -> None:
    d = {}
    for i in range(n):
        d[str(i)] = i


def one_round(explorers: list[Explorer], steps: int, turn: Turn | None) -> tuple[float, float]:
    """(the learners' CPU seconds per run, wall seconds until every learner is done)."""
    cpu: list[float] = []

    def learner(ex: Explorer) -> None:
        c0 = time.thread_time()
        for _ in range(steps):
            with turn.held() if turn is not None else nullcontext():
                python_work()
                ex.step()
                python_work()
        cpu.append(time.thread_time() - c0)

    threads = [threading.Thread(target=learner, args=(ex,)) for ex in explorers]
    w0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return sum(cpu) / (len(explorers) * steps), time.perf_counter() - w0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 8, 32])
    ap.add_argument("--steps", type=int, default=20, help="runs per thread")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--beside", action="store_true", help="one more thread doing Python outside every turn")
    args = ap.parse_args()
    torch.set_num_threads(TORCH_THREADS)  # as the server runs
    print(f"# turn_convoy: chapter Steps in threads, free vs in turn{' (one thread beside)' if args.beside else ''}\n")
    print(machine_note())
    stop = threading.Event()
    if args.beside:
        def loop() -> None:
            while not stop.is_set():
                python_work()
                stop.wait(0.001)
        threading.Thread(target=loop, daemon=True).start()
    rows = []
    for n in args.threads:
        explorers = [Explorer.from_preset(presets.load("chapter")) for _ in range(n)]
        for ex in explorers:
            ex.picture(2)
            ex.step()
        for r in range(1, args.rounds + 1):
            cpu_f, wall_f = one_round(explorers, args.steps, None)
            cpu_t, wall_t = one_round(explorers, args.steps, Turn(holders=1))
            rows.append([n, r, f"{cpu_f * 1e3:.2f}", f"{cpu_t * 1e3:.2f}", fmt_ratio(cpu_t / cpu_f),
                         f"{wall_f:.2f}", f"{wall_t:.2f}", fmt_ratio(wall_t / wall_f)])
    stop.set()
    print(table(["threads", "round", "free: CPU ms per run", "turn: CPU ms per run", "CPU turn / free",
                 "free: wall s, all done", "turn: wall s, all done", "wall turn / free"], rows))
    print(f"\n{machine_note()}")


if __name__ == "__main__":
    main()
