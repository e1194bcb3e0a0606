"""The repository's tracked files (``git ls-files``): what the project is, wherever a virtual
environment, a cache or a build lives inside the clone. Tests that ask "is this a file of the
project?" decide by this list, not by a path's shape."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def tracked_files() -> frozenset[str]:
    """Every path git tracks in this repository (staged new files included), relative, with "/"."""
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    return frozenset(p for p in done.stdout.decode("utf-8").split("\0") if p)


def tracked_named(name: str) -> list[str]:
    """The tracked files whose path ends with ``name`` (a file name, or a tail such as "e2e/helpers.py")."""
    return sorted(p for p in tracked_files() if p == name or p.endswith("/" + name))
