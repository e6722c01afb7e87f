"""Ledger test fixtures: a real ledger gRPC server (in-process, on a free port)
on SQLite and on PostgreSQL (a fresh database of its own, dropped afterwards;
skipped where PostgreSQL cannot be reached), with the session's real NATS."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlalchemy import Row, select
from sqlalchemy.engine import make_url

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.runtime import db
from paiju.runtime.service import Context
from services.ledger.adapters.models import entries, transactions
from services.ledger.main import setup
from tests.fixtures import running_service, service_channel

GRANT_KEY = "test-grant-key"
GRANT_MD = (("x-paiju-grant-key", GRANT_KEY),)


async def _admin(url: str, sql: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host or "127.0.0.1",
                                 port=u.port or 5432, database=u.database)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextlib.contextmanager
def postgres_database(base_url: str, prefix: str = "paiju_ledger_test") -> Iterator[str]:
    """A new, empty database ``<prefix>_<random>`` on the server of ``base_url``;
    its URL. Dropped on exit (also used by the lobby's process tests)."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(base_url, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(base_url).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_admin(base_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def database_url(kind: str, request: pytest.FixtureRequest, tmp_path: Path,
                 ) -> contextlib.AbstractContextManager[str]:
    """A fresh database of ``kind`` (``sqlite`` / ``postgres``) as a context manager."""
    if kind == "sqlite":
        return contextlib.nullcontext(f"sqlite:///{tmp_path / 'ledger.db'}")
    return postgres_database(request.getfixturevalue("postgres_url"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh ledger database: SQLite, then PostgreSQL (each test runs on both)."""
    with database_url(request.param, request, tmp_path) as url:
        yield url


@pytest.fixture
def pg_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh PostgreSQL database (skips where PostgreSQL is unreachable)."""
    with database_url("postgres", request, tmp_path) as url:
        yield url


async def journalled(url: str, kind: str, reference: str,
                     ) -> tuple[Row[Any], list[tuple[str, int]]]:
    """The transaction row of ``kind``/``reference`` in the ledger database
    at ``url`` and its entries as (account, delta), by account."""
    engine = db.make_engine(url)
    try:
        async with engine.connect() as conn:
            tx = (await conn.execute(select(transactions).where(
                transactions.c.kind == kind, transactions.c.reference == reference))).one()
            posted = (await conn.execute(select(entries.c.account, entries.c.delta).where(
                entries.c.transaction_id == tx.id).order_by(entries.c.account))).all()
    finally:
        await engine.dispose()
    return tx, [(str(a), int(d)) for a, d in posted]


@dataclass
class LedgerUnderTest:
    """A running ledger: its address, a stub, its service context."""

    addr: str
    stub: ledger_pb2_grpc.LedgerServiceStub
    channel: grpc.aio.Channel
    ctx: Context

    async def account(self, player: str, coins: int) -> None:
        """Open ``player``'s account and grant it ``coins`` (if > 0)."""
        await self.stub.OpenAccount(ledger_pb2.OpenAccountRequest(player=player, name=player))
        if coins:
            await self.stub.Grant(ledger_pb2.GrantRequest(
                player=player, coins=coins, reason="test", grant_id=f"start:{player}"),
                metadata=GRANT_MD)

    async def coins(self, player: str) -> int:
        """``player``'s balance."""
        reply = await self.stub.GetBalance(ledger_pb2.GetBalanceRequest(player=player))
        return int(reply.coins)

    async def audit(self) -> ledger_pb2.AuditResponse:
        """The ledger's audit."""
        reply: ledger_pb2.AuditResponse = await self.stub.Audit(ledger_pb2.AuditRequest())
        return reply


@contextlib.asynccontextmanager
async def run_ledger(db: str, nats_url: str) -> AsyncIterator[LedgerUnderTest]:
    """Run a ledger on ``db`` with NATS at ``nats_url``; yields a client to it."""
    contexts: list[Context] = []
    async with running_service("ledger", setup, {"nats_url": nats_url, "database_url": db,
                                                 "grant_key": GRANT_KEY}, contexts) as addr, \
            service_channel(addr) as channel:
        yield LedgerUnderTest(addr, ledger_pb2_grpc.LedgerServiceStub(channel), channel,
                              contexts[0])


@pytest.fixture
async def ledger(db_url: str, nats_server: str) -> AsyncIterator[LedgerUnderTest]:
    """A real ledger server on a fresh database (SQLite and PostgreSQL)."""
    async with run_ledger(db_url, nats_server) as running:
        yield running
