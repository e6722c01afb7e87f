"""``paiju table``: one table-service instance.

Its own settings (declared in paiju/config.py): ``PAIJU_TABLE_ALLOW_FIXED_DEAL=1``
lets CreateGame take ``deal_json`` (tests only); ``PAIJU_TABLE_DEAL_INTERVAL_MS``
the default pace of a paced deal (150); ``PAIJU_TABLE_GAME_DRAIN_SECONDS`` how
long running games may go on after SIGTERM (600).

The instance watches presence (:class:`paiju.presence.PresenceWatcher` on the
table's clock; PAIJU_PRESENCE_TIMEOUT_SECONDS) and gives each flip to
:meth:`services.table.runner.Table.on_presence`.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Sequence

from paiju import db
from paiju.natsconn import connect
from paiju.presence import PresenceWatcher
from paiju.service import Context, Setup, run
from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.table.clock import Clock, SystemClock
from services.table.publisher import NatsPublisher
from services.table.remote import Ledger, Lobby
from services.table.runner import Table
from services.table.servicer import TableServicer
from services.table.store import RecordStore

SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name


def make_setup(clock: Clock | None = None, tables: list[Table] | None = None,
               allow_fixed_deal: bool | None = None, signals: bool = False) -> Setup:
    """A ``setup`` for :func:`paiju.service.serve`. Tests pass a FakeClock, a list
    that receives the :class:`Table`, and ``allow_fixed_deal``. ``signals``: take
    over SIGTERM/SIGINT so that the first one drains running games (the
    process's :func:`main`)."""

    async def setup(ctx: Context) -> Sequence[str]:
        cfg = ctx.config
        nc = await connect(cfg.nats_url, ctx.health, f"table-{cfg.instance}")
        store = await RecordStore.open(cfg.database_url)
        ledger = Ledger(cfg.ledger_addr, ctx.identity)
        lobby = Lobby(cfg.lobby_addr, ctx.identity) if cfg.lobby_addr else None
        fixed = cfg.table_allow_fixed_deal if allow_fixed_deal is None else allow_fixed_deal
        table = Table(instance=cfg.instance, clock=clock or SystemClock(),
                      publisher=NatsPublisher(nc), ledger=ledger, lobby=lobby, store=store,
                      allow_fixed_deal=fixed)
        if tables is not None:
            tables.append(table)
        table_clock = table.clock
        presence = PresenceWatcher(nc, table.on_presence,
                                   timeout_ms=int(cfg.presence_timeout_seconds * 1000),
                                   clock=lambda: int(table_clock.now() * 1000))
        await presence.start()
        servicer = TableServicer(table, cfg.table_deal_interval_ms)
        table_pb2_grpc.add_TableServiceServicer_to_server(servicer, ctx.server)
        ctx.tasks.append(asyncio.create_task(db.watch(store.engine, ctx.health)))
        game_drain = cfg.table_game_drain_seconds

        async def drain_then_stop() -> None:
            table.drain()
            await table.wait_idle(game_drain)
            ctx.stopping.set()

        def on_sigterm() -> None:
            if table.accepting:
                ctx.tasks.append(asyncio.create_task(drain_then_stop()))
            else:
                ctx.stopping.set()

        if signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, on_sigterm)

        async def close() -> None:
            table.drain()
            await presence.stop()
            await nc.drain()
            await ledger.close()
            if lobby is not None:
                await lobby.close()
            await store.close()

        ctx.on_stop.append(close)
        return [SERVICE_NAME]

    return setup


setup = make_setup(signals=True)


def main() -> None:
    """Run the table service until SIGTERM (then drain running games)."""
    run("table", setup)
