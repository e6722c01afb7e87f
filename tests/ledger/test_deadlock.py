"""A real PostgreSQL deadlock against a settlement: the ledger's transaction is
the victim, is retried (paiju_ledger_retries_total) and applies exactly once."""

from __future__ import annotations

import asyncio
import time

import asyncpg  # type: ignore[import-untyped]
from prometheus_client import REGISTRY
from sqlalchemy.engine import make_url

from paiju.common.v1 import common_pb2
from tests.ledger.conftest import run_ledger
from tests.ledger.test_service import settle_request, table

TERMS = common_pb2.SettlementTerms(base=1, unit=1, fee_rate=0.0)


async def _connect(url: str) -> asyncpg.Connection:
    u = make_url(url)
    return await asyncpg.connect(user=u.username, password=u.password, host=u.host,
                                 port=u.port or 5432, database=u.database)


def _retries() -> float:
    return REGISTRY.get_sample_value("paiju_ledger_retries_total", {"operation": "settle"}) or 0.0


async def test_deadlock_victim_is_retried(pg_url: str, nats_server: str) -> None:
    name = make_url(pg_url).database
    admin = await _connect(pg_url)
    # The ledger's sessions look for deadlocks after 500 ms, the intruder's after
    # a minute: the ledger's transaction is the one PostgreSQL aborts.
    await admin.execute(f"ALTER DATABASE \"{name}\" SET deadlock_timeout = '500ms'")
    await admin.close()
    async with run_ledger(pg_url, nats_server) as ledger:
        await ledger.account("A", 100)
        await ledger.account("B", 100)
        before = _retries()
        intruder = await _connect(pg_url)
        await intruder.execute("SET deadlock_timeout = '60s'")
        tx = intruder.transaction()
        await tx.start()
        await intruder.execute("SELECT 1 FROM ledger_accounts WHERE account = 'player:B' "
                               "FOR UPDATE")
        # The ledger locks A, then waits for B (held by the intruder).
        settle = asyncio.ensure_future(ledger.stub.Settle(settle_request(
            "g-deadlock", TERMS, [("A", 10), ("B", -10)], game="doudizhu")))
        deadline = time.monotonic() + 20
        while not await admin_waiting(pg_url):
            assert time.monotonic() < deadline, "the settlement never waited for B"
            await asyncio.sleep(0.02)
        # The intruder now wants A: a cycle. PostgreSQL aborts the ledger's side.
        lock_a = asyncio.create_task(intruder.execute(
            "SELECT 1 FROM ledger_accounts WHERE account = 'player:A' FOR UPDATE"))
        await lock_a  # granted once the ledger's attempt is rolled back
        await intruder.execute("UPDATE ledger_accounts SET name = 'touched' "
                               "WHERE account = 'player:A'")
        await tx.commit()
        await intruder.close()
        reply = await settle
        assert table(reply) == [("A", 10, 10, 0), ("B", -10, -10, 0)]
        assert not reply.repeated
        assert _retries() >= before + 1
        assert (await ledger.coins("A"), await ledger.coins("B")) == (110, 90)
        audit = await ledger.audit()
        assert audit.ok and audit.transactions == 2 + 1


async def admin_waiting(url: str) -> bool:
    """True while some session of this database waits for a row lock."""
    conn = await _connect(url)
    try:
        waiting = await conn.fetchval(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE NOT l.granted AND a.datname = current_database()")
        return bool(waiting)
    finally:
        await conn.close()
