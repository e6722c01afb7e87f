"""The ledger service process: ``paiju ledger``.

Start-up: migrate the database (``PAIJU_DATABASE_URL``, SQLite by default) in
a thread, add the servicer, watch the database and connect to NATS in the
background (the ledger serves while NATS is away; events wait in the outbox),
and relay the outbox. Readiness depends on ``database`` and ``nats``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from nats.aio.client import Client as NATS

from paiju.ledger.v1 import ledger_pb2_grpc
from paiju.runtime import db, natsconn
from paiju.runtime.service import Context, run
from paiju.security import natsauth
from services.ledger.adapters.relay import Relay
from services.ledger.application.ledger import Ledger
from services.ledger.entrypoints.servicer import SERVICE_NAME, LedgerServicer

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


async def setup(ctx: Context) -> list[str]:
    """Migrate, build the ledger, add the servicer, start the background work."""
    config = ctx.config
    await ctx.health.set("database", False)
    await ctx.health.set("nats", False)
    await asyncio.to_thread(db.migrate, config.database_url, MIGRATIONS)
    # No pre-ping: every read and write retries a dropped connection
    # (unit_of_work.py). The engine serves reads (5 + 5 connections); the
    # hot path (settlements) has its own pool of 10 pipes (pgpipe.py), the
    # relay's read and mark one more pipe of their own.
    engine = db.make_engine(config.database_url, pool_size=5, pre_ping=False)
    ledger = Ledger(engine, rankings_max_age_ms=int(
        config.ledger_rankings_max_age_seconds * 1000))
    ledger_pb2_grpc.add_LedgerServiceServicer_to_server(
        LedgerServicer(ledger, config.grant_key), ctx.server)
    await ctx.health.set("database", True)

    conn: list[NATS] = []
    relay = Relay(ledger.outbox, lambda: conn[0] if conn else None)
    ledger.uow.on_commit = relay.notify

    async def connect() -> None:
        conn.append(await natsconn.connect(config.nats_url, ctx.health, "paiju-ledger",
                                           auth=natsauth.client_options(config)))
        relay.notify()

    ctx.tasks += [asyncio.create_task(db.watch(engine, ctx.health)),
                  asyncio.create_task(connect()),
                  asyncio.create_task(relay.run())]

    async def publish_pending() -> None:
        await relay.drain()

    async def close_nats() -> None:
        if conn:
            await natsconn.close(conn[0], ctx.config.drain_seconds)

    # In order, each step on its own (one that fails does not skip the rest).
    ctx.on_stop += [publish_pending, close_nats, ledger.games.refreshed, ledger.uow.close,
                    engine.dispose]
    return [SERVICE_NAME]


def main() -> None:
    """Run the ledger until SIGTERM."""
    run("ledger", setup)
