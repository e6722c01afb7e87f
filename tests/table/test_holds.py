"""The disconnect budget and the stopped turn clock as data (pure logic, no I/O):
rulings.md "Shared by all games" (the 90 s budget per seat per sitting; on
return the turn goes on with the time it had left, never less than 10 s)."""

from __future__ import annotations

from services.table.domain.holds import Holds
from services.table.domain.turns import TurnClock

T = 1_700_000_000.0


def test_the_budget_is_spent_across_every_disconnect() -> None:
    h = Holds(3, 90, T)
    assert h.leave(1, T + 5)
    assert not h.leave(1, T + 6)  # a repeat changes nothing
    assert 1 in h and h.end(1) == T + 95
    assert h.back(1, T + 35)  # 30 s spent
    assert 1 not in h and h.left(1, T + 50) == 60
    assert not h.back(1, T + 40)
    assert h.leave(1, T + 40)
    assert h.end(1) == T + 100 and h.left(1, T + 70) == 30
    assert h.first_expired(T + 99.9) is None
    assert h.first_expired(T + 100) == 1


def test_an_absence_never_starts_before_the_last_return() -> None:
    h = Holds(2, 90, T)
    h.leave(0, T - 50)  # before the sitting began: counted from its start
    assert h.end(0) == T + 90
    h.back(0, T + 10)
    h.leave(0, T + 5)  # a late message from before the return
    assert h.end(0) == T + 10 + 80


def test_a_spent_budget_stays_spent() -> None:
    h = Holds(2, 90, T)
    h.leave(0, T)
    h.back(0, T + 200)
    assert h.left(0, T + 200) == 0
    h.leave(0, T + 201)
    assert h.first_expired(T + 201) == 0


def test_seats_out_at_once_the_seat_that_left_first_escapes_then_the_lowest() -> None:
    h = Holds(4, 90, T)
    # Seat 0 was away 10 s before, then leaves again at T + 20: out at T + 100.
    h.leave(0, T)
    h.back(0, T + 10)
    h.leave(0, T + 20)
    # Seat 1 leaves at T + 10 with its whole budget: also out at T + 100.
    h.leave(1, T + 10)
    assert h.end(0) == h.end(1) == T + 100
    assert h.first_expired(T + 100) == 1  # seat 1 left first
    # Seats 2 and 3 leave together: the lower seat goes first.
    h2 = Holds(4, 90, T)
    h2.leave(3, T + 1)
    h2.leave(2, T + 1)
    assert h2.first_expired(T + 91) == 2
    # A seat whose budget ran out earlier goes before them all.
    h2.leave(1, T)
    assert h2.first_expired(T + 200) == 1


def test_a_returning_seat_goes_on_with_its_time_left_but_at_least_10s() -> None:
    c = TurnClock(20)
    assert c.follow([0], None, T) == [0]
    c.pause(0, T + 4)  # 16 s left
    assert c.time_left(0, T + 50) == 16
    assert c.resume(0, T + 50)
    assert c.deadline(0) == T + 66
    c.pause(0, T + 65)  # 1 s left
    assert c.resume(0, T + 70)
    assert c.deadline(0) == T + 80  # the 10 s floor, not a fresh 20 s
    assert not c.resume(0, T + 71)  # not stopped: nothing to resume


def test_a_turn_that_starts_while_away_is_stopped_whole() -> None:
    c = TurnClock(20)
    c.follow([1], None, T, held={1})
    assert c.time_left(1, T + 100) == 20
    assert c.resume(1, T + 100) and c.deadline(1) == T + 120


def test_the_floor_is_a_whole_turn_where_turns_are_shorter() -> None:
    c = TurnClock(3)
    c.follow([0], None, T)
    c.pause(0, T + 2.5)
    c.resume(0, T + 10)
    assert c.deadline(0) == T + 13
