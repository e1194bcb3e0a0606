"""README's quick start, run as written in a throwaway clone of this repository, on a PATH with
`python3` and no `python` (as on a bare Debian 12 or Ubuntu 24.04): it makes the virtual
environment, installs requirements.txt into it with pip, and serves the page.

One change to the command, and why: the venv is made with `--system-site-packages`, so pip finds
every requirement already installed (this interpreter's) and contacts no index. A full install
from the registries into an empty venv takes minutes on this project's shared machine (bench/RESULTS.md,
"The quick start's install"), too long for the suite; everything else (`python3`, the venv, its
activation, `python -m pip` inside it, the requirement file's options, `python -m streamlit run`
from the clone) runs as a reader would run it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from support.server import free_port

ROOT = Path(__file__).resolve().parents[1]
START_S = 300  # the venv, pip's resolution and the server's warm-up, on a loaded machine


def app_health(port: int) -> str:
    """What the served app's health check says: "ok", or "warming up" (a 503 that only app.py's own
    middleware gives, server/warm.py: the app of the clone is being served), or "" when nothing answers."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
            return r.read().decode()
    except urllib.error.HTTPError as e:
        return e.read().decode()
    except OSError:
        return ""


def quick_start() -> str:
    """The one command under README's "Quick start"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    part = text[text.index("## Quick start"):]
    block = re.search(r"```bash\n(.*?)\n```", part, re.S)
    assert block and "\n" not in block.group(1).strip(), "the quick start is one command"
    return block.group(1).strip()


def test_the_quick_start_makes_a_venv_first_and_needs_no_python_command_before_it():
    steps = [s.strip() for s in quick_start().split("&&")]
    assert steps[0] == "python3 -m venv .venv"  # Debian and Ubuntu have python3, no python
    assert steps[1] == ". .venv/bin/activate"  # then python is the venv's, and pip installs into it
    assert re.fullmatch(r"python -m pip install --retries 1 -r requirements\.txt", steps[2])
    assert steps[3:] == ["python -m streamlit run app.py"]
    assert ".venv/" in (ROOT / ".gitignore").read_text(encoding="utf-8")  # git status stays clean
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    windows = re.search(r"On Windows[^\n]*:\n\n```\n(.*?)\n```", text[text.index("## Quick start"):], re.S)
    assert windows, "the quick start states its Windows command"
    assert [s.strip() for s in windows.group(1).split("&&")] == [  # the same steps, with the venv's python
        "py -m venv .venv", r".venv\Scripts\python -m pip install --retries 1 -r requirements.txt",
        r".venv\Scripts\python -m streamlit run app.py"]


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                    reason="the throwaway clone needs git and a git checkout")
def test_the_quick_start_run_as_written_in_a_fresh_clone_installs_and_serves_the_page(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    shutil.copy2(ROOT / "requirements.txt", clone / "requirements.txt")  # the working tree's, as README's
    bin_dir = tmp_path / "bin"  # `python3` is this interpreter; there is no `python`
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    (bin_dir / "python3").chmod(0o755)
    path = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    assert shutil.which("python", path=path) is None
    command = quick_start().replace("python3 -m venv .venv", "python3 -m venv --system-site-packages .venv", 1)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env |= {"PATH": path, "STREAMLIT_SERVER_PORT": str(port), "STREAMLIT_SERVER_ADDRESS": "127.0.0.1",
            "STREAMLIT_SERVER_HEADLESS": "true", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    log_path = tmp_path / "quick-start.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(["bash", "-c", command], cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)  # its own process group: stopped as one below
        try:
            deadline = time.monotonic() + START_S
            while app_health(port) not in ("ok", "warming up"):
                assert proc.poll() is None, log_path.read_text(errors="replace")[-3000:]
                assert time.monotonic() < deadline, log_path.read_text(errors="replace")[-3000:]
                time.sleep(0.5)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=30)
    out = log_path.read_text(errors="replace")
    venv_python = clone / ".venv" / "bin" / "python"
    assert venv_python.exists()
    assert re.search(r"^Requirement already satisfied: torch==2\.13\.0 ", out, re.M), out[-3000:]  # pip read the file
    assert "externally-managed-environment" not in out
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, timeout=60)
    assert status.stdout.strip() in ("", "M requirements.txt"), status.stdout  # the venv is ignored
