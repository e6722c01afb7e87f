"""The ledger's unit of work: one database transaction per change, retried.

Every transaction ends, even when its handler is cancelled (a deadline, a
client gone, a stop): each try runs to its end in a task of its own
(:func:`paiju.runtime.db.run_to_end`), and :func:`paiju.runtime.db.transaction` rolls it back
and returns its connection whatever happens.

A write runs on PostgreSQL in one transaction of its own (rows are locked by
the work itself, ``SELECT … FOR UPDATE``); on SQLite writers are serialised by
an in-process lock and ``BEGIN IMMEDIATE`` (across processes by SQLite's write
lock and busy timeout). A read runs statement by statement (autocommit on
PostgreSQL) or, where it must, in one snapshot (REPEATABLE READ; SQLite reads
are a deferred ``BEGIN``). Deadlocks, serialization failures, a busy SQLite
and dropped connections are retried with a jittered backoff
(``paiju_ledger_retries_total{operation}``), reads and writes alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

import psycopg
from sqlalchemy import Connection, event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from paiju.runtime.db import retryable, run_to_end, transaction
from services.ledger.adapters.pgpipe import Pipe, PipePool
from services.ledger.metrics import RETRIES

T = TypeVar("T")
C = TypeVar("C")


def now_ms() -> int:
    """The wall clock in unix milliseconds (the default clock)."""
    return int(time.time() * 1000)


def _sqlite_transactions(engine: AsyncEngine) -> None:
    """Let the ledger, not the driver, begin SQLite transactions: ``BEGIN
    IMMEDIATE`` for writers (execution option ``ledger_write``), ``BEGIN``
    for readers (one snapshot for the whole read)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _no_implicit_begin(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("ledger_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def pipe_gone(e: Exception) -> bool:
    """Whether a pipe is unusable after ``e``: no server error (the connection
    broke, or a client-side error), or a server error of class 08 or 57."""
    code = str(getattr(e, "sqlstate", "") or "")
    return not code or code[:2] in ("08", "57")


class UnitOfWork:
    """Write and read transactions on one migrated database.

    ``engine``: an async engine (``paiju.runtime.db.make_engine``; the ledger's has no
    pre-ping, a dropped connection is retried here instead). ``clock``: unix
    milliseconds (injectable). ``max_attempts``: tries of a retryable failure,
    none begun after ``retry_seconds`` (on SQLite each try waits up to
    :data:`paiju.runtime.db.SQLITE_BUSY_SECONDS` for a busy file).
    ``driver_pool_size``: connections of the PostgreSQL hot path's own pool
    (:meth:`run_driver`; the outbox relay has one more of its own,
    :meth:`run_outbox`); :meth:`close` closes them.
    ``on_commit``, when set, is called after every committed write that was
    run with ``events=True`` — the changes that wrote outbox events — and
    after no other (not account openings, not the relay's own ``mark_sent``,
    not reads, not failed attempts); it wakes the outbox relay.
    """

    def __init__(self, engine: AsyncEngine, clock: Callable[[], int] = now_ms,
                 max_attempts: int = 20, driver_pool_size: int = 10,
                 retry_seconds: float = 10.0) -> None:
        self.engine = engine
        self.retry_seconds = retry_seconds
        self.driver_pool_size = driver_pool_size
        self.clock = clock
        self.max_attempts = max_attempts
        self.sqlite = engine.dialect.name == "sqlite"
        self.on_commit: Callable[[], None] | None = None
        self._writer_lock = asyncio.Lock() if self.sqlite else None
        if self.sqlite:
            _sqlite_transactions(engine)
        self._write_engine = engine.execution_options(ledger_write=True)
        #: PostgreSQL reads: one snapshot, or each statement on its own
        #: (autocommit: no BEGIN and ROLLBACK round trips)
        self._snapshot_engine = engine if self.sqlite else engine.execution_options(
            isolation_level="REPEATABLE READ")
        self._autocommit_engine = engine if self.sqlite else engine.execution_options(
            isolation_level="AUTOCOMMIT")
        self._pipes: PipePool | None = None
        self._outbox_pipes: PipePool | None = None

    def write(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """One write transaction (committed when the block ends without error;
        on SQLite, :meth:`run` lets this process's writers in one at a time)."""
        return transaction(self._write_engine)

    @asynccontextmanager
    async def read(self, snapshot: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection for reading. ``snapshot``: every statement sees one
        snapshot (a REPEATABLE READ transaction on PostgreSQL); else, on
        PostgreSQL, each statement runs on its own (autocommit: no BEGIN and
        ROLLBACK round trips). SQLite reads are one deferred transaction."""
        if self.sqlite or snapshot:
            async with transaction(self._snapshot_engine) as conn:
                yield conn
            return
        async with self._autocommit_engine.connect() as conn:
            yield conn

    async def run(self, operation: str, work: Callable[[AsyncConnection], Awaitable[T]],
                  events: bool = False) -> T:
        """Run ``work`` in a write transaction and commit, retrying retryable
        failures (counted under ``operation``); ``work``'s result. ``events``:
        the work writes outbox events (``on_commit`` is called after the
        commit). Any other error (and the last retryable one) rolls back and
        propagates."""
        result = await self._retrying(operation, work, self.write, self._writer_lock)
        if events and self.on_commit is not None:
            self.on_commit()
        return result

    async def run_driver(self, operation: str, work: Callable[[Pipe], Awaitable[T]],
                         events: bool = False) -> T:
        """PostgreSQL only: as :meth:`run`, but ``work`` gets a pipe of the hot
        path's own pool (services/ledger/adapters/pgpipe.py: pipeline mode, the
        statements of a batch sent together) and runs the transaction itself:
        its first batch begins with BEGIN, its last ends with COMMIT (an
        error in the batch skips the COMMIT). If ``work`` raises, the
        transaction is rolled back. Driver errors become
        ``sqlalchemy.exc.DBAPIError`` (original in ``orig``,
        ``connection_invalidated`` when the connection is gone, which is then
        closed), so that they are retried and reported as every other
        database error. Raises AssertionError if ``work`` returns with the
        transaction still open."""
        result = await self._retrying(operation, work, self._pipe)
        if events and self.on_commit is not None:
            self.on_commit()
        return result

    async def run_outbox(self, operation: str, work: Callable[[Pipe], Awaitable[T]]) -> T:
        """PostgreSQL only: as :meth:`run_driver`, for the outbox relay's
        read, mark and backlog (a statement ended by a Sync, or BEGIN …
        COMMIT in one batch), on a pipe of the relay's own (a pool of one
        connection): the relay never takes a pipe from the settlements'
        pool, so that at low load a settlement finds the pipe (and the
        server process) the previous one used, warm. Never calls
        ``on_commit``."""
        return await self._retrying(operation, work, lambda: self._pipe(outbox=True))

    @asynccontextmanager
    async def _pipe(self, outbox: bool = False) -> AsyncIterator[Pipe]:
        """A pipe of the hot path's pool (opened at first use, at most
        ``driver_pool_size`` connections; ``outbox``: of the relay's pool of
        one) for one transaction; rolled back if the block raises (a pipe
        that cannot roll back, or is cancelled in the middle of a batch, is
        closed by its pool)."""
        if self._pipes is None or self._outbox_pipes is None:
            url = self.engine.url.set(drivername="postgresql").render_as_string(
                hide_password=False)
            self._pipes = PipePool(url, self.driver_pool_size)
            self._outbox_pipes = PipePool(url, 1)
        try:
            async with (self._outbox_pipes if outbox else self._pipes).acquire() as pipe:
                try:
                    yield pipe
                except Exception:
                    if not pipe.closed():
                        with contextlib.suppress(psycopg.Error, OSError):
                            await pipe.rollback()
                    raise
                if pipe.in_transaction():
                    await pipe.rollback()
                    raise AssertionError("the hot path's work left its transaction open")
        except (psycopg.Error, OSError) as e:
            raise DBAPIError(None, None, e, connection_invalidated=pipe_gone(e)) from e

    @staticmethod
    async def _once(work: Callable[[C], Awaitable[T]],
                    connect: Callable[[], AbstractAsyncContextManager[C]]) -> T:
        async with connect() as conn:
            return await work(conn)

    async def close(self) -> None:
        """Close the hot path's pool (the engine is disposed by its owner)."""
        for pool in (self._pipes, self._outbox_pipes):
            if pool is not None:
                pool.close()
        self._pipes = self._outbox_pipes = None

    async def statement(self, operation: str,
                        work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run ``work``, a write of ONE statement (atomic by itself), retrying
        retryable failures: on PostgreSQL in autocommit (one round trip, no
        BEGIN or COMMIT of its own); on SQLite as :meth:`run`. Never calls
        ``on_commit``."""
        if self.sqlite:
            return await self.run(operation, work)
        return await self.query(operation, work)

    async def query(self, operation: str, work: Callable[[AsyncConnection], Awaitable[T]],
                    snapshot: bool = False) -> T:
        """Run the read ``work`` (as :meth:`read`), retrying retryable failures
        such as a connection dropped while it sat in the pool."""
        return await self._retrying(operation, work, lambda: self.read(snapshot))

    async def _retrying(self, operation: str, work: Callable[[C], Awaitable[T]],
                        connect: Callable[[], AbstractAsyncContextManager[C]],
                        turn: asyncio.Lock | None = None) -> T:
        """``work`` on a connection of ``connect()``, retried (``turn``: a lock
        taken around each try). Each try runs in a task of its own that a
        cancelled caller does not interrupt (:func:`paiju.runtime.db.run_to_end`): a
        transaction is never cut in the middle, so it always ends (on SQLite
        an open ``BEGIN IMMEDIATE`` cut short kept the file locked for good).
        A caller cancelled while it waits for its turn or its retry does no
        more work."""
        started = time.monotonic()
        for attempt in range(self.max_attempts):
            try:
                async with turn or contextlib.nullcontext():
                    return await run_to_end(self._once(work, connect))
            except DBAPIError as e:
                if (not retryable(e) or attempt == self.max_attempts - 1
                        or time.monotonic() - started > self.retry_seconds):
                    raise
                RETRIES.labels(operation).inc()
                await asyncio.sleep(random.uniform(0, min(0.2, 0.002 * 2 ** attempt)))
        raise AssertionError("unreachable")
