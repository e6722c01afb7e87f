"""The lobby and presence (rulings.md "Shared by all games"): a real
lobby, ledger, tables and NATS (tests/lobby/conftest.py), and a real
PresencePublisher standing in for a gateway (a subprocess one where it dies).

Outside a game: an absent player is never ready (its flag drops when it goes),
a game never starts with an absent seat (the room says who is missing), an
absent seat is stood up after the room's ``idle_disconnect_seconds`` (30 s; a
real 1 s in the real-clock test); ``room_changed`` seats carry ``connected``.
The lobby keeps each room's last result (GameOver) for a player coming back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from paiju.common.v1 import common_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.presence.publisher import PresencePublisher
from paiju.runtime.natsconn import connect as nats_connect
from services.lobby import main as lobby_main
from services.lobby.application.lobby import Lobby
from services.lobby.application.presence import SeatPresence
from services.lobby.domain.clock import SystemClock
from tests.fixtures import REPO, free_port, running_service
from tests.lobby.conftest import NO_RECONCILE, Stack, lobby_stack
from tests.lobby.helpers import refused, sample

FP = grpc.StatusCode.FAILED_PRECONDITION
#: The lobby's presence timeout here (and its warm-up): fifteen heartbeats of the
#: stand-in gateways, so that a loaded machine does not kill a live one.
TIMEOUT_S = 3.0

ROOMS = """\
defaults: {fee_rate: 0.02, ready_seconds: 20}
servers:
  - {server: dz, name: 斗地主 test, game: doudizhu, base: 10, min_coins: 100, rooms: 2}
  - {server: quick, name: 斗地主 quick, game: doudizhu, base: 10, min_coins: 100, rooms: 1,
     idle_disconnect_seconds: 1}
"""


@pytest.fixture
def presence_rooms(tmp_path: Path) -> Path:
    path = tmp_path / "rooms.yaml"
    path.write_text(ROOMS, encoding="utf-8")
    return path


class Gateway:
    """A PresencePublisher on its own NATS connection: a gateway stand-in."""

    def __init__(self, publisher: PresencePublisher) -> None:
        self.pub = publisher

    async def online(self, stack: Stack, player: str, session: str = "") -> None:
        """Sign ``player`` in and wait until the lobby's book has the session."""
        await self.pub.connect(player, session or f"{player}-1")
        await until(lambda: bool(stack.presence.watcher.book.sessions(player)))

    async def offline(self, player: str, session: str = "") -> None:
        await self.pub.disconnect(player, session or f"{player}-1")


async def until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for ``cond`` (a deadline for a condition, not a timer)."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def gateway(url: str, gateway_id: str) -> AsyncIterator[Gateway]:
    nc = await nats_connect(url, None, f"test-{gateway_id}")
    pub = PresencePublisher(nc, gateway_id, heartbeat_seconds=0.2)
    await pub.start()
    try:
        yield Gateway(pub)
    finally:
        await pub.stop()
        await nc.close()


async def warmed(stack: Stack) -> None:
    book = stack.presence.watcher.book
    await until(lambda: not book.warming_up(int(time.time() * 1000)))


@pytest.fixture
async def world(nats_server: str, tmp_path: Path,
                presence_rooms: Path) -> AsyncIterator[tuple[Stack, Gateway]]:
    """The lobby stack (fake lobby clock) with a 1 s presence timeout, past its
    warm-up, and one gateway stand-in."""
    async with lobby_stack(nats_server, tmp_path, presence_rooms,
                           presence_timeout_seconds=TIMEOUT_S) as stack, \
            gateway(nats_server, "gw-a.p1") as gw:
        await warmed(stack)
        yield stack, gw


def sit(player: str, room: str, seat: int) -> lobby_pb2.SitRequest:
    return lobby_pb2.SitRequest(player=player, name=player.upper(), room=room, seat=seat)


def who(player: str) -> lobby_pb2.PlayerRequest:
    return lobby_pb2.PlayerRequest(player=player)


async def seated(stack: Stack, gw: Gateway, room: str, players: list[str]) -> None:
    for i, p in enumerate(players):
        await stack.bank.fund(p, 1000)
        await gw.online(stack, p)
        await stack.stub.Sit(sit(p, room, i))


def seat_flags(room: lobby_pb2.Room) -> list[tuple[str, bool, bool]]:
    return [(s.player, s.ready, s.connected) for s in room.seats]


async def room_when(stack: Stack, room: str, cond: Callable[[lobby_pb2.Room], bool],
                    timeout: float = 10.0) -> lobby_pb2.Room:
    deadline = time.monotonic() + timeout
    while True:
        r: lobby_pb2.Room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room=room))
        if cond(r):
            return r
        if time.monotonic() > deadline:
            raise AssertionError(f"room {room} never satisfied the condition: {r}")
        await asyncio.sleep(0.02)


def event_seat(e: dict[str, Any], player: str) -> dict[str, Any] | None:
    return next((s for s in e["seats"] if s["player"] == player), None)


async def test_an_absent_player_is_marked_and_its_ready_flag_drops(
        world: tuple[Stack, Gateway]) -> None:
    stack, gw = world
    await seated(stack, gw, "dz-01", ["a1", "a2"])
    room = await stack.stub.Ready(who("a1"))
    assert seat_flags(room) == [("a1", True, True), ("a2", False, True)]
    before_ms = stack.clock.now_ms()
    await gw.offline("a1")
    event = await stack.events.wait_for(
        lambda e: (event_seat(e, "a1") or {}).get("connected") is False)
    gone = event_seat(event, "a1")
    assert gone is not None
    away = gone["away_since"]
    assert gone == {"seat": 0, "player": "a1", "name": "A1", "coins": 1000, "ready": False,
                    "connected": False, "away_since": away, "ai": False}
    assert event["missing"] == ["a1"]
    # Dated on the lobby clock (fake here: it did not move) at the disconnect.
    assert before_ms - 5000 <= away <= before_ms
    room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-01"))
    assert seat_flags(room) == [("a1", False, False), ("a2", False, True)]
    assert room.seats[0].away_since_ms == away
    # An absent player cannot press start.
    assert await refused(stack.stub.Ready(who("a1"))) == (FP, "not_connected")
    # Back: connected again, and it has to press start again.
    await gw.online(stack, "a1", "a1-2")
    room = await room_when(stack, "dz-01", lambda r: r.seats[0].connected)
    assert seat_flags(room) == [("a1", False, True), ("a2", False, True)]
    assert room.seats[0].away_since_ms == 0


async def test_one_of_two_sessions_closing_leaves_the_player_connected(
        nats_server: str, world: tuple[Stack, Gateway]) -> None:
    stack, gw = world
    await seated(stack, gw, "dz-01", ["b1"])
    async with gateway(nats_server, "gw-b.p1") as other:
        await other.online(stack, "b1", "phone")  # a second device
        await gw.offline("b1")  # the first tab closes
        await until(lambda: stack.presence.watcher.book.sessions("b1") == {("gw-b.p1", "phone")})
        assert await stack.presence.sweep() == []
        room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-01"))
        assert seat_flags(room) == [("b1", False, True)]
        assert (await stack.stub.Ready(who("b1"))).seats[0].ready
    # gw-b stopped cleanly (gateway_down): now b1 is gone.
    room = await room_when(stack, "dz-01", lambda r: not r.seats[0].connected)
    assert seat_flags(room) == [("b1", False, False)]


async def test_a_game_never_starts_while_a_seat_is_absent(
        world: tuple[Stack, Gateway]) -> None:
    stack, gw = world
    await seated(stack, gw, "dz-01", ["c1", "c2", "c3"])
    await stack.stub.Ready(who("c1"))
    await stack.stub.Ready(who("c2"))
    await gw.offline("c2")
    await room_when(stack, "dz-01", lambda r: not r.seats[1].connected)
    room = await stack.stub.Ready(who("c3"))
    assert room.state == "waiting" and not room.game_id
    assert seat_flags(room) == [("c1", True, True), ("c2", False, False), ("c3", True, True)]
    event = await stack.events.wait_for(lambda e: e["version"] == room.version)
    assert event["missing"] == ["c2"]
    # c2 comes back and presses start: now the game starts.
    await gw.online(stack, "c2", "c2-2")
    await room_when(stack, "dz-01", lambda r: r.seats[1].connected)
    started = await stack.stub.Ready(who("c2"))
    assert started.state == "started" and started.game_id


async def test_the_start_checks_presence_even_before_the_seat_shows_it(
        world: tuple[Stack, Gateway]) -> None:
    stack, gw = world
    await seated(stack, gw, "dz-02", ["d1", "d2", "d3"])
    await stack.stub.Ready(who("d1"))
    await stack.stub.Ready(who("d2"))
    # The lobby's news handler is not told (as if the news were still on its
    # way); the book already knows d1 is gone.
    handler = stack.presence.watcher.on_change

    async def later(change: Any) -> None:
        return None

    stack.presence.watcher.on_change = later
    try:
        await gw.offline("d1")
        await until(lambda: not stack.presence.present("d1"))
        room = await stack.stub.Ready(who("d3"))
    finally:
        stack.presence.watcher.on_change = handler
    assert room.state == "waiting"
    assert seat_flags(room) == [("d1", False, False), ("d2", True, True), ("d3", True, True)]


async def test_an_absent_seat_is_stood_up_after_idle_disconnect_seconds(
        world: tuple[Stack, Gateway]) -> None:
    stack, gw = world
    await seated(stack, gw, "dz-01", ["e1", "e2"])
    stood = sample("paiju_lobby_idle_standups_total")
    await gw.offline("e1")
    room = await room_when(stack, "dz-01", lambda r: not r.seats[0].connected)
    away = room.seats[0].away_since_ms
    stack.clock.ms = away + 29_999  # the room's default 30 s, minus 1 ms
    assert await stack.presence.sweep() == []
    stack.clock.ms = away + 30_000
    assert await stack.presence.sweep() == [("dz-01", "e1")]
    room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-01"))
    assert seat_flags(room) == [("e2", False, True)]
    assert sample("paiju_lobby_idle_standups_total") == stood + 1
    await stack.events.wait_for(lambda e: e["version"] == room.version
                                and [s["player"] for s in e["seats"]] == ["e2"])
    assert await refused(stack.stub.WhereIs(who("e1"))) == (grpc.StatusCode.NOT_FOUND,
                                                            "not_seated")
    assert await stack.presence.sweep() == []  # nothing more to do


async def test_no_stand_up_during_a_game_and_the_time_away_counts_from_its_end(
        world: tuple[Stack, Gateway]) -> None:
    stack, gw = world
    await seated(stack, gw, "dz-01", ["f1", "f2", "f3"])
    for p in ("f1", "f2", "f3"):
        started = await stack.stub.Ready(who(p))
    assert started.state == "started"
    await gw.offline("f3")
    await room_when(stack, "dz-01", lambda r: not r.seats[2].connected)
    stack.clock.advance(120)
    assert await stack.presence.sweep() == []  # the game is the table's business
    rows = [common_pb2.SettlementRow(player="f1", seat=0, points=2, coins=40, fee=1),
            common_pb2.SettlementRow(player="f2", seat=1, points=-1, coins=-20),
            common_pb2.SettlementRow(player="f3", seat=2, points=-1, coins=-20)]
    over = await stack.stub.GameOver(lobby_pb2.GameOverRequest(
        game_id=started.game_id, room="dz-01", settlement=rows,
        record_id=f"{started.game_id}.r1"))
    ended = stack.clock.now_ms()
    assert seat_flags(over) == [("f1", False, True), ("f2", False, True), ("f3", False, False)]
    assert over.seats[2].away_since_ms == ended
    stack.clock.advance(29.999)
    assert await stack.presence.sweep() == []
    stack.clock.advance(0.001)
    assert await stack.presence.sweep() == [("dz-01", "f3")]


async def test_a_gateway_that_dies_takes_its_players_away(
        nats_server: str, world: tuple[Stack, Gateway]) -> None:
    stack, _ = world
    await stack.bank.fund("g1", 1000)
    proc = subprocess.Popen([sys.executable, "-c", DOOMED_GATEWAY, nats_server, "g1"],
                            cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60) == "up\n"
        await until(lambda: stack.presence.present("g1"))
        room = await stack.stub.Sit(sit("g1", "dz-01", 0))
        assert seat_flags(room) == [("g1", False, True)]
        os.kill(proc.pid, signal.SIGKILL)  # no gateway_down
        killed = time.monotonic()
        room = await room_when(stack, "dz-01", lambda r: not r.seats[0].connected)
        # Known within the timeout (3 s here, 6 s in production) and a tick.
        assert time.monotonic() - killed < TIMEOUT_S + 3
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


DOOMED_GATEWAY = """
import asyncio, sys
from paiju.runtime.natsconn import connect
from paiju.presence.publisher import PresencePublisher

async def main() -> None:
    nc = await connect(sys.argv[1], None, "doomed-gateway")
    pub = PresencePublisher(nc, "gw-doomed.p1", heartbeat_seconds=0.2)
    await pub.start()
    await pub.connect(sys.argv[2], "s-1")
    await nc.flush()
    print("up", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


async def test_a_player_sitting_while_absent_is_marked_at_once(
        world: tuple[Stack, Gateway]) -> None:
    stack, _ = world
    await stack.bank.fund("h1", 1000)  # signed in nowhere (the warm-up is over)
    room = await stack.stub.Sit(sit("h1", "dz-02", 0))
    assert seat_flags(room) == [("h1", False, False)]
    assert room.seats[0].away_since_ms == stack.clock.now_ms()


# -- the last result ------------------------------------------------------------

async def test_the_last_result_is_returned_to_a_player_coming_back(
        world: tuple[Stack, Gateway]) -> None:
    stack, gw = world
    await seated(stack, gw, "dz-01", ["k1", "k2", "k3"])
    for p in ("k1", "k2", "k3"):
        started = await stack.stub.Ready(who(p))
    assert not started.HasField("last_result")
    rows = [common_pb2.SettlementRow(player="k1", seat=0, points=4, coins=78, fee=2),
            common_pb2.SettlementRow(player="k2", seat=1, points=-2, coins=-40),
            common_pb2.SettlementRow(player="k3", seat=2, points=-2, coins=-40)]
    await stack.stub.GameOver(lobby_pb2.GameOverRequest(
        game_id=started.game_id, room="dz-01", escaped=["k3"], settlement=rows,
        record_id=f"{started.game_id}.r2"))
    ended = stack.clock.now_ms()
    expected = lobby_pb2.RoomResult(room="dz-01", game_id=started.game_id,
                                    record_id=f"{started.game_id}.r2", settlement=rows,
                                    ended_ms=ended,
                                    names=["K1", "K2", "K3"])  # as they sat (seated())
    # k1 still sits: WhereIs and GetRoom carry the room's last result.
    assert (await stack.stub.WhereIs(who("k1"))).last_result == expected
    room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-01"))
    assert room.last_result == expected
    event = await stack.events.wait_for(lambda e: e["version"] == room.version)
    assert event["last_result"]["settlement"][0] == {
        "player": "k1", "seat": 0, "points": 4, "coins": 78, "fee": 2, "name": "K1"}
    # k3 escaped (no seat any more): LastResult still has its game.
    assert await refused(stack.stub.WhereIs(who("k3"))) == (grpc.StatusCode.NOT_FOUND,
                                                            "not_seated")
    assert await stack.stub.LastResult(who("k3")) == expected
    assert await refused(stack.stub.LastResult(who("nobody"))) == (
        grpc.StatusCode.NOT_FOUND, "no_result")
    # The table's retry changes nothing.
    again = await stack.stub.GameOver(lobby_pb2.GameOverRequest(
        game_id=started.game_id, room="dz-01", settlement=rows[:1]))
    assert again.version == room.version and again.last_result == expected

    # The next game of the room replaces the room's result and its players' last game.
    await stack.bank.fund("k4", 1000)
    await gw.online(stack, "k4")
    await stack.stub.Sit(sit("k4", "dz-01", 2))
    for p in ("k1", "k2", "k4"):
        second = await stack.stub.Ready(who(p))
    stack.clock.advance(5)
    rows2 = [common_pb2.SettlementRow(player=p, seat=i) for i, p in
             enumerate(("k1", "k2", "k4"))]
    room = await stack.stub.GameOver(lobby_pb2.GameOverRequest(
        game_id=second.game_id, room="dz-01", settlement=rows2,
        record_id=f"{second.game_id}.r1"))
    assert room.last_result.game_id == second.game_id
    assert room.last_result.ended_ms == ended + 5000
    assert (await stack.stub.LastResult(who("k1"))).game_id == second.game_id
    assert await stack.stub.LastResult(who("k3")) == expected  # k3 did not play it


# -- several lobby replicas -------------------------------------------------------

@contextlib.asynccontextmanager
async def replica(stack: Stack, rooms_file: Path) -> AsyncIterator[tuple[Lobby, SeatPresence]]:
    """A second lobby process (in-process) over the stack's database."""
    lobbies: list[Lobby] = []
    presences: list[SeatPresence] = []
    async with running_service("lobby", lobby_main.make_setup(
            clock=stack.clock, interval=3600, lobbies=lobbies, reconcile=NO_RECONCILE,
            presences=presences), {
            "grpc_port": free_port(), "nats_url": stack.nats_url,
            "ledger_addr": stack.bank.addr, "table_addrs": tuple(stack.table_addrs),
            "database_url": stack.database_url, "rooms_file": str(rooms_file),
            "instance": "lobby-replica", "presence_timeout_seconds": TIMEOUT_S}):
        book = presences[0].watcher.book
        await until(lambda: not book.warming_up(int(time.time() * 1000)))
        yield lobbies[0], presences[0]


async def test_two_lobby_replicas_mark_and_stand_up_once(
        world: tuple[Stack, Gateway], presence_rooms: Path) -> None:
    stack, gw = world
    async with replica(stack, presence_rooms) as (_, other):
        await seated(stack, gw, "dz-02", ["m1", "m2"])
        await until(lambda: bool(other.watcher.book.sessions("m2")))
        version = (await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-02"))).version
        await gw.offline("m1")
        await until(lambda: not other.present("m1") and not stack.presence.present("m1"))
        room = await room_when(stack, "dz-02", lambda r: not r.seats[0].connected)
        await asyncio.sleep(0.3)  # both handlers had their go: one wrote, one saw it done
        assert await stack.presence.sweep() == [] and await other.sweep() == []
        room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-02"))
        assert room.version == version + 1
        stack.clock.advance(31)
        stood = sample("paiju_lobby_idle_standups_total")
        a, b = await asyncio.gather(stack.presence.sweep(), other.sweep())
        assert sorted(a + b) == [("dz-02", "m1")]
        assert sample("paiju_lobby_idle_standups_total") == stood + 1
        room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-02"))
        assert seat_flags(room) == [("m2", False, True)] and room.version == version + 2


# -- the real clock ---------------------------------------------------------------

async def test_idle_stand_up_on_the_real_clock(nats_server: str, tmp_path: Path,
                                               presence_rooms: Path) -> None:
    async with lobby_stack(nats_server, tmp_path, presence_rooms, clock=SystemClock(),
                           interval=0.1, presence_timeout_seconds=TIMEOUT_S) as stack, \
            gateway(nats_server, "gw-real.p1") as gw:
        await warmed(stack)
        await seated(stack, gw, "quick-01", ["q1", "q2"])
        gone_at = time.time()
        await gw.offline("q1")
        room = await room_when(stack, "quick-01", lambda r: not r.seats[0].connected)
        assert gone_at * 1000 <= room.seats[0].away_since_ms + 50
        room = await room_when(stack, "quick-01", lambda r: len(r.seats) == 1)
        # Not before the room's 1 s: the lobby's own background pass did it.
        assert time.time() - gone_at >= 0.99
        assert seat_flags(room) == [("q2", False, True)]
