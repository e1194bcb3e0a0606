"""Does a closed 100k session give its memory back? Server RSS before, during and after, per variant.

    python bench/bench_rss.py                      # all variants side by side (~4 min, ~1.5 GB per server)
    python bench/bench_rss.py --variants as_is,ttl10_gc_trim --after 60
    python bench/bench_rss.py --churn none         # nobody else Steps, opens or closes a tab after the close

For each variant, its own server (all started at once, measured on the same timeline):

1. A bystander tab opens the page (chapter example), goes to the training view and Steps once:
   the server has imported everything. RSS now is "before".
2. A tab loads the "large" preset (100,000 tokens × 300), opens the training view and Steps once.
   RSS now is "open".
3. That tab closes its websocket. RSS is sampled every second for ``--after`` seconds (default 60);
   "after" is the last sample. Meanwhile the class goes on: every 10 s the
   bystander Steps and a short-lived tab opens the page and closes it, as learners come and go
   (``--churn steps``: only the Step; ``--churn none``: nothing).
4. Steps 2–3 again (``--cycles``, default 2): a level that stays up after the first cycle but not
   after the second is a one-time cost (imports, first-use buffers), not a leak per session.

Goal (issue 17): "after" within 10 % of "before". Why it is missed as the app stands: Streamlit
keeps a disconnected session for ``server.disconnectedSessionTTL`` (120 s) so that the tab can
reconnect, and drops an expired one only when its session store is next written (another tab
disconnecting); the dropped session's objects are in reference cycles, which only a full
collection frees (the app turns Streamlit's post-run ``gc.collect(2)`` off); and glibc may keep
freed heap pages. The variants measure each remedy:

- ``as_is``: the app as it stands.
- ``ttl10``: ``--server.disconnectedSessionTTL 10`` (a tab can reconnect for 10 s instead of 120).
- ``ttl10_postgc``: also ``--runner.postScriptGC true`` (a full collection after every run).
- ``ttl10_gc``: TTL 10 s and, in the server, a thread that runs ``gc.collect()`` every 10 s.
- ``ttl10_gc_trim``: as ``ttl10_gc``, plus glibc's ``malloc_trim(0)`` after each collection.
- ``as_is_gc_trim``: TTL 120 s with the collecting and trimming thread (does the TTL matter?).
- ``ttl10_reap_gc_trim``: as ``ttl10_gc_trim``, and the thread first drops expired disconnected
  sessions from Streamlit's session store (a private API: ``Runtime.instance()._session_mgr.
  _session_storage._cache.expire()``), which Streamlit otherwise does only when another tab
  disconnects.

The thread variants run app.py through a wrapper script written to a temporary folder (the app is
not changed); the wrapper starts the thread once per process.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, fmt_bytes, machine_note, table  # noqa: E402
from bench_load import StreamlitServer, Tab, need_websockets, open_view, step  # noqa: E402

GOAL = 0.10  # "after" within 10 % of "before"
CHURN = {"both": "a Step and a passing tab every 10 s", "steps": "a Step every 10 s", "none": "no churn"}

WRAPPER = '''"""app.py with a janitor thread (bench/bench_rss.py): gc.collect() every {period} s{trim_doc}."""
import sys, threading, time, gc, ctypes, runpy
ROOT = {root!r}
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def _janitor():
    libc = ctypes.CDLL("libc.so.6")
    while True:
        time.sleep({period})
        if {reap}:  # Streamlit's private session store: drop expired disconnected sessions now
            try:
                from streamlit.runtime import Runtime
                dropped = Runtime.instance()._session_mgr._session_storage._cache.expire()
                if dropped:
                    print(f"bench janitor: dropped {{len(dropped)}} expired session(s)", file=sys.stderr, flush=True)
            except Exception as e:
                print(f"bench janitor: could not reap: {{e!r}}", file=sys.stderr, flush=True)
        gc.collect()
        if {trim}:
            libc.malloc_trim(0)


if not any(t.name == "bench-janitor" for t in threading.enumerate()):
    threading.Thread(target=_janitor, name="bench-janitor", daemon=True).start()
runpy.run_path(ROOT + "/app.py", run_name="__bench_app__")
'''

TTL10 = ["--server.disconnectedSessionTTL", "10"]
VARIANTS = {
    "as_is": ([], None),
    "ttl10": (TTL10, None),
    "ttl10_postgc": (TTL10 + ["--runner.postScriptGC", "true"], None),
    "ttl10_gc": (TTL10, {"trim": False}),
    "ttl10_gc_trim": (TTL10, {"trim": True}),
    "as_is_gc_trim": ([], {"trim": True}),
    "ttl10_reap_gc_trim": (TTL10, {"trim": True, "reap": True}),
}


def script_for(janitor: dict | None, tmp: Path, period: int) -> Path:
    if janitor is None:
        return ROOT / "app.py"
    reap = janitor.get("reap", False)
    path = tmp / f"app_janitor_trim{int(janitor['trim'])}_reap{int(reap)}.py"
    path.write_text(WRAPPER.format(period=period, root=str(ROOT), trim=janitor["trim"], reap=reap,
                                   trim_doc=", then malloc_trim(0)" if janitor["trim"] else ""))
    return path


async def timeline(name: str, srv: StreamlitServer, after: int, churn: str, cycles: int, out: dict) -> None:
    r = out[name] = {"errors": [], "samples": [], "open": [], "after": []}
    try:
        bystander = Tab(srv.ws_url, f"{name} bystander", 300)
        await open_view(bystander)
        await step(bystander, 1)
        await asyncio.sleep(3)
        r["before"] = srv.rss()
        k = 1
        for cycle in range(cycles):
            big = Tab(srv.ws_url, f"{name} large {cycle + 1}", 600)
            await open_view(big, preset="large")
            await step(big, 1, verify=False)
            await asyncio.sleep(1)
            r["open"].append(srv.rss())
            await big.close()
            t_close = time.monotonic()
            next_churn = t_close + 10
            while (now := time.monotonic()) < t_close + after:
                if cycle == cycles - 1:
                    r["samples"].append((now - t_close, srv.rss()))
                if churn != "none" and now >= next_churn:
                    next_churn += 10
                    k += 1
                    await step(bystander, k)
                    if churn == "steps":
                        continue
                    passer = Tab(srv.ws_url, f"{name} passer-by", 300)
                    await passer.open()
                    await passer.run()
                    await passer.close()
                await asyncio.sleep(1)
            r["after"].append(srv.rss())
        r["samples"].append((time.monotonic() - t_close, r["after"][-1]))
        await bystander.close()
    except Exception as e:  # noqa: BLE001 - a failed variant is a result
        r["errors"].append(f"{type(e).__name__}: {e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of: {', '.join(VARIANTS)}")
    ap.add_argument("--after", type=int, default=60, help="seconds to watch after the close (at most 180)")
    ap.add_argument("--period", type=int, default=10, help="seconds between the janitor thread's collections")
    ap.add_argument("--cycles", type=int, default=2,
                    help="100k sessions opened and closed one after another (the second tells a one-time cost from a leak)")
    ap.add_argument("--churn", choices=("both", "steps", "none"), default="both",
                    help="after the close, every 10 s: the bystander Steps and a tab passes (both), only the Step, or nothing")
    args = ap.parse_args()
    need_websockets()
    names = [v for v in args.variants.split(",") if v]
    unknown = set(names) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)}; known: {', '.join(VARIANTS)}")
    after = max(5, min(args.after, 180))
    cycles = max(1, min(args.cycles, 3))
    print(f"# bench_rss: server RSS around a closed 100k session ({after} s after the close, "
          f"{CHURN[args.churn]})\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench_rss_") as tmp:
        servers = {}
        try:
            for n in names:
                extra, janitor = VARIANTS[n]
                servers[n] = StreamlitServer(script_for(janitor, Path(tmp), args.period), extra=extra)

            async def go():
                await asyncio.gather(*(timeline(n, servers[n], after, args.churn, cycles, out) for n in names))

            asyncio.run(go())
            for n, srv in servers.items():
                notes = [line for line in srv.log_tail(10**6).splitlines() if line.startswith("bench janitor")]
                if notes:
                    print(f"{n} server: " + "; ".join(sorted(set(notes))))
        finally:
            for s in servers.values():
                s.stop()
    rows = []
    for n in names:
        r = out.get(n, {})
        b, o, a = r.get("before"), r.get("open") or [], r.get("after") or []
        if b and len(a) == cycles:
            within = [t for t, v in r["samples"] if v <= b * (1 + GOAL)]
            rows.append([n, " ".join(VARIANTS[n][0]) or "–", fmt_bytes(b), " / ".join(fmt_bytes(x) for x in o),
                         " / ".join(fmt_bytes(x) for x in a), f"{(a[-1] - b) / b:+.0%}",
                         f"{(o[-1] - a[-1]) / max(1, o[-1] - b):.0%}",
                         f"{within[0]:.0f} s" if within else "never", "met" if a[-1] <= b * (1 + GOAL) else "MISSED"])
        else:
            rows.append([n, " ".join(VARIANTS[n][0]) or "–", *(["–"] * 6), "error: " + "; ".join(r.get("errors", []))])
    print(table(["variant", "server options", "before", "open (after a Step), per cycle", f"{after} s after close, per cycle",
                 "last after vs before", "of the last session's growth returned", "last cycle: first within 10 %",
                 "goal (last cycle)"], rows))
    for n in names:
        s = out.get(n, {}).get("samples", [])
        if s:
            marks = [f"{t:.0f}s {v / 1e6:.0f}" for t, v in s[:: max(1, len(s) // 8)]]
            print(f"\n{n} RSS (MB) after the close: " + ", ".join(marks))
    errs = [f"{n}: {e}" for n in names for e in out.get(n, {}).get("errors", [])]
    if errs:
        print("\nErrors:\n" + "\n".join(f"- {e}" for e in errs))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
