"""The lobby's Alembic migrations make exactly the tables of services/lobby/adapters/store.py
(including 0002: seats' presence, last results), and a database of 0001 with
seated players upgrades with every seat connected."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config as AlembicConfig
from alembic.migration import MigrationContext
from sqlalchemy import Connection, text

from paiju.runtime import db
from services.lobby.adapters.store import metadata
from services.lobby.main import MIGRATIONS


async def test_migrations_match_the_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    await asyncio.to_thread(db.migrate, url, MIGRATIONS)
    await asyncio.to_thread(db.migrate, url, MIGRATIONS)  # again: nothing to do
    engine = db.make_engine(url)

    def diff(conn: Connection) -> list[Any]:
        return list(compare_metadata(MigrationContext.configure(
            conn, opts={"version_table": "alembic_version_lobby"}), metadata))

    try:
        async with engine.connect() as conn:
            assert await conn.run_sync(diff) == []
            version = (await conn.execute(text(
                "SELECT version_num FROM alembic_version_lobby"))).scalar_one()
            assert version == "lobby_0004"
    finally:
        await engine.dispose()


async def test_a_database_of_0001_upgrades_with_its_seats_connected(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", db.async_url(url))
    await asyncio.to_thread(command.upgrade, cfg, "lobby_0001")
    engine = db.make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(
                "INSERT INTO lobby_rooms (room, server, state, game_id, table_instance, "
                "carry_json, version, updated_ms) VALUES ('dz-01', 'dz', 'waiting', '', '', "
                "'{}', 3, 0)"))
            await conn.execute(text(
                "INSERT INTO lobby_seats (room, seat, player, name, coins, ready) "
                "VALUES ('dz-01', 1, 'p1', 'P1', 500, 1)"))
        await asyncio.to_thread(db.migrate, url, MIGRATIONS)
        async with engine.connect() as conn:
            seat = (await conn.execute(text(
                "SELECT player, ready, connected, away_ms FROM lobby_seats"))).one()
            assert tuple(seat) == ("p1", 1, 1, None)
            room = (await conn.execute(text(
                "SELECT version, last_result_json FROM lobby_rooms"))).one()
            assert tuple(room) == (3, "")
    finally:
        await engine.dispose()
