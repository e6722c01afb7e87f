"""The Alembic migrations make exactly the tables of services/ledger/adapters/models.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, text

from paiju.runtime import db
from services.ledger.adapters.models import HOUSE_ACCOUNTS, metadata
from services.ledger.main import MIGRATIONS


async def test_migrations_match_models(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    await asyncio.to_thread(db.migrate, url, MIGRATIONS)
    await asyncio.to_thread(db.migrate, url, MIGRATIONS)  # again: nothing to do
    engine = db.make_engine(url)

    def diff(conn: Connection) -> list[Any]:
        return list(compare_metadata(MigrationContext.configure(
            conn, opts={"version_table": "alembic_version_ledger"}), metadata))

    try:
        async with engine.connect() as conn:
            assert await conn.run_sync(diff) == []
            house = (await conn.execute(text(
                "SELECT account, balance FROM ledger_accounts ORDER BY account"))).all()
            assert [tuple(r) for r in house] == [(a, 0) for a in HOUSE_ACCOUNTS]
            version = (await conn.execute(text(
                "SELECT version_num FROM alembic_version_ledger"))).scalar_one()
            assert version == "0005_ledger_stats"
    finally:
        await engine.dispose()


async def test_0003_fills_seats_and_tally_from_settlements_journalled_before(
        tmp_path: Path) -> None:
    """A journal of 0001 with one settlement: 0003 gives it its seats and its
    tally row per player (server ""), from its stored result."""
    from alembic import command
    from alembic.config import Config as AlembicConfig

    url = f"sqlite:///{tmp_path / 'old.db'}"
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", db.async_url(url))
    await asyncio.to_thread(command.upgrade, cfg, "0001_ledger_initial")
    engine = db.make_engine(url)
    day = 20_000
    try:
        async with engine.begin() as conn:
            await conn.execute(text(
                "INSERT INTO ledger_transactions (id, kind, reference, content_hash, game, "
                "reason, result_json, created_ms) VALUES (7, 'settle', 'old-game', 'h', "
                "'doudizhu', 'normal', :result, :ts)"),
                {"result": '{"rows":[["A",0,2,196,4],["B",1,-1,-100,0],["C",2,-1,-100,0]],'
                           '"fees":4,"remainder":0}', "ts": day * 86_400_000 + 5})
        await asyncio.to_thread(db.migrate, url, MIGRATIONS)
        async with engine.connect() as conn:
            seats = (await conn.execute(text(
                "SELECT account, transaction_id, seat, points, coins, fee FROM ledger_seats "
                "ORDER BY seat"))).all()
            tally = (await conn.execute(text(
                "SELECT server, day, account, coins, games FROM ledger_wins_daily "
                "ORDER BY account"))).all()
    finally:
        await engine.dispose()
    assert [tuple(r) for r in seats] == [("player:A", 7, 0, 2, 196, 4),
                                        ("player:B", 7, 1, -1, -100, 0),
                                        ("player:C", 7, 2, -1, -100, 0)]
    assert [tuple(r) for r in tally] == [("", day, "player:A", 196, 1),
                                        ("", day, "player:B", -100, 1),
                                        ("", day, "player:C", -100, 1)]
