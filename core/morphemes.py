"""The process's one Korean morpheme analyzer (Kiwi), loaded lazily in a background thread.

Kiwi's model takes seconds to load and holds no learner data, so one analyzer serves every
session of the process. Nothing loads it until a page asks for the ``morpheme`` tokenizer (or
its UNK comparison): the first page never waits for it. `analyzer` starts the load and returns
at once (None while loading); `wait` waits for it, bounded, for the one session that asked.

    >>> analyzer()            # None: the load has just started in its thread
    >>> wait(60)              # the Analyzer (core.tokenize), or None if it could not be loaded
"""

from __future__ import annotations

import threading

from core.tokenize import Analyzer, kiwi_analyzer

_lock = threading.Lock()
_ready = threading.Event()
_thread: threading.Thread | None = None
_result: dict[str, object] = {}  # "analyzer": the Analyzer, or "error": why it could not be loaded


def _load() -> None:
    try:
        from kiwipiepy import Kiwi

        kiwi = Kiwi()
        kiwi.tokenize("영화")  # its first call builds the rest of its tables: part of loading
        _result["analyzer"] = kiwi_analyzer(kiwi)
    except Exception as exc:  # not installed, or its model missing: the page says so
        _result["error"] = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        _ready.set()


def start() -> None:
    """Start loading in a daemon thread, once per process."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_load, name="kiwi-load", daemon=True)
            _thread.start()


def analyzer() -> Analyzer | None:
    """The analyzer if it is loaded; else start loading it and return None."""
    if _ready.is_set():
        return _result.get("analyzer")  # type: ignore[return-value]
    start()
    return None


def wait(seconds: float) -> Analyzer | None:
    """Load (if needed) and wait up to ``seconds`` for the analyzer; None if not ready or failed."""
    start()
    _ready.wait(seconds)
    return _result.get("analyzer")  # type: ignore[return-value]


def loading() -> bool:
    """Has the load started and not finished?"""
    return _thread is not None and not _ready.is_set()


def error() -> str | None:
    """Why the analyzer could not be loaded, once the load has ended."""
    return _result.get("error")  # type: ignore[return-value]
