"""A record that cannot be stored: the table retries it through
paiju.runtime.retries for PAIJU_TABLE_RECORD_RETRY_SECONDS, then gives it up: logged,
counted, and the game's end goes on, so its room is released (before, the
table retried for ever and the room stayed started). Real parts: the ledger,
two table instances, the lobby and NATS on loopback; the table's SQLite
database loses its records table under it."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from paiju.lobby.v1 import lobby_pb2
from paiju.table.v1 import table_pb2, table_pb2_grpc
from tests.fixtures import service_channel
from tests.lobby.conftest import ROOMS_YAML, lobby_stack


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_a_record_that_cannot_be_stored_is_given_up_and_the_room_released(
        nats_server: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rooms_file = tmp_path / "rooms.yaml"
    rooms_file.write_text(ROOMS_YAML, encoding="utf-8")
    lost = sample("paiju_table_records_lost_total")
    retried = sample("paiju_retries_total", operation="record_store")
    async with lobby_stack(nats_server, tmp_path, rooms_file,
                           table_config={"table_record_retry_seconds": 1.0}) as stack:
        ps = ["rg1", "rg2", "rg3"]
        for i, p in enumerate(ps):
            await stack.bank.fund(p, 1000)
            await stack.stub.Sit(lobby_pb2.SitRequest(player=p, name=p, room="dz-01", seat=i))
        for p in ps:
            started = await stack.stub.Ready(lobby_pb2.PlayerRequest(player=p))
        assert started.state == "started"
        # the records table of the instance running the game is gone: every store fails
        db_file = tmp_path / f"table{stack.table_addrs.index(started.table_instance)}.db"
        with sqlite3.connect(db_file) as db:
            db.execute("DROP TABLE table_game_records")
        caplog.set_level(logging.WARNING, logger="paiju")
        async with service_channel(started.table_instance) as ch:  # an escape ends the game
            await table_pb2_grpc.TableServiceStub(ch).Leave(
                table_pb2.PlayerRequest(room="dz-01", player=ps[2]))

        deadline = time.monotonic() + 30  # the 1 s of retries, with a wide margin
        while (await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-01"))).state \
                == "started":
            assert time.monotonic() < deadline, "the room stayed started"
            await asyncio.sleep(0.05)
        room = await stack.stub.GetRoom(lobby_pb2.GetRoomRequest(room="dz-01"))
        assert room.last_result.game_id == started.game_id  # GameOver came, with the result
    assert sample("paiju_table_records_lost_total") == lost + 1
    assert sample("paiju_retries_total", operation="record_store") > retried
    given_up = [r for r in caplog.records if "is given up" in r.getMessage()]
    assert len(given_up) == 1 and given_up[0].levelno == logging.ERROR
    assert started.game_id in given_up[0].getMessage()
