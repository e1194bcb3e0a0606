"""The container's health check: exit 0 when Streamlit answers "ok" on its health route, 1 otherwise.

It asks where the server listens, read from the variables Streamlit itself reads: the port
(STREAMLIT_SERVER_PORT) and the sub-path (STREAMLIT_SERVER_BASE_URL_PATH), so a container run
with another port or behind a sub-path is checked where it serves. Standard library only.
"""

from __future__ import annotations

import os
import sys
import urllib.request


def health_url(env=os.environ) -> str:
    port = env.get("STREAMLIT_SERVER_PORT") or "8501"
    base = env.get("STREAMLIT_SERVER_BASE_URL_PATH", "").strip("/")
    return f"http://127.0.0.1:{port}/{base + '/' if base else ''}_stcore/health"


def healthy(url: str, timeout: float = 4) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through an HTTP proxy
    try:
        with opener.open(url, timeout=timeout) as r:
            return r.read().strip() == b"ok"
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(0 if healthy(health_url()) else 1)
