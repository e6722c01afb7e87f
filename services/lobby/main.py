"""The lobby process: ``paiju lobby`` (or ``python -m services.lobby.main``).

Reads the rooms file (``PAIJU_ROOMS_FILE``, default services/lobby/coin_servers.yaml),
migrates its database (``PAIJU_DATABASE_URL``), inserts missing rooms, connects
to NATS, the ledger and the table instances (those that announce themselves
in the registry, paiju/runtime/table_instances.py, and ``PAIJU_TABLE_ADDRS``), and
serves ``LobbyService`` with
a background pass (ready kick, presence sweep and idle stand-up, gauges) every
second, presence (services/lobby/application/presence.py; ``PAIJU_PRESENCE_TIMEOUT_SECONDS``
6) and the reconciler (services/lobby/application/reconcile.py;
``PAIJU_LOBBY_RECONCILE_SECONDS`` 5, ``PAIJU_LOBBY_START_GRACE_SECONDS`` 30,
``PAIJU_LOBBY_TABLE_LOST_SECONDS`` 60).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.runtime import db, natsconn
from paiju.runtime.health import watch_peer
from paiju.runtime.natsconn import NATS_ERRORS
from paiju.runtime.service import Context, Setup, run
from paiju.runtime.table_instances import TableInstances
from paiju.security import natsauth
from services.lobby.adapters.ledger_client import Ledger
from services.lobby.adapters.placement import Tables
from services.lobby.adapters.store import Store
from services.lobby.application.lobby import Lobby
from services.lobby.application.presence import SeatPresence
from services.lobby.application.reconcile import Reconciler, ReconcileSettings
from services.lobby.domain import coin_servers
from services.lobby.domain.clock import Clock, SystemClock
from services.lobby.domain.private import PrivateTerms
from services.lobby.domain.relief import ReliefTerms
from services.lobby.entrypoints.servicer import LobbyServicer

MIGRATIONS = Path(__file__).with_name("migrations")
#: PostgreSQL connections the lobby keeps open (none more in a burst).
LOBBY_POOL = 20


def make_setup(clock: Clock | None = None, interval: float = 1.0,
               lobbies: list[Lobby] | None = None,
               reconcile: ReconcileSettings | None = None,
               reconcilers: list[Reconciler] | None = None,
               presences: list[SeatPresence] | None = None) -> Setup:
    """A ``setup`` for :func:`paiju.runtime.service.serve` with an injectable ``clock``
    and background ``interval`` (seconds); the :class:`Lobby` made is appended
    to ``lobbies`` when given (tests drive the ready kick through it).
    ``reconcile``: the reconciler's settings (default: from the environment,
    read at start; ``ValueError`` for a bad value); the :class:`Reconciler`
    made is appended to ``reconcilers`` when given, the :class:`SeatPresence`
    to ``presences`` (tests drive its sweep)."""

    async def setup(ctx: Context) -> list[str]:
        settings = reconcile or ReconcileSettings.from_config(ctx.config)
        config = coin_servers.load(ctx.config.rooms_file or "")
        url = ctx.config.database_url
        await asyncio.to_thread(db.migrate, url, MIGRATIONS)
        # warm connections only: the seating of a ramp came in bursts above
        # the pool, and each overflow connection was opened and closed again
        # (connect, TLS, statements prepared anew: a fifth of the lobby's
        # busy time at 500 tables, docs/performance.md)
        # no ping per checkout either: a read found dropped is retried once
        # (Store._rows), a write is retried as a conflict (Lobby._mutate)
        engine = db.make_engine(url, pool_size=LOBBY_POOL, max_overflow=0, pre_ping=False)
        the_clock = clock or SystemClock()
        store = Store(engine, config)
        await store.ensure_rooms(the_clock.now_ms())
        await ctx.health.set("database", True)
        nc = await natsconn.connect(ctx.config.nats_url, ctx.health,
                                    f"lobby-{ctx.config.instance}",
                                    auth=natsauth.client_options(ctx.config))
        ledger = Ledger(ctx.config.ledger_addr, ctx.identity)
        tables = Tables(ctx.config.table_addrs, identity=ctx.identity)
        registry = TableInstances(nc)
        tables.registered = registry.addresses

        async def reread() -> None:
            with contextlib.suppress(*NATS_ERRORS):
                await registry.refresh()

        tables.reread = reread
        with contextlib.suppress(*NATS_ERRORS):
            await registry.refresh()
        ctx.tasks.append(asyncio.create_task(registry.run()))
        lobby = Lobby(config, store, ledger, tables, nc, the_clock, ReliefTerms(
            ctx.config.relief_coins, ctx.config.relief_claims_per_day,
            ctx.config.relief_day_starts_utc_hour), PrivateTerms(
            ctx.config.private_rooms_per_player, ctx.config.private_code_tries_per_minute))
        if lobbies is not None:
            lobbies.append(lobby)
        presence = SeatPresence(lobby, nc, int(ctx.config.presence_timeout_seconds * 1000))
        await presence.start()
        if presences is not None:
            presences.append(presence)
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server(LobbyServicer(lobby), ctx.server)
        reconciler = Reconciler(lobby, settings)
        if reconcilers is not None:
            reconcilers.append(reconciler)
        ctx.tasks.append(asyncio.create_task(lobby.run_background(interval)))
        ctx.tasks.append(asyncio.create_task(reconciler.run()))
        ctx.tasks.append(asyncio.create_task(db.watch(engine, ctx.health)))
        ctx.tasks.append(asyncio.create_task(watch_peer(ctx.health, "ledger", ledger.channel)))

        # In order, each step on its own (one that fails does not skip the rest).
        ctx.on_stop += [presence.stop, lambda: natsconn.close(nc, ctx.config.drain_seconds),
                        ledger.close, tables.close, engine.dispose]
        return [lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name]

    return setup


def main() -> None:
    """Run the lobby until SIGTERM."""
    run("lobby", make_setup())


if __name__ == "__main__":
    main()
