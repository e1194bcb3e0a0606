"""The app's own lines in the server's log (stderr): Streamlit configures only its own loggers."""

from __future__ import annotations

import logging
import sys
import threading

_lock = threading.Lock()


def logger(name: str) -> logging.Logger:
    """The logger ``name``, writing INFO and above to stderr with a time stamp, set up once."""
    log = logging.getLogger(name)
    with _lock:
        if not log.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            log.addHandler(handler)
            log.setLevel(logging.INFO)
            log.propagate = False
    return log
