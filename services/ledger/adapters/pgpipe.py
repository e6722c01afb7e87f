"""PostgreSQL's pipeline mode for the ledger's hot path (libpq through
psycopg's ``pq`` layer): statements are queued and go out together, and
their results come back together, so that a settlement is two round trips
(BEGIN with the first statement, the second statement with COMMIT) instead
of four. The transaction is the same: BEGIN … COMMIT on one connection, the
row locks taken by its first statement held until its COMMIT.

A :class:`Pipe` is one connection (psycopg ``AsyncConnection`` in autocommit,
so that psycopg itself never begins a transaction) kept in pipeline mode for
its whole life; every statement is prepared once per connection and sent
with its parameters as text (:func:`text`), their types inferred by the
server from the SQL (the statements cast what is ambiguous). After an error the server skips
the rest of the batch up to its Sync (``PIPELINE_ABORTED``): a COMMIT queued
behind a failing statement never runs. :class:`PipePool` lends pipes to one
task at a time; a pipe given back in any state but idle (an exception or a
cancel in the middle of a batch) is closed, which ends its transaction on
the server (rolled back).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg import pq
from psycopg.errors import error_from_result

_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
_FATAL = pq.ExecStatus.FATAL_ERROR
_SYNC = pq.ExecStatus.PIPELINE_SYNC
_IDLE = pq.TransactionStatus.IDLE
_CONN_OK = pq.ConnStatus.OK


def _quoted(item: int | str | None) -> str:
    if item is None:
        return "NULL"
    if isinstance(item, str):
        return '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(item, int) and not isinstance(item, bool):
        return str(item)
    raise TypeError(f"cannot send {type(item).__name__} in an array")


def text(value: Any) -> bytes | None:
    """``value`` in PostgreSQL's text format: None (NULL), an int, a str, or a
    list or tuple of them (an array literal, every string quoted). Raises
    TypeError for anything else (bools too: the hot path sends none).
    About six times faster than psycopg's own dumpers on the ledger's
    arrays."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value).encode()
    if isinstance(value, (list, tuple)):
        return ("{" + ",".join(_quoted(v) for v in value) + "}").encode()
    raise TypeError(f"cannot send {type(value).__name__} as a parameter")


class Pipe:
    """One connection in pipeline mode: queue statements (:meth:`command`,
    :meth:`query`), then :meth:`results` sends them (one write) and waits
    for all their results (one round trip). Made by :meth:`connect`."""

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn
        self.pg = conn.pgconn
        self.pg.nonblocking = 1  # writes never block the event loop
        self.pg.enter_pipeline_mode()
        self._prepared: dict[str, bytes] = {}
        #: what the server owes, in order: a statement's results (""), a
        #: Parse's (the SQL it prepares), a Sync's (None)
        self._expect: list[str | None] = []
        #: whether statements went out since the last Sync (libpq learns the
        #: transaction's state only from the ReadyForQuery after a Sync)
        self._unsynced = False
        self._fd = self.pg.socket
        self._loop = asyncio.get_running_loop()

    @classmethod
    async def connect(cls, url: str) -> Pipe:
        """A new pipe on the database at ``url`` (a libpq URL or DSN)."""
        return cls(await psycopg.AsyncConnection.connect(url, autocommit=True))

    def command(self, sql: bytes) -> None:
        """Queue ``sql`` without parameters (BEGIN, COMMIT, ROLLBACK)."""
        self.pg.send_query_params(sql, None)
        self._expect.append("")

    def query(self, sql: str, params: Sequence[Any]) -> None:
        """Queue ``sql`` (``$1``… placeholders) with ``params`` (ints, strings,
        lists of them, None), prepared on this connection at first use."""
        name = self._prepared.get(sql)
        if name is None:
            name = self._prepared[sql] = f"ledger_{len(self._prepared)}".encode()
            self.pg.send_prepare(name, sql.encode(), None)
            self._expect.append(sql)
        self.pg.send_query_prepared(name, [text(p) for p in params])
        self._expect.append("")

    async def results(self, sync: bool = False) -> list[pq.abc.PGresult]:
        """Send what is queued and wait for all of it: with ``sync`` a Sync
        ends the batch (outside BEGIN … COMMIT it would end the implicit
        transaction); else a flush request asks for the results so far. The
        result of each statement that succeeded, in order (not those of the
        prepares made at first use); raises the first
        error (a ``psycopg.Error`` with its ``sqlstate``) once every result
        is read."""
        if sync:
            self.pg.pipeline_sync()
            self._expect.append(None)
        else:
            self.pg.send_flush_request()
        self._unsynced = not sync
        while self.pg.flush():
            await self._ready(writer=True)
        out: list[pq.abc.PGresult] = []
        error: psycopg.Error | None = None
        while self._expect:
            owed = self._expect[0]
            if owed is None:
                r = await self._next()
                if r is None or r.status != _SYNC:
                    raise psycopg.InterfaceError("pipeline out of step: no Sync result")
                self._expect.pop(0)
                continue
            last = None
            while (r := await self._next()) is not None:
                last = r
            self._expect.pop(0)
            if last is not None and last.status in _OK:
                if not owed:
                    out.append(last)
                continue
            if owed:  # not prepared (failed, or skipped after an error): again next time
                del self._prepared[owed]
            if last is not None and last.status == _FATAL and error is None:
                error = error_from_result(last, encoding="utf-8")
        if error is not None:
            raise error
        return out

    async def statement(self, sql: str, params: Sequence[Any]) -> pq.abc.PGresult:
        """``sql`` alone (as :meth:`query`) ended by a Sync: outside BEGIN …
        COMMIT it is its own transaction, one round trip; its result."""
        self.query(sql, params)
        return (await self.results(sync=True))[-1]

    async def rollback(self) -> None:
        """End the batch (a Sync, also after an error) and roll back. Raises
        ``psycopg.InterfaceError`` while results are still owed."""
        if self._expect:
            raise psycopg.InterfaceError("pipeline out of step: results still owed")
        self.pg.pipeline_sync()
        self._expect.append(None)
        self.command(b"ROLLBACK")
        await self.results(sync=True)

    def in_transaction(self) -> bool:
        """Whether a transaction may be open on the server: statements went
        out since the last Sync, or the server said so at that Sync (open, or
        failed and waiting for ROLLBACK)."""
        return self._unsynced or int(self.pg.transaction_status) != _IDLE

    def idle(self) -> bool:
        """Whether the pipe can serve another task: connected, nothing owed,
        no transaction open."""
        return (not self._expect and int(self.pg.status) == _CONN_OK
                and not self.in_transaction())

    def closed(self) -> bool:
        """Whether the connection is gone (closed, or broken: libpq's BAD)."""
        return bool(self.conn.closed) or int(self.pg.status) != _CONN_OK

    def close(self) -> None:
        """Close the connection (the server rolls back an open transaction)."""
        self.pg.finish()

    async def _next(self) -> pq.abc.PGresult | None:
        while self.pg.is_busy():
            await self._ready()
            self.pg.consume_input()
        return self.pg.get_result()

    async def _ready(self, writer: bool = False) -> None:
        """Wait until the socket can be read (or written)."""
        ready: asyncio.Future[None] = self._loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        (self._loop.add_writer if writer else self._loop.add_reader)(self._fd, wake)
        try:
            await ready
        finally:
            (self._loop.remove_writer if writer else self._loop.remove_reader)(self._fd)


class PipePool:
    """At most ``size`` pipes on the database at ``url``, opened when first
    needed and lent to one task at a time (:meth:`acquire`)."""

    def __init__(self, url: str, size: int) -> None:
        self.url = url
        self._idle: list[Pipe] = []
        self._slots = asyncio.Semaphore(size)

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[Pipe]:
        """A pipe for the block; given back if idle at its end, else closed."""
        async with self._slots:
            pipe = self._idle.pop() if self._idle else await Pipe.connect(self.url)
            try:
                yield pipe
            finally:
                if pipe.idle():
                    self._idle.append(pipe)
                elif not pipe.closed():
                    pipe.close()

    def close(self) -> None:
        """Close the idle pipes (the lent ones close when given back)."""
        while self._idle:
            self._idle.pop().close()
