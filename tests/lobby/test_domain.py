"""The room rules as pure functions (services/lobby/domain.py): seed 000 第二节.
Fakes-free unit tests: rooms are plain values."""

from __future__ import annotations

import pytest

from services.lobby import domain
from services.lobby.domain import Room, Seat
from services.lobby.errors import LobbyError

T0 = 1_000_000
R = 20  # ready seconds


def room(*seated: tuple[int, str, bool], size: int = 3) -> Room:
    return Room("dz-01", "dz", "doudizhu", size,
                {n: Seat(n, p, p.upper(), 500, r) for n, p, r in seated})


def code(call: object) -> str:
    with pytest.raises(LobbyError) as e:
        call()  # type: ignore[operator]
    return e.value.code


def test_states_follow_the_seats() -> None:
    r = room()
    assert r.state == "idle"
    r = domain.sit(r, 1, "p", "P", 500, now_ms=T0, ready_seconds=R)
    assert r.state == "waiting" and r.seats == {1: Seat(1, "p", "P", 500, False)}
    r = domain.stand(r, "p", now_ms=T0, ready_seconds=R)
    assert r.state == "idle"


def test_sit_refusals() -> None:
    r = room((0, "a", False))
    assert code(lambda: domain.sit(r, 0, "b", "B", 1, now_ms=T0, ready_seconds=R)) == \
        "seat_taken"
    assert code(lambda: domain.sit(r, 3, "b", "B", 1, now_ms=T0, ready_seconds=R)) == \
        "no_such_seat"
    assert code(lambda: domain.sit(r, 1, "a", "A", 1, now_ms=T0, ready_seconds=R)) == \
        "already_seated"
    started = Room(**{**r.__dict__, "game_id": "g"})
    assert code(lambda: domain.sit(started, 1, "b", "B", 1, now_ms=T0, ready_seconds=R)) == \
        "room_started"


def test_last_unready_gets_20_seconds_then_is_removed() -> None:
    r = room((0, "a", True), (1, "b", False), (2, "c", False))
    assert r.kick_at_ms is None
    r = domain.ready(r, "c", now_ms=T0, ready_seconds=R)
    assert r.kick_at_ms == T0 + 20_000
    # Another change that keeps b the last unready one keeps the deadline.
    assert domain.ready(r, "c", now_ms=T0 + 5_000, ready_seconds=R).kick_at_ms == T0 + 20_000
    assert domain.kick_due(r, T0 + 19_999) == (r, None)
    after, gone = domain.kick_due(r, T0 + 20_000)
    assert gone == Seat(1, "b", "B", 500, False)
    assert sorted(after.seats) == [0, 2] and after.kick_at_ms is None


def test_start_needs_a_full_room_all_ready() -> None:
    r = room((0, "a", True), (1, "b", True))
    assert not r.can_start
    with pytest.raises(ValueError):
        domain.start(r, "g", "t:1")
    r = domain.sit(r, 2, "c", "C", 500, now_ms=T0, ready_seconds=R)
    r = domain.ready(r, "c", now_ms=T0, ready_seconds=R)
    assert r.can_start and r.kick_at_ms is None
    s = domain.start(r, "g", "t:1")
    assert (s.state, s.game_id, s.table_instance) == ("started", "g", "t:1")
    assert code(lambda: domain.stand(s, "a", now_ms=T0, ready_seconds=R)) == "room_started"
    back = domain.abort_start(s, "g", "c", now_ms=T0, ready_seconds=R)
    assert back.state == "waiting" and [x.ready for x in back.seats.values()] == [
        True, True, False]
    assert back.kick_at_ms == T0 + 20_000


def test_game_over() -> None:
    r = domain.start(room((0, "a", True), (1, "b", True), (2, "c", True)), "g", "t:1")
    over = domain.game_over(r, "g", ["b"], {"no_call_streak": 1}, {"a": 99, "c": 100}, 100,
                            now_ms=T0, ready_seconds=R)
    # b escaped, a has 99 < 100: both gone; c stays, not ready, with its new balance.
    assert over.seats == {2: Seat(2, "c", "C", 100, False)}
    assert over.state == "waiting" and over.carry == {"no_call_streak": 1}
    # A repeat, or another game's report, changes nothing.
    assert domain.game_over(over, "g", [], {}, {}, 100, now_ms=T0, ready_seconds=R) == over
    # A player the ledger did not answer for keeps the seat.
    kept = domain.game_over(r, "g", [], {}, {}, 100, now_ms=T0, ready_seconds=R)
    assert sorted(kept.seats) == [0, 1, 2]
    # Everyone gone: idle, and the carry-over is forgotten (a new room).
    empty = domain.game_over(r, "g", ["a", "b", "c"], {"first": 2}, {}, 100, now_ms=T0,
                             ready_seconds=R)
    assert empty.state == "idle" and empty.carry == {}
