"""The clock of the table service: wall time and timers, injectable.

Games never read the time themselves: they get ``now`` (unix seconds, float)
from a :class:`Clock` and ask it to call them back at a deadline. Production
uses :class:`SystemClock`; tests use :class:`FakeClock` and move time with
:meth:`FakeClock.advance`, so that no test sleeps for a real timeout.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class TimerHandle(Protocol):
    """A scheduled callback that may be cancelled."""

    def cancel(self) -> None:
        """Do not call the callback (no-op once it ran)."""


class Clock(Protocol):
    """Wall time (unix seconds) and callbacks at a wall time."""

    def now(self) -> float:
        """The current time, unix seconds."""

    def call_at(self, when: float, callback: Callable[[], None]) -> TimerHandle:
        """Call ``callback`` (in the event loop) once ``now() >= when``; a time in
        the past calls it soon."""


class SystemClock:
    """The real clock: ``time.time()`` and the event loop's timers."""

    def now(self) -> float:
        """``time.time()``."""
        return time.time()

    def call_at(self, when: float, callback: Callable[[], None]) -> TimerHandle:
        """``loop.call_later`` for the seconds left until ``when``."""
        loop = asyncio.get_running_loop()
        return loop.call_later(max(0.0, when - time.time()), callback)


class _FakeHandle:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that only moves when told (tests). Starts at ``start`` (unix s)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, _FakeHandle, Callable[[], None]]] = []
        self._ids = itertools.count()

    def now(self) -> float:
        """The simulated time."""
        return self._now

    def call_at(self, when: float, callback: Callable[[], None]) -> TimerHandle:
        """Due now: scheduled with ``call_soon``; otherwise when :meth:`advance` passes it."""
        handle = _FakeHandle()
        if when <= self._now:
            asyncio.get_running_loop().call_soon(self._run, handle, callback)
        else:
            heapq.heappush(self._heap, (when, next(self._ids), handle, callback))
        return handle

    @staticmethod
    def _run(handle: _FakeHandle, callback: Callable[[], None]) -> None:
        if not handle.cancelled:
            callback()

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``, calling every callback that falls due,
        in deadline order (each sees ``now()`` at its own deadline)."""
        target = self._now + seconds
        while self._heap and self._heap[0][0] <= target:
            when, _, handle, callback = heapq.heappop(self._heap)
            self._now = max(self._now, when)
            self._run(handle, callback)
        self._now = target

    def pending(self) -> int:
        """How many callbacks wait (cancelled ones included)."""
        return len(self._heap)
