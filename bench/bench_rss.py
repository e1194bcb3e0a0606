"""Does a closed 100k session give its memory back? Server RSS before, during and after, per variant.

    python bench/bench_rss.py --variants as_is           # the app as shipped (~2.5 min, ~1.5 GB)
    python bench/bench_rss.py --variants as_is_probe     # the same, with the server's own figures at each moment
    python bench/bench_rss.py --variants as_is,as_is_glibc,as_is_gemm   # side by side (~3 min, ~1.5 GB per server)
    python bench/bench_rss.py --churn none         # nobody else Steps, opens or closes a tab after the close
    python bench/bench_rss.py --faults             # what glibc's thresholds cost a 100k Step (no server, ~1 min)

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

Goal (issue 17): "after" within 10 % of "before". What the app ships for it: Streamlit keeps a
disconnected session for ``server.disconnectedSessionTTL`` (.streamlit/config.toml: 30 s; Streamlit's
default is 120) so that the tab can reconnect, and drops an expired one only when its session store
is next written (another tab disconnecting); the dropped session's objects are in reference cycles,
which only a full collection frees (the app turns Streamlit's post-run ``gc.collect(2)`` off), and
glibc may keep freed heap pages: server/upkeep.py's thread runs ``gc.collect()`` and ``malloc_trim(0)``
every 10 s. Streamlit's message flush loop keeps the last session it flushed alive (see
``as_is_release`` below), so the same thread also empties the labs of every session that can never
run again (closed, or disconnected past the TTL) in place (``Lab.release``) and clears that
session's state, callbacks and fragments. What then stayed was allocator memory, found with the
probe's table of mappings: numpy's OpenBLAS keeps a 32 MB work buffer per thread once a
(V, E) @ (E, k) product has packed a 100k table into it (~65 MB), so ``Frame.transform`` takes one
matrix-vector product per axis; and glibc's dynamic thresholds let a script thread's heap keep up
to 64 MB free at its top, so server/upkeep.py fixes them (16 MiB mmap, 32 MiB trim). The variants:

- ``as_is``: the app as it ships (TTL 30 s, server/upkeep.py's thread and thresholds).
- ``as_is_probe``: the same, run through a wrapper with a probe thread that, when asked, reports
  the server's own figures: RSS split into anonymous and file-backed memory (/proc/self/smaps_rollup),
  glibc's heap (``mallinfo2``: in use, free but kept, mmapped chunks), the bytes of live torch
  storages, modules imported, objects the collector tracks, Lab objects alive, and the sessions in
  Streamlit's store; with ``--traced`` also tracemalloc's Python and numpy allocations (the server
  then runs with ``PYTHONTRACEMALLOC=1``: slower, and the traces take memory of their own). It also
  lists the anonymous mappings that grew most from "before" to the last "after" (start, size,
  whether 64 MB-aligned like glibc's thread heaps): the OpenBLAS buffers were two new 32 MiB
  mappings, fully touched.

- ``as_is_glibc``: the shipped app with glibc's own (dynamic) malloc thresholds: server/upkeep.py's
  ``mallopt`` turned off in a wrapper.
- ``as_is_mallopt_1m``: thresholds of 1 MiB (mmap) and 4 MiB (trim) instead of 16 and 32 MiB: a
  little more memory back, but a 100k Step then maps and touches fresh pages for every block of a
  MiB or more. ``--faults`` counts them: a 100k Step (and its picture) in one thread, per setting,
  in a process of its own, the page faults and CPU time of each (a chapter-sized Step allocates
  no block that large; ``bench_load.py`` gives a click's CPU time in a class).
- ``as_is_arena1``, ``as_is_arena2``, ``as_is_arena1_1m``: glibc's ``M_ARENA_MAX`` 1 or 2 (fewer
  thread heaps; the last with the 1/4 MiB thresholds), set at the first run; ``as_is_env_arena2``:
  ``MALLOC_ARENA_MAX=2`` in the server's environment. None gave anything back (arena1/2: more stayed).
- ``as_is_gemm``: ``Frame.transform`` as one (V, E) @ (E, k) product, as before it took one
  matrix-vector product per axis (the OpenBLAS buffers stay); ``as_is_gemm_glibc``: that and
  glibc's own thresholds, i.e. the allocator side as it was before both changes.

- ``as_is_blas1``: the shipped app with numpy's BLAS (OpenBLAS) held to one thread
  (``threadpoolctl.threadpool_limits(1, "blas")`` once per process, in a wrapper): one work buffer
  instead of one per OpenBLAS thread.

Variants from before server/upkeep.py (each now also runs the app's own upkeep thread; the ``ttl10…``
ones override the shipped TTL):

- ``ttl10``: ``--server.disconnectedSessionTTL 10`` (a tab can reconnect for 10 s instead of 30).
- ``ttl10_postgc``: also ``--runner.postScriptGC true`` (a full collection after every run).
- ``ttl10_gc``: TTL 10 s and, in the server, a thread that runs ``gc.collect()`` every 10 s.
- ``ttl10_gc_trim``: as ``ttl10_gc``, plus glibc's ``malloc_trim(0)`` after each collection.
- ``as_is_gc_trim``: the shipped TTL with a second collecting and trimming thread.
- ``ttl10_reap_gc_trim``: as ``ttl10_gc_trim``, and the thread first drops expired disconnected
  sessions from Streamlit's session store (a private API: ``Runtime.instance()._session_mgr.
  _session_storage._cache.expire()``), which Streamlit otherwise does only when another tab
  disconnects.
- ``as_is_reap_gc_trim``: the same thread at the shipped TTL (30 s).
- ``as_is_release``: as ``as_is_reap_gc_trim``, and the thread also empties each dropped session's
  state and its widgets' callbacks (what server/upkeep.py now does, with the labs emptied in place too) (``info.session._session_state.clear()`` and its
  ``_new_widget_state.widget_metadata``, private: a callback's ``args`` or closure holds the explorer). Streamlit's message flush loop
  (``Runtime._loop_coroutine``: ``for active_session_info in …``) keeps the last session it flushed
  in its loop variable until another session's messages are flushed, so a session dropped from the
  store can stay alive, lab and all, on a server where nobody else is doing anything.

The thread, probe and allocator variants run app.py through a wrapper script written to a
temporary folder (the app is not changed); the wrapper starts its thread, or sets what it sets,
once per process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
                if {release}:  # and empty their session state: Streamlit's flush loop may still hold the session
                    for _, info in dropped:
                        state = info.session._session_state
                        state.clear()
                        state._new_widget_state.widget_metadata.clear()  # callbacks and their args (the explorer)
            except Exception as e:
                print(f"bench janitor: could not reap: {{e!r}}", file=sys.stderr, flush=True)
        gc.collect()
        if {trim}:
            libc.malloc_trim(0)


if not any(t.name == "bench-janitor" for t in threading.enumerate()):
    threading.Thread(target=_janitor, name="bench-janitor", daemon=True).start()
runpy.run_path(ROOT + "/app.py", run_name="__bench_app__")
'''

PROBE_WRAPPER = r'''"""app.py as shipped, with a probe thread (bench/bench_rss.py): on request, what the process holds."""
import sys, threading, time, gc, ctypes, json, os, runpy
ROOT = {root!r}
PROBE_DIR = {probe_dir!r}
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                                                "uordblks", "fordblks", "keepcost")]


def _snapshot():
    import tracemalloc
    out = {{"t": time.time()}}
    for line in open("/proc/self/smaps_rollup"):
        k, _, v = line.partition(":")
        if k in ("Rss", "Anonymous", "Pss_File", "Pss_Anon", "Shared_Clean", "Private_Clean"):
            out[k] = int(v.split()[0]) * 1024
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _Mallinfo2
    m = libc.mallinfo2()
    out.update({{"malloc_" + n: getattr(m, n) for n, _ in _Mallinfo2._fields_}})
    out["modules"] = len(sys.modules)
    # anonymous memory by kind of mapping: glibc's main heap, mappings of 8 MB or more (glibc's
    # per-thread arenas are 64 MB ones; the kernel merges adjacent 1 MiB pymalloc arenas), smaller ones
    kinds, cur, maps = {{"anon_heap": 0, "anon_big": 0, "anon_small": 0, "anon_other": 0}}, None, []
    for line in open("/proc/self/smaps"):
        parts = line.split()
        if parts and "-" in parts[0] and len(parts) >= 5 and ":" in parts[3]:
            a, b = (int(x, 16) for x in parts[0].split("-"))
            name = parts[5] if len(parts) > 5 else ""
            cur = ("anon_heap" if name == "[heap]" else "anon_other" if name else
                   "anon_big" if b - a >= 8 << 20 else "anon_small")
            maps.append([a, b - a, 0, name])
        elif parts and parts[0] == "Anonymous:" and cur:
            kinds[cur] += int(parts[1]) * 1024
            maps[-1][2] = int(parts[1]) * 1024
    out.update(kinds)
    out["maps"] = [m for m in maps if m[2] >= 256 << 10]  # (start, size, anonymous bytes, name): what grew where
    # pymalloc (Python's allocator for objects up to 512 bytes): its arenas, from the interpreter itself
    import tempfile
    with tempfile.TemporaryFile("w+") as f:
        saved = os.dup(2)
        try:
            sys.stderr.flush()
            os.dup2(f.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        for line in f:
            if "bytes/arena" in line:  # "N arenas * 1048576 bytes/arena = bytes"
                out["pymalloc_total"] = int(line.split("=")[1].replace(",", ""))
            elif line.startswith("# bytes in allocated blocks"):
                out["pymalloc_used"] = int(line.split("=")[1].replace(",", ""))
    out["traced"] = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None
    out["tracemalloc_overhead"] = tracemalloc.get_tracemalloc_memory() if tracemalloc.is_tracing() else None
    objs = gc.get_objects()
    out["gc_objects"] = len(objs)
    seen, tensor_bytes, n_tensors, n_labs, n_arrays = set(), 0, 0, 0, 0
    torch = sys.modules.get("torch")
    for o in objs:
        if torch is not None and isinstance(o, torch.Tensor):
            try:
                st = o.untyped_storage()
                if st.data_ptr() not in seen:
                    seen.add(st.data_ptr())
                    tensor_bytes += st.nbytes()
                    n_tensors += 1
            except Exception:
                pass
        elif type(o).__name__ == "Lab":
            n_labs += 1
    del objs
    out.update({{"tensor_bytes": tensor_bytes, "tensors": n_tensors, "labs": n_labs}})
    try:
        from streamlit.runtime import Runtime
        mgr = Runtime.instance()._session_mgr
        out["sessions"] = len(mgr.list_sessions())
        out["active_sessions"] = len(mgr.list_active_sessions())
    except Exception as e:
        out["sessions"] = repr(e)
    if tracemalloc.is_tracing():
        snap = tracemalloc.take_snapshot()
        out["traced_top"] = [(str(st.traceback[0]), st.size) for st in snap.statistics("lineno")[:8]]
    return out


def _why():
    """Drop expired sessions, collect, then: who still refers to each large Lab (referrer chains)."""
    from streamlit.runtime import Runtime
    dropped = Runtime.instance()._session_mgr._session_storage._cache.expire()
    gc.collect()
    labs = [o for o in gc.get_objects() if type(o).__name__ == "Lab"
            and getattr(getattr(getattr(o, "recipe", None), "vocab", None), "size", 0) > 2000]
    chains = []
    skip = {{id(labs)}}
    def name(o, child):
        t = type(o).__name__
        if isinstance(o, dict):
            keys = [k for k, v in o.items() if v is child][:2]
            return f"dict[{{keys!r}}]"
        if t == "frame":
            return f"frame {{o.f_code.co_name}} ({{o.f_code.co_filename.rsplit('/', 2)[-2:]}}:{{o.f_lineno}})"
        if t == "cell":
            return "cell"
        return t
    for lab in labs:
        paths = [[lab]]
        for depth in range(7):
            nxt = []
            for path in paths:
                refs = [r for r in gc.get_referrers(path[-1]) if id(r) not in skip and r is not paths
                        and r is not path and r is not nxt and type(r).__name__ != "frame" or
                        (type(r).__name__ == "frame" and "bench_rss" not in r.f_code.co_filename and "app_probe" not in r.f_code.co_filename)]
                refs = [r for r in refs if r is not path and not (isinstance(r, list) and any(r is p for p in paths))]
                for r in refs[:4]:
                    nxt.append(path + [r])
            if not nxt:
                break
            paths = nxt[:24]
        for path in paths[:12]:
            chains.append(" <- ".join(name(o, path[i - 1]) if i else "Lab" for i, o in enumerate(path)))
    # the AppSessions that are in no store any more, and what refers to them
    mgr = Runtime.instance()._session_mgr
    known = {{id(i.session) for i in mgr.list_sessions()}}
    orphans = [o for o in gc.get_objects() if type(o).__name__ == "AppSession" and id(o) not in known]
    for sess in orphans:
        for r in gc.get_referrers(sess):
            if r is orphans:
                continue
            rr = [type(x).__name__ + (f"({{x.f_code.co_name}})" if type(x).__name__ == "frame" else "")
                  + (f"[{{[k for k, v in x.items() if v is r][:1]!r}}]" if isinstance(x, dict) else "")
                  for x in gc.get_referrers(r) if x is not orphans][:5]
            desc = type(r).__name__
            if type(r).__name__ == "method":
                desc = f"bound method {{r.__func__.__qualname__}}"
            elif type(r).__name__ == "cell":
                desc = "cell of " + ", ".join(f.__qualname__ for f in gc.get_referrers(r) if callable(f) and hasattr(f, "__qualname__"))[:200]
            elif isinstance(r, dict):
                desc = "dict with keys " + repr([k for k, v in r.items() if v is sess][:3])
            chains.append(f"AppSession (in no store) <- {{desc}} <- {{rr}}")
    return {{"dropped": len(dropped) if dropped else 0, "large_labs": len(labs), "orphan_sessions": len(orphans),
            "chains": chains}}


def _probe():
    while True:
        time.sleep(0.3)
        for name in os.listdir(PROBE_DIR):
            if name.startswith("ask-"):
                label = name[4:]
                try:
                    res = _why() if label == "why" else _snapshot()
                except Exception as e:
                    res = {{"error": repr(e)}}
                with open(os.path.join(PROBE_DIR, "got-" + label + ".json"), "w") as f:
                    json.dump(res, f)
                os.unlink(os.path.join(PROBE_DIR, name))


if not any(t.name == "bench-probe" for t in threading.enumerate()):
    threading.Thread(target=_probe, name="bench-probe", daemon=True).start()
runpy.run_path(ROOT + "/app.py", run_name="__bench_app__")
'''

BLAS1_WRAPPER = '''"""app.py as shipped, with numpy's BLAS (OpenBLAS) held to one thread in the server (bench/bench_rss.py)."""
import sys, runpy
ROOT = {root!r}
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
if not getattr(sys, "_bench_blas1", False):
    import threadpoolctl
    threadpoolctl.threadpool_limits(1, "blas")  # process-wide: OpenBLAS's own thread count
    sys._bench_blas1 = True
runpy.run_path(ROOT + "/app.py", run_name="__bench_app__")
'''

MALLOPT_WRAPPER = '''"""app.py with glibc's malloc settings of the variant instead of server/upkeep.py's (bench/bench_rss.py): {doc}."""
import sys, ctypes, runpy
ROOT = {root!r}
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
PARAMS = {params!r}  # None: server/upkeep.py's own
if not getattr(sys, "_bench_mallopt", False) and PARAMS is not None:
    from server import upkeep
    libc = ctypes.CDLL("libc.so.6")
    upkeep._fix_malloc_thresholds = lambda: [libc.mallopt(param, value) for param, value in PARAMS]
    sys._bench_mallopt = True
{patch}
runpy.run_path(ROOT + "/app.py", run_name="__bench_app__")
'''

# Frame.transform as one (V, E) @ (E, k) product, as it was before it took one matrix-vector
# product per axis: numpy's OpenBLAS packs such a product into its per-thread work buffers, 32 MB
# each, and keeps them for the life of the process.
GEMM_PATCH = '''
import numpy as np
import core.projection as _projection


def _transform(self, w):
    w = np.asarray(w, dtype=np.float32)
    return w @ self.axes.T.astype(np.float32) - (self.mean @ self.axes.T).astype(np.float32)


_projection.Frame.transform = _transform
'''

# glibc's mallopt parameters (malloc.h); "shipped": server/upkeep.py's own
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
MALLOPTS = {
    "shipped": None,
    "glibc": (),
    "1m": ((M_MMAP_THRESHOLD, 1 << 20), (M_TRIM_THRESHOLD, 4 << 20)),
    "arena1": ((M_ARENA_MAX, 1),),
    "arena2": ((M_ARENA_MAX, 2),),
    "arena1_1m": ((M_ARENA_MAX, 1), (M_MMAP_THRESHOLD, 1 << 20), (M_TRIM_THRESHOLD, 4 << 20)),
}

TTL10 = ["--server.disconnectedSessionTTL", "10"]
VARIANTS = {
    "as_is": ([], None),
    "as_is_probe": ([], {"probe": True}),
    "as_is_blas1": ([], {"blas1": True}),
    "as_is_glibc": ([], {"mallopt": "glibc"}),
    "as_is_mallopt_1m": ([], {"mallopt": "1m"}),
    "as_is_arena1": ([], {"mallopt": "arena1"}),
    "as_is_arena2": ([], {"mallopt": "arena2"}),
    "as_is_arena1_1m": ([], {"mallopt": "arena1_1m"}),
    "as_is_env_arena2": ([], {"env": {"MALLOC_ARENA_MAX": "2"}}),
    "as_is_gemm": ([], {"mallopt": "shipped", "gemm": True}),
    "as_is_gemm_glibc": ([], {"mallopt": "glibc", "gemm": True}),
    "ttl10": (TTL10, None),
    "ttl10_postgc": (TTL10 + ["--runner.postScriptGC", "true"], None),
    "ttl10_gc": (TTL10, {"trim": False}),
    "ttl10_gc_trim": (TTL10, {"trim": True}),
    "as_is_gc_trim": ([], {"trim": True}),
    "ttl10_reap_gc_trim": (TTL10, {"trim": True, "reap": True}),
    "as_is_reap_gc_trim": ([], {"trim": True, "reap": True}),
    "as_is_release": ([], {"trim": True, "reap": True, "release": True}),
}


def script_for(janitor: dict | None, tmp: Path, period: int) -> Path:
    if janitor is None or set(janitor) == {"env"}:
        return ROOT / "app.py"
    if janitor.get("mallopt"):
        params = MALLOPTS[janitor["mallopt"]]
        path = tmp / f"app_mallopt_{janitor['mallopt']}{'_gemm' if janitor.get('gemm') else ''}.py"
        doc = ("server/upkeep.py's thresholds" if params is None else
               ", ".join([f"mallopt({p}, {v})" for p, v in params] or ["glibc's own thresholds"]))
        doc += ", Frame.transform as one matrix product" if janitor.get("gemm") else ""
        path.write_text(MALLOPT_WRAPPER.format(root=str(ROOT), params=params, doc=doc,
                                               patch=GEMM_PATCH if janitor.get("gemm") else ""))
        return path
    if janitor.get("blas1"):
        path = tmp / "app_blas1.py"
        path.write_text(BLAS1_WRAPPER.format(root=str(ROOT)))
        return path
    if janitor.get("probe"):
        (tmp / "probe").mkdir(exist_ok=True)
        path = tmp / "app_probe.py"
        path.write_text(PROBE_WRAPPER.format(root=str(ROOT), probe_dir=str(tmp / "probe")))
        return path
    reap = janitor.get("reap", False)
    path = tmp / f"app_janitor_trim{int(janitor['trim'])}_reap{int(reap)}_release{int(janitor.get('release', False))}.py"
    path.write_text(WRAPPER.format(period=period, root=str(ROOT), trim=janitor["trim"], reap=reap,
                                   release=janitor.get("release", False),
                                   trim_doc=", then malloc_trim(0)" if janitor["trim"] else ""))
    return path


async def ask_probe(probe_dir: Path | None, label: str, into: dict) -> None:
    """The probe wrapper's snapshot of the server's own figures (PROBE_WRAPPER), under ``label``."""
    if probe_dir is None:
        return
    (probe_dir / f"ask-{label}").touch()
    got = probe_dir / f"got-{label}.json"
    for _ in range(600):
        if got.exists():
            await asyncio.sleep(0.2)  # written in one go, but let it close
            into[label] = json.loads(got.read_text())
            return
        await asyncio.sleep(0.1)
    into[label] = {"error": "the probe did not answer in 60 s"}


async def timeline(name: str, srv: StreamlitServer, after: int, churn: str, cycles: int, out: dict,
                   probe_dir: Path | None = None) -> None:
    r = out[name] = {"errors": [], "samples": [], "open": [], "after": [], "probe": {}}
    try:
        bystander = Tab(srv.ws_url, f"{name} bystander", 300)
        await open_view(bystander)
        await step(bystander, 1)
        await asyncio.sleep(3)
        r["before"] = srv.rss()
        await ask_probe(probe_dir, "before", r["probe"])
        k = 1
        for cycle in range(cycles):
            big = Tab(srv.ws_url, f"{name} large {cycle + 1}", 600)
            await open_view(big, preset="large")
            await step(big, 1, verify=False)
            await asyncio.sleep(1)
            r["open"].append(srv.rss())
            await ask_probe(probe_dir, f"open{cycle + 1}", r["probe"])
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
            await ask_probe(probe_dir, f"after{cycle + 1}", r["probe"])
        r["samples"].append((time.monotonic() - t_close, r["after"][-1]))
        if probe_dir is not None and churn == "none":  # who keeps the closed session's lab
            await ask_probe(probe_dir, "why", r["probe"])
            await asyncio.sleep(12)  # server/upkeep.py's next collection and trim
            r["after_why"] = srv.rss()
        await bystander.close()
    except Exception as e:  # noqa: BLE001 - a failed variant is a result
        r["errors"].append(f"{type(e).__name__}: {e}")


PROBE_ROWS = (("Rss", "RSS (smaps_rollup)"), ("Anonymous", "anonymous memory"),
              ("anon_heap", "  of it: glibc's main heap"), ("anon_big", "  of it: mappings ≥ 8 MB (thread arenas; adjacent pymalloc arenas merge into these too)"),
              ("anon_small", "  of it: smaller mappings"),
              ("pymalloc_total", "pymalloc arenas (Python objects ≤ 512 B)"), ("pymalloc_used", "  of it: in allocated blocks"),
              ("Pss_File", "file-backed (code, .so), proportional"),
              ("malloc_arena", "malloc heap (sbrk)"), ("malloc_uordblks", "malloc in use"), ("malloc_fordblks", "malloc free, kept"),
              ("malloc_hblkhd", "malloc mmapped chunks"), ("tensor_bytes", "live torch tensor storage"),
              ("traced", "Python + numpy allocations (tracemalloc)"), ("tracemalloc_overhead", "tracemalloc's own memory"))


def print_probe(name: str, snaps: dict, rss_after_why: int | None = None) -> None:
    """What the server holds at each moment, by its own figures (the probe variant)."""
    why = snaps.pop("why", None)
    if why is not None:
        print(f"\n{name}: after the last sample, the probe dropped {why.get('dropped')} expired session(s) and "
              f"collected; large Labs still alive: {why.get('large_labs')}, AppSessions in no store: {why.get('orphan_sessions')}"
              + (f"; RSS 12 s later {fmt_bytes(rss_after_why)}" if rss_after_why else "") + ". Who refers to them:\n")
        for c in why.get("chains", [])[:24]:
            print(f"- {c}")
        if why.get("error"):
            print(f"- probe error: {why['error']}")
    if not snaps:
        return
    labels = list(snaps)
    first, last = snaps[labels[0]].get("maps"), snaps[labels[-1]].get("maps")
    if first is not None and last is not None:
        print(f"\n{name}: the anonymous mappings that grew most from {labels[0]} to {labels[-1]} "
              "(glibc's thread arenas are 64 MB-aligned heaps of at most 64 MB; a thread's stack is 8 MB)\n")
        before = {m[0]: m[2] for m in first}
        grew = sorted(((m[2] - before.get(m[0], 0), m) for m in last), key=lambda g: -g[0])
        rows = [[hex(m[0]), fmt_bytes(m[1]), "yes" if m[0] % (64 << 20) == 0 else "", fmt_bytes(before.get(m[0], 0)),
                 fmt_bytes(m[2]), f"{d / 1e6:+.1f} MB", m[3] or "–"] for d, m in grew[:14] if d > 0]
        gone = sum(v for a, v in before.items() if a not in {m[0] for m in last})
        print(table(["start", "size", "64 MB-aligned", f"anon {labels[0]}", f"anon {labels[-1]}", "grew", "name"], rows))
        print(f"\nin all: {sum(d for d, _ in grew if d > 0) / 1e6:+.1f} MB grew, "
              f"{sum(d for d, _ in grew if d < 0) / 1e6:+.1f} MB shrank, {gone / 1e6:.1f} MB of mappings gone")
        for label in labels:
            snaps[label].pop("maps", None)
    rows = []
    for key, title in PROBE_ROWS:
        if any(isinstance(snaps[label].get(key), (int, float)) for label in labels):
            rows.append([title] + [fmt_bytes(snaps[label][key]) if isinstance(snaps[label].get(key), (int, float)) else "–"
                                   for label in labels])
    for key, title in (("modules", "modules imported"), ("gc_objects", "objects the collector tracks"),
                       ("tensors", "torch storages alive"), ("labs", "Lab objects alive"),
                       ("sessions", "sessions in the store"), ("active_sessions", "connected sessions")):
        rows.append([title] + [str(snaps[label].get(key, "–")) for label in labels])
    print(f"\n{name}: what the server holds, by its own figures (a probe thread inside it)\n")
    print(table(["", *labels], rows))
    last = snaps[labels[-1]]
    if last.get("traced_top"):
        print(f"\n{name}, {labels[-1]}: largest Python/numpy allocations by line: "
              + "; ".join(f"{fmt_bytes(b)} {where}" for where, b in last["traced_top"][:6]))


FAULTS_SCRIPT = r'''
import ctypes, resource, sys, threading, time
sys.path.insert(0, {root!r})
import torch
from assets import presets
from core.explorer import Explorer
torch.set_num_threads(1)  # as page.py sets it
libc = ctypes.CDLL("libc.so.6")
for param, value in {params!r}:
    libc.mallopt(param, value)
ex = Explorer.from_preset(presets.load("large"))
ex.picture(2)
faults, cpu = [], []

def steps():
    for _ in range({steps}):
        f0, t0 = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt, time.thread_time()
        ex.step()
        ex.picture(2)
        cpu.append(time.thread_time() - t0)
        faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - f0)

t = threading.Thread(target=steps)  # a script thread of its own, as Streamlit runs each run
t.start()
t.join()
print(sorted(faults[2:])[len(faults[2:]) // 2], sorted(cpu[2:])[len(cpu[2:]) // 2])
'''


def faults(steps: int = 8) -> None:
    """Page faults and CPU time of a 100k Step under each of glibc's threshold settings (``--faults``)."""
    import subprocess

    print(f"# bench_rss --faults: a 100k × 300 Step and its picture, median of steps 3–{steps}, "
          f"one process per setting\n\n{machine_note()}\n")
    settings = {"glibc's own (dynamic)": (), "server/upkeep.py's (16 MiB mmap, 32 MiB trim)":
                ((M_MMAP_THRESHOLD, 16 << 20), (M_TRIM_THRESHOLD, 32 << 20)), "1 MiB mmap, 4 MiB trim":
                MALLOPTS["1m"]}
    rows = []
    for name, params in settings.items():
        out = subprocess.run([sys.executable, "-c", FAULTS_SCRIPT.format(root=str(ROOT), params=params, steps=steps)],
                             capture_output=True, text=True, timeout=600)
        if out.returncode:
            rows.append([name, "–", "error: " + out.stderr.strip().splitlines()[-1][:120]])
            continue
        n, cpu = out.stdout.split()[-2:]
        rows.append([name, n, f"{float(cpu) * 1e3:.0f}"])
    print(table(["malloc thresholds", "minor page faults per Step", "CPU ms per Step"], rows))
    print(f"\n{machine_note()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="as_is,as_is_probe",
                    help=f"comma-separated, of: {', '.join(VARIANTS)} (each its own server, ~1.5 GB at its peak)")
    ap.add_argument("--after", type=int, default=60, help="seconds to watch after the close (at most 180)")
    ap.add_argument("--period", type=int, default=10, help="seconds between the janitor thread's collections")
    ap.add_argument("--cycles", type=int, default=2,
                    help="100k sessions opened and closed one after another (the second tells a one-time cost from a leak)")
    ap.add_argument("--churn", choices=("both", "steps", "none"), default="both",
                    help="after the close, every 10 s: the bystander Steps and a tab passes (both), only the Step, or nothing")
    ap.add_argument("--traced", action="store_true",
                    help="the probe variant's server runs with tracemalloc (PYTHONTRACEMALLOC=1: slower, and its traces take memory)")
    ap.add_argument("--faults", action="store_true",
                    help="no server: page faults and CPU time of a 100k Step under glibc's own and server/upkeep.py's thresholds")
    args = ap.parse_args()
    if args.faults:
        return faults()
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
        servers, probes = {}, {}
        try:
            for n in names:
                extra, janitor = VARIANTS[n]
                probe = bool(janitor and janitor.get("probe"))
                env = dict((janitor or {}).get("env", {}), **({"PYTHONTRACEMALLOC": "1"} if probe and args.traced else {}))
                servers[n] = StreamlitServer(script_for(janitor, Path(tmp), args.period), extra=extra, env=env or None)
                probes[n] = Path(tmp) / "probe" if probe else None

            async def go():
                await asyncio.gather(*(timeline(n, servers[n], after, args.churn, cycles, out, probes[n]) for n in names))

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
    for n in names:
        print_probe(n, out.get(n, {}).get("probe", {}), out.get(n, {}).get("after_why"))
    errs = [f"{n}: {e}" for n in names for e in out.get(n, {}).get("errors", [])]
    if errs:
        print("\nErrors:\n" + "\n".join(f"- {e}" for e in errs))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
