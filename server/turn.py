"""Whose turn it is to run Python: the class's clicks take turns, first come first served.

Each session's script runs in a thread of its own, and every torch operation lets go of the
interpreter's lock while it computes. With a class clicking at once, each such release hands the
interpreter to one of the other script threads, and each operation of a Step then waits for it
to come back: a chapter-sized Step costs more CPU than alone, and every click of the class ends late
together instead of one after another (bench/diagnostics/turn_convoy.py shows it, bench/RESULTS.md
says by how much). So the training view's fragment runs (a Step, Run N, a Play tick, a timeline
move) take the turn first: at most ``holders`` at a time, the others asleep in line, in the order
they came. A page's full run (opening it, a knob, another view) does not take it: at a costly
setting it can take a second, which the class would wait out behind it.

A job that takes a lane of the work budget (server/budget.py: a long Run, a replay, the preview at
a large size) gives the turn back while it waits for its lane and while it runs: lanes bound that
work, and the class's Steps go on between its steps. A run that waits longer than ``wait_s`` for
its turn goes on without one (a holder stuck past every bound must not stop the server).

    >>> @TURN.runs_when(lambda: True)   # each call of a fragment, when the condition holds
    ... def stage_part(): ...
    >>> with TURN.held():               # re-entrant: a fragment drawn inside another holds it once
    ...     ex.step()
    ...     with TURN.outside():        # a laned job: the class goes on meanwhile
    ...         long_job()

Nothing here imports streamlit; it holds events and counters, never a learner's data.
"""

from __future__ import annotations

import collections
import functools
import sys
import threading
from contextlib import contextmanager, nullcontext
from typing import Callable, Iterator, TypeVar

from core import server_log

F = TypeVar("F", bound=Callable)
_log = server_log.logger("embedding_explorer.turn")

HOLDERS = 1  # runs at a time: the interpreter runs one thread's Python at a time anyway
WAIT_S = 30.0  # a run goes on without its turn after waiting this long
SWITCH_INTERVAL_S = 0.0005  # while a heavy job holds a lane: how long a thread running Python keeps the
#   interpreter from one that asks for it (Python's default is ten times this). A heavy job (loading the
#   100,000-row example, say) runs long stretches of pure Python, and every torch operation of a
#   class's Step lets the interpreter go and then waits this long to get it back
_DEFAULT_SWITCH_S = sys.getswitchinterval()


def hand_over_quickly(on: bool) -> None:
    """Hand the interpreter over within ``SWITCH_INTERVAL_S`` (on: the first heavy job took a lane),
    or within Python's own interval again (off: the last one ended). Process-wide: server/budget.py
    calls it under its lock as its lanes fill and empty."""
    sys.setswitchinterval(SWITCH_INTERVAL_S if on else _DEFAULT_SWITCH_S)


class Turn:
    """A first-come-first-served gate for ``holders`` threads at a time, re-entrant per thread."""

    def __init__(self, holders: int = HOLDERS, wait_s: float = WAIT_S):
        self.holders, self.wait_s = holders, wait_s
        self._lock = threading.Lock()
        self._free = holders
        self._line: collections.deque[threading.Event] = collections.deque()  # waiting threads, first come first
        self._local = threading.local()  # .depth: nested holds of this thread; .got: whether it has a turn
        self.given_up = 0  # runs that went on without a turn after waiting wait_s

    def _take(self) -> bool:
        with self._lock:
            if self._free > 0 and not self._line:
                self._free -= 1
                return True
            mine = threading.Event()
            self._line.append(mine)
        if mine.wait(self.wait_s):
            return True
        with self._lock:
            if mine.is_set():  # handed over as the wait ended
                return True
            self._line.remove(mine)
            self.given_up += 1
        _log.warning("a run waited %g s for its turn and goes on without it (%d so far): a run in turn "
                     "takes far longer than a click should", self.wait_s, self.given_up)
        return False

    def _give(self) -> None:
        with self._lock:
            if self._line:
                self._line.popleft().set()  # the turn passes straight to the first in line
            else:
                self._free += 1

    def mine(self) -> bool:
        """Whether the calling thread holds a turn now."""
        return getattr(self._local, "depth", 0) > 0 and getattr(self._local, "got", False)

    def waiting(self) -> int:
        with self._lock:
            return len(self._line)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Run the block in this thread's turn (waiting for it in line), once however deeply nested."""
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield
            finally:
                self._local.depth -= 1
            return
        self._local.depth, self._local.got = 1, self._take()
        try:
            yield
        finally:
            got = self._local.got  # as it is now: an `outside` block within may have taken it again, or not
            self._local.depth, self._local.got = 0, False
            if got:
                self._give()

    def runs_when(self, when: Callable[[], bool]) -> Callable[[F], F]:
        """Decorator: a call of the function runs in the caller's turn (`held`) when ``when()`` is true."""
        def wrap(fn: F) -> F:
            @functools.wraps(fn)
            def maybe_in_turn(*args, **kwargs):
                with self.held() if when() else nullcontext():
                    return fn(*args, **kwargs)
            return maybe_in_turn  # type: ignore[return-value]
        return wrap

    @contextmanager
    def outside(self) -> Iterator[None]:
        """Run the block without this thread's turn (given back, if held, and taken again after)."""
        depth, got = getattr(self._local, "depth", 0), getattr(self._local, "got", False)
        if not depth:
            yield
            return
        self._local.depth, self._local.got = 0, False
        if got:
            self._give()
        try:
            yield
        finally:
            self._local.depth, self._local.got = depth, self._take()


TURN = Turn()
