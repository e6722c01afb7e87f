"""The disconnect holds of a game as data (rulings.md "Shared by all games").

A disconnected seat is held ``reconnect_seconds``: while held the game waits at
its turn; the hold's end is an ``escape``. No I/O; times are unix seconds.
"""

from __future__ import annotations


class Holds:
    """The seats held for a disconnected player (seat -> end of the hold)."""

    def __init__(self, reconnect_seconds: float) -> None:
        self.reconnect_seconds = reconnect_seconds
        self.until: dict[int, float] = {}

    def __contains__(self, seat: object) -> bool:
        return seat in self.until

    def hold(self, seat: int, now: float) -> float | None:
        """Hold ``seat`` from ``now``; the end of the hold, or None if it is held already."""
        if seat in self.until:
            return None
        self.until[seat] = now + self.reconnect_seconds
        return self.until[seat]

    def release(self, seat: int) -> bool:
        """End ``seat``'s hold; False if it was not held."""
        return self.until.pop(seat, None) is not None

    def times(self) -> list[float]:
        """The ends of every hold."""
        return list(self.until.values())

    def first_expired(self, t: float) -> int | None:
        """The seat whose hold ended first by ``t``, or None."""
        for seat, until in sorted(self.until.items(), key=lambda x: x[1]):
            if until <= t:
                return seat
        return None
