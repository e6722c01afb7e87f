"""The turn clock of a game as data (rulings.md "Shared by all games").

Each seat to act has a deadline ``turn_seconds`` after its turn began; at the
deadline the table applies ``timeout``. A seat whose player is away (held, see
:mod:`services.table.holds`) is not timed out: the game waits at its turn.
No I/O; times are unix seconds passed in.
"""

from __future__ import annotations

from collections.abc import Container, Sequence


class TurnClock:
    """The deadlines of the seats to act (seat -> unix seconds)."""

    def __init__(self, turn_seconds: float) -> None:
        self.turn_seconds = turn_seconds
        self.deadlines: dict[int, float] = {}

    def deadline(self, seat: int) -> float | None:
        """``seat``'s deadline, or None when it has no running turn."""
        return self.deadlines.get(seat)

    def follow(self, to_act: Sequence[int], acted: int | None, now: float) -> list[int]:
        """Bring the deadlines in line with the seats ``to_act`` after a step in
        which ``acted`` moved (None: the table moved). A seat's turn (re)starts
        when it becomes to act or acted itself; a seat that stays to act while
        another acts keeps its deadline. Returns the seats whose turn started,
        in ``to_act`` order."""
        for s in list(self.deadlines):
            if s not in to_act:
                del self.deadlines[s]
        started: list[int] = []
        for s in to_act:
            if s not in self.deadlines or s == acted:
                self.deadlines[s] = now + self.turn_seconds
                started.append(s)
        return started

    def restart(self, seat: int, now: float) -> None:
        """A fresh turn for ``seat`` from ``now``."""
        self.deadlines[seat] = now + self.turn_seconds

    def due_times(self, to_act: Container[int], held: Container[int]) -> list[float]:
        """The deadlines that can fire: of seats to act whose player is not held."""
        return [t for s, t in self.deadlines.items() if s in to_act and s not in held]

    def first_due(self, t: float, to_act: Container[int], held: Container[int]) -> int | None:
        """The seat whose deadline fires first by ``t`` (to act, not held), or None."""
        for seat, deadline in sorted(self.deadlines.items(), key=lambda x: x[1]):
            if deadline <= t and seat in to_act and seat not in held:
                return seat
        return None

    def clear(self) -> None:
        """No deadline any more (the game ended)."""
        self.deadlines.clear()
