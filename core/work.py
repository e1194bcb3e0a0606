"""What a lab may take of the machine: given by whoever runs it, never looked up.

Core computes; its caller decides how much of the machine each piece of work may take. A `Lab`
is given a `Work` when it is built (the server gives its budget, server/budget.py) and keeps it;
every lab it leads to (a rebuild, a reset, a preview, a replay) gets the same one. Through it the
lab asks for

- ``admit(recipe)``: a ticket for the memory a new lab will hold, before anything is allocated
  (refused with `InputError`); the lab tells the ticket what it holds (``ticket.hold(fn)``);
- ``job(kind, seconds, nbytes=0, wait_seconds=None)``: a context around work of ``seconds``
  estimated CPU seconds (core/cost.py), which may refuse it (`InputError`);
- ``checkpoint()``: between two steps or chunks; raises `Cancelled` when the work must stop.

`FREE`, the default everywhere, admits, runs and stops nothing: core alone (a test, a script, a
notebook) runs as it is.

    >>> lab = Lab(recipe)                  # FREE: nothing refused, nothing stopped
    >>> lab = Lab(recipe, server_budget)   # the server's lanes, memory admission and cancellation
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Callable, Protocol

from core.problems import InputError


class Cancelled(InputError):
    """Work stopped between two steps or chunks; ``problems[0]`` names why (``job_cancelled``,
    ``job_overrun``, ``server_stopping``) with the work's kind."""


class Ticket(Protocol):
    def hold(self, held: Callable[[], int]) -> None:
        """Count what the admitted lab holds through ``held`` (a bound method of the lab)."""


class Work(Protocol):
    def admit(self, recipe) -> Ticket: ...

    def job(self, kind: str, seconds: float, nbytes: int = 0,
            wait_seconds: float | None = None) -> AbstractContextManager: ...

    def checkpoint(self) -> None: ...


class _NoTicket:
    def hold(self, held: Callable[[], int]) -> None:
        pass


class Free:
    """Work with no limits: every lab admitted, every job run at once, nothing stopped."""

    def admit(self, recipe) -> Ticket:
        return _NoTicket()

    def job(self, kind: str, seconds: float, nbytes: int = 0,
            wait_seconds: float | None = None) -> AbstractContextManager:
        return nullcontext()

    def checkpoint(self) -> None:
        pass


FREE = Free()
