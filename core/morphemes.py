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

class _Loader:
    """The one load of this process: its thread, and when it ends, the analyzer or why not."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.thread: threading.Thread | None = None
        self.analyzer: Analyzer | None = None
        self.error: str | None = None

    def load(self) -> None:
        try:
            from kiwipiepy import Kiwi

            kiwi = Kiwi()
            kiwi.tokenize("영화")  # its first call builds the rest of its tables: part of loading
            self.analyzer = kiwi_analyzer(kiwi)
        except Exception as exc:  # not installed, or its model missing: the page says so
            self.error = f"{type(exc).__name__}: {exc}"[:200]
        finally:
            self.ready.set()


_LOADER = _Loader()  # holds the analyzer only: no learner data


def start() -> None:
    """Start loading in a daemon thread, once per process."""
    with _LOADER.lock:
        if _LOADER.thread is None:
            _LOADER.thread = threading.Thread(target=_LOADER.load, name="kiwi-load", daemon=True)
            _LOADER.thread.start()


def analyzer() -> Analyzer | None:
    """The analyzer if it is loaded; else start loading it and return None."""
    if _LOADER.ready.is_set():
        return _LOADER.analyzer
    start()
    return None


def wait(seconds: float) -> Analyzer | None:
    """Load (if needed) and wait up to ``seconds`` for the analyzer; None if not ready or failed."""
    start()
    _LOADER.ready.wait(seconds)
    return _LOADER.analyzer


def loading() -> bool:
    """Has the load started and not finished?"""
    return _LOADER.thread is not None and not _LOADER.ready.is_set()


def error() -> str | None:
    """Why the analyzer could not be loaded, once the load has ended."""
    return _LOADER.error
