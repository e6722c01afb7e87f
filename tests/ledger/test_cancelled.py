"""Handlers cancelled inside their transaction leave the store writable: a
storm of sign-ins (account opening and the starting grant) and settlements
with deadlines too short for many of them, on a ledger process on SQLite and
PostgreSQL; afterwards the next write is answered at once and the audit
balances. And readiness says NOT_SERVING while SQLite cannot take a write."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from tests.fixtures import (
    free_port,
    service_channel,
    service_env,
    start_service_process,
    stop_process,
    wait_health,
)
from tests.ledger.conftest import GRANT_KEY, GRANT_MD, LedgerUnderTest
from tests.ledger.test_service import DOUDIZHU, settle_request

pytestmark = [pytest.mark.timeout(180)]

#: Callers at once, and how long the storm lasts (seconds).
CALLERS, STORM_SECONDS = 150, 8.0
#: The deadlines the storm's calls get (seconds): many expire mid-transaction.
DEADLINES = (0.02, 0.3)
#: How soon the first write after the storm must be answered (seconds): under
#: SQLite's busy timeout (5 s, paiju.runtime.db), which a transaction left open
#: by a cancelled handler would make the next write wait out, then fail.
NEXT_WRITE_WITHIN = 3.0


async def sign_in(ledger: LedgerUnderTest, player: str, deadline: float) -> None:
    await ledger.stub.OpenAccount(ledger_pb2.OpenAccountRequest(player=player, name=player),
                                  timeout=deadline)
    await ledger.stub.Grant(ledger_pb2.GrantRequest(
        player=player, coins=1000, reason="start", grant_id=f"start:{player}"),
        metadata=GRANT_MD, timeout=deadline)


async def caller(ledger: LedgerUnderTest, k: int, until: float, rng: random.Random) -> int:
    """Sign-ins and settlements with short deadlines until ``until``; how
    many calls expired."""
    expired = n = 0
    while time.monotonic() < until:
        n += 1
        deadline = rng.uniform(*DEADLINES)
        names = [f"c{k}-{n}-{s}" for s in range(3)]
        try:
            for name in names:
                await sign_in(ledger, name, deadline)
            await ledger.stub.Settle(settle_request(
                f"g{k}-{n}", DOUDIZHU, [(names[0], 2), (names[1], -1), (names[2], -1)],
                game="doudizhu"), timeout=deadline)
        except grpc.aio.AioRpcError as e:
            # A call cut short at its deadline is answered DEADLINE_EXCEEDED, or
            # CANCELLED where the server's cancel of the handler reaches the
            # client first (a race inside gRPC); the audit below checks the journal.
            if e.code() not in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED,
                                grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.NOT_FOUND,
                                grpc.StatusCode.FAILED_PRECONDITION):
                raise
            expired += e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    return expired


async def storm_then_write(ledger: LedgerUnderTest) -> None:
    rng = random.Random(7)
    until = time.monotonic() + STORM_SECONDS
    expired = sum(await asyncio.gather(*(caller(ledger, k, until, rng)
                                         for k in range(CALLERS))))
    assert expired > 100, "the storm should cut many calls short"
    started = time.monotonic()
    await sign_in(ledger, "after-the-storm", 10.0)
    took = time.monotonic() - started
    print(f"{expired} calls expired; the next write took {took * 1000:.0f} ms")
    assert took < NEXT_WRITE_WITHIN
    audit = await ledger.audit()
    assert audit.ok and audit.journal_sum == 0


@contextlib.asynccontextmanager
async def ledger_process(db_url: str, nats_url: str, logs: Path) -> AsyncIterator[
        LedgerUnderTest]:
    """A ledger in a process of its own, as ``paiju up`` runs it (in-process,
    the callers' deadlines and the handlers share one event loop, and the
    storm below did not lock SQLite)."""
    port = free_port()
    proc = start_service_process("ledger", service_env(
        NATS_URL=nats_url, DATABASE_URL=db_url, GRANT_KEY=GRANT_KEY, DEV_MODE="1",
        GRPC_PORT=str(port), METRICS_PORT="0"), logs / "ledger.log")
    addr = f"127.0.0.1:{port}"
    try:
        await wait_health(addr, proc=proc)
        async with service_channel(addr) as channel:
            yield LedgerUnderTest(addr, ledger_pb2_grpc.LedgerServiceStub(channel), channel,
                                  None)  # type: ignore[arg-type]
    finally:
        stop_process(proc)


async def test_next_write_after_a_cancel_storm(db_url: str, nats_server: str,
                                               tmp_path: Path) -> None:
    async with ledger_process(db_url, nats_server, tmp_path) as ledger:
        await storm_then_write(ledger)


async def test_not_serving_while_sqlite_cannot_take_a_write(nats_server: str,
                                                           tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with ledger_process(f"sqlite:///{path}", nats_server, tmp_path) as ledger:
        holder = sqlite3.connect(path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")  # another writer holds the file
            await wait_health(ledger.addr, "NOT_SERVING", timeout=20)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        await wait_health(ledger.addr, "SERVING", timeout=20)
        await sign_in(ledger, "after-the-lock", 5.0)
