"""快速开始 (quick start) on the real lobby, ledger and tables
(tests/lobby/conftest.py): one request seats the player at the best
room of a chosen game it can afford, honouring the coin rule (seed 000 第二节:
符合服务器金币要求); the fullest waiting room first, then an idle one; ties to
the richer server the player can afford, then the room id; refused with a
clear reason where nothing fits."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from paiju.lobby.v1 import lobby_pb2
from services.lobby.domain import quick
from services.lobby.domain.coin_servers import parse
from services.lobby.domain.room_rules import Room, Seat
from tests.lobby.conftest import Stack
from tests.lobby.helpers import refused, sample

FP = grpc.StatusCode.FAILED_PRECONDITION

ROOMS_YAML = """\
defaults: {fee_rate: 0.02, ready_seconds: 20}
servers:
  - {server: low, name: 斗地主 10, game: doudizhu, base: 10, min_coins: 100, rooms: 3}
  - {server: high, name: 斗地主 1000, game: doudizhu, base: 1000, min_coins: 5000, rooms: 2}
  - {server: hz, name: 混战, game: hunzhan, base: 10, min_coins: 100, rooms: 1}
"""


@pytest.fixture
def rooms_file(tmp_path: Path) -> Path:
    path = tmp_path / "rooms.yaml"
    path.write_text(ROOMS_YAML, encoding="utf-8")
    return path


def qs(player: str, game: str = "doudizhu") -> lobby_pb2.QuickStartRequest:
    return lobby_pb2.QuickStartRequest(player=player, name=player.upper(), game=game)


def seat_of(room: lobby_pb2.Room, player: str) -> int:
    return next(s.seat for s in room.seats if s.player == player)


async def test_quick_start_fills_the_fullest_room_it_can_afford(stack: Stack) -> None:
    for p, coins in [("rich1", 10_000), ("rich2", 10_000), ("rich3", 10_000),
                     ("poor1", 1_000), ("poor2", 1_000), ("broke", 50)]:
        await stack.bank.fund(p, coins)
    seated = sample("paiju_lobby_quick_starts_total", result="seated")
    # Nothing waits: an idle room, of the richest server the player can afford.
    first = await stack.stub.QuickStart(qs("rich1"))
    assert (first.room, seat_of(first, "rich1"), first.state) == ("high-01", 0, "waiting")
    # A poor player cannot afford high-01 (1 seated): an idle room of low.
    second = await stack.stub.QuickStart(qs("poor1"))
    assert (second.room, seat_of(second, "poor1")) == ("low-01", 0)
    # Both waiting rooms have one player; the rich one goes to the richer.
    third = await stack.stub.QuickStart(qs("rich2"))
    assert (third.room, seat_of(third, "rich2")) == ("high-01", 1)
    # high-01 now has 2 (the fullest) but poor2 cannot afford it: low-01.
    fourth = await stack.stub.QuickStart(qs("poor2"))
    assert (fourth.room, seat_of(fourth, "poor2")) == ("low-01", 1)
    # rich3: high-01 (2 seated) beats low-01 (2 seated) by its server; seat 2 fills it.
    fifth = await stack.stub.QuickStart(qs("rich3"))
    assert (fifth.room, seat_of(fifth, "rich3")) == ("high-01", 2)
    assert len(fifth.seats) == 3
    assert sample("paiju_lobby_quick_starts_total", result="seated") == seated + 5
    # The coin rule: not enough for any doudizhu server.
    assert await refused(stack.stub.QuickStart(qs("broke"))) == (FP, "not_enough_coins")
    # Seated already; a game nobody plays.
    assert await refused(stack.stub.QuickStart(qs("rich1"))) == (FP, "already_seated")
    code, reason = await refused(stack.stub.QuickStart(qs("rich1", "mahjong")))
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "no_such_game_type")
    assert sample("paiju_lobby_quick_starts_total", result="not_enough_coins") >= 1


async def test_quick_start_refused_where_every_room_is_full(stack: Stack) -> None:
    """hz has one room of 4 seats: the fifth quick start finds nothing."""
    players = [f"hz{i}" for i in range(5)]
    for p in players:
        await stack.bank.fund(p, 1_000)
    for i, p in enumerate(players[:4]):
        room = await stack.stub.QuickStart(qs(p, "hunzhan"))
        assert (room.room, seat_of(room, p)) == ("hz-01", i)
    before = sample("paiju_lobby_quick_starts_total", result="no_free_room")
    assert await refused(stack.stub.QuickStart(qs(players[4], "hunzhan"))) == \
        (FP, "no_free_room")
    assert sample("paiju_lobby_quick_starts_total", result="no_free_room") == before + 1
    # Nothing changed for the refused player.
    assert (await refused(stack.stub.WhereIs(lobby_pb2.PlayerRequest(
        player=players[4]))))[1] == "not_seated"


def test_ranking_skips_started_and_full_rooms() -> None:
    """The pure order: started and full rooms are never offered; more seated
    first; then the higher min_coins; then the room id."""
    cfg = parse(ROOMS_YAML)
    low, high = cfg.server("low"), cfg.server("high")
    assert low is not None and high is not None

    def room(rid: str, server: str, n: int, game_id: str = "") -> Room:
        return Room(rid, server, "doudizhu", 3,
                    {i: Seat(i, f"{rid}-{i}", "x", 0) for i in range(n)}, game_id=game_id)

    rooms = [room("low-01", "low", 2, "g1"), room("low-02", "low", 3), room("low-03", "low", 1),
             room("high-01", "high", 1), room("high-02", "high", 0), room("low-04", "low", 0)]
    order = [r.room for r in quick.ranked(rooms, [low, high])]
    assert order == ["high-01", "low-03", "high-02", "low-04"]
    assert quick.free_seat(room("x-01", "low", 2)) == 2
    assert quick.free_seat(room("x-01", "low", 3)) is None
    assert [s.server for s in quick.affordable(cfg.servers, "doudizhu", 4_999)] == ["low"]
