"""The lobby service end to end: a real lobby, ledger, two table instances and
NATS on loopback (tests/lobby/conftest.py). Expectations come from seed 000
第二节 (room states, sitting only with the server's coins, start when everyone
pressed start, the 20 s kick) and architecture.md "Flows"."""

from __future__ import annotations

import asyncio
import json
import time

import grpc

from paiju.lobby.v1 import lobby_pb2
from paiju.table.v1 import table_pb2, table_pb2_grpc
from tests.fixtures import as_identity, free_port, service_channel
from tests.lobby.conftest import Stack
from tests.lobby.helpers import refused, sample

FP = grpc.StatusCode.FAILED_PRECONDITION


def sit(player: str, room: str, seat: int) -> lobby_pb2.SitRequest:
    return lobby_pb2.SitRequest(player=player, name=player.upper(), room=room, seat=seat)


def who(player: str) -> lobby_pb2.PlayerRequest:
    return lobby_pb2.PlayerRequest(player=player)


async def rooms_of(stack: Stack, server: str = "dz") -> dict[str, lobby_pb2.Room]:
    reply = await stack.stub.ListRooms(lobby_pb2.ListRoomsRequest(server=server))
    return {r.room: r for r in reply.rooms}


def seats(room: lobby_pb2.Room) -> list[tuple[int, str, bool]]:
    return [(s.seat, s.player, s.ready) for s in room.seats]


async def fill(stack: Stack, room: str, players: list[str], coins: int = 1000) -> None:
    for i, p in enumerate(players):
        await stack.bank.fund(p, coins)
        await stack.stub.Sit(sit(p, room, i))


async def test_servers_from_the_rooms_file(stack: Stack) -> None:
    servers = {s.server: s for s in (await stack.stub.ListServers(
        lobby_pb2.ListServersRequest())).servers}
    assert set(servers) == {"dz", "hz"}
    dz, hz = servers["dz"], servers["hz"]
    assert (dz.game, dz.base, dz.min_coins, dz.unit, dz.rooms, dz.seats) == (
        "doudizhu", 10, 100, 1, 4, 3)
    assert (hz.game, hz.unit, hz.seats, hz.ready_seconds) == ("hunzhan", 5, 4, 20)
    assert hz.idle_disconnect_seconds == 30
    assert json.loads(dz.options_json) == {"turn_seconds": 20}
    rooms = await rooms_of(stack)
    assert list(rooms) == ["dz-01", "dz-02", "dz-03", "dz-04"]
    assert {r.state for r in rooms.values()} == {"idle"}
    assert all(r.size == 3 and not r.seats for r in rooms.values())


async def test_full_cycle_idle_waiting_started_waiting(stack: Stack) -> None:
    for p in ("p1", "p2", "p3", "p4"):
        await stack.bank.fund(p, 1000)
    reply = await stack.stub.Sit(sit("p1", "dz-01", 0))
    assert reply.state == "waiting" and seats(reply) == [(0, "p1", False)]
    assert reply.seats[0].coins == 1000 and reply.seats[0].name == "P1"
    await stack.stub.Sit(sit("p2", "dz-01", 1))
    await stack.stub.Sit(sit("p3", "dz-01", 2))
    rooms = await rooms_of(stack)
    assert rooms["dz-01"].state == "waiting" and rooms["dz-02"].state == "idle"
    assert (await stack.stub.WhereIs(who("p2"))).room == "dz-01"

    await stack.stub.Ready(who("p1"))
    await stack.stub.Ready(who("p2"))
    started = await stack.stub.Ready(who("p3"))
    assert started.state == "started" and started.game_id
    assert started.table_instance in stack.table_addrs
    assert seats(started) == [(0, "p1", True), (1, "p2", True), (2, "p3", True)]

    # The game runs on that instance with the room's seats and terms.
    sitting = stack.table_at(started.table_instance).rooms["dz-01"].sitting
    spec = sitting.spec
    assert spec.game_id == started.game_id and spec.game == "doudizhu"
    assert [(s.seat, s.player) for s in spec.seats] == [(0, "p1"), (1, "p2"), (2, "p3")]
    assert (spec.terms.base, spec.terms.unit, spec.terms.fee_rate) == (
        10, 1, 0.02)
    assert spec.table_options.turn_seconds == 20
    # The address the lobby placed it at goes with it (repeated in game_started).
    assert spec.table_instance == started.table_instance
    assert sitting.table_instance == started.table_instance

    # p2 leaves the game at the table: an escape. The table settles with the
    # ledger and reports the game over; the lobby returns the room to waiting
    # without p2, nobody ready. Escape during the bidding: multiplier 1, the
    # escapee pays 1 point (x base 10 = 10 coins) to each other seat; a win
    # of 10 pays floor(10 x 0.02) = 0 fee (rulings.md "Settlement").
    async with service_channel(started.table_instance) as ch:
        await table_pb2_grpc.TableServiceStub(ch).Leave(
            table_pb2.PlayerRequest(room="dz-01", player="p2"))
    after = await stack.events.wait_for(
        lambda e: e["room"] == "dz-01" and e["version"] > started.version
        and e["state"] == "waiting")
    assert [(s["seat"], s["player"], s["ready"], s["coins"]) for s in after["seats"]] == [
        (0, "p1", False, 1010), (2, "p3", False, 1010)]
    assert after["game_id"] == "" and after["table_instance"] == ""
    assert await stack.bank.balance("p2") == 980

    # The next game: p4 takes the free seat, everyone presses start again.
    await stack.stub.Sit(sit("p4", "dz-01", 1))
    for p in ("p1", "p3"):
        assert (await stack.stub.Ready(who(p))).state == "waiting"
    again = await stack.stub.Ready(who("p4"))
    assert again.state == "started" and again.game_id not in ("", started.game_id)

    # Every change was announced on paiju.lobby.dz.rooms, in version order.
    await stack.events.wait_for(lambda e: e["version"] == again.version)
    mine = [e for e in stack.events.items if e["room"] == "dz-01"]
    assert [e["version"] for e in mine] == sorted(e["version"] for e in mine)
    states = [e["state"] for e in mine]
    assert states[0] == "waiting" and states[-1] == "started"
    assert "started" in states[:-1]  # the first game
    first = next(e for e in mine if e["state"] == "started")
    assert first["game_id"] == started.game_id
    assert first["table_instance"] == started.table_instance
    assert first["game"] == "doudizhu" and first["server"] == "dz"


async def test_every_sit_refusal(stack: Stack) -> None:
    await fill(stack, "dz-01", ["a1", "a2"])
    await stack.bank.fund("poor", 99)
    await stack.bank.fund("b1", 1000)
    before = await rooms_of(stack)
    cases = [
        (sit("b1", "nowhere-01", 0), "no_such_room"),
        (sit("b1", "dz-01", 3), "no_such_seat"),
        (sit("b1", "dz-01", -1), "no_such_seat"),
        (sit("b1", "dz-01", 0), "seat_taken"),
        (sit("poor", "dz-01", 2), "not_enough_coins"),
        (sit("nobody-in-ledger", "dz-02", 0), "not_enough_coins"),
        (sit("a1", "dz-01", 2), "already_seated"),
        (sit("a1", "dz-02", 0), "already_seated"),
    ]
    for request, reason in cases:
        counted = sample("paiju_lobby_sits_refused_total", reason=reason)
        assert await refused(stack.stub.Sit(request)) == (FP, reason), request
        assert sample("paiju_lobby_sits_refused_total", reason=reason) == counted + 1
    assert await rooms_of(stack) == before  # nothing changed, not even a version


async def test_room_started_refusals(stack: Stack) -> None:
    await fill(stack, "dz-02", ["c1", "c2", "c3"])
    await stack.bank.fund("b1", 1000)
    for p in ("c1", "c2", "c3"):
        last = await stack.stub.Ready(who(p))
    assert last.state == "started"
    assert await refused(stack.stub.Sit(sit("b1", "dz-02", 0))) == (FP, "room_started")
    assert await refused(stack.stub.Stand(who("c1"))) == (FP, "room_started")
    assert await refused(stack.stub.Ready(who("c1"))) == (FP, "room_started")
    assert (await rooms_of(stack))["dz-02"].version == last.version


async def test_stand_ready_and_bad_requests(stack: Stack) -> None:
    await fill(stack, "dz-03", ["d1", "d2"])
    assert await refused(stack.stub.Stand(who("ghost"))) == (FP, "not_seated")
    assert await refused(stack.stub.Ready(who("ghost"))) == (FP, "not_seated")
    assert await refused(stack.stub.WhereIs(who("ghost"))) == (
        grpc.StatusCode.NOT_FOUND, "not_seated")
    assert await refused(stack.stub.Sit(sit("", "dz-03", 2))) == (
        grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument")
    assert await refused(stack.stub.ListRooms(lobby_pb2.ListRoomsRequest(server="zz"))) == (
        grpc.StatusCode.NOT_FOUND, "no_such_server")
    ready = await stack.stub.Ready(who("d1"))
    assert seats(ready) == [(0, "d1", True), (1, "d2", False)]
    assert (await stack.stub.Ready(who("d1"))).version == ready.version  # idempotent
    stood = await stack.stub.Stand(who("d1"))
    assert seats(stood) == [(1, "d2", False)] and stood.state == "waiting"
    empty = await stack.stub.Stand(who("d2"))
    assert empty.state == "idle" and not empty.seats
    # The freed seat takes someone else.
    await stack.bank.fund("d3", 1000)
    assert seats(await stack.stub.Sit(sit("d3", "dz-03", 0))) == [(0, "d3", False)]


async def test_ready_kick_after_20_seconds(stack: Stack) -> None:
    await fill(stack, "dz-01", ["k1", "k2", "k3"])
    await stack.stub.Ready(who("k1"))
    armed = await stack.stub.Ready(who("k3"))
    # All but one ready in a full room: k2 has 20 s from now.
    assert armed.ready_deadline_ms == stack.clock.now_ms() + 20_000
    kicks = sample("paiju_lobby_ready_kicks_total")
    stack.clock.advance(19.999)
    assert await stack.lobby.kick_due() == []
    assert seats((await rooms_of(stack))["dz-01"]) == [(0, "k1", True), (1, "k2", False),
                                                       (2, "k3", True)]
    stack.clock.advance(0.001)
    assert await stack.lobby.kick_due() == [("dz-01", "k2")]
    room = (await rooms_of(stack))["dz-01"]
    assert seats(room) == [(0, "k1", True), (2, "k3", True)]
    assert room.state == "waiting" and room.ready_deadline_ms == 0
    assert sample("paiju_lobby_ready_kicks_total") == kicks + 1
    event = await stack.events.wait_for(lambda e: e["version"] == room.version)
    assert [s["player"] for s in event["seats"]] == ["k1", "k3"]
    assert event["ready_deadline"] is None
    assert await refused(stack.stub.WhereIs(who("k2"))) == (
        grpc.StatusCode.NOT_FOUND, "not_seated")
    # A second pass removes nobody else.
    stack.clock.advance(60)
    assert await stack.lobby.kick_due() == []


async def test_ready_kick_disarmed_when_the_room_changes(stack: Stack) -> None:
    await fill(stack, "dz-01", ["k1", "k2", "k3"])
    await stack.stub.Ready(who("k1"))
    armed = await stack.stub.Ready(who("k2"))
    assert armed.ready_deadline_ms == stack.clock.now_ms() + 20_000
    stack.clock.advance(10)
    # k1 stands up: the room is no longer full, nobody has a deadline.
    stood = await stack.stub.Stand(who("k1"))
    assert stood.ready_deadline_ms == 0
    stack.clock.advance(30)
    assert await stack.lobby.kick_due() == []
    # k1 comes back (not ready): two unready, still no deadline.
    back = await stack.stub.Sit(sit("k1", "dz-01", 0))
    assert back.ready_deadline_ms == 0
    # k1 presses start: k3 alone is unready, and gets 20 s from now.
    again = await stack.stub.Ready(who("k1"))
    assert again.ready_deadline_ms == stack.clock.now_ms() + 20_000


async def test_placed_on_the_least_loaded_table_instance(stack: Stack) -> None:
    a, b = stack.table_addrs
    # Instance a already runs a game (of some other room).
    async with service_channel(a) as ch:
        await table_pb2_grpc.TableServiceStub(ch).CreateGame(_other_game())
    await fill(stack, "dz-01", ["e1", "e2", "e3"])
    for p in ("e1", "e2", "e3"):
        last = await stack.stub.Ready(who(p))
    assert last.table_instance == b
    assert "dz-01" in stack.table_at(b).rooms and "dz-01" not in stack.table_at(a).rooms

    # Now both run one game; a takes no new games (draining): the next goes to b.
    stack.table_at(a).drain()
    await fill(stack, "dz-02", ["f1", "f2", "f3"])
    for p in ("f1", "f2", "f3"):
        last = await stack.stub.Ready(who(p))
    assert last.table_instance == b and last.state == "started"


def _other_game() -> table_pb2.CreateGameRequest:
    from paiju.common.v1 import common_pb2

    return table_pb2.CreateGameRequest(
        game_id="other-game", room="elsewhere-01", server="elsewhere", game="doudizhu",
        options_json="{}",
        seats=[common_pb2.SeatPlayer(seat=i, player=f"o{i}", name=f"o{i}") for i in range(3)],
        terms=common_pb2.SettlementTerms(base=1, unit=1, fee_rate=0.02))


async def test_no_table_instance_undoes_the_press(stack: Stack) -> None:
    for table in stack.tables:
        table.drain()
    await fill(stack, "dz-01", ["g1", "g2", "g3"])
    await stack.stub.Ready(who("g1"))
    await stack.stub.Ready(who("g2"))
    # Refused within the caller's deadline (the lobby tries again until then).
    started = time.monotonic()
    assert await refused(stack.stub.Ready(who("g3"), timeout=3)) == (
        grpc.StatusCode.UNAVAILABLE, "no_table_instance")
    assert 1.5 < time.monotonic() - started < 3
    room = (await rooms_of(stack))["dz-01"]
    assert room.state == "waiting"
    assert seats(room) == [(0, "g1", True), (1, "g2", True), (2, "g3", False)]
    # Instances back: the same press starts the game.
    for table in stack.tables:
        table.accepting = True
    assert (await stack.stub.Ready(who("g3"))).state == "started"


async def test_a_start_waits_for_an_instance_within_the_callers_deadline(
        stack: Stack) -> None:
    """No instance takes games (as while JetStream elects a leader): the
    press waits, and starts the game once one does again."""
    for table in stack.tables:
        table.drain()
    await fill(stack, "dz-01", ["g1", "g2", "g3"])
    await stack.stub.Ready(who("g1"))
    await stack.stub.Ready(who("g2"))
    press = asyncio.ensure_future(stack.stub.Ready(who("g3"), timeout=10))
    await asyncio.sleep(1.5)
    assert not press.done()
    for table in stack.tables:
        table.accepting = True
    assert (await press).state == "started"


async def test_game_over_from_the_table(stack: Stack) -> None:
    await fill(stack, "dz-01", ["h1", "h2", "h3"])
    for p in ("h1", "h2", "h3"):
        started = await stack.stub.Ready(who(p))
    first_table = started.table_instance
    # h3 lost coins meanwhile: 1000 - 950 = 50 < min_coins 100.
    await stack.bank.take("h3", 950)
    over = lobby_pb2.GameOverRequest(game_id=started.game_id, room="dz-01", escaped=["h2"],
                                     carry_json=json.dumps({"no_call_streak": 1}))
    room = await stack.stub.GameOver(over)
    # h2 escaped: removed; h3 below the server's 100: stood up; h1 stays, not ready.
    assert room.state == "waiting" and seats(room) == [(0, "h1", False)]
    assert room.game_id == "" and room.table_instance == ""
    # The table retries: the same answer, nothing changes.
    assert (await stack.stub.GameOver(over)).version == room.version
    assert await refused(stack.stub.GameOver(lobby_pb2.GameOverRequest(
        game_id="never-started", room="dz-01"))) == (grpc.StatusCode.NOT_FOUND,
                                                     "no_such_game")
    assert await refused(stack.stub.GameOver(lobby_pb2.GameOverRequest(
        game_id=started.game_id, room="dz-01", carry_json="[1]"))) == (
        grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument")
    # The next game carries the no-call streak into CreateGame's options. The
    # first instance still runs the old game here, so the other one gets it.
    for p, seat in (("h1x", 1), ("h4", 2)):
        await stack.bank.fund(p, 1000)
        await stack.stub.Sit(sit(p, "dz-01", seat))
    for p in ("h1", "h1x", "h4"):
        nxt = await stack.stub.Ready(who(p))
    assert nxt.state == "started" and nxt.table_instance != first_table
    spec = stack.table_at(nxt.table_instance).rooms["dz-01"].sitting.spec
    assert spec.table_options.no_call_streak == 1
    assert [(s.seat, s.player) for s in spec.seats] == [(0, "h1"), (1, "h1x"), (2, "h4")]


async def test_room_gauges(stack: Stack) -> None:
    await fill(stack, "dz-01", ["m1", "m2"])
    await stack.lobby.refresh_metrics()
    # 4 dz rooms + 1 hz room: one waiting, four idle; two players seated.
    assert sample("paiju_lobby_rooms", state="waiting") == 1
    assert sample("paiju_lobby_rooms", state="idle") == 4
    assert sample("paiju_lobby_rooms", state="started") == 0
    assert sample("paiju_lobby_seated_players") == 2


async def test_two_lobbies_kick_once(stack: Stack) -> None:
    """The 20 s kick run by two lobby instances at once over the same database
    removes the player once (compare-and-set)."""
    from paiju.runtime import db
    from services.lobby.adapters.store import Store
    from services.lobby.application.lobby import Lobby

    await fill(stack, "dz-01", ["k1", "k2", "k3"])
    await stack.stub.Ready(who("k1"))
    await stack.stub.Ready(who("k2"))
    engine = db.make_engine(stack.database_url)
    try:
        other = Lobby(stack.lobby.config, Store(engine, stack.lobby.config),
                      stack.lobby.ledger, stack.lobby.tables, None, stack.clock)
        stack.clock.advance(20)
        results = await asyncio.gather(stack.lobby.kick_due(), other.kick_due())
    finally:
        await engine.dispose()
    assert sorted(results[0] + results[1]) == [("dz-01", "k3")]
    assert seats((await rooms_of(stack))["dz-01"]) == [(0, "k1", True), (1, "k2", True)]


async def test_instances_that_do_not_answer_are_skipped(stack: Stack) -> None:
    from services.lobby.adapters.placement import Tables

    dead = f"127.0.0.1:{free_port()}"
    tables = Tables([dead, *stack.table_addrs], timeout=1.0, identity=as_identity("lobby"))
    try:
        assert await tables.candidates() == stack.table_addrs
        stack.tables[0].drain()
        assert await tables.candidates() == [stack.table_addrs[1]]
    finally:
        await tables.close()


async def test_a_burst_of_starts_spreads_over_the_instances(stack: Stack) -> None:
    """Four rooms start at once while both instances run nothing: the starts
    share one round of ListGames (both answer 0 games), and each counts the
    games created since, so the four go two and two, not all to the first."""
    rooms = ["dz-01", "dz-02", "dz-03", "dz-04"]
    for k, room in enumerate(rooms):
        await fill(stack, room, [f"burst{k}{i}" for i in range(3)])
        for i in range(2):
            await stack.stub.Ready(who(f"burst{k}{i}"))
    await asyncio.gather(*(stack.stub.Ready(who(f"burst{k}2")) for k in range(len(rooms))))
    assert sorted(len(t.rooms) for t in stack.tables) == [2, 2]


async def test_create_game_refused_goes_to_the_next_instance(stack: Stack) -> None:
    """The least loaded instance refuses CreateGame (it still runs an older game
    of that room: room_busy); the next one gets the game, and the started room
    is announced once, with the instance that took it."""
    a, b = stack.table_addrs
    await fill(stack, "dz-01", ["q1", "q2", "q3"])
    for p in ("q1", "q2", "q3"):
        first = await stack.stub.Ready(who(p))
    old_table = first.table_instance
    other = b if old_table == a else a
    # The lobby hears the game is over while old_table still runs it.
    await stack.stub.GameOver(lobby_pb2.GameOverRequest(game_id=first.game_id, room="dz-01"))
    # other gets busier than old_table: two games of other rooms.
    async with service_channel(other) as ch:
        for i in range(2):
            request = _other_game()
            request.game_id, request.room = f"busy-{i}", f"elsewhere-{i}"
            await table_pb2_grpc.TableServiceStub(ch).CreateGame(request)
    failures = sample("paiju_lobby_placement_failures_total")
    for p in ("q1", "q2", "q3"):
        second = await stack.stub.Ready(who(p))
    assert second.state == "started" and second.table_instance == other
    assert sample("paiju_lobby_placement_failures_total") == failures + 1
    assert stack.table_at(other).rooms["dz-01"].sitting.spec.game_id == second.game_id
    await stack.events.wait_for(lambda e: e["game_id"] == second.game_id)
    announced = [e for e in stack.events.items if e["game_id"] == second.game_id]
    assert [(e["state"], e["table_instance"]) for e in announced] == [("started", other)]
