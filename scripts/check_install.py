"""After `pip install -r requirements.txt`: which torch build is installed, and how to swap a CUDA one.

    python scripts/check_install.py    # exit status 0 for the CPU build, 1 for another

The check itself is core/torch_build.py (the server logs the same report when it starts).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import torch_build  # noqa: E402

if __name__ == "__main__":
    sys.exit(torch_build.main())
