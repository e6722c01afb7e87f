"""The reconciler (services/lobby/application/reconcile.py): a started room whose game
was lost goes back to waiting.

A real lobby, ledger, NATS (JetStream) and two real table instances on
loopback, each with its own record database (so two pools: neither takes
the other's games over), that a test can stop (it hands its games over:
their leases released, their logs kept) and start again. The lobby's clock is
a FakeClock and the tests drive one reconcile pass at a time (``run_once``);
settings: a room started less than 30 s ago is not checked, a game without a
lease holder and without a readable log for 60 s is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats
import pytest

from paiju.common.v1 import common_pb2
from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.runtime import db
from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.lobby import main as lobby_main
from services.lobby.adapters.placement import Tables
from services.lobby.adapters.store import Store
from services.lobby.application.lobby import Lobby
from services.lobby.application.reconcile import (
    GAME_MISSING,
    TABLE_UNREACHABLE,
    Reconciler,
    ReconcileSettings,
    Recovery,
)
from services.lobby.domain import room_rules
from services.lobby.domain.clock import FakeClock
from services.lobby.domain.room_rules import Room
from services.table import main as table_main
from services.table.adapters.gamelog import STREAM_PREFIX, SUBJECT_PREFIX
from services.table.adapters.lease import pool_name
from services.table.application.clock import FakeClock as TableClock
from services.table.application.runner import Table
from tests.fixtures import as_identity, free_port, running_service, service_channel, until
from tests.lobby.conftest import Bank, Events, clients, ledger_service
from tests.lobby.helpers import sample

SETTINGS = ReconcileSettings(interval_seconds=3600, grace_seconds=30, lost_after_seconds=60)
PLAYERS = ["p1", "p2", "p3"]
ROOM = "dz-01"


@dataclass
class TableInstance:
    """A real table instance on a fixed loopback port, stoppable and restartable."""

    port: int
    overrides: dict[str, Any]
    clock: TableClock
    tables: list[Table] = field(default_factory=list)
    running: AbstractAsyncContextManager[str] | None = None

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Serve on ``port`` (a new Table: no games)."""
        assert self.running is None
        cm = running_service("table", table_main.make_setup(clock=self.clock,
                                                            tables=self.tables), {
            **self.overrides, "grpc_port": self.port, "instance": f"table-{self.port}"})
        assert await cm.__aenter__() == self.addr
        self.running = cm

    async def stop(self) -> None:
        """Stop serving; the games it ran are gone (nobody reports them over)."""
        if self.running is not None:
            cm, self.running = self.running, None
            await cm.__aexit__(None, None, None)


@dataclass
class World:
    """The lobby (with its reconciler), its ledger, two table instances, NATS."""

    lobby: Lobby
    reconciler: Reconciler
    clock: FakeClock
    stub: lobby_pb2_grpc.LobbyServiceStub
    bank: Bank
    instances: list[TableInstance]
    events: Events
    database_url: str
    nats_url: str

    def instance(self, addr: str) -> TableInstance:
        return next(i for i in self.instances if i.addr == addr)

    def other(self, addr: str) -> TableInstance:
        return next(i for i in self.instances if i.addr != addr)


#: Starts of a world tried before a port race is a failure.
ATTEMPTS = 3


@pytest.fixture
async def world(nats_server: str, tmp_path: Path, rooms_file: Path) -> AsyncIterator[World]:
    """The lobby, its reconciler, the ledger and two table instances. The
    ports are chosen before the services start (the tables must know the
    lobby's address and the lobby the tables'), so another socket may take
    one in between (an outgoing connection's ephemeral port): such a start is
    tried again on new ports."""
    for attempt in range(1, ATTEMPTS + 1):
        async with contextlib.AsyncExitStack() as es:
            try:
                made = await make_world(es, nats_server, tmp_path / f"start-{attempt}", rooms_file)
            except RuntimeError as e:
                if "cannot bind" not in str(e) or attempt == ATTEMPTS:
                    raise
                warnings.warn(f"reconcile world start {attempt} lost a port race ({e}); "
                              "trying again on new ports", stacklevel=1)
                continue
            yield made
            return


async def make_world(es: contextlib.AsyncExitStack, nats_server: str, folder: Path,
                     rooms_file: Path) -> World:
    """Start a world's services on new ports (stopped by ``es``); their files
    in ``folder``. ``RuntimeError`` (``cannot bind``) where a port was taken."""
    folder.mkdir(parents=True, exist_ok=True)
    lobby_addr = f"127.0.0.1:{free_port()}"
    clock = FakeClock()
    table_clock = TableClock()
    lobbies: list[Lobby] = []
    reconcilers: list[Reconciler] = []
    ledger_addr = await es.enter_async_context(ledger_service(nats_server, folder))
    instances = []
    for i in range(2):
        inst = TableInstance(free_port(), {
            "nats_url": nats_server, "ledger_addr": ledger_addr, "lobby_addr": lobby_addr,
            "database_url": f"sqlite:///{folder / f'table{i}.db'}"}, table_clock)
        await inst.start()
        es.push_async_callback(inst.stop)
        instances.append(inst)
    database_url = f"sqlite:///{folder / 'lobby.db'}"
    await es.enter_async_context(running_service(
        "lobby", lobby_main.make_setup(clock=clock, interval=3600, lobbies=lobbies,
                                       reconcile=SETTINGS, reconcilers=reconcilers), {
            "grpc_port": int(lobby_addr.rsplit(":", 1)[1]), "nats_url": nats_server,
            "ledger_addr": ledger_addr,
            "table_addrs": tuple(i.addr for i in instances),
            "database_url": database_url, "rooms_file": str(rooms_file),
            "instance": "lobby-reconcile-test",
            "presence_timeout_seconds": 3600}))  # no gateway: all present
    events, stub, bank = await clients(es, nats_server, lobby_addr, ledger_addr)
    return World(lobbies[0], reconcilers[0], clock, stub, bank, instances, events,
                 database_url, nats_server)


# -- helpers -------------------------------------------------------------------

def who(player: str) -> lobby_pb2.PlayerRequest:
    return lobby_pb2.PlayerRequest(player=player)


def seats(room: lobby_pb2.Room) -> list[tuple[int, str, bool]]:
    return [(s.seat, s.player, s.ready) for s in room.seats]


def recovered_count(reason: str) -> float:
    return sample("paiju_lobby_rooms_recovered_total", reason=reason)


async def get_room(world: World, room: str = ROOM) -> lobby_pb2.Room:
    reply: lobby_pb2.Room = await world.stub.GetRoom(lobby_pb2.GetRoomRequest(room=room))
    return reply


async def until_room(world: World, pred: Callable[[lobby_pb2.Room], bool]) -> lobby_pb2.Room:
    """The room once ``pred`` holds of it (polled)."""
    room = await get_room(world)
    while not pred(room):
        await asyncio.sleep(0.05)
        room = await get_room(world)
    return room


async def seat_players(world: World, players: list[str] = PLAYERS) -> None:
    """Fund ``players`` with 1000 coins each and seat them at 0, 1, 2 of ROOM."""
    for i, p in enumerate(players):
        await world.bank.fund(p, 1000)
        await world.stub.Sit(lobby_pb2.SitRequest(player=p, name=p, room=ROOM, seat=i))


async def start_game(world: World, players: list[str] = PLAYERS) -> lobby_pb2.Room:
    """Everyone presses start: the lobby places the game; the started room."""
    room = lobby_pb2.Room()
    for p in players:
        room = await world.stub.Ready(who(p))
    assert room.state == "started" and room.game_id
    return room


async def started_without_table(world: World, game_id: str, addr: str) -> Room:
    """What a lobby leaves behind when it dies after marking the room started
    and before its CreateGame reached ``addr``: p1 and p2 pressed start, p3's
    press wrote the started room (the same compare-and-set write
    Lobby.ready makes first), and no CreateGame followed."""
    await world.stub.Ready(who("p1"))
    await world.stub.Ready(who("p2"))
    store = world.lobby.store
    old = await store.load(ROOM)
    pressed = room_rules.ready(old, "p3", now_ms=world.clock.now_ms(), ready_seconds=20)
    return await store.save(old, room_rules.start(pressed, game_id, addr), world.clock.now_ms())


async def running_ids(addr: str) -> list[str]:
    async with service_channel(addr) as ch:
        reply = await table_pb2_grpc.TableServiceStub(ch).ListGames(
            table_pb2.ListGamesRequest())
    return [g.game_id for g in reply.games]


async def purge_log(world: World, inst: TableInstance, game_id: str) -> None:
    """Make ``game_id``'s log unreadable: every entry of its subject purged
    (as a lost JetStream volume would leave it)."""
    pool = pool_name(inst.overrides["database_url"])
    nc = await nats.connect(world.nats_url)
    try:
        await nc.jetstream().purge_stream(STREAM_PREFIX + pool,
                                          subject=f"{SUBJECT_PREFIX}{pool}.{game_id}")
    finally:
        await nc.close()


# -- end to end ------------------------------------------------------------------

async def test_a_restarted_instance_takes_its_game_back(world: World) -> None:
    """The table instance running a room's game is stopped (it hands the game
    over: a handover entry, the lease released) and started again on another
    port with the same record database: it takes the game over from its log
    and tells the lobby (GameMoved), the room names the new address; the
    reconciler voids nothing, also long after."""
    await seat_players(world)
    started = await start_game(world)
    game, addr = started.game_id, started.table_instance
    inst = world.instance(addr)
    await inst.stop()
    moved = TableInstance(free_port(), inst.overrides, inst.clock)
    await moved.start()
    try:
        await until(lambda: moved.tables and game in moved.tables[-1].sittings,
                    "the game taken over")
        room = await until_room(world, lambda r: r.table_instance == moved.addr)
        assert (room.state, room.game_id) == ("started", game)
        world.clock.advance(31)
        assert await world.reconciler.run_once() == []
        world.clock.advance(61)
        assert await world.reconciler.run_once() == []
        assert (await get_room(world)).game_id == game
    finally:
        await moved.stop()


async def test_game_lost_with_its_log(world: World) -> None:
    """The instance running a room's game stops and its game's log is lost
    (purged); restarted, it runs nothing. The room is voided only once nobody
    held the lease and the log could not be read for 60 s: back to waiting
    with its three players, nobody ready; a late GameOver for the lost game
    changes nothing; a new game's room is left alone."""
    await seat_players(world)
    started = await start_game(world)
    game, addr = started.game_id, started.table_instance
    assert await running_ids(addr) == [game]
    # Within the grace nothing is checked; past it the running game is found.
    assert await world.reconciler.run_once() == []
    world.clock.advance(31)
    assert await world.reconciler.run_once() == []
    assert (await get_room(world)).version == started.version

    inst = world.instance(addr)
    await inst.stop()
    await purge_log(world, inst, game)
    await inst.start()
    assert await running_ids(addr) == []
    missing = recovered_count(GAME_MISSING)
    assert await world.reconciler.run_once() == []  # the 60 s start now
    world.clock.advance(59.999)
    assert await world.reconciler.run_once() == []
    world.clock.advance(0.001)
    assert await world.reconciler.run_once() == [Recovery(ROOM, game, addr, GAME_MISSING)]
    assert recovered_count(GAME_MISSING) == missing + 1
    room = await get_room(world)
    assert room.state == "waiting" and room.game_id == "" and room.table_instance == ""
    assert seats(room) == [(0, "p1", False), (1, "p2", False), (2, "p3", False)]
    assert [s.coins for s in room.seats] == [1000, 1000, 1000]  # nothing was settled
    assert room.version == started.version + 1
    event = await world.events.wait_for(lambda e: e["version"] == room.version)
    assert (event["room"], event["state"], event["game_id"]) == (ROOM, "waiting", "")
    assert await world.reconciler.run_once() == []
    assert recovered_count(GAME_MISSING) == missing + 1

    # The lost game's GameOver comes late (with an escapee): answered, nothing changes.
    late = lobby_pb2.GameOverRequest(game_id=game, room=ROOM, escaped=["p2"],
                                     carry_json='{"no_call_streak": 1}')
    assert (await world.stub.GameOver(late)).version == room.version
    assert await get_room(world) == room

    # The room starts again; the lost game's GameOver now leaves the new game be.
    again = await start_game(world)
    assert again.game_id != game and again.game_id in await running_ids(again.table_instance)
    answer = await world.stub.GameOver(late)
    assert (answer.state, answer.game_id, answer.version) == (
        "started", again.game_id, again.version)
    world.clock.advance(31)
    assert await world.reconciler.run_once() == []
    assert await get_room(world) == again


async def test_create_game_that_never_reached_the_table(world: World) -> None:
    """The lobby died between marking the room started and CreateGame: the
    instance it chose answers without the game, which has neither lease nor
    log. The room is not checked for 30 s (its CreateGame could still be on
    its way), then after 60 s without lease and log goes back to waiting,
    and can start a real game."""
    await seat_players(world)
    addr = world.instances[0].addr
    marked = await started_without_table(world, "never-created-1", addr)
    assert marked.state == "started"
    world.clock.advance(29.999)
    assert await world.reconciler.run_once() == []
    assert (await get_room(world)).version == marked.version
    world.clock.advance(0.001)
    assert await world.reconciler.run_once() == []
    world.clock.advance(60)
    assert await world.reconciler.run_once() == [
        Recovery(ROOM, "never-created-1", addr, GAME_MISSING)]
    room = await get_room(world)
    assert room.state == "waiting"
    assert seats(room) == [(0, "p1", False), (1, "p2", False), (2, "p3", False)]
    started = await start_game(world)
    assert started.game_id in await running_ids(started.table_instance)


async def test_table_instance_that_stops_answering(world: World) -> None:
    """The instance running the game is gone for good and no instance of its
    pool is left to read the game's log: nothing is voided until that has
    lasted 60 s; then the room is back to waiting (counted as
    table_unreachable) and the next game goes to the other instance."""
    await seat_players(world)
    started = await start_game(world)
    addr = started.table_instance
    await world.instance(addr).stop()
    world.clock.advance(30)
    unreachable = recovered_count(TABLE_UNREACHABLE)
    assert await world.reconciler.run_once() == []  # first time it does not answer
    world.clock.advance(59.999)
    assert await world.reconciler.run_once() == []
    assert (await get_room(world)).state == "started"
    world.clock.advance(0.001)
    assert await world.reconciler.run_once() == [
        Recovery(ROOM, started.game_id, addr, TABLE_UNREACHABLE)]
    assert recovered_count(TABLE_UNREACHABLE) == unreachable + 1
    room = await get_room(world)
    assert room.state == "waiting"
    assert seats(room) == [(0, "p1", False), (1, "p2", False), (2, "p3", False)]
    again = await start_game(world)
    assert again.table_instance == world.other(addr).addr


async def test_an_instance_that_answers_again_is_not_given_up(world: World) -> None:
    """The 60 s count starts again once the instance answers: not answering
    for 40 s, answering (running the game), then not answering for 40 s more
    voids nothing."""
    await seat_players(world)
    started = await start_game(world)
    addr = started.table_instance
    world.clock.advance(30)
    reconciler = Reconciler(world.lobby, SETTINGS)
    # Lost (as this process saw it) since 40 s ago.
    reconciler.lost_since[started.game_id] = world.clock.now_ms() - 40_000
    assert await reconciler.run_once() == []  # it answers, with the game
    assert reconciler.lost_since == {}
    await world.instance(addr).stop()
    assert await reconciler.run_once() == []
    world.clock.advance(40)
    assert await reconciler.run_once() == []
    assert (await get_room(world)).version == started.version


async def test_a_redealt_game_is_still_running(world: World) -> None:
    """Everyone says no_call: the table redeals under ``<game_id>.r1``; that is
    the room's game still running, and the room is left alone."""
    await seat_players(world)
    started = await start_game(world)
    addr = started.table_instance
    async with service_channel(addr) as ch:
        table = table_pb2_grpc.TableServiceStub(ch)
        said = 0
        for seq in (1, 2):  # two rounds: whoever's turn it is says no_call
            for p in PLAYERS:
                if said < 3:
                    reply = await table.Act(table_pb2.ActRequest(
                        room=ROOM, player=p, action=common_pb2.Action(type="no_call"),
                        client_seq=seq))
                    said += reply.ok
    assert said == 3

    async def redealt() -> None:
        while await running_ids(addr) != [f"{started.game_id}.r1"]:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(redealt(), 10)  # a deadline for a condition
    world.clock.advance(31)
    assert await world.reconciler.run_once() == []
    assert await get_room(world) == started


async def test_two_lobbies_recover_the_room_once(world: World) -> None:
    """Two lobbies (each its own database connection and table clients)
    reconcile at the same moment: the room is returned to waiting once, counted
    once, announced once."""
    await seat_players(world)
    addr = world.instances[1].addr
    marked = await started_without_table(world, "never-created-2", addr)
    world.clock.advance(30)
    engine = db.make_engine(world.database_url)
    tables = Tables([i.addr for i in world.instances], identity=as_identity("lobby"))
    try:
        lobby = world.lobby
        other = Lobby(lobby.config, Store(engine, lobby.config), lobby.ledger, tables,
                      lobby.nc, world.clock)
        missing = recovered_count(GAME_MISSING)
        second = Reconciler(other, SETTINGS)
        # The first passes find no lease and no log; 60 s later both void.
        assert list(await asyncio.gather(world.reconciler.run_once(), second.run_once())) == [
            [], []]
        world.clock.advance(60)
        results = await asyncio.gather(world.reconciler.run_once(), second.run_once())
    finally:
        await tables.close()
        await engine.dispose()
    assert results[0] + results[1] == [Recovery(ROOM, "never-created-2", addr, GAME_MISSING)]
    assert recovered_count(GAME_MISSING) == missing + 1
    room = await get_room(world)
    assert room.version == marked.version + 1 and room.state == "waiting"
    assert seats(room) == [(0, "p1", False), (1, "p2", False), (2, "p3", False)]
    await world.events.wait_for(lambda e: e["version"] == room.version)
    assert [e["state"] for e in world.events.items if e["version"] > marked.version] == [
        "waiting"]


async def test_the_reconciler_moves_a_room_to_its_lease_holder(world: World) -> None:
    """An instance of the game's pool took the game over but could not tell
    the lobby (its lobby address leads nowhere): the reconciler finds the
    lease holder (LocateGame) and moves the room there, counted as
    reason=reconciler."""
    await seat_players(world)
    started = await start_game(world)
    game, addr = started.game_id, started.table_instance
    inst = world.instance(addr)
    await inst.stop()
    mute = TableInstance(free_port(), {**inst.overrides,
                                       "lobby_addr": f"127.0.0.1:{free_port()}"}, inst.clock)
    await mute.start()
    try:
        await until(lambda: mute.tables and game in mute.tables[-1].sittings
                    and mute.addr in world.lobby.tables.known(),
                    "the game taken over, its instance registered")
        assert (await get_room(world)).table_instance == addr  # nobody told the lobby
        before = sample("paiju_lobby_games_moved_total", reason="reconciler")
        world.clock.advance(31)
        assert await world.reconciler.run_once() == []
        room = await get_room(world)
        assert (room.state, room.game_id, room.table_instance) == ("started", game, mute.addr)
        assert sample("paiju_lobby_games_moved_total", reason="reconciler") == before + 1
        event = await world.events.wait_for(lambda e: e["version"] == room.version)
        assert event["table_instance"] == mute.addr
    finally:
        await mute.stop()


async def test_game_moved_rpc(world: World) -> None:
    """GameMoved (the table's call) moves the started room's game to the new
    address once (room_changed; a repeat changes nothing); a game the room
    does not run is NOT_FOUND no_such_game and changes nothing."""
    await seat_players(world)
    started = await start_game(world)
    before = sample("paiju_lobby_games_moved_total", reason="game_moved")
    req = lobby_pb2.GameMovedRequest(game_id=started.game_id, room=ROOM,
                                     table_instance="table-9.table:50052")
    room = await world.stub.GameMoved(req)
    assert (room.state, room.game_id, room.table_instance, room.version) == (
        "started", started.game_id, "table-9.table:50052", started.version + 1)
    assert (await world.stub.GameMoved(req)).version == room.version
    assert sample("paiju_lobby_games_moved_total", reason="game_moved") == before + 1
    event = await world.events.wait_for(lambda e: e["version"] == room.version)
    assert event["table_instance"] == "table-9.table:50052"
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await world.stub.GameMoved(lobby_pb2.GameMovedRequest(
            game_id="other-game", room=ROOM, table_instance="x:1"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert "no_such_game" in (err.value.details() or "")
    assert await get_room(world) == room
