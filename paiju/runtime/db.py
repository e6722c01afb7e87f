"""Database plumbing: SQLAlchemy 2.0 async engines, Alembic at start, a health watch.

``PAIJU_DATABASE_URL`` may be given in its plain form (``sqlite:///file.db``,
``postgresql://user@host/db``); :func:`async_url` picks the async driver
(aiosqlite, asyncpg). Each service owns its migrations folder and runs them at
start with :func:`migrate`, under a lock so that replicas started together on
an empty database take turns instead of racing to create the same tables
(PostgreSQL: an advisory lock held by the migration connection; SQLite: an
exclusive ``flock`` on ``<database file>.migrate.lock``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import Connection, MetaData, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from paiju.runtime.health import Health

log = logging.getLogger("paiju.db")


def async_url(url: str) -> str:
    """``url`` with its async driver: ``sqlite+aiosqlite``, ``postgresql+asyncpg``."""
    u = make_url(url)
    if u.drivername in ("sqlite", "sqlite+pysqlite"):
        u = u.set(drivername="sqlite+aiosqlite")
    elif u.drivername in ("postgresql", "postgres", "postgresql+psycopg2", "postgresql+psycopg"):
        u = u.set(drivername="postgresql+asyncpg")
    return u.render_as_string(hide_password=False)


def _make_sqlite_folder(url: str) -> None:
    u = make_url(url)
    if u.drivername.startswith("sqlite") and u.database and u.database != ":memory:":
        Path(u.database).parent.mkdir(parents=True, exist_ok=True)


#: PostgreSQL's serialization failure and deadlock: the transaction may be retried.
RETRYABLE_SQLSTATES = frozenset({"40001", "40P01"})


def retryable(e: DBAPIError) -> bool:
    """True where a failed transaction may simply be run again: a PostgreSQL
    serialization failure or deadlock, a dropped connection, a busy SQLite
    file. Never for an integrity error (a unique key: the answer is final)."""
    if isinstance(e, IntegrityError):
        return False
    if e.connection_invalidated:
        return True
    for err in (e.orig, getattr(e.orig, "__cause__", None)):
        code = getattr(err, "sqlstate", None) or getattr(err, "pgcode", None)
        if code in RETRYABLE_SQLSTATES:
            return True
    text_ = str(e.orig).lower()
    return "database is locked" in text_ or "database is busy" in text_


#: How long a SQLite statement waits for another writer before it fails with
#: "database is locked" (seconds): long enough for any one transaction, short
#: enough that a stuck writer shows as errors (and retries) within seconds.
SQLITE_BUSY_SECONDS = 5.0


def make_engine(url: str, pool_size: int = 10, pre_ping: bool = True,
                max_overflow: int | None = None) -> AsyncEngine:
    """An async engine for ``url``. SQLite files get their folder made, WAL
    journaling and a busy timeout so that concurrent writers wait instead of failing.
    PostgreSQL: ``pool_size`` connections kept, ``max_overflow`` (default
    ``pool_size``) more opened in a burst and closed again when they come back
    to a full pool (each a new server process, its TLS handshake and its
    prepared statements made anew: 0 keeps every connection warm, and a burst
    waits for one). ``pre_ping``: test a pooled PostgreSQL connection (one
    round trip) at each checkout; turn it off only where every use retries a
    dropped connection."""
    aurl = async_url(url)
    u = make_url(aurl)
    if u.drivername.startswith("sqlite"):
        _make_sqlite_folder(aurl)
        engine = create_async_engine(aurl, connect_args={"timeout": SQLITE_BUSY_SECONDS})

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_SECONDS * 1000)}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_async_engine(aurl, pool_size=pool_size,
                               max_overflow=pool_size if max_overflow is None else max_overflow,
                               pool_pre_ping=pre_ping)


#: The tasks of :func:`run_to_end` still running (strong references: the
#: event loop keeps only weak ones, and a task that its cancelled awaiter let
#: go must still run to its end).
_cleanups: set[asyncio.Task[Any]] = set()

T = TypeVar("T")


def run_to_end(coro: Coroutine[Any, Any, T]) -> Awaitable[T]:
    """Run ``coro`` in a task of its own, to its end even if the awaiting
    task is cancelled (the awaiter then gets ``CancelledError`` at once; the
    work goes on and its result is dropped)."""
    task = asyncio.ensure_future(coro)
    _cleanups.add(task)
    task.add_done_callback(_cleanups.discard)
    return asyncio.shield(task)


async def _begin(engine: AsyncEngine) -> AsyncConnection:
    conn = engine.connect()
    await conn.start()
    try:
        await conn.begin()
    except BaseException:
        await conn.close()
        raise
    return conn


async def _discard(conn: AsyncConnection) -> None:
    """Roll back and give the connection back; a connection that cannot roll
    back is closed for good (invalidated)."""
    try:
        await conn.rollback()
    except Exception:
        with contextlib.suppress(Exception):
            await conn.invalidate()
    with contextlib.suppress(Exception):
        await conn.close()


async def _discard_once_open(opening: asyncio.Future[AsyncConnection]) -> None:
    with contextlib.suppress(BaseException):
        await _discard(await opening)


@contextlib.asynccontextmanager
async def transaction(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection of ``engine`` in a transaction, committed when the block
    ends without error, else rolled back and returned to the pool.

    Cancellation-safe: when the task is cancelled (a gRPC deadline, a client
    gone, a stop) while it opens, runs or ends the transaction, the rollback
    and the connection's return still run to their end (shielded), so that
    no transaction is left open behind a cancelled handler (on SQLite an
    open ``BEGIN IMMEDIATE`` keeps the whole file locked)."""
    opening = asyncio.ensure_future(_begin(engine))
    try:
        conn = await asyncio.shield(opening)
    except BaseException:
        await run_to_end(_discard_once_open(opening))
        raise
    try:
        yield conn
        await conn.commit()
    except BaseException:
        await run_to_end(_discard(conn))
        raise
    await run_to_end(conn.close())


#: The PostgreSQL advisory lock key every paiju migration holds (a signed
#: 64-bit number derived from a fixed name): one service's migrations at a time
#: per database, whatever the service.
MIGRATION_LOCK_KEY = int.from_bytes(hashlib.sha256(b"paiju.db.migrate").digest()[:8], "big",
                                    signed=True)


@contextlib.contextmanager
def _sqlite_migration_lock(url: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``<database file>.migrate.lock`` (made if
    missing) while the block runs; waits for another process holding it. No
    lock for an in-memory database or another backend (PostgreSQL locks in
    :func:`run_alembic_env`)."""
    u = make_url(url)
    if not u.drivername.startswith("sqlite") or not u.database or u.database == ":memory:":
        yield
        return
    path = Path(u.database + ".migrate.lock")
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def migrate(url: str, migrations: Path) -> None:
    """Apply every Alembic migration in ``migrations`` (a folder with env.py
    and versions/) to the database at ``url`` (a SQLite file's folder is
    made). Safe when several processes migrate one database at once: they take
    turns (see the module docstring), and the later ones find the schema at
    head. Blocking, and it may wait for another process's migrations; call it
    in a thread from async code (``await asyncio.to_thread(migrate, url, folder)``)."""
    _make_sqlite_folder(url)
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(migrations))
    cfg.set_main_option("sqlalchemy.url", async_url(url).replace("%", "%%"))
    with _sqlite_migration_lock(url):
        command.upgrade(cfg, "head")


def sqlite_file(engine: AsyncEngine) -> str | None:
    """The file of a SQLite ``engine`` (None for another database or memory)."""
    u = engine.url
    if u.drivername.startswith("sqlite") and u.database and u.database != ":memory:":
        return u.database
    return None


def take_write_lock(path: str, seconds: float) -> None:
    """Take the write lock of the SQLite file ``path`` and let it go at once,
    waiting ``seconds`` at most for another writer (then
    ``sqlite3.OperationalError`` "database is locked"). Blocking: run it in a
    thread."""
    conn = sqlite3.connect(path, timeout=seconds, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    finally:
        conn.close()


async def watch(engine: AsyncEngine, health: Health, interval: float = 2.0) -> None:
    """Check the database every ``interval`` seconds and keep ``health``'s
    ``database`` dependency up to date (so readiness is NOT_SERVING while it
    is down); runs until cancelled. On SQLite the check also takes the write
    lock for a moment: a file that a writer has held locked for ``interval``
    cannot take a write, and counts as down."""
    path = sqlite_file(engine)
    while True:
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a
            # cancel that lands as the query completes, and the loop would never
            # stop (a service's stop waits for it; CPython gh-86296).
            async with asyncio.timeout(interval), engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            if path is not None:
                await asyncio.to_thread(take_write_lock, path, interval)
            await health.set("database", True)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("database check failed: %s", e)
            await health.set("database", False)
        await asyncio.sleep(interval)


def run_alembic_env(metadata: MetaData, version_table: str) -> None:
    """The body of a service's ``migrations/env.py``: run its migrations online
    through the async driver. ``version_table`` is per service (``alembic_version_ledger``)
    so that services can share one PostgreSQL. On PostgreSQL the migration
    connection holds the advisory lock :data:`MIGRATION_LOCK_KEY` while the
    migrations run (released on exit, and by the server if the process dies)."""
    from alembic import context
    from sqlalchemy import pool

    url = context.config.get_main_option("sqlalchemy.url")
    assert url is not None

    def run(sync_conn: Connection) -> None:
        context.configure(connection=sync_conn, target_metadata=metadata,
                          version_table=version_table, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()

    async def main() -> None:
        engine = create_async_engine(url, poolclass=pool.NullPool)
        postgres = engine.dialect.name == "postgresql"
        async with engine.connect() as conn:
            if postgres:  # session-level: held across the migration transactions
                await conn.execute(text("SELECT pg_advisory_lock(:key)"),
                                   {"key": MIGRATION_LOCK_KEY})
                await conn.commit()
            try:
                await conn.run_sync(run)
                await conn.commit()
            finally:
                if postgres:
                    # A connection that broke has lost the lock already.
                    with contextlib.suppress(DBAPIError):
                        await conn.rollback()
                        await conn.execute(text("SELECT pg_advisory_unlock(:key)"),
                                           {"key": MIGRATION_LOCK_KEY})
                        await conn.commit()
        await engine.dispose()

    asyncio.run(main())
