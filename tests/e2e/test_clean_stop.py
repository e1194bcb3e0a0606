"""A clean stop: SIGTERM ends the server within seconds with exit status 0, whatever is running.

Before the stop handler (server/hooks.py), a server stopped while a learner's Run was inside torch
died in ``Fatal Python error: Aborted`` / ``terminate called without an active exception`` (exit
status 134, -6 from Python's side): ``docker stop`` aborted it. Here a real ``streamlit run
app.py`` on a free loopback port serves one browser tab that starts a long Run (E = 512, LSTM
pooling, T = 256 on the English reviews: ~20 s of CPU estimated); once the page shows the Run in
progress, the server gets SIGTERM and must be gone within STOP_S, with status 0.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from support.server import free_port as _free_port, health as _health, stop_process as stop_server
from .helpers import ARTIFACTS, ROOT, VIEWPORT, label, unavailable_reason

pytestmark = pytest.mark.e2e
if unavailable_reason():
    pytest.skip(unavailable_reason(), allow_module_level=True)

STOP_S = 10.0
START_S = 90.0
EXPENSIVE = "?section=train&lang=en&preset=reviews_en&embedding_dim=512&pooling=lstm&pad_mode=fixed&fixed_len=256"


def test_sigterm_during_a_long_run_exits_0_within_seconds(browser):
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / "e2e-clean-stop.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                 "--server.address", "127.0.0.1", "--server.port", str(port),
                                 "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        ctx = browser.new_context(locale="en-US", viewport=dict(VIEWPORT))
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + START_S
            while _health(f"{url}/_stcore/health") != "ok":
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.25)
            page = ctx.new_page()
            page.goto(url + "/" + EXPENSIVE)
            run = page.locator(".st-key-run_steps button").first
            run.wait_for(timeout=START_S * 1000)
            run.click()
            page.get_by_text(label("en", "train.running", n=50)).wait_for(timeout=START_S * 1000)
            t0 = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            try:
                status = proc.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                status = None
            took = time.monotonic() - t0
        finally:
            ctx.close()
            if proc.poll() is None:
                stop_server(proc)
    tail = log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
    assert status is not None, f"still running {STOP_S:.0f} s after SIGTERM:\n{tail}"
    assert status == 0 and "Fatal Python error" not in tail, f"exit status {status} after {took:.1f} s:\n{tail}"
