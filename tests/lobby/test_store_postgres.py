"""The lobby's store on PostgreSQL as the lobby process makes it (warm pool,
no ping per checkout, reads in autocommit): a seat written is read back, and
a read on connections the server dropped is answered on a fresh one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from paiju.runtime import db
from services.lobby.adapters.store import Conflict, Store
from services.lobby.domain import coin_servers, room_rules
from services.lobby.main import LOBBY_POOL, MIGRATIONS
from tests.deploy.databases import _admin, fresh_postgres_database

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_lobby_url(postgres_url: str) -> Iterator[str]:
    with fresh_postgres_database(postgres_url, "paiju_lobby_test") as url:
        db.migrate(url, MIGRATIONS)
        yield url


async def test_reads_survive_dropped_connections(pg_lobby_url: str, rooms_file: Path) -> None:
    config = coin_servers.load(str(rooms_file))
    engine = db.make_engine(pg_lobby_url, pool_size=LOBBY_POOL, max_overflow=0,
                            pre_ping=False)
    store = Store(engine, config)
    try:
        assert await store.ensure_rooms(1000) == 5  # dz-01..04, hz-01
        room = await store.load("dz-01")
        seated = room_rules.sit(room, 0, "p1", "Ann", 500, now_ms=2000, ready_seconds=20,
                            connected=True)
        saved = await store.save(room, seated, 2000)
        assert saved.version == room.version + 1
        assert await store.find_player("p1") == "dz-01"
        # the server ends every connection of this database (as a restart does)
        await _admin(pg_lobby_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        await asyncio.sleep(0.2)
        assert await store.find_player("p1") == "dz-01"
        again = await store.load("dz-01")
        assert [(s.seat, s.player, s.name, s.coins) for s in again.seats.values()] == [
            (0, "p1", "Ann", 500)]
        assert await store.counts() == ({"idle": 4, "waiting": 1, "started": 0}, 1)
    finally:
        await engine.dispose()


async def test_a_private_room_on_postgresql(pg_lobby_url: str, rooms_file: Path) -> None:
    """Opened with its code (a second room with the same code is a conflict),
    found by the code, counted for its owner and in the gauges, not deleted
    while someone sits, deleted once empty."""
    config = coin_servers.load(str(rooms_file))
    engine = db.make_engine(pg_lobby_url, pool_size=LOBBY_POOL, max_overflow=0,
                            pre_ping=False)
    store = Store(engine, config)
    try:
        await store.ensure_rooms(1000)
        empty = room_rules.Room("dz-x0123456789ab", "dz", "doudizhu", 3, private=True,
                                owner="own")
        room = room_rules.sit(empty, 0, "own", "Own", 500, now_ms=2000, ready_seconds=20)
        opened = await store.open_private(room, "ABCDEFGH", 2000)
        assert opened.version == 1
        other = room_rules.sit(room_rules.Room("dz-xffffffffffff", "dz", "doudizhu", 3,
                                               private=True, owner="two"),
                               0, "two", "Two", 500, now_ms=2000, ready_seconds=20)
        with pytest.raises(Conflict):
            await store.open_private(other, "ABCDEFGH", 2000)
        assert await store.room_of_code("ABCDEFGH") == "dz-x0123456789ab"
        assert await store.owned_rooms("own") == 1 and await store.owned_rooms("two") == 0
        loaded = await store.load("dz-x0123456789ab")
        assert (loaded.private, loaded.owner, [s.player for s in loaded.seats.values()]) == (
            True, "own", ["own"])
        assert await store.counts() == ({"idle": 5, "waiting": 1, "started": 0}, 1)
        assert await store.close_private(loaded) is False  # someone sits
        stood = room_rules.stand(loaded, "own", now_ms=3000, ready_seconds=20)
        saved = await store.save(loaded, stood, 3000)
        assert await store.close_private(saved) is True
        assert await store.room_of_code("ABCDEFGH") is None
        assert await store.owned_rooms("own") == 0
    finally:
        await engine.dispose()
