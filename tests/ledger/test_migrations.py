"""The Alembic migrations make exactly the tables of services/ledger/models.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, text

from paiju import db
from services.ledger.main import MIGRATIONS
from services.ledger.models import HOUSE_ACCOUNTS, metadata


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
            assert version == "0002_ledger_games"
    finally:
        await engine.dispose()
