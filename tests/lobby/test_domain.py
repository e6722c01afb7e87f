"""The room rules as pure functions (services/lobby/domain/room_rules.py): seed 000 第二节.
Fakes-free unit tests: rooms are plain values."""

from __future__ import annotations

import dataclasses

import pytest

from services.lobby.domain import room_rules
from services.lobby.domain.errors import LobbyError
from services.lobby.domain.room_rules import Result, Room, Row, Seat

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
    r = room_rules.sit(r, 1, "p", "P", 500, now_ms=T0, ready_seconds=R)
    assert r.state == "waiting" and r.seats == {1: Seat(1, "p", "P", 500, False)}
    r = room_rules.stand(r, "p", now_ms=T0, ready_seconds=R)
    assert r.state == "idle"


def test_sit_refusals() -> None:
    r = room((0, "a", False))
    assert code(lambda: room_rules.sit(r, 0, "b", "B", 1, now_ms=T0, ready_seconds=R)) == \
        "seat_taken"
    assert code(lambda: room_rules.sit(r, 3, "b", "B", 1, now_ms=T0, ready_seconds=R)) == \
        "no_such_seat"
    assert code(lambda: room_rules.sit(r, 1, "a", "A", 1, now_ms=T0, ready_seconds=R)) == \
        "already_seated"
    started = Room(**{**r.__dict__, "game_id": "g"})
    assert code(lambda: room_rules.sit(started, 1, "b", "B", 1, now_ms=T0, ready_seconds=R)) == \
        "room_started"


def test_last_unready_gets_20_seconds_then_is_removed() -> None:
    r = room((0, "a", True), (1, "b", False), (2, "c", False))
    assert r.kick_at_ms is None
    r = room_rules.ready(r, "c", now_ms=T0, ready_seconds=R)
    assert r.kick_at_ms == T0 + 20_000
    # Another change that keeps b the last unready one keeps the deadline.
    assert room_rules.ready(r, "c", now_ms=T0 + 5_000, ready_seconds=R).kick_at_ms == T0 + 20_000
    assert room_rules.kick_due(r, T0 + 19_999) == (r, None)
    after, gone = room_rules.kick_due(r, T0 + 20_000)
    assert gone == Seat(1, "b", "B", 500, False)
    assert sorted(after.seats) == [0, 2] and after.kick_at_ms is None


def test_start_needs_a_full_room_all_ready() -> None:
    r = room((0, "a", True), (1, "b", True))
    assert not r.can_start
    with pytest.raises(ValueError):
        room_rules.start(r, "g", "t:1")
    r = room_rules.sit(r, 2, "c", "C", 500, now_ms=T0, ready_seconds=R)
    r = room_rules.ready(r, "c", now_ms=T0, ready_seconds=R)
    assert r.can_start and r.kick_at_ms is None
    s = room_rules.start(r, "g", "t:1")
    assert (s.state, s.game_id, s.table_instance) == ("started", "g", "t:1")
    assert code(lambda: room_rules.stand(s, "a", now_ms=T0, ready_seconds=R)) == "room_started"
    back = room_rules.abort_start(s, "g", "c", now_ms=T0, ready_seconds=R)
    assert back.state == "waiting" and [x.ready for x in back.seats.values()] == [
        True, True, False]
    assert back.kick_at_ms == T0 + 20_000


def test_game_over() -> None:
    r = room_rules.start(room((0, "a", True), (1, "b", True), (2, "c", True)), "g", "t:1")
    over = room_rules.game_over(r, "g", ["b"], {"no_call_streak": 1}, {"a": 99, "c": 100}, 100,
                            now_ms=T0, ready_seconds=R)
    # b escaped, a has 99 < 100: both gone; c stays, not ready, with its new balance.
    assert over.seats == {2: Seat(2, "c", "C", 100, False)}
    assert over.state == "waiting" and over.carry == {"no_call_streak": 1}
    # A repeat, or another game's report, changes nothing.
    assert room_rules.game_over(over, "g", [], {}, {}, 100, now_ms=T0, ready_seconds=R) == over
    # A player the ledger did not answer for keeps the seat.
    kept = room_rules.game_over(r, "g", [], {}, {}, 100, now_ms=T0, ready_seconds=R)
    assert sorted(kept.seats) == [0, 1, 2]
    # Everyone gone: idle, and the carry-over is forgotten (a new room).
    empty = room_rules.game_over(r, "g", ["a", "b", "c"], {"first": 2}, {}, 100, now_ms=T0,
                             ready_seconds=R)
    assert empty.state == "idle" and empty.carry == {}


# -- presence outside a game (rulings.md "Shared by all games") ------------------

def test_an_absent_player_is_marked_and_never_ready() -> None:
    r = room((0, "a", True), (1, "b", False))
    r = room_rules.set_presence(r, "a", False, T0 - 500, now_ms=T0, ready_seconds=R)
    assert r.seats[0] == Seat(0, "a", "A", 500, False, False, T0 - 500)
    assert r.missing == ["a"]
    assert code(lambda: room_rules.ready(r, "a", now_ms=T0, ready_seconds=R)) == "not_connected"
    # The same news again (another lobby replica): nothing changes.
    assert room_rules.set_presence(r, "a", False, T0, now_ms=T0, ready_seconds=R) == r
    back = room_rules.set_presence(r, "a", True, T0 + 10, now_ms=T0 + 10, ready_seconds=R)
    assert back.seats[0] == Seat(0, "a", "A", 500, False, True, None)  # presses again
    assert room_rules.set_presence(r, "zz", False, T0, now_ms=T0, ready_seconds=R) == r


def test_a_full_ready_room_with_an_absent_seat_cannot_start() -> None:
    r = room((0, "a", True), (1, "b", True), (2, "c", True))
    assert r.can_start
    marked = room_rules.mark_presence(r, lambda p: p != "b", now_ms=T0, ready_seconds=R)
    assert not marked.can_start and marked.missing == ["b"]
    assert marked.seats[1].ready is False and marked.seats[1].away_ms == T0
    # Ready but absent (the stored flag lags): still no start.
    lagging = Room("dz-01", "dz", "doudizhu", 3, {
        **r.seats, 1: Seat(1, "b", "B", 500, True, False, T0)})
    assert not lagging.can_start


def test_an_absent_player_in_a_running_game_keeps_its_ready_flag() -> None:
    r = room_rules.start(room((0, "a", True), (1, "b", True), (2, "c", True)), "g1", "t:1")
    r = room_rules.set_presence(r, "b", False, T0, now_ms=T0, ready_seconds=R)
    assert r.seats[1].connected is False and r.seats[1].ready is True
    assert room_rules.stand_idle(r, T0 + 3_600_000, 30, ready_seconds=R) == (r, [])


def test_stand_idle_after_idle_seconds_of_absence_only() -> None:
    r = room((0, "a", False), (1, "b", False))
    r = room_rules.set_presence(r, "a", False, T0, now_ms=T0, ready_seconds=R)
    assert room_rules.stand_idle(r, T0 + 29_999, 30, ready_seconds=R) == (r, [])
    new, gone = room_rules.stand_idle(r, T0 + 30_000, 30, ready_seconds=R)
    assert [s.player for s in gone] == ["a"] and list(new.seats) == [1]
    # Not if presence says the player is back (the stored flag lags).
    assert room_rules.stand_idle(r, T0 + 30_000, 30, ready_seconds=R,
                             present=lambda p: p == "a") == (r, [])
    # The last one stood up: the room is idle, its carry-over gone.
    alone = dataclasses.replace(new, carry={"no_call_streak": 1})
    alone = room_rules.set_presence(alone, "b", False, T0, now_ms=T0, ready_seconds=R)
    empty, _ = room_rules.stand_idle(alone, T0 + 30_000, 30, ready_seconds=R)
    assert empty.state == "idle" and empty.carry == {}


def test_game_over_keeps_the_result_and_restarts_the_time_away() -> None:
    r = room_rules.start(room((0, "a", True), (1, "b", True), (2, "c", True)), "g1", "t:1")
    r = room_rules.set_presence(r, "c", False, T0, now_ms=T0, ready_seconds=R)
    rows = (Row("a", 0, 2, 40, 1), Row("b", 1, -1, -20, 0), Row("c", 2, -1, -20, 0))
    result = Result("dz-01", "g1", "g1.r1", rows, T0 + 60_000)
    over = room_rules.game_over(r, "g1", [], {}, {}, 0, now_ms=T0 + 60_000, ready_seconds=R,
                            result=result)
    assert over.last_result == result and over.state == "waiting"
    # Absence counts outside a game only: from the game's end.
    assert over.seats[2].away_ms == T0 + 60_000 and not over.seats[2].connected
    assert room_rules.stand_idle(over, T0 + 89_999, 30, ready_seconds=R)[1] == []
    assert [s.player for s in room_rules.stand_idle(over, T0 + 90_000, 30,
                                                 ready_seconds=R)[1]] == ["c"]
    assert Result.from_json(result.to_json()) == result
    # A void game leaves the last result as it was.
    again = room_rules.start(room_rules.ready(room_rules.ready(room_rules.ready(
        room_rules.set_presence(over, "c", True, T0, now_ms=T0, ready_seconds=R),
        "a", now_ms=T0, ready_seconds=R), "b", now_ms=T0, ready_seconds=R),
        "c", now_ms=T0, ready_seconds=R), "g2", "t:1")
    assert room_rules.void_game(again, "g2", {}, 0, now_ms=T0, ready_seconds=R).last_result \
        == result


def test_sitting_while_absent_starts_the_time_away() -> None:
    r = room_rules.sit(room(), 0, "a", "A", 500, now_ms=T0, ready_seconds=R, connected=False)
    assert r.seats[0] == Seat(0, "a", "A", 500, False, False, T0)


def test_a_result_keeps_its_settlement_lines_and_reads_old_results_without() -> None:
    """The lines of game_finished and the players' names ride with
    the stored last result."""
    lines = (room_rules.Line("逃跑", seats=(1,)), room_rules.Line("倍数", "×4"))
    result = Result("dz-01", "g1", "g1", (Row("p1", 1, -8, -80, 0, "张三"),), 5, lines)
    stored = result.to_json()
    assert stored["lines"] == [{"label": "逃跑", "seats": [1]}, {"label": "倍数", "value": "×4"}]
    assert Result.from_json(stored) == result
    old = {k: v for k, v in stored.items() if k != "lines"}  # stored before lines existed
    assert Result.from_json(old).lines == ()
    old["settlement"] = [{k: v for k, v in r.items() if k != "name"} for r in old["settlement"]]
    assert Result.from_json(old).rows[0].name == ""
