"""A classroom as the server sees it: learners speaking Streamlit's websocket protocol, no browser.

    python bench/bench_load.py                          # 100 learners × 3 Steps, then 30 beside one 100k session (~5 min)
    python bench/bench_load.py --sessions 20 --clicks 2 --skip-large
    python bench/bench_load.py --big-clicks 0           # the 100k session loads and Steps once, then only sits there

Each learner is one websocket to ``/_stcore/stream`` (subprotocol ``streamlit``), like a browser
tab: it asks for the first run (a ``rerun_script`` BackMsg with an empty ClientState), reads the
ForwardMsg deltas for the widget ids (Streamlit's ids end in ``-<user key>``), switches the view
control (key ``section``) to the training view, then clicks Step (key ``step``) K times. A click is
a ``rerun_script`` carrying the widget states and, for a button drawn inside a fragment (the
training view's Step is), that fragment's id, as the browser sends it: the server then reruns that
fragment only. It is served when the ``script_finished`` message of that run arrives. No browser draws anything, so the times are the server's alone: send →
script_finished, on loopback, with the client's own decoding included (a few ms).

Two scenarios, each run against the app and, in the same run, against the bare page
(bench/bare_app.py, its button ``click``) with the same learners and clicks:

1. ``--sessions`` learners (default 100) open the page (at most ``--loads-at-once`` at a time),
   wait until the whole class is in, then click K times, each click after the previous one was
   served plus a think time of up to ``--think`` seconds.
2. ``--beside`` learners (default 30) next to one session that loaded the "large" preset
   (100,000 tokens × 300) and took one Step before the class started; during the class the large
   session clicks Step ``--big-clicks`` times too (its Steps are reported on their own row).

Errors: a run that ends in anything but success, an exception element in a run's deltas, a Step
after which the timeline slider does not end at that step (chapter sessions; the bare page: "clicks: N"), a widget that never appeared, a websocket closed early, a
click not served within ``--click-timeout``. Bounded: at most 250 sessions, 10 clicks each, and no
click starts after ``--budget`` seconds. Loopback only (127.0.0.1). The goal printed against is
issue 17's: 100 learners, p95 ≤ 1 s and no errors.

A server that dies is reported with the crashing thread's Python stack (the app's server runs with
PYTHONFAULTHANDLER=1) and replaced by a fresh one for the next scenario. At e0d0120, 100 learners
opening the page 4–10 at a time crashed the app's server (SIGSEGV) in most runs (RESULTS.md, "Load
and memory"); ``--loads-at-once 1`` lets the class arrive one at a time. ``--app`` runs another
script instead of app.py, e.g. a wrapper that tries a fix.

``--url http://host:port[/base/]`` targets an app already running there (one server, or a load
balancer in front of replicas, as bench_lb.py runs it) instead of starting one; the bare page is
still started here. Its server CPU per click is read only for the processes named by ``--pids``
(on this machine), summed; a dead remote server cannot be replaced.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, Server, cpu_seconds, fmt_bytes, fmt_ms, machine_note, quantile, table  # noqa: E402

try:
    import websockets
except ImportError:  # pragma: no cover - a message, not a traceback
    websockets = None

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

GOAL_P95_S = 1.0
FAULTHANDLER = {"PYTHONFAULTHANDLER": "1"}  # a crashed server prints every thread's Python stack
MAX_SESSIONS = 250
MAX_CLICKS = 10
SUCCESS = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


def need_websockets() -> None:
    if websockets is None:
        raise SystemExit("bench_load needs the 'websockets' package (an async websocket client): pip install websockets")


# ---- a server -------------------------------------------------------------------------------
class StreamlitServer(Server):
    """_common.Server whose output is kept (a crash's stack, `log_tail`), with its websocket's URL and its CPU time."""

    def __init__(self, script: Path, extra: list[str] | None = None, env: dict | None = None, timeout: float = 90.0):
        log = tempfile.NamedTemporaryFile("w+", prefix="bench_load_server_", suffix=".log", delete=False)
        super().__init__(script, timeout=timeout, env=env, extra=extra, log=log)
        self.ws_url = f"ws://127.0.0.1:{self.port}/_stcore/stream"

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def loop_cpu(self) -> float:
        """The CPU time of the server's main thread, which runs its event loop (the websockets, the
        messages); each script run has a thread of its own."""
        return cpu_seconds(self.pid, main_thread=True)

    def stop(self) -> None:
        super().stop()
        Path(self.log.name).unlink(missing_ok=True)

    def log_tail(self, n: int = 4000) -> str:
        """The end of the server's output (its exit status too, if it has exited); after a crash, the
        crashing thread's stack as faulthandler printed it."""
        self.log.flush()
        text = Path(self.log.name).read_text(errors="replace")
        if "Current thread" in text:
            fatal = text.find("Fatal Python error")
            text = text[fatal:fatal + 200] + "\n...\n" + text[text.find("Current thread"):][:n]
        else:
            text = text[-n:]
        rc = self.proc.poll()
        return text + (f"\n[server exited with status {rc}]" if rc is not None else "")


class RemoteApp:
    """An app already served at ``url`` (maybe behind a load balancer): its websocket's address, and
    the CPU time and RSS of the local processes ``pids`` that serve it (summed; NaN without pids)."""

    def __init__(self, url: str, pids: list[int] | None = None):
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SystemExit(f"--url needs an http(s) address such as http://127.0.0.1:8080/, not {url!r}")
        scheme = "wss" if parts.scheme == "https" else "ws"
        self.ws_url = f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}/_stcore/stream"
        self.pids = list(pids or [])
        self.proc = self  # poll(): a remote server is never reported as dead here

    def poll(self):
        return None

    def cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids) if self.pids else float("nan")

    def loop_cpu(self) -> float:
        return sum(cpu_seconds(pid, main_thread=True) for pid in self.pids) if self.pids else float("nan")

    def rss(self) -> int:
        from _common import rss_bytes

        return sum(rss_bytes(pid) for pid in self.pids) if self.pids else 0

    def stop(self) -> None:
        pass


def class_arguments(ap, budget: float = 240) -> None:
    """The class's own options, as bench_lb.py and diagnostics/ab_load.py take them too."""
    ap.add_argument("--clicks", type=int, default=3, help="Step clicks per learner")
    ap.add_argument("--loads-at-once", type=int, default=10, help="most learners opening the page at once")
    ap.add_argument("--think", type=float, default=1.0, help="most seconds a learner waits before each click")
    ap.add_argument("--budget", type=float, default=budget, help="seconds per class after which no click starts")
    ap.add_argument("--click-timeout", type=float, default=60, help="seconds after which a click counts as not served")


# ---- one tab --------------------------------------------------------------------------------
class RunError(Exception):
    pass


class Tab:
    """One websocket session speaking Streamlit's protocol the way the frontend does."""

    def __init__(self, ws_url: str, name: str, click_timeout: float = 120.0):
        self.ws_url, self.name, self.click_timeout = ws_url, name, click_timeout
        self.ws = None
        self.widgets: dict[str, tuple[str, object]] = {}  # user key → (widget id, element proto)
        self.state: dict[str, object] = {}  # user key → WidgetState template (kept, like the frontend)
        self.fragments: dict[str, str] = {}  # user key → the fragment the widget was drawn in (empty: none)
        self.received = 0
        self.received_bytes = 0
        self.query = ""  # the page's address after "?" (bench_limits.py opens an expensive one)
        self.session_id = ""  # from the server's new_session message

    async def open(self) -> None:
        self.ws = await websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None,
                                           open_timeout=60, ping_interval=None, close_timeout=5)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def run(self, trigger: str | None = None, **values) -> tuple[float, list[str]]:
        """One rerun: the kept widget states, ``values`` set (key → value), ``trigger`` clicked.
        Returns (seconds from send to script_finished, the text seen in the run's deltas)."""
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = ""
        cs.context_info.locale = "en-US"
        cs.context_info.timezone = "UTC"
        cs.context_info.url = self.ws_url.replace("ws://", "http://").rsplit("/_stcore", 1)[0] + "/"
        for key, value in values.items():
            self.state[key] = value
        for key, value in self.state.items():
            self._widget_state(cs.widget_states.widgets.add(), key, value)
        if trigger is not None:
            ws_ = cs.widget_states.widgets.add()
            ws_.id = self.widget_id(trigger)
            ws_.trigger_value = True
            if self.fragments.get(trigger):  # a button inside a fragment reruns that fragment, as the frontend asks
                cs.fragment_id = self.fragments[trigger]
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        texts: list[str] = []
        deadline = time.monotonic() + self.click_timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RunError(f"{self.name}: not served within {self.click_timeout:.0f} s")
            try:
                data = await asyncio.wait_for(self.ws.recv(), timeout=left)
            except asyncio.TimeoutError as e:
                raise RunError(f"{self.name}: not served within {self.click_timeout:.0f} s") from e
            self.received += 1
            self.received_bytes += len(data)
            fm = ForwardMsg.FromString(data)
            kind = fm.WhichOneof("type")
            if kind == "delta":
                self._read_delta(fm.delta, texts)
            elif kind == "new_session":
                self.session_id = fm.new_session.initialize.session_id
            elif kind == "script_finished":
                if fm.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                elapsed = time.perf_counter() - t0
                if fm.script_finished not in SUCCESS:
                    raise RunError(f"{self.name}: run finished with status {fm.script_finished}")
                return elapsed, texts

    def widget_id(self, key: str) -> str:
        if key not in self.widgets:
            raise RunError(f"{self.name}: no widget with key {key!r} on the page")
        return self.widgets[key][0]

    def option(self, key: str, index: int) -> str:
        """The wire value of option ``index`` of a segmented control or selectbox."""
        kind, el = self.widgets[key][1]
        if kind == "button_group":
            return el.options[index].content
        return el.options[index]

    def _widget_state(self, w, key: str, value) -> None:
        w.id = self.widget_id(key)
        kind = self.widgets[key][1][0]
        if kind == "button_group":
            w.string_array_value.data.append(value)
        elif isinstance(value, str):
            w.string_value = value
        else:
            raise ValueError(f"no encoding for {key}={value!r}")

    def _read_delta(self, delta, texts: list[str]) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        el = delta.new_element
        kind = el.WhichOneof("type")
        if kind is None:
            return
        sub = getattr(el, kind)
        if kind == "exception":
            texts.append(f"EXCEPTION {sub.type}: {sub.message[:120]}")
            return
        wid = getattr(sub, "id", "") if hasattr(sub, "id") else ""
        if wid and "-" in wid:
            self.widgets[wid.rsplit("-", 1)[1]] = (wid, (kind, sub))
            self.fragments[wid.rsplit("-", 1)[1]] = delta.fragment_id
        for field in ("body", "label", "text"):
            value = getattr(sub, field, None)
            if isinstance(value, str) and value:
                texts.append(value)


async def open_view(tab: Tab, preset: str | None = None) -> float:
    """Open the page and the training view (after loading ``preset``, if given); returns seconds."""
    t0 = time.perf_counter()
    await tab.open()
    _, texts = await tab.run()
    check(tab, texts)
    if preset:
        from assets import presets

        _, texts = await tab.run("load_preset", preset=tab.option("preset", presets.ORDER.index(preset)))
        check(tab, texts)
    from page import SECTIONS

    _, texts = await tab.run(section=tab.option("section", SECTIONS.index("train")))
    check(tab, texts)
    tab.widget_id("step")
    return time.perf_counter() - t0


async def step(tab: Tab, k: int, trigger: str = "step", expect: str | None = None, verify: bool = True) -> float:
    """Click ``trigger`` once; served when script_finished arrives, and checked: the app's timeline
    slider (key ``timeline``, one stop per kept snapshot) now ends at stop ``k``; the bare page shows
    ``expect``. The large preset keeps only a few snapshots: ``verify=False`` skips the slider."""
    took, texts = await tab.run(trigger)
    check(tab, texts)
    if expect is not None:
        if not any(expect.format(k=k) in s for s in texts):
            raise RunError(f"{tab.name}: click {k} served but the page does not show {expect.format(k=k)!r}")
    elif verify:
        newest = getattr(tab.widgets.get("timeline", (None, (None, None)))[1][1], "max", None)
        if newest != k:
            raise RunError(f"{tab.name}: click {k} served but the timeline ends at step {newest}")
    return took


def check(tab: Tab, texts: list[str]) -> None:
    bad = [s for s in texts if s.startswith("EXCEPTION")]
    if bad:
        raise RunError(f"{tab.name}: {bad[0]}")


async def open_bare(tab: Tab) -> float:
    t0 = time.perf_counter()
    await tab.open()
    _, texts = await tab.run()
    check(tab, texts)
    tab.widget_id("click")
    return time.perf_counter() - t0


# ---- a class --------------------------------------------------------------------------------
async def classroom(ws_url: str, bare: bool, sessions: int, clicks: int, loads_at_once: int, think: float,
                    budget_s: float, click_timeout: float, big: dict | None = None, cpu=None) -> dict:
    """``sessions`` learners arrive, wait for each other, then click ``clicks`` times each.
    ``big``: {"clicks": n} adds one learner that loads the large preset and Steps once before the
    class, and ``n`` times during it (reported apart)."""
    stats = {"ready": [], "clicks": [], "big_clicks": [], "big_ready": None, "errors": [], "loads_ok": 0,
             "clicks_tried": 0, "received": 0, "received_bytes": 0, "class_s": float("nan")}
    deadline = time.monotonic() + budget_s
    gate = asyncio.Semaphore(loads_at_once)
    everyone = asyncio.Barrier(sessions + (1 if big else 0))
    tabs: list[Tab] = []
    t_class: list[float] = []  # when the whole class was in
    trigger, expect = ("click", "clicks: {k}") if bare else ("step", None)

    async def learner(i: int) -> None:
        rnd = random.Random(i)
        tab = Tab(ws_url, f"learner {i}", click_timeout)
        tabs.append(tab)
        ok = False
        try:
            async with gate:
                stats["ready"].append(await (open_bare(tab) if bare else open_view(tab)))
            stats["loads_ok"] += 1
            ok = True
        except Exception as e:  # noqa: BLE001 - a failed learner is a result
            stats["errors"].append(f"learner {i} opening: {type(e).__name__}: {e}")
        await everyone.wait()
        if not t_class:  # the first learner through the barrier: the class starts clicking now
            t_class[:] = [time.perf_counter()]
            stats["cpu_class_start"] = cpu() if cpu else float("nan")
        if not ok:
            return
        for k in range(1, clicks + 1):
            if time.monotonic() > deadline:
                stats["errors"].append(f"learner {i}: time limit reached before click {k}")
                return
            await asyncio.sleep(rnd.uniform(0, think))
            stats["clicks_tried"] += 1
            try:
                stats["clicks"].append(await step(tab, k, trigger, expect))
            except Exception as e:  # noqa: BLE001
                stats["errors"].append(f"learner {i} click {k}: {type(e).__name__}: {e}")
                return

    async def big_learner() -> None:
        tab = Tab(ws_url, "large session", max(click_timeout, 300))
        tabs.append(tab)
        ok = False
        try:
            t0 = time.perf_counter()
            await open_view(tab, preset="large")
            stats["big_first_step"] = await step(tab, 1, verify=False)
            stats["big_ready"] = time.perf_counter() - t0
            ok = True
        except Exception as e:  # noqa: BLE001
            stats["errors"].append(f"large session opening: {type(e).__name__}: {e}")
        await everyone.wait()
        if not ok:
            return
        for k in range(2, big["clicks"] + 2):
            if time.monotonic() > deadline:
                return
            try:
                stats["big_clicks"].append(await step(tab, k, verify=False))
            except Exception as e:  # noqa: BLE001
                stats["errors"].append(f"large session click {k}: {type(e).__name__}: {e}")
                return

    jobs = [learner(i) for i in range(sessions)] + ([big_learner()] if big else [])
    tasks = [asyncio.create_task(j) for j in jobs]
    done, pending = await asyncio.wait(tasks, timeout=budget_s + 2 * click_timeout + 300)
    for t in pending:
        t.cancel()
        stats["errors"].append("a learner was cancelled at the time limit")
    if t_class:
        stats["class_s"] = time.perf_counter() - t_class[0]
    stats["rss_all_open"] = None
    for tab in tabs:
        stats["received"] += tab.received
        stats["received_bytes"] += tab.received_bytes
    stats["tabs"] = tabs
    return stats


async def close_all(tabs: list[Tab]) -> None:
    await asyncio.gather(*(t.close() for t in tabs), return_exceptions=True)


def scenario(label: str, server: StreamlitServer | RemoteApp, bare: bool, args, sessions: int, big: dict | None) -> list[str]:
    """One class against one server; returns a table row."""
    cpu0 = server.cpu()
    rss0 = server.rss()
    t0 = time.perf_counter()

    loop = {}

    def cpu_now() -> float:  # when the whole class is in: the event loop's share is read with it
        loop["start"] = server.loop_cpu()
        return server.cpu()

    async def go():
        s = await classroom(server.ws_url, bare, sessions, args.clicks, args.loads_at_once, args.think, args.budget,
                            args.click_timeout, big, cpu=cpu_now)
        s["cpu_class_end"], loop["end"] = server.cpu(), server.loop_cpu()
        s["rss_all_open"] = server.rss()
        await close_all(s.pop("tabs"))
        return s

    s = asyncio.run(go())
    wall = time.perf_counter() - t0
    cpu = server.cpu() - cpu0
    c = s["clicks"]
    p95 = quantile(c, 0.95)
    served = len(c)
    row = [label, f"{served} / {s['clicks_tried']} ({sessions * args.clicks} planned)", fmt_ms(quantile(c, 0.5)),
           fmt_ms(p95), fmt_ms(max(c) if c else float("nan")), str(len(s["errors"])),
           f"{served / s['class_s']:.1f}" if s["class_s"] == s["class_s"] and s["class_s"] > 0 else "–",
           fmt_ms(quantile(s["ready"], 0.5)), f"{fmt_bytes(rss0)} → {fmt_bytes(s['rss_all_open'] or 0)}",
           f"{cpu:.0f} s / {wall:.0f} s",
           # the server's CPU while the class clicked (after everyone was in), per click served, and
           # the event loop's share of it (the rest: the script runs' threads)
           f"{fmt_ms((s['cpu_class_end'] - s.get('cpu_class_start', float('nan'))) / served)} "
           f"({fmt_ms((loop['end'] - loop.get('start', float('nan'))) / served)})" if served else "–"]
    if big:
        bc = s["big_clicks"]
        row.append(f"load+1st Step {s['big_ready'] or float('nan'):.1f} s (Step {fmt_ms(s.get('big_first_step', float('nan')))} ms); "
                   f"{len(bc)} Steps in class p50 {fmt_ms(quantile(bc, 0.5))} max {fmt_ms(max(bc) if bc else float('nan'))} ms")
    else:
        row.append("–")
    s["row"] = row
    SCEN_ERRORS.extend(f"{label}: {e}" for e in s["errors"])
    RESULTS[label] = s
    return row


SCEN_ERRORS: list[str] = []
RESULTS: dict[str, dict] = {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=100, help="learners in scenario 1")
    ap.add_argument("--beside", type=int, default=30, help="learners next to the 100k session in scenario 2")
    class_arguments(ap, budget=150)
    ap.add_argument("--big-clicks", type=int, default=3, help="Steps the 100k session takes during the class")
    ap.add_argument("--app", default=str(ROOT / "app.py"), help="the app's script (e.g. a wrapper that tries a fix)")
    ap.add_argument("--skip-large", action="store_true", help="scenario 1 only")
    ap.add_argument("--skip-class", action="store_true", help="scenario 2 only")
    ap.add_argument("--url", help="an app already running there (e.g. a load balancer), instead of starting one")
    ap.add_argument("--pids", type=int, nargs="*", default=[], help="with --url: the local processes serving it (their CPU)")
    args = ap.parse_args()
    need_websockets()
    args.sessions = max(1, min(args.sessions, MAX_SESSIONS))
    args.beside = max(1, min(args.beside, MAX_SESSIONS))
    args.clicks = max(1, min(args.clicks, MAX_CLICKS))
    args.big_clicks = max(0, min(args.big_clicks, MAX_CLICKS))
    print(f"# bench_load: websocket learners, app vs bare page\n\n{machine_note()}\n")
    t0 = time.perf_counter()
    rows = []
    deaths: list[str] = []
    app_script = Path(args.app).resolve()
    with StreamlitServer(ROOT / "bench" / "bare_app.py") as bare:
        app = RemoteApp(args.url, args.pids) if args.url else StreamlitServer(app_script, env=FAULTHANDLER)
        try:
            # one tab each first (not counted): the servers import torch, plotly & co.
            asyncio.run(classroom(bare.ws_url, True, 1, 1, 1, 0, 60, 120))
            asyncio.run(classroom(app.ws_url, False, 1, 1, 1, 0, 60, 120))
            if not args.skip_class:
                n = args.sessions
                rows.append(scenario(f"bare page, {n} learners", bare, True, args, n, None))
                rows.append(scenario(f"app, {n} learners", app, False, args, n, None))
                if app.proc.poll() is not None and not args.url:
                    deaths.append(f"## The app server died in scenario 1; the end of its output:\n\n```\n{app.log_tail()}\n```\n")
                    app.stop()
                    app = StreamlitServer(app_script, env=FAULTHANDLER)  # a fresh one for scenario 2
                    asyncio.run(classroom(app.ws_url, False, 1, 1, 1, 0, 60, 120))
            if not args.skip_large:
                n = args.beside
                rows.append(scenario(f"bare page, {n} learners", bare, True, args, n, None))
                rows.append(scenario(f"app, {n} learners + one 100k session", app, False, args, n,
                                     {"clicks": args.big_clicks}))
            if app.proc.poll() is not None:
                deaths.append(f"## The app server died in scenario 2; the end of its output:\n\n```\n{app.log_tail()}\n```\n")
            if bare.proc.poll() is not None:
                deaths.append(f"## The bare page's server died; the end of its output:\n\n```\n{bare.log_tail()}\n```\n")
        finally:
            app.stop()
    for d in deaths:
        print(d)
    print(table(["scenario", "clicks served", "p50 ms", "p95 ms", "max ms", "errors", "served/s",
                 "open→view p50 ms", "server RSS before → all open", "server CPU / wall", "server CPU ms per click (event loop)",
                 "100k session"], rows))
    if not args.skip_class:
        c = RESULTS[f"app, {args.sessions} learners"]
        p95 = quantile(c["clicks"], 0.95)
        met = args.sessions >= 100 and p95 <= GOAL_P95_S and not c["errors"]
        print(f"\nGoal (issue 17): 100 learners, p95 ≤ {GOAL_P95_S * 1e3:.0f} ms and 0 errors → "
              f"{'met' if met else 'MISSED'} ({args.sessions} learners: p95 {fmt_ms(p95)} ms, {len(c['errors'])} errors)")
    print(f"servers died: {len(deaths)} (a dead server's last output is printed above the table)")
    if SCEN_ERRORS:
        print("\nErrors (first 15):\n" + "\n".join(f"- {e}" for e in SCEN_ERRORS[:15]))
    print(f"\n{machine_note()}; wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
