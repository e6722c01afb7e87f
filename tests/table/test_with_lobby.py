"""The table with a real lobby (tests/lobby/conftest.py's stack: ledger, two
table instances, lobby, NATS on loopback; injected clocks): a player acting on
``game_finished`` finds the room free (``stand`` right after
``game_finished`` was refused with ``room_started``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import nats

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import natsconn, subjects
from paiju.table.v1 import table_pb2, table_pb2_grpc
from tests.fixtures import service_channel
from tests.lobby.conftest import ROOMS_YAML, lobby_stack


async def test_stand_right_after_game_finished_is_accepted(
        nats_server: str, tmp_path: Path) -> None:
    rooms_file = tmp_path / "rooms.yaml"
    rooms_file.write_text(ROOMS_YAML, encoding="utf-8")
    async with lobby_stack(nats_server, tmp_path, rooms_file) as stack:
        ps = ["sf1", "sf2", "sf3"]
        for i, p in enumerate(ps):
            await stack.bank.fund(p, 1000)
            await stack.stub.Sit(lobby_pb2.SitRequest(player=p, name=p, room="dz-01", seat=i))
        for p in ps:
            started = await stack.stub.Ready(lobby_pb2.PlayerRequest(player=p))
        assert started.state == "started"
        stood: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        async def on_event(msg: Any) -> None:
            # As a client does: stand the moment game_finished arrives.
            if natsconn.decode(msg.data)["type"] == "game_finished" and not stood.done():
                try:
                    stood.set_result(await stack.stub.Stand(
                        lobby_pb2.PlayerRequest(player=ps[0])))
                except grpc.aio.AioRpcError as e:
                    stood.set_result(e)

        nc = await nats.connect(nats_server)
        try:
            await nc.subscribe(subjects.table_events("dz-01"), cb=on_event)
            await nc.flush()
            async with service_channel(started.table_instance) as ch:
                await table_pb2_grpc.TableServiceStub(ch).Leave(
                    table_pb2.PlayerRequest(room="dz-01", player=ps[2]))
            room = await asyncio.wait_for(stood, 15)
        finally:
            await nc.close()
        assert isinstance(room, lobby_pb2.Room), room
        # sf3 escaped (removed by the lobby), sf1 stood: sf2 is left.
        assert room.state == "waiting"
        assert [s.player for s in room.seats] == [ps[1]]
        assert room.last_result.game_id == started.game_id
        assert room.last_result.record_id == started.game_id
        assert {r.player for r in room.last_result.settlement} == set(ps)
