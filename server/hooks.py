"""The server's hooks into Streamlit's runtime: whether a session still wants its work, and a clean stop.

The work budget's hooks into the server (server/budget.py). What they read of Streamlit's runtime is
in server/streamlit_private.py (Streamlit is pinned); tests/test_server_hooks.py fails if it moves.

- A session's work is no longer wanted once its run was asked to stop: Streamlit asks exactly
  then when the tab's websocket closes (``SessionManager.disconnect_session`` calls
  ``AppSession.request_script_stop``), when the session is closed and when the server stops. The
  script thread reads that request (``ScriptRunContext.script_requests``, a private state);
  another thread (a download built on click) asks the runtime whether the session is still
  connected (``Runtime.is_active_session``, documented thread-safe).
- A clean stop: Streamlit's SIGTERM handler stops the server, but a script thread still inside a
  long torch computation then meets the interpreter's shutdown, and the process aborted
  (``Fatal Python error: Aborted``, exit status 134). `install_stop_handler` puts a handler in
  front of the server's that first cancels every job of the budget and waits (bounded) for them to
  end at their next checkpoint, asks Streamlit's runtime to close its sessions, and ends the
  process with status 0 (the server's own handler, uvicorn's under st.App, would raise the signal
  again after its shutdown: status −15). A signal handler can only be
  installed from the main thread, which runs the server's event loop: it is scheduled there.
  Streamlit does not wait for script threads, and a step still inside torch when the interpreter
  finalizes crashed it (SIGSEGV, or the abort above); so once the server has stopped, a stop that
  came from a signal ends the process at exit (`_exit_cleanly`: logs flushed, then ``os._exit(0)``)
  before the interpreter's finalization can meet such a thread.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import sys
import threading
import time
from typing import Callable

from server import streamlit_private as private
from server.budget import BUDGET, Budget

STOP_WAIT_SECONDS = 2.0  # how long a stop waits for running jobs to reach a checkpoint
RUNTIME_STOP_SECONDS = 2.0  # then how long for Streamlit's runtime to close its sessions
STOP_SIGNALS = ("SIGTERM", "SIGINT")


def session_of_this_thread() -> tuple[str | None, Callable[[], bool] | None]:
    """The session whose script this thread runs, and whether it still wants its work (the budget's
    ``binder``); (None, None) outside a script run."""
    session_id, requests = private.this_run()
    if session_id is None:
        return None, None
    return session_id, lambda: not private.run_stopped(requests)


def install(budget: Budget = BUDGET) -> None:
    """Every run calls this: the budget learns whose each job is, and a stop cancels the jobs first."""
    if budget.binder is None:
        budget.binder = session_of_this_thread
    install_stop_handler(budget)


run_stopped = private.run_stopped
session_connected = private.session_connected


def alive_from_anywhere(session_id: str | None) -> Callable[[], bool]:
    """The still-wanted test for a job of this session run in another thread."""
    return lambda: session_connected(session_id)


def install_stop_handler(budget: Budget = BUDGET) -> bool:
    """Once per process: put `_stop_first` in front of Streamlit's SIGTERM and SIGINT handlers, on the
    main thread (scheduled on the server's event loop). False where there is no server (AppTest)."""
    loop = private.server_loop()
    if loop is None or getattr(budget, "_stop_handler_asked", False):
        return False
    budget._stop_handler_asked = True
    loop.call_soon_threadsafe(_install, budget)
    return True


def _install(budget: Budget) -> None:
    """On the main thread, inside the server's event loop."""
    atexit.register(_exit_cleanly, budget)
    for name in STOP_SIGNALS:
        number = getattr(signal, name)
        if not getattr(signal.getsignal(number), "budget_first", False):
            signal.signal(number, _stop_first(budget))


def _exit_cleanly(budget: Budget) -> None:
    """At exit after a stop signal: flush what was logged, and end here with status 0, before the
    interpreter's finalization runs while a script thread may still be inside torch."""
    if not budget.stopping:
        return
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def _stop_first(budget: Budget, end: Callable[[Budget], None] | None = None) -> Callable:
    """The handler: in a thread, stop the budget's jobs, close the runtime's sessions, then ``end``
    (`_exit_cleanly`)."""
    end = end or _exit_cleanly

    def handler(number, frame) -> None:
        # The wait runs in a thread: the main thread keeps running the event loop meanwhile.
        def stop() -> None:
            budget.stop(STOP_WAIT_SECONDS)
            # Not Streamlit's handler next: under st.App (app.py) it is uvicorn's, which after its
            # graceful shutdown raises the signal again with the default action (status -15). So
            # the runtime is asked to close its sessions, given a moment, and the process ends here.
            try:
                private.stop_runtime()
            except Exception:  # noqa: BLE001 - not as expected: the process ends anyway
                pass
            deadline = time.monotonic() + RUNTIME_STOP_SECONDS
            while time.monotonic() < deadline and not private.runtime_stopped():
                time.sleep(0.05)
            end(budget)

        threading.Thread(target=stop, name="embedding-explorer-stop", daemon=True).start()

    handler.budget_first = True
    return handler
