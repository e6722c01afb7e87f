"""The table service's replay shares on PostgreSQL, its migrations applied
as the table process applies them: a share made is listed, the limit of
active shares holds, only the owner revokes, a revoked share is read back
revoked and no longer listed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from paiju.runtime import db
from services.table.adapters.shares import ShareError, ShareStore
from services.table.adapters.store import MIGRATIONS, RecordStore
from tests.deploy.databases import fresh_postgres_database

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_table_url(postgres_url: str) -> Iterator[str]:
    with fresh_postgres_database(postgres_url, "paiju_table_shares_test") as url:
        db.migrate(url, MIGRATIONS)
        yield url


async def test_shares_on_postgresql(pg_table_url: str) -> None:
    store = RecordStore(db.make_engine(pg_table_url))
    shares = ShareStore(store.sessions)
    try:
        a = await shares.create("g1", "p1", max_active=2)
        b = await shares.create("g2", "p1", max_active=2)
        assert a.share != b.share and a.revoked_ms == 0 and a.created_ms > 0
        with pytest.raises(ShareError) as err:
            await shares.create("g3", "p1", max_active=2)
        assert (err.value.code, err.value.status) == ("too_many_shares", "RESOURCE_EXHAUSTED")
        assert {s.share for s in await shares.active("p1")} == {a.share, b.share}
        assert await shares.active("p2") == []

        with pytest.raises(ShareError) as err:
            await shares.revoke(a.share, "p2")
        assert err.value.code == "not_your_share"
        with pytest.raises(ShareError) as err:
            await shares.revoke("nosuchshare", "p1")
        assert err.value.code == "no_share"

        revoked = await shares.revoke(a.share, "p1")
        assert revoked.revoked_ms > 0
        read = await shares.get(a.share)
        assert (read.game_id, read.player, read.revoked_ms) == ("g1", "p1", revoked.revoked_ms)
        assert [s.share for s in await shares.active("p1")] == [b.share]
        again = await shares.revoke(a.share, "p1")
        assert again.revoked_ms == revoked.revoked_ms
        c = await shares.create("g3", "p1", max_active=2)
        assert {s.share for s in await shares.active("p1")} == {b.share, c.share}
    finally:
        await store.close()
