"""The turn clock of a game as data (rulings.md "Shared by all games").

Each seat to act has a deadline ``turn_seconds`` after its turn began; at the
deadline the table applies ``timeout``. A seat whose player is away (held, see
:mod:`services.table.domain.holds`) is not timed out: the game waits at its turn, and
its turn clock stops with the time it had left. On its return the clock goes on
with that time, but never less than :data:`RESUME_FLOOR_SECONDS` (10 s; a
whole turn where ``turn_seconds`` is shorter). A turn that begins while its
seat is away stops at once with the whole ``turn_seconds`` left.
No I/O; times are unix seconds passed in.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

#: The least time a seat's turn goes on with after its player came back (seconds).
RESUME_FLOOR_SECONDS = 10.0


class TurnClock:
    """The deadlines of the seats to act (seat -> unix seconds), and the time
    left (seconds) of the turns stopped while their seat is away."""

    def __init__(self, turn_seconds: float) -> None:
        self.turn_seconds = turn_seconds
        self.deadlines: dict[int, float] = {}
        self.paused: dict[int, float] = {}

    def deadline(self, seat: int) -> float | None:
        """``seat``'s deadline, or None when it has no running turn."""
        return self.deadlines.get(seat)

    def time_left(self, seat: int, now: float) -> float | None:
        """Seconds left of ``seat``'s turn at ``now`` (its stopped time while it
        is away), or None when it has no running turn."""
        if seat in self.paused:
            return self.paused[seat]
        deadline = self.deadlines.get(seat)
        return None if deadline is None else max(0.0, deadline - now)

    def follow(self, to_act: Sequence[int], acted: int | None, now: float,
               held: Container[int] = ()) -> list[int]:
        """Bring the deadlines in line with the seats ``to_act`` after a step in
        which ``acted`` moved (None: the table moved). A seat's turn (re)starts
        when it becomes to act or acted itself; a seat that stays to act while
        another acts keeps its deadline. A turn that starts for a seat in
        ``held`` is stopped at once (a whole turn left). Returns the seats whose
        turn started, in ``to_act`` order."""
        for s in list(self.deadlines):
            if s not in to_act:
                del self.deadlines[s]
                self.paused.pop(s, None)
        started: list[int] = []
        for s in to_act:
            if s not in self.deadlines or s == acted:
                self.deadlines[s] = now + self.turn_seconds
                if s in held:
                    self.paused[s] = self.turn_seconds
                else:
                    self.paused.pop(s, None)
                started.append(s)
        return started

    def pause(self, seat: int, at: float) -> None:
        """``seat``'s player went away at ``at``: its running turn (if any) stops
        with the time it had left then (at most a whole turn)."""
        deadline = self.deadlines.get(seat)
        if deadline is not None and seat not in self.paused:
            self.paused[seat] = min(self.turn_seconds, max(0.0, deadline - at))

    def resume(self, seat: int, now: float) -> bool:
        """``seat``'s player came back at ``now``: its stopped turn goes on with
        the time it had left, at least :data:`RESUME_FLOOR_SECONDS` (at most a
        whole turn). True if the seat has a running turn again."""
        left = self.paused.pop(seat, None)
        if left is None or seat not in self.deadlines:
            return False
        floor = min(RESUME_FLOOR_SECONDS, self.turn_seconds)
        self.deadlines[seat] = now + max(left, floor)
        return True

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
        self.paused.clear()
