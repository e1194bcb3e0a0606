"""Run every benchmark, one after the other, and write their tables into bench/RESULTS.md.

    python bench/run_all.py                 # everything (~12–15 min on 2 cores)
    python bench/run_all.py --quick         # the quick variants (~5–7 min)
    python bench/run_all.py --only training,server
    python bench/run_all.py --no-write      # print only

Each script is run as its own process (``python bench/<name>.py …``) with a time limit, so one
that hangs or fails does not stop the others; its exit status and wall time are recorded.
RESULTS.md gets the exact command that produced each table.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from _common import machine_note  # noqa: E402

# name → (arguments, quick arguments, time limit in seconds)
SCRIPTS = {
    "training": ([], ["--quick"], 600),
    "server": ([], ["--quick"], 900),
    "server_profile": (["--profile-only"], ["--profile-only"], 600),
    "browser": (["--clicks", "20"], ["--clicks", "5"], 600),
    "browser_large": (["--presets", "large", "--clicks", "8"], ["--presets", "large", "--clicks", "1"], 600),
    "browser_alone": (["--presets", "large", "--alone", "3", "--clicks", "3"],
                      ["--presets", "large", "--alone", "1", "--clicks", "2"], 600),
    "scale": ([], ["--no-browser"], 900),
    "classroom": ([], ["--sessions", "10", "--clicks", "3"], 900),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=",".join(SCRIPTS), help="comma-separated subset of " + ", ".join(SCRIPTS))
    ap.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    parts = [f"# Benchmark results\n\nWritten by `python bench/run_all.py{' --quick' if args.quick else ''}` "
             f"(started {started}). {machine_note()}.\n"]
    for name in args.only.split(","):
        full, quick, limit = SCRIPTS[name]
        script = name.split("_")[0]  # browser_large → bench_browser.py, server_profile → bench_server.py
        cmd = [sys.executable, f"bench/bench_{script}.py", *(quick if args.quick else full)]
        shown = "python " + " ".join(cmd[1:])
        print(f"\n==> {shown}", flush=True)
        t = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=limit)
            out, rc = proc.stdout, proc.returncode
            err_tail = "\n".join(proc.stderr.strip().splitlines()[-15:]) if rc else ""
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            rc, err_tail = "timeout", f"stopped after {limit} s"
        wall = time.perf_counter() - t
        print(out, flush=True)
        body = out.strip()
        if body.startswith("# "):  # the script's own title becomes a section, named with its arguments
            first, _, rest = body.partition("\n")
            extra = " ".join(cmd[2:])
            body = "#" + first + (f" (`{extra}`)" if extra else "") + "\n" + re.sub(r"(?m)^(#+) ", r"#\1 ", rest)
        parts.append(f"\n{body}\n\n_Command: `{shown}` — exit {rc}, {wall:.0f} s._\n")
        if rc:
            parts.append(f"\n```\n{err_tail}\n```\n")
    if not args.no_write:
        (HERE / "RESULTS.md").write_text("".join(parts), encoding="utf-8")
        print(f"\nwrote {HERE / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
