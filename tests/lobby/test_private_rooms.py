"""Private rooms (好友房) through the real lobby, ledger, two table instances
and NATS (tests/lobby/conftest.py): opened by a player who sits at seat 0,
joined by the invite code only, never listed nor announced on the server's
subject, removed when the last player leaves; the owner removes a seat that is
not playing; open rooms and code tries are limited per player."""

from __future__ import annotations

from typing import Any

import grpc
import nats

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import natsconn
from paiju.table.v1 import table_pb2, table_pb2_grpc
from tests.fixtures import service_channel
from tests.lobby.conftest import Events, Stack
from tests.lobby.helpers import refused, sample

FP = grpc.StatusCode.FAILED_PRECONDITION
NF = grpc.StatusCode.NOT_FOUND
#: The code alphabet as docs/lobby.md gives it (no 0/O, 1/I/L).
ALPHABET = set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")


def who(player: str) -> lobby_pb2.PlayerRequest:
    return lobby_pb2.PlayerRequest(player=player)


def join(player: str, code: str, seat: int = -1) -> lobby_pb2.JoinCodeRequest:
    return lobby_pb2.JoinCodeRequest(player=player, name=player.upper(), code=code, seat=seat)


async def open_room(stack: Stack, owner: str, coins: int = 1000
                    ) -> lobby_pb2.OpenRoomResponse:
    await stack.bank.fund(owner, coins)
    opened: lobby_pb2.OpenRoomResponse = await stack.stub.OpenRoom(lobby_pb2.OpenRoomRequest(
        player=owner, name=owner.upper(), server="dz"))
    return opened


async def listed(stack: Stack) -> set[str]:
    reply = await stack.stub.ListRooms(lobby_pb2.ListRoomsRequest(server="dz"))
    return {r.room for r in reply.rooms}


async def test_open_join_play_and_close(stack: Stack) -> None:
    private_events = Events()
    nc = await nats.connect(stack.nats_url)
    try:
        async def on_event(msg: Any) -> None:
            private_events.items.append(natsconn.decode(msg.data))
            private_events.arrived.set()

        await nc.subscribe("paiju.lobby.dz.room.>", cb=on_event)
        await nc.flush()
        opened = await open_room(stack, "own")
        room, code = opened.room, opened.code
        assert len(code) == 8 and set(code) <= ALPHABET
        assert room.room.startswith("dz-x") and room.private and room.owner == "own"
        assert [(s.seat, s.player) for s in room.seats] == [(0, "own")]
        assert room.game == "doudizhu" and room.size == 3

        # Not in the list; a Sit by the room's id is refused as if it did not exist.
        assert room.room not in await listed(stack)
        for p in ("f1", "f2", "outsider"):
            await stack.bank.fund(p, 1000)
        assert await refused(stack.stub.Sit(lobby_pb2.SitRequest(
            player="outsider", name="O", room=room.room, seat=1))) == (FP, "no_such_room")
        # Friends join by code (lower case and a dash are read as the code).
        one = await stack.stub.JoinCode(join("f1", code.lower()))
        assert [(s.seat, s.player) for s in one.seats] == [(0, "own"), (1, "f1")]
        two = await stack.stub.JoinCode(join("f2", code[:4] + "-" + code[4:]))
        assert [s.seat for s in two.seats] == [0, 1, 2]
        assert await refused(stack.stub.JoinCode(join("outsider", code))) == (FP, "seat_taken")

        for p in ("own", "f1", "f2"):
            started = await stack.stub.Ready(who(p))
        assert started.state == "started" and started.table_instance in stack.table_addrs
        spec = stack.table_at(started.table_instance).rooms[room.room].sitting.spec
        assert (spec.terms.base, spec.terms.fee_rate) == (10, 0.02)  # the server's stake and fee

        # f1 escapes at the table: settled as an escape, removed from the room.
        async with service_channel(started.table_instance) as ch:
            await table_pb2_grpc.TableServiceStub(ch).Leave(
                table_pb2.PlayerRequest(room=room.room, player="f1"))
        after = await private_events.wait_for(
            lambda e: e["room"] == room.room and e["version"] > started.version
            and e["state"] == "waiting")
        assert [s["player"] for s in after["seats"]] == ["own", "f2"]
        assert after["private"] is True and after["owner"] == "own"
        assert await stack.bank.balance("f1") == 980  # 1 point x base 10 to each other seat

        # Its changes went to the private subject, none to the server's.
        assert all(e["room"] != room.room for e in stack.events.items)

        # The last player to stand up closes the room: its code is gone.
        await stack.stub.Stand(who("f2"))
        await stack.stub.Stand(who("own"))
        assert await refused(stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room=room.room))) == (
            NF, "no_such_room")
        assert await refused(stack.stub.JoinCode(join("outsider", code))) == (NF, "no_such_code")
    finally:
        await nc.close()


async def test_watching_by_code_only(stack: Stack) -> None:
    opened = await open_room(stack, "w0")
    await stack.bank.fund("viewer", 10)
    found = await stack.stub.RoomByCode(lobby_pb2.RoomByCodeRequest(
        player="viewer", code=opened.code))
    assert found.room == opened.room.room
    assert await refused(stack.stub.RoomByCode(lobby_pb2.RoomByCodeRequest(
        player="viewer", code="22222222"))) == (NF, "no_such_code")


async def test_the_owner_removes_a_seat_not_playing(stack: Stack) -> None:
    opened = await open_room(stack, "k0")
    for p in ("k1", "k2"):
        await stack.bank.fund(p, 1000)
        await stack.stub.JoinCode(join(p, opened.code))
    assert await refused(stack.stub.RemoveSeat(lobby_pb2.RemoveSeatRequest(
        player="k1", seat=2))) == (grpc.StatusCode.PERMISSION_DENIED, "not_owner")
    assert await refused(stack.stub.RemoveSeat(lobby_pb2.RemoveSeatRequest(
        player="k0", seat=0))) == (grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument")
    room = await stack.stub.RemoveSeat(lobby_pb2.RemoveSeatRequest(player="k0", seat=2))
    assert [s.player for s in room.seats] == ["k0", "k1"]
    assert await refused(stack.stub.WhereIs(who("k2"))) == (NF, "not_seated")
    assert await refused(stack.stub.RemoveSeat(lobby_pb2.RemoveSeatRequest(
        player="k0", seat=2))) == (FP, "no_such_seat")
    # During a game no seat is removed.
    await stack.stub.JoinCode(join("k2", opened.code))
    for p in ("k0", "k1", "k2"):
        await stack.stub.Ready(who(p))
    assert await refused(stack.stub.RemoveSeat(lobby_pb2.RemoveSeatRequest(
        player="k0", seat=1))) == (FP, "room_started")
    # A public room has no owner.
    await stack.bank.fund("pub", 1000)
    await stack.stub.Sit(lobby_pb2.SitRequest(player="pub", name="P", room="dz-01", seat=0))
    assert await refused(stack.stub.RemoveSeat(lobby_pb2.RemoveSeatRequest(
        player="pub", seat=1))) == (grpc.StatusCode.PERMISSION_DENIED, "not_owner")


async def test_open_rooms_per_player(stack: Stack) -> None:
    opened = await open_room(stack, "lim")
    # Seated in it: already_seated; stood up the room closes, and another opens.
    assert await refused(stack.stub.OpenRoom(lobby_pb2.OpenRoomRequest(
        player="lim", server="dz"))) == (FP, "already_seated")
    await stack.bank.fund("lf", 1000)
    await stack.stub.JoinCode(join("lf", opened.code))
    await stack.stub.Stand(who("lim"))  # the room stays: lf sits in it
    assert await refused(stack.stub.OpenRoom(lobby_pb2.OpenRoomRequest(
        player="lim", server="dz"))) == (FP, "too_many_rooms")
    await stack.stub.Stand(who("lf"))
    again = await stack.stub.OpenRoom(lobby_pb2.OpenRoomRequest(player="lim", server="dz"))
    assert again.code != opened.code
    await stack.bank.fund("poor", 50)
    assert await refused(stack.stub.OpenRoom(lobby_pb2.OpenRoomRequest(
        player="poor", server="dz"))) == (FP, "not_enough_coins")
    assert await refused(stack.stub.OpenRoom(lobby_pb2.OpenRoomRequest(
        player="poor", server="nope"))) == (NF, "no_such_server")


async def test_code_tries_are_limited_and_counted(stack: Stack) -> None:
    opened = await open_room(stack, "tr0")
    await stack.bank.fund("guess", 1000)
    wrong = sample("paiju_lobby_code_tries_total", result="wrong")
    limited = sample("paiju_lobby_code_tries_total", result="limited")
    for i in range(10):  # the default: 10 tries a minute
        bad = f"{i + 2}" * 8
        assert await refused(stack.stub.JoinCode(join("guess", bad))) == (NF, "no_such_code")
    assert sample("paiju_lobby_code_tries_total", result="wrong") == wrong + 10
    # The eleventh within the minute is refused even with the right code.
    assert await refused(stack.stub.JoinCode(join("guess", opened.code))) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_attempts")
    assert await refused(stack.stub.RoomByCode(lobby_pb2.RoomByCodeRequest(
        player="guess", code=opened.code))) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_attempts")
    assert sample("paiju_lobby_code_tries_total", result="limited") == limited + 2
    assert await refused(stack.stub.WhereIs(who("guess"))) == (NF, "not_seated")
    # Another player's tries are its own; a minute later the guesser may try again.
    await stack.bank.fund("friend", 1000)
    assert len((await stack.stub.JoinCode(join("friend", opened.code))).seats) == 2
    stack.clock.advance(60)
    assert len((await stack.stub.JoinCode(join("guess", opened.code))).seats) == 3
