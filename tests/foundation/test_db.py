"""paiju.runtime.db: driver choice, SQLite engines, Alembic at start, the health watch."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import cast

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from paiju.runtime.db import async_url, make_engine, migrate, watch
from paiju.runtime.health import Health
from tests.fixtures import free_port, until


@pytest.mark.parametrize("given, expected", [
    ("sqlite:///.paiju/ledger.db", "sqlite+aiosqlite:///.paiju/ledger.db"),
    ("sqlite:////var/lib/x.db", "sqlite+aiosqlite:////var/lib/x.db"),
    ("sqlite+aiosqlite:///a.db", "sqlite+aiosqlite:///a.db"),
    ("postgresql://postgres@db:5432/paiju", "postgresql+asyncpg://postgres@db:5432/paiju"),
    ("postgres://u:p%40ss@db/paiju", "postgresql+asyncpg://u:p%40ss@db/paiju"),
    ("postgresql+psycopg2://u@db/paiju", "postgresql+asyncpg://u@db/paiju"),
])
def test_async_url_picks_the_async_driver(given: str, expected: str) -> None:
    assert async_url(given) == expected


async def test_sqlite_engine_makes_its_folder_and_uses_wal(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'deep' / 'er' / 'x.db'}")
    try:
        async with engine.connect() as conn:
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar_one()
            keys = (await conn.execute(text("PRAGMA foreign_keys"))).scalar_one()
    finally:
        await engine.dispose()
    assert (tmp_path / "deep" / "er" / "x.db").exists()
    assert (mode, keys) == ("wal", 1)


def write_migrations(folder: Path, table: str, version_table: str) -> None:
    """A one-revision Alembic folder whose env.py uses paiju.runtime.db.run_alembic_env."""
    (folder / "versions").mkdir(parents=True)
    (folder / "env.py").write_text(
        "from sqlalchemy import MetaData\n"
        "from paiju.runtime.db import run_alembic_env\n"
        f"run_alembic_env(MetaData(), {version_table!r})\n")
    (folder / "script.py.mako").write_text("")
    (folder / "versions" / "0001_first.py").write_text(
        "import sqlalchemy as sa\nfrom alembic import op\n"
        "revision = '0001'\ndown_revision = None\nbranch_labels = None\ndepends_on = None\n"
        "def upgrade() -> None:\n"
        f"    op.create_table({table!r}, sa.Column('id', sa.Integer, primary_key=True))\n"
        "def downgrade() -> None:\n"
        f"    op.drop_table({table!r})\n")


async def check_migrate(url: str, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:8]
    table, version_table = f"foundation_probe_{suffix}", f"alembic_version_probe_{suffix}"
    write_migrations(tmp_path / "migrations", table, version_table)
    engine = make_engine(url)
    try:
        await asyncio.to_thread(migrate, url, tmp_path / "migrations")
        await asyncio.to_thread(migrate, url, tmp_path / "migrations")  # twice: no-op
        async with engine.connect() as conn:
            rows = (await conn.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one()
            version = (await conn.execute(
                text(f"SELECT version_num FROM {version_table}"))).scalar_one()
        assert (rows, version) == (0, "0001")
    finally:
        async with engine.begin() as conn:
            await conn.execute(text(f"DROP TABLE IF EXISTS {table}"))
            await conn.execute(text(f"DROP TABLE IF EXISTS {version_table}"))
        await engine.dispose()


async def test_migrate_sqlite(sqlite_url: str, tmp_path: Path) -> None:
    await check_migrate(sqlite_url, tmp_path)


@pytest.mark.postgres
async def test_migrate_postgres(postgres_url: str, tmp_path: Path) -> None:
    await check_migrate(postgres_url, tmp_path)


async def test_watch_reports_a_reachable_database_up(sqlite_url: str) -> None:
    health, engine = Health([]), make_engine(sqlite_url)
    task = asyncio.create_task(watch(engine, health, interval=0.1))
    try:
        await until(lambda: health.deps.get("database") is True, "database up", timeout=20)
        assert health.ready
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await engine.dispose()


async def test_watch_reports_an_unreachable_database_down() -> None:
    health = Health([])
    engine = make_engine(f"postgresql://postgres@127.0.0.1:{free_port()}/nothing")
    task = asyncio.create_task(watch(engine, health, interval=0.1))
    try:
        await until(lambda: health.deps.get("database") is False, "database down",
                    timeout=20)
        assert not health.ready
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await engine.dispose()


class _HeldCheck:
    """Stands in for an engine whose ``SELECT 1`` finishes when ``done`` is set
    (to land a cancel exactly as the check completes)."""

    #: not SQLite: the check is the ``SELECT 1`` alone
    url = make_url("postgresql://held@127.0.0.1/check")

    def __init__(self) -> None:
        self.entered, self.done = asyncio.Event(), asyncio.Event()

    def connect(self) -> _HeldCheck:
        return self

    async def __aenter__(self) -> _HeldCheck:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def execute(self, _query: object) -> None:
        self.entered.set()
        await self.done.wait()


async def test_watch_stops_when_cancelled_as_its_check_completes() -> None:
    """The cancel of a service's stop lands while the check's result is being
    delivered: watch() must still end (Python 3.11's wait_for swallowed it,
    gh-86296, and the service's stop waited for ever)."""
    held = _HeldCheck()
    task = asyncio.create_task(watch(cast(AsyncEngine, held), Health([]), interval=5))
    await held.entered.wait()
    held.done.set()
    await asyncio.sleep(0)  # the check completes; watch() has not resumed yet
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=5)
    assert done == {task} and task.cancelled()
