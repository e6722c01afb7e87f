"""Databases of a test's own on the test PostgreSQL: created under a unique
name and dropped afterwards, so tests that need an empty database do not
touch the shared one."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Iterator

from sqlalchemy.engine import make_url


async def _admin(url: str, sql: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host or "127.0.0.1",
                                 port=u.port or 5432, database=u.database, timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextlib.contextmanager
def fresh_postgres_database(url: str, prefix: str = "paiju_ops") -> Iterator[str]:
    """A new empty database on the server of ``url`` (a plain
    ``postgresql://`` URL of a database that exists), named
    ``<prefix>_<random hex>``; yields its URL and drops it (``WITH (FORCE)``)
    on exit. Blocking: call it outside a running event loop, or from a thread."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(url, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
