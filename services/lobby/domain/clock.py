"""The lobby's clock (unix milliseconds), injectable so that tests never wait
for the 20 s ready kick."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Wall time in unix milliseconds."""

    def now_ms(self) -> int:
        """The current time, unix ms."""


class SystemClock:
    """The real clock."""

    def now_ms(self) -> int:
        """``time.time()`` in milliseconds."""
        return int(time.time() * 1000)


class FakeClock:
    """A clock that moves only when told (tests): starts at ``start_ms``."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.ms = start_ms

    def now_ms(self) -> int:
        """The simulated time, unix ms."""
        return self.ms

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``."""
        self.ms += int(seconds * 1000)
