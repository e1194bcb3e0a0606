"""``python -m streamlit run FILE`` on a free 127.0.0.1 port, polled until ``/_stcore/health`` says ok.

Used by the browser tests (tests/e2e/), the Markdown safety test and the benchmarks. A server is
stopped by the pid this module started, never by name.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A port nothing listens on now, on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(url: str) -> str:
    """The body of ``url`` (a health check), or "" when nothing answers; never through a proxy."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2) as r:
            return r.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def stop_process(proc: subprocess.Popen, timeout: float = 15) -> None:
    """Terminate one process this kit started; kill it if it has not gone within ``timeout``."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float, what: str = "streamlit") -> None:
    """Poll ``url``/_stcore/health until it says ok; raise RuntimeError if the process exits or time runs out."""
    deadline = time.monotonic() + timeout
    while health(f"{url}/_stcore/health") != "ok":
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before answering its health check")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer /_stcore/health within {timeout:.0f} s")
        time.sleep(0.2)


NO_WATCHER = ("--server.fileWatcherType", "none")  # files edited during a run must not reload the app under test


class Server:
    """``streamlit run script`` on a free loopback port (or ``port``), started and healthy on construction.

    ``extra``: more command-line options; ``env``: more environment; ``log``: a path to write the
    server's output to (its tail goes into the error when the server does not start), or an open
    file; none kept by default. Usable as a context manager; `stop` stops only this process.
    """

    def __init__(self, script: str | Path = "app.py", timeout: float = 180.0, env: dict | None = None,
                 extra: list[str] | tuple[str, ...] | None = (), log=None, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
                    "--server.address", "127.0.0.1", "--server.port", str(self.port),
                    "--browser.gatherUsageStats", "false", *(extra or ())]
        self.log_path = Path(log) if isinstance(log, (str, Path)) else None
        self._own_log = not hasattr(log, "write")
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self.log = open(self.log_path, "wb")
        else:
            self.log = open(os.devnull, "w") if log is None else log
        self.proc = subprocess.Popen(self.cmd, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})})
        try:
            wait_healthy(self.url, self.proc, timeout, f"streamlit run {script}")
        except RuntimeError as e:
            self.stop()
            raise RuntimeError(f"{e}\n{self.log_text()[-3000:]}") from None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log_text(self) -> str:
        """What the server has written so far ("" when its output is not kept in a file)."""
        if self.log_path is None:
            return ""
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        """Stop only the process this object started (by its pid)."""
        stop_process(self.proc)
        if self._own_log:
            self.log.close()
        else:
            self.log.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def start_servers(*specs: dict) -> list[Server]:
    """One `Server` per ``specs`` entry (its keyword arguments), all started at once and each waited
    for until healthy: on two cores the imports of each overlap the others' waits. If any does not
    start, the others are stopped and its RuntimeError is raised."""
    with ThreadPoolExecutor(max_workers=len(specs)) as pool:
        futures = [pool.submit(Server, **spec) for spec in specs]
    started, failed = [], None
    for f in futures:
        try:
            started.append(f.result())
        except RuntimeError as e:
            failed = failed or e
    if failed is not None:
        for server in started:
            server.stop()
        raise failed
    return started
