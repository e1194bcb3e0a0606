"""Run every benchmark, one after the other, and write their tables into bench/RESULTS.md.

    python bench/run_all.py                 # everything (~25 min on 2 cores)
    python bench/run_all.py --quick         # the quick variants (~10 min)
    python bench/run_all.py --only training,server
    python bench/run_all.py --no-write      # print only

Each script is run as its own process (``python bench/<name>.py …``) with a time limit, so one
that hangs or fails does not stop the others; its exit status and wall time are recorded.
RESULTS.md gets the exact command that produced each table. Each script's section sits between
``<!-- bench:NAME -->`` markers: a run replaces the sections of the scripts it ran and keeps the
others (each section carries its own date and machine note), and everything from the
``## History`` heading on is kept as it is (the hand-written record of what was measured when).
The diagnostics in bench/diagnostics/ are not run here.
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
RESULTS = HERE / "RESULTS.md"
SECTION = re.compile(r"<!-- bench:(?P<name>\w+) -->\n(?P<body>.*?)<!-- /bench:(?P=name) -->", re.S)
HISTORY = "\n## History"
sys.path.insert(0, str(HERE))
from _common import machine_note  # noqa: E402

# name → (arguments, quick arguments, time limit in seconds)
SCRIPTS = {
    "training": ([], ["--quick"], 600),
    "server": ([], ["--quick"], 900),
    "charts": ([], ["--quick"], 600),
    "browser": (["--clicks", "20"], ["--clicks", "5"], 600),
    "browser_alone": (["--presets", "large", "--alone", "3", "--clicks", "3"],
                      ["--presets", "large", "--alone", "1", "--clicks", "2"], 600),
    "scale": ([], ["--no-browser"], 900),
    "classroom": ([], ["--sessions", "10", "--clicks", "3"], 900),
    "load": ([], ["--sessions", "20", "--clicks", "2", "--skip-large"], 900),
    "rss": (["--variants", "as_is,as_is_probe"], ["--variants", "as_is", "--cycles", "1"], 600),
    "learning": (["--large", "50"], ["--quick"], 900),
    "warm": ([], ["--runs", "1", "--rounds", "2"], 900),
    "lb": ([], ["--sessions", "20", "--clicks", "2"], 1800),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=",".join(SCRIPTS), help="comma-separated subset of " + ", ".join(SCRIPTS))
    ap.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    names = args.only.split(",")
    unknown = set(names) - set(SCRIPTS)
    if unknown:
        ap.error(f"unknown {sorted(unknown)}; known: {', '.join(SCRIPTS)}")
    sections: dict[str, str] = {}
    for name in names:
        full, quick, limit = SCRIPTS[name]
        script = name.split("_")[0]  # browser_alone → bench_browser.py
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
        sections[name] = f"{body}\n\n_Command: `{shown}` — exit {rc}, {wall:.0f} s._\n" + (f"\n```\n{err_tail}\n```\n" if rc else "")
    if not args.no_write:
        command = f"python bench/run_all.py{' --quick' if args.quick else ''}" + ("" if set(names) == set(SCRIPTS) else f" --only {args.only}")
        note = f"`{command}` (started {started}) wrote {', '.join(names)}. {machine_note()}."
        RESULTS.write_text(merge(RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "", sections, note), encoding="utf-8")
        print(f"\nwrote {RESULTS}")


def merge(old: str, new: dict[str, str], note: str) -> str:
    """RESULTS.md with the sections in ``new`` replaced (in SCRIPTS' order), the other sections and the
    history of ``old`` kept, and ``note`` saying what this run wrote."""
    found = list(SECTION.finditer(old))
    kept = {m["name"]: m["body"] for m in found}
    after = found[-1].end() if found else 0
    history = old[old.index(HISTORY, after):] if HISTORY in old[after:] else ""
    parts = ["# Benchmark results\n\nThe latest figures of each benchmark, written by `python bench/run_all.py`; "
             f"each section says when and on what it was measured. Last run: {note}\n"]
    for name in SCRIPTS:
        body = new.get(name, kept.get(name))
        if body is not None:
            parts.append(f"\n<!-- bench:{name} -->\n{body.strip()}\n<!-- /bench:{name} -->\n")
    if history:
        parts.append("\n" + history.strip() + "\n")
    return "".join(parts)


if __name__ == "__main__":
    main()
