"""Renewing many leases at once (services/table/adapters/lease.py ``renew_all``): every
held lease is renewed (its revision moves on), a lease another instance took
is reported lost and dropped, with several updates in flight at a time. On a
real NATS server (JetStream key-value)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator

import nats

from services.table.adapters.lease import RENEW_CONCURRENCY, Leases


@contextlib.asynccontextmanager
async def two_instances(nats_server: str) -> AsyncIterator[tuple[Leases, Leases]]:
    """The leases of two table instances of one new pool, each on its own
    connection, their buckets made."""
    nc = await nats.connect(nats_server)
    other_nc = await nats.connect(nats_server)
    pool = f"t{uuid.uuid4().hex[:10]}"
    mine = Leases(nc, "table-a", "127.0.0.1:1", pool, seconds=30)
    other = Leases(other_nc, "table-b", "127.0.0.1:2", pool, seconds=30)
    try:
        await mine.ensure()
        await other.ensure()
        yield mine, other
    finally:
        await nc.close()
        await other_nc.close()


async def test_renew_all_renews_every_lease_and_reports_the_lost(nats_server: str) -> None:
    async with two_instances(nats_server) as (mine, other):
        games = [f"g{i:03d}" for i in range(300)]
        for g in games:
            assert await mine.take(g)
        before = dict(mine.held)
        # Another instance holds g007 now (as after an expiry it took it).
        await mine.leases.delete("g007")
        assert await other.take("g007")
        in_flight = peak = 0
        update = mine.publisher.kv_update

        async def counted(*args: object, **kwargs: object) -> int:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            try:
                return await update(*args, **kwargs)  # type: ignore[arg-type]
            finally:
                in_flight -= 1

        mine.publisher.kv_update = counted  # type: ignore[method-assign]
        lost = await mine.renew_all()
        assert lost == ["g007"]
        assert "g007" not in mine.held
        assert set(mine.held) == set(games) - {"g007"}
        assert all(mine.held[g] > before[g] for g in mine.held)
        # the updates overlapped, at most RENEW_CONCURRENCY at a time
        assert 1 < peak <= RENEW_CONCURRENCY
        # and each lease still names this instance
        entry = await mine.leases.get("g123")
        assert entry.value == mine.value


async def test_taking_a_lease_again_is_safe_and_another_instance_is_refused(
        nats_server: str) -> None:
    """A take retried after its answer was lost finds the lease its own (True,
    the revision kept); another instance's take of it is refused (False)."""
    async with two_instances(nats_server) as (mine, other):
        assert await mine.take("g1")
        revision = mine.held["g1"]
        mine.held.clear()  # as if the first answer never came
        assert await mine.take("g1")
        assert mine.held["g1"] == revision
        assert not await other.take("g1")
        assert "g1" not in other.held
