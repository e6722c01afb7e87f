"""Table instances register themselves and receive games: the lobby of tests/lobby/conftest.py has
``PAIJU_TABLE_ADDRS`` naming two instances; a third one, named nowhere,
announces itself in the registry bucket (address, pool, games, accepting)
and the lobby places the next game on it (the least loaded); once it drains
it announces ``accepting: false`` and gets none.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import nats

from paiju.lobby.v1 import lobby_pb2
from services.table import main as table_main
from services.table.adapters.instance_registry import BUCKET
from services.table.adapters.lease import pool_name
from services.table.application.runner import Table
from tests.fixtures import running_service, until
from tests.lobby.conftest import Stack


async def start_room(stack: Stack, room: str, tag: str) -> lobby_pb2.Room:
    """Seat three funded players in ``room`` and press start: the started room."""
    players = [f"{tag}{i}" for i in range(3)]
    for i, p in enumerate(players):
        await stack.bank.fund(p, 1000)
        await stack.stub.Sit(lobby_pb2.SitRequest(player=p, name=p, room=room, seat=i))
    reply = lobby_pb2.Room()
    for p in players:
        reply = await stack.stub.Ready(lobby_pb2.PlayerRequest(player=p))
    assert reply.state == "started", reply
    return reply


async def entry(nats_url: str, addr: str) -> dict[str, Any] | None:
    """The registry entry whose address is ``addr`` (read from the bucket)."""
    nc = await nats.connect(nats_url)
    try:
        kv = await nc.jetstream().key_value(BUCKET)
        for key in await kv.keys():
            with contextlib.suppress(Exception):
                value: dict[str, Any] = json.loads((await kv.get(key)).value or b"{}")
                if value.get("address") == addr:
                    return value
    finally:
        await nc.close()
    return None


async def test_a_third_instance_registers_and_receives_new_games(
        stack: Stack, tmp_path: Any) -> None:
    first = await start_room(stack, "dz-01", "ra")
    second = await start_room(stack, "dz-02", "rb")
    assert {first.table_instance, second.table_instance} == set(stack.table_addrs)
    third_tables: list[Table] = []
    database_url = f"sqlite:///{tmp_path / 'table-third.db'}"
    async with running_service("table", table_main.make_setup(
            clock=stack.table_clock, tables=third_tables), {
            "nats_url": stack.nats_url, "ledger_addr": stack.bank.addr,
            "lobby_addr": stack.lobby_addr, "database_url": database_url}) as third:
        assert third not in stack.table_addrs
        await until(lambda: third in stack.lobby.tables.known(), "the third instance known")
        announced = await entry(stack.nats_url, third)
        assert announced is not None
        assert announced["pool"] == pool_name(database_url)
        assert (announced["games"], announced["accepting"]) == (0, True)
        # The two configured instances run a game each: the new one gets the next.
        placed = await start_room(stack, "dz-03", "rc")
        assert placed.table_instance == third
        assert third_tables[0].rooms["dz-03"].game_id == placed.game_id
        # Draining, it says so, and the next game goes to a configured instance.
        third_tables[0].drain()
        await until(lambda: third not in stack.lobby.tables.registered(),
                    "the third instance no longer accepting", timeout=20)
        fourth = await start_room(stack, "dz-04", "rd")
        assert fourth.table_instance in stack.table_addrs
    # Stopped, its entry is gone.
    assert await entry(stack.nats_url, third) is None
