"""The disconnect budget of each seat of a sitting, as data (rulings.md
"Shared by all games").

A sitting is a room's game and its redeals. Each seat has ``reconnect_seconds``
(90 s) to spend on being away, across every disconnect of the sitting and
across redeals (a redeal goes on with the same budgets, and a seat that was
away stays away). While a seat is away it is held: the game waits at its turn.
When its budget is spent the seat escapes. Where several seats run out at the
same time, the seat that left first escapes, then the lowest seat.
No I/O; times are unix seconds passed in.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class _Budget:
    #: Seconds left, as of ``away_since`` while away, else now.
    left: float
    #: When the current absence began (unix s), None while present.
    away_since: float | None = None
    #: The last time the seat came back or the sitting began: no absence
    #: starts before it.
    since: float = 0.0


class Holds:
    """The budgets of ``seats`` seats, each ``reconnect_seconds`` at ``start`` (unix s)."""

    def __init__(self, seats: int, reconnect_seconds: float, start: float) -> None:
        self.reconnect_seconds = reconnect_seconds
        self._seats = [_Budget(reconnect_seconds, None, start) for _ in range(seats)]

    def __contains__(self, seat: object) -> bool:
        """Is ``seat`` away (held)?"""
        return isinstance(seat, int) and 0 <= seat < len(self._seats) \
            and self._seats[seat].away_since is not None

    def away(self) -> list[int]:
        """The seats away, lowest first."""
        return [s for s, b in enumerate(self._seats) if b.away_since is not None]

    def away_since(self, seat: int) -> float | None:
        """When ``seat``'s current absence began, None while present."""
        return self._seats[seat].away_since

    def left(self, seat: int, now: float) -> float:
        """``seat``'s budget left at ``now`` (seconds, >= 0)."""
        b = self._seats[seat]
        if b.away_since is None:
            return b.left
        return max(0.0, b.left - max(0.0, now - b.away_since))

    def end(self, seat: int) -> float | None:
        """When ``seat``'s budget runs out (unix s) while it is away, else None."""
        b = self._seats[seat]
        return None if b.away_since is None else b.away_since + b.left

    def leave(self, seat: int, at: float) -> bool:
        """``seat`` is away from ``at`` (no earlier than its last return or the
        sitting's start). False (nothing changes) if it is away already."""
        b = self._seats[seat]
        if b.away_since is not None:
            return False
        b.away_since = max(at, b.since)
        return True

    def back(self, seat: int, at: float) -> bool:
        """``seat`` is back at ``at``: the time away is spent from its budget.
        False (nothing changes) if it was not away."""
        b = self._seats[seat]
        if b.away_since is None:
            return False
        at = max(at, b.away_since)
        b.left = max(0.0, b.left - (at - b.away_since))
        b.away_since = None
        b.since = at
        return True

    def times(self) -> list[float]:
        """When the budgets of the seats away run out."""
        return [e for s in range(len(self._seats)) if (e := self.end(s)) is not None]

    def first_expired(self, t: float) -> int | None:
        """The seat that escapes first by ``t``: of the seats whose budget ran
        out by then, the earliest to run out; on a tie the one that left first,
        then the lowest seat. None if no budget ran out."""
        out: list[tuple[float, float, int]] = []
        for s, b in enumerate(self._seats):
            if b.away_since is not None and b.away_since + b.left <= t:
                out.append((b.away_since + b.left, b.away_since, s))
        return min(out)[2] if out else None
