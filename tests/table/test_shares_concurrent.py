"""The limit of a player's active replay shares holds under concurrent
``CreateShare`` calls: many creations of one player at once, each from its
own engine (as the table instances sharing the record database make them),
leave exactly the limit active and refuse the rest ``too_many_shares``; on
SQLite (one file, two engines) and on PostgreSQL (its migrations applied as
the table process applies them)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from paiju.runtime import db
from services.table.adapters.shares import ShareError, ShareStore
from services.table.adapters.store import MIGRATIONS, RecordStore
from tests.deploy.databases import fresh_postgres_database

#: The limit the creations race for, the player's shares made before the
#: race (one below the limit: the case of two calls at 49 of 50), and the
#: creations started at once.
LIMIT = 5
BEFORE = LIMIT - 1
RACERS = 8


async def race(url: str) -> tuple[int, list[str], int]:
    """``BEFORE`` shares of one player, then ``RACERS`` creations at once,
    alternating between two engines: (creations that succeeded, the refusals'
    codes, the player's active shares after)."""
    stores = [RecordStore(db.make_engine(url)) for _ in range(2)]
    shares = [ShareStore(s.sessions) for s in stores]
    try:
        for k in range(BEFORE):
            await shares[0].create(f"g{k}", "p1", LIMIT)
        results = await asyncio.gather(
            *(shares[k % 2].create(f"race{k}", "p1", LIMIT) for k in range(RACERS)),
            return_exceptions=True)
        codes = [r.code for r in results if isinstance(r, ShareError)]
        others = [r for r in results if isinstance(r, BaseException)
                  and not isinstance(r, ShareError)]
        assert others == []
        made = RACERS - len(codes)
        active = len(await shares[0].active("p1"))
        return made, codes, active
    finally:
        for s in stores:
            await s.close()


def check(made: int, codes: list[str], active: int) -> None:
    assert made == LIMIT - BEFORE == 1
    assert codes == ["too_many_shares"] * (RACERS - 1)
    assert active == LIMIT


async def test_concurrent_creations_keep_the_limit_on_sqlite(sqlite_url: str) -> None:
    await asyncio.to_thread(db.migrate, sqlite_url, MIGRATIONS)
    check(*await race(sqlite_url))


@pytest.fixture
def pg_table_url(postgres_url: str) -> Iterator[str]:
    with fresh_postgres_database(postgres_url, "paiju_table_shares_race") as url:
        db.migrate(url, MIGRATIONS)
        yield url


@pytest.mark.postgres
async def test_concurrent_creations_keep_the_limit_on_postgresql(pg_table_url: str) -> None:
    check(*await race(pg_table_url))
