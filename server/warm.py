"""The server warms itself at start, so that its first learner waits no longer than a later one.

What a first visit would otherwise pay is the process's, not the learner's: importing torch,
Plotly, pandas and the page's modules, torch's first forward/backward/optimizer step, Plotly's
first figure, the first stage bundle and each view's first draw. At server start (app.py's
``lifespan``, run by ``streamlit run app.py``) one daemon thread pays it once: it imports the page,
starts the upkeep thread (which freezes what is imported, before any lab exists), then opens one
throwaway session per view (an address such as ``?section=train``; Streamlit's own session
machinery runs the page exactly as for a browser tab), waits for each run to finish and closes the
session. Those sessions hold the default example's lab and nothing else, and are closed: no lab,
model, optimizer or vocabulary is kept, cached or shared.

Until the thread is done, the health check (``/_stcore/health``, which a load balancer, Docker's
HEALTHCHECK and Streamlit's own page ask before connecting) answers 503 "warming up", so nobody
is sent to a cold server; a page that connects anyway is served as usual. A warm-up that fails
or takes longer than WARM_TIMEOUT_S is logged and ends: the server then serves cold.
bench/bench_warm.py measures the effect.
"""

from __future__ import annotations

import asyncio
import threading
import time
from contextlib import asynccontextmanager

from core import server_log
from server import streamlit_private as private

THREAD_NAME = "embedding-explorer-warm"
WARM_TIMEOUT_S = 120.0  # for the whole warm-up; each view's run gets what is left
# One throwaway session per view, each opened from its address (core/url_state.py) in both languages.
# ``marker``: a widget only that view draws (its key), which the run must have drawn.
ADDRESSES = (("section=lookup&lang=ko", "out_sentence"), ("section=train&lang=en", "step"),
             ("section=lessons&lang=ko", "mode"), ("section=share&lang=en", "import_state"))
HEALTH_SUFFIX = "/_stcore/health"

_done = threading.Event()
_log = server_log.logger("embedding_explorer.warm")


def done() -> bool:
    """Whether the warm-up has ended (done, failed or timed out)."""
    return _done.is_set()


@asynccontextmanager
async def lifespan(_app):
    """app.py's ``st.App(lifespan=...)``: start the warm-up beside the server; nothing to undo at the end."""
    start(asyncio.get_running_loop())
    yield


def start(loop: asyncio.AbstractEventLoop) -> threading.Thread:
    """The warm-up thread, started once per process; ``loop`` is the server's event loop."""
    for t in threading.enumerate():
        if t.name == THREAD_NAME:
            return t
    thread = threading.Thread(target=_warm, args=(loop,), name=THREAD_NAME, daemon=True)
    thread.start()
    return thread


def _warm(loop: asyncio.AbstractEventLoop) -> None:
    t0 = time.monotonic()
    try:
        import page  # torch, Plotly, pandas, Streamlit's elements and every module the page draws with
        from sections import lessons_section, share_section  # noqa: F401 - the views page.py imports when shown
        from server import upkeep

        upkeep.start_once()  # freezes what is imported now, before the throwaway sessions build a lab
        page.torch_build.log_once()
        _log.info("warm-up: imports in %.1f s", time.monotonic() - t0)
        runtime = private.runtime()
        for address, marker in ADDRESSES:
            left = WARM_TIMEOUT_S - (time.monotonic() - t0)
            if left <= 0:
                raise TimeoutError(f"warm-up longer than {WARM_TIMEOUT_S:.0f} s")
            t1 = time.monotonic()
            _throwaway_run(runtime, loop, address, marker, left)
            _log.info("warm-up: ?%s in %.1f s", address, time.monotonic() - t1)
        _log.info("warm in %.1f s", time.monotonic() - t0)
    except Exception:  # noqa: BLE001 - a failed warm-up leaves a cold server, never a dead one
        _log.exception("warm-up failed after %.1f s; the server serves cold", time.monotonic() - t0)
    finally:
        _done.set()


def _throwaway_run(runtime, loop: asyncio.AbstractEventLoop, address: str, marker: str, timeout: float) -> None:
    """One session opened at ``address``, its first run waited for (it must draw the widget keyed
    ``marker``), then the session closed."""
    finished, keys = private.throwaway_run(runtime, loop, address, timeout)
    if not finished or marker not in keys:
        _log.warning("warm-up run at ?%s %s, %s its view's %r", address,
                     "finished" if finished else "did not finish successfully",
                     "with" if marker in keys else "without", marker)


class WarmingHealth:
    """ASGI middleware: the health check answers 503 "warming up" until the warm-up has ended."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not _done.is_set() and scope.get("path", "").endswith(HEALTH_SUFFIX):
            from starlette.responses import PlainTextResponse

            await PlainTextResponse("warming up", status_code=503)(scope, receive, send)
            return
        await self.app(scope, receive, send)
