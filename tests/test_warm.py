"""server/warm.py: the server warms itself at start in throwaway sessions, and says "warming up" until then."""

from __future__ import annotations

import asyncio
import threading
import subprocess
import sys
import time
import urllib.error
import urllib.request

from server import warm
from support.server import free_port, stop_process
from tests.e2e.helpers import ROOT

START_S = 180  # imports and four first runs on a busy 2-core machine


def _call(path: str) -> tuple[int, bytes]:
    """One HTTP request through WarmingHealth, in front of an app that answers 200 "app"."""
    sent = []

    async def inner(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"app"})

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "headers": [], "query_string": b""}
    # a thread of its own: another test (Playwright's sync API) may have left a loop running in this one
    worker = threading.Thread(target=lambda: asyncio.run(warm.WarmingHealth(inner)(scope, receive, send)))
    worker.start()
    worker.join(30)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def test_health_says_warming_up_until_the_warm_up_has_ended_and_nothing_else_is_held_back(monkeypatch):
    monkeypatch.setattr(warm, "_done", type(warm._done)())
    assert _call("/_stcore/health") == (503, b"warming up")
    assert _call("/explorer/_stcore/health") == (503, b"warming up")  # under server.baseUrlPath too
    assert _call("/") == (200, b"app")  # the page itself is served: a learner who comes early is not refused
    assert _call("/_stcore/host-config") == (200, b"app")
    warm._done.set()
    assert warm.done()
    assert _call("/_stcore/health") == (200, b"app")


def _health(url: str) -> tuple[int, str]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return 0, ""


def test_streamlit_run_app_py_warms_every_view_before_it_says_ok(tmp_path):
    """The real server: health answers 503 "warming up" first, then "ok" once each view's throwaway
    session has run and drawn that view's own widget; the log names each, and nothing failed."""
    port = free_port()
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                 "--server.address", "127.0.0.1", "--server.port", str(port),
                                 "--browser.gatherUsageStats", "false"], cwd=ROOT, stdout=log,
                                stderr=subprocess.STDOUT)
        seen = []
        try:
            deadline = time.monotonic() + START_S
            while (not seen or seen[-1] != (200, "ok")) and time.monotonic() < deadline and proc.poll() is None:
                status = _health(f"http://127.0.0.1:{port}/_stcore/health")
                if status[0] and (not seen or seen[-1] != status):
                    seen.append(status)
                time.sleep(0.1)
        finally:
            stop_process(proc)
    text = log_path.read_text(errors="replace")
    assert seen and seen[-1] == (200, "ok"), f"health said {seen}; log:\n{text[-3000:]}"
    assert seen[0] == (503, "warming up"), seen
    for address, _ in warm.ADDRESSES:
        assert f"warm-up: ?{address} in " in text, text[-3000:]
    assert "warm in " in text and "warm-up failed" not in text and "finished with status" not in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
