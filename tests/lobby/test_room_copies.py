"""A lobby starts a change from the room as it last saw it (``Lobby.rooms``);
with two lobbies on one database that copy goes stale, and every answer must
still be the one the stored room gives (docs/lobby.md "Shared state"). Real
database (SQLite file), real ledger and tables of the ``stack`` fixture."""

from __future__ import annotations

import pytest

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import db
from services.lobby.adapters.placement import Tables
from services.lobby.adapters.store import Store
from services.lobby.application.lobby import Lobby
from services.lobby.domain import errors as E
from tests.fixtures import as_identity
from tests.lobby.conftest import Stack


def seats(room: lobby_pb2.Room) -> list[tuple[int, str, bool]]:
    return [(s.seat, s.player, s.ready) for s in room.seats]


async def test_a_stale_copy_never_decides_an_answer(stack: Stack) -> None:
    for p in ("p1", "p2", "p3", "p4"):
        await stack.bank.fund(p, 1000)
    engine = db.make_engine(stack.database_url)
    tables = Tables(stack.table_addrs, identity=as_identity("lobby"))
    a = stack.lobby
    b = Lobby(a.config, Store(engine, a.config), a.ledger, tables, None, stack.clock)
    try:
        # a sees dz-01 with p1 at seat 0 (and remembers it).
        sat = await a.sit("p1", "P1", "dz-01", 0)
        assert a.rooms["dz-01"] == sat
        # b seats p2 at seat 1: a's copy does not know.
        await b.sit("p2", "P2", "dz-01", 1)
        assert 1 not in a.rooms["dz-01"].seats
        # Seat 1 is taken although a's copy says free: refused.
        with pytest.raises(E.LobbyError) as e:
            await a.sit("p3", "P3", "dz-01", 1)
        assert e.value.code == E.SEAT_TAKEN
        # Seat 2 through a: written over b's change, nobody lost.
        room = await a.sit("p3", "P3", "dz-01", 2)
        assert [(s.seat, s.player) for _, s in sorted(room.seats.items())] == [
            (0, "p1"), (1, "p2"), (2, "p3")]
        # b stands p2 up: a's copy still shows seat 1 taken, but p4 may sit there.
        await b.stand("p2")
        assert a.rooms["dz-01"].seats[1].player == "p2"
        room = await a.sit("p4", "P4", "dz-01", 1)
        assert room.seats[1].player == "p4"
        # p1 pressed start through b; a's copy has p1 unready: a press through
        # a is no change, answered with the stored room (p1 ready).
        await b.ready("p1")
        again = await a.ready("p1")
        assert [(n, s.ready) for n, s in sorted(again.seats.items())] == [
            (0, True), (1, False), (2, False)]
        assert again.version == (await b.get_room("dz-01")).version
        stored = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-01"))
        assert seats(stored) == [(0, "p1", True), (1, "p4", False), (2, "p3", False)]
    finally:
        await tables.close()
        await engine.dispose()
