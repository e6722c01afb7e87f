"""Dropped database connections: the ledger keeps no pre-ping on its pools, so
every read and write must survive a connection that died while it sat idle
(retried, or replaced by its pool). PostgreSQL itself ends the ledger's
sessions (``pg_terminate_backend``)."""

from __future__ import annotations

import asyncpg  # type: ignore[import-untyped]
from prometheus_client import REGISTRY
from sqlalchemy.engine import make_url

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from tests.ledger.conftest import run_ledger
from tests.ledger.test_service import settle_request, table

TERMS = common_pb2.SettlementTerms(base=1, unit=1, fee_rate=0.0)


def _retries(operation: str) -> float:
    return REGISTRY.get_sample_value("paiju_ledger_retries_total",
                                     {"operation": operation}) or 0.0


async def _end_ledger_sessions(url: str) -> int:
    """Terminate every other session on the ledger's database; how many."""
    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host,
                                 port=u.port or 5432, database=u.database)
    try:
        return int(await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"))
    finally:
        await conn.close()


async def test_settlement_and_reads_survive_dropped_connections(pg_url: str,
                                                                nats_server: str) -> None:
    async with run_ledger(pg_url, nats_server) as ledger:
        await ledger.account("A", 100)
        await ledger.account("B", 100)
        settles, reads = _retries("settle"), _retries("balance")
        assert await _end_ledger_sessions(pg_url) >= 1
        reply = await ledger.stub.Settle(settle_request(
            "g-dropped", TERMS, [("A", 10), ("B", -10)], game="doudizhu"))
        assert table(reply) == [("A", 10, 10, 0), ("B", -10, -10, 0)]
        assert not reply.repeated
        assert await _end_ledger_sessions(pg_url) >= 1
        assert (await ledger.coins("A"), await ledger.coins("B")) == (110, 90)
        # Whether a dead connection was retried (paiju_ledger_retries_total) or
        # replaced by its pool before use, no call failed.
        assert _retries("settle") + _retries("balance") >= settles + reads
        # Applied once: the same request again is a repeat and moves nothing.
        again = await ledger.stub.Settle(settle_request(
            "g-dropped", TERMS, [("A", 10), ("B", -10)], game="doudizhu"))
        assert again.repeated and table(again) == table(reply)
        history = await ledger.stub.GetHistory(ledger_pb2.GetHistoryRequest(player="B"))
        assert [(e.delta, e.balance_after) for e in history.entries] == [(-10, 90), (100, 100)]
        audit = await ledger.audit()
        assert audit.ok and audit.transactions == 2 + 1
