"""Which build of torch is installed: the CPU one the app needs, or a CUDA (or ROCm) one it never uses.

From PyPI alone, torch on Linux is the CUDA build, which brings the nvidia-, cuda- and triton
wheels (gigabytes); requirements.txt names PyTorch's CPU index so that pip takes the CPU build,
but where that index cannot be reached pip falls back to PyPI without a word. This module says
which build is there, for a person (`python scripts/check_install.py`, or `python -m
core.torch_build`: exit status 1 for a build other than the CPU one) and for the server's log
(`log_once`, called by page.py at every run; it writes once per process). A CUDA build still runs
the app, on the CPU: the report is a warning, with the commands that swap it for the CPU build.
"""

from __future__ import annotations

import logging

from core import server_log
import re
import sys
import threading
from dataclasses import dataclass
from importlib import metadata

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# Distributions that only a GPU build of torch needs: CUDA's runtime libraries and triton (its GPU
# kernel compiler). A CPU-only environment holds none of them.
GPU_ONLY = re.compile(r"nvidia-.+|cuda-.+|triton|pytorch-triton(-rocm)?")
LOGGER = "embedding_explorer.install"


@dataclass(frozen=True)
class TorchBuild:
    version: str  # torch.__version__, e.g. "2.13.0+cpu" (Linux, Windows) or "2.13.0" (macOS, or PyPI's)
    cuda: str | None  # torch.version.cuda: None in a CPU build
    hip: str | None  # torch.version.hip: None unless a ROCm build
    gpu_packages: tuple[str, ...]  # installed distributions matching GPU_ONLY, sorted

    @property
    def cpu_only(self) -> bool:
        return self.cuda is None and self.hip is None and not self.gpu_packages

    @property
    def kind(self) -> str:
        if self.cuda is not None:
            return f"CUDA {self.cuda}"
        if self.hip is not None:
            return f"ROCm {self.hip}"
        return "CPU"


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def gpu_packages() -> tuple[str, ...]:
    names = {_normalize(d.metadata["Name"] or "") for d in metadata.distributions()}
    return tuple(sorted(n for n in names if GPU_ONLY.fullmatch(n)))


def inspect() -> TorchBuild:
    """The installed torch's build (imports torch)."""
    import torch

    return TorchBuild(version=torch.__version__, cuda=torch.version.cuda, hip=getattr(torch.version, "hip", None),
                      gpu_packages=gpu_packages())


def fix_commands(build: TorchBuild) -> list[str]:
    """The pip commands that put the CPU build in place of ``build`` (none when it is the CPU build)."""
    if build.cpu_only:
        return []
    release = build.version.split("+", 1)[0]
    commands = [f"python -m pip install --force-reinstall --no-deps --index-url {CPU_INDEX} torch=={release}"]
    if build.gpu_packages:
        commands.append("python -m pip uninstall -y " + " ".join(build.gpu_packages))
    return commands


def report(build: TorchBuild) -> list[str]:
    """Lines for a person: which build, and for another than the CPU one, why it matters and the fix."""
    head = f"torch {build.version}: {build.kind} build"
    if build.cpu_only:
        return [f"{head} (what the app needs; no CUDA or triton package installed)"]
    lines = [f"{head}, with {len(build.gpu_packages)} GPU-only packages installed"
             f"{': ' + ', '.join(build.gpu_packages) if build.gpu_packages else ''}.",
             "The app computes on the CPU: this build works but takes gigabytes more disk and memory.",
             f"pip took it from PyPI, probably because PyTorch's CPU index ({CPU_INDEX}) could not be reached.",
             "To swap it for the CPU build (where that index is reachable):"]
    return lines + [f"    {c}" for c in fix_commands(build)]


_logged = threading.Event()
_log_lock = threading.Lock()


def log_once() -> None:
    """Write the report to the server's log (stderr), once per process, whichever session calls first."""
    if _logged.is_set():
        return
    with _log_lock:
        if _logged.is_set():
            return
        _logged.set()
        build = inspect()
        log = server_log.logger(LOGGER)
        log.log(logging.INFO if build.cpu_only else logging.WARNING, "\n".join(report(build)))


def main() -> int:
    build = inspect()
    print("\n".join(report(build)))
    return 0 if build.cpu_only else 1


if __name__ == "__main__":
    sys.exit(main())
