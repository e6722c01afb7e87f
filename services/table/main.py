"""``paiju table``: one table-service instance.

Its own settings (declared in paiju/config.py): ``PAIJU_TABLE_ALLOW_FIXED_DEAL=1``
lets CreateGame take ``deal_json`` (tests only); ``PAIJU_TABLE_DEAL_INTERVAL_MS``
the default pace of a paced deal (150). Durability (docs/table.md "The game
log"): ``PAIJU_GAME_LOG_REPLICAS`` the game log stream's replicas (1; also the
lease buckets'), ``PAIJU_LEASE_SECONDS`` a game lease's TTL (5; renewed every
third of it, free games looked for every quarter of it, at most every
second), ``PAIJU_TABLE_ADDRESS`` this instance's gRPC address as others reach
it (``game_moved``; default ``<PAIJU_HOST>:<PAIJU_GRPC_PORT>``),
``PAIJU_TABLE_POOL`` the name of the instances that take over each other's
games (default: derived from PAIJU_DATABASE_URL, since a pool shares its
record database).

The instance announces itself (address, pool, games, accepting) in the
registry bucket every third of the lease TTL (:mod:`services.table.adapters.instance_registry`);
the lobby places games on the instances listed there.

SIGTERM (or SIGINT) hands every game over at once (a ``handover`` entry, the
lease released: another instance takes it over), for at most
``PAIJU_TABLE_GAME_DRAIN_SECONDS``, and stops.

The instance watches presence (:class:`paiju.presence.book.book.PresenceWatcher` on the
table's clock; PAIJU_PRESENCE_TIMEOUT_SECONDS) and gives each flip to
:meth:`services.table.application.runner.Table.on_presence`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import nats.js.errors
from nats.aio.client import Client as NATS

from paiju.presence.book import PresenceWatcher
from paiju.runtime import db, natsconn, retries
from paiju.runtime.health import watch_peer
from paiju.runtime.natsconn import NATS_ERRORS, connect
from paiju.runtime.service import Context, Setup, run
from paiju.security import natsauth
from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.table.adapters.gamelog import GameLog
from services.table.adapters.instance_registry import Registration
from services.table.adapters.jspublish import JetStreamPublisher
from services.table.adapters.lease import Leases, pool_name
from services.table.adapters.publisher import NatsPublisher
from services.table.adapters.remote import Ledger, Lobby
from services.table.adapters.store import RecordStore
from services.table.application.clock import Clock, SystemClock
from services.table.application.outage import level_after_outage
from services.table.application.runner import Table
from services.table.application.takeover import Takeover
from services.table.entrypoints.servicer import TableServicer

log = logging.getLogger("paiju.table")


def jetstream_error(e: BaseException) -> bool:
    """True for what JetStream raises while NATS is away, slow or starting."""
    return isinstance(e, (*NATS_ERRORS, nats.js.errors.APIError))

SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name


def make_setup(clock: Clock | None = None, tables: list[Table] | None = None,
               allow_fixed_deal: bool | None = None, signals: bool = False) -> Setup:
    """A ``setup`` for :func:`paiju.runtime.service.serve`. Tests pass a FakeClock, a list
    that receives the :class:`Table`, and ``allow_fixed_deal``. ``signals``: take
    over SIGTERM/SIGINT (the
    process's :func:`main`) so that the first one hands the games over."""

    async def setup(ctx: Context) -> Sequence[str]:
        cfg = ctx.config
        back: list[Callable[[], None]] = []  # what to do once NATS is back (set below)

        def reconnected() -> None:
            for f in back:
                f()

        nc = await connect(cfg.nats_url, ctx.health, f"table-{cfg.instance}",
                           auth=natsauth.client_options(cfg), on_reconnected=reconnected)
        table = await open_table(ctx, nc, clock or SystemClock(), allow_fixed_deal)
        if tables is not None:
            tables.append(table)
        table_clock = table.clock
        presence = PresenceWatcher(nc, table.on_presence,
                                   timeout_ms=int(cfg.presence_timeout_seconds * 1000),
                                   clock=lambda: int(table_clock.now() * 1000))
        await presence.start()
        registration = Registration(nc, cfg.instance, table.address,
                                    pool_name(cfg.database_url, cfg.table_pool or ""),
                                    cfg.lease_seconds / 3, cfg.game_log_replicas)
        back.append(lambda: nats_back(table, presence, registration, cfg.presence_timeout_seconds))
        servicer = TableServicer(table, cfg.table_deal_interval_ms)
        table_pb2_grpc.add_TableServiceServicer_to_server(servicer, ctx.server)
        start_background(ctx, table, registration)
        if signals:
            hand_over_on_signals(ctx, table, registration)
        # In order, each step on its own (one that fails does not skip the rest).
        ctx.on_stop += [table.hand_over, registration.remove, presence.stop,
                        lambda: natsconn.close(nc, ctx.config.drain_seconds), table.ledger.close]
        if table.lobby is not None:
            ctx.on_stop.append(table.lobby.close)
        ctx.on_stop.append(table.store.close)
        return [SERVICE_NAME]

    return setup


async def open_table(ctx: Context, nc: NATS, clock: Clock,
                     allow_fixed_deal: bool | None) -> Table:
    """The instance's :class:`Table` over its adapters: the record store, the
    ledger and lobby clients, the game log and the leases (their JetStream
    stream and buckets made once JetStream answers: a NATS that just started
    may not be ready yet)."""
    cfg = ctx.config
    address = cfg.table_address or f"{cfg.host}:{cfg.grpc_port}"
    pool = pool_name(cfg.database_url, cfg.table_pool or "")
    publisher = JetStreamPublisher(nc)
    gamelog = GameLog(nc, pool, cfg.game_log_replicas, publisher=publisher)
    leases = Leases(nc, cfg.instance, address, pool, cfg.lease_seconds, cfg.game_log_replicas,
                    publisher=publisher)
    await retries.call("jetstream_setup", lambda: ensure_streams(gamelog, leases),
                       jetstream_error, cap=2.0)
    return Table(
        instance=cfg.instance, clock=clock, publisher=NatsPublisher(nc),
        ledger=Ledger(cfg.ledger_addr, ctx.identity),
        lobby=Lobby(cfg.lobby_addr, ctx.identity) if cfg.lobby_addr else None,
        store=await RecordStore.open(cfg.database_url), log=gamelog, leases=leases,
        address=address,
        allow_fixed_deal=(cfg.table_allow_fixed_deal if allow_fixed_deal is None
                          else allow_fixed_deal),
        record_retry_seconds=cfg.table_record_retry_seconds)


async def ensure_streams(gamelog: GameLog, leases: Leases) -> None:
    """Make the game log's stream and the lease buckets (where they are missing)."""
    await gamelog.ensure()
    await leases.ensure()


def start_background(ctx: Context, table: Table, registration: Registration) -> None:
    """The instance's tasks beside its calls: the database and ledger
    watches, lease renewal, looking for games to take over, and the
    registration in the registry bucket."""
    ctx.tasks.append(asyncio.create_task(db.watch(table.store.engine, ctx.health)))
    ctx.tasks.append(asyncio.create_task(watch_peer(ctx.health, "ledger", table.ledger.channel)))
    ctx.tasks.append(asyncio.create_task(table.keep_leases()))
    takeover = Takeover(table, min(1.0, table.leases.seconds / 4))
    ctx.tasks.append(asyncio.create_task(takeover.run()))
    ctx.tasks.append(asyncio.create_task(registration.run(
        lambda: (len(table.rooms), table.accepting))))


def nats_back(table: Table, presence: PresenceWatcher, registration: Registration,
              presence_timeout: float) -> None:
    """The instance's NATS connection came back: bring every seat level once
    the players' gateways are heard from (:mod:`services.table.application.outage`),
    and make the log stream and buckets again (a NATS that restarted without
    its store, or a cluster restarted whole, lost them)."""
    async def level() -> None:
        await level_after_outage(table, presence, presence.clock(), presence_timeout)

    in_background(table, level())
    registration.forget()
    in_background(table, ensure_again(table))


async def ensure_again(table: Table) -> None:
    """:func:`ensure_streams` again, for at most a minute."""
    try:
        await retries.call("jetstream_setup", lambda: ensure_streams(table.log, table.leases),
                           jetstream_error, cap=2.0, give_up_after=60.0)
    except (*NATS_ERRORS, nats.js.errors.APIError) as e:
        log.error("making the game log and lease buckets again failed: %s", e)


def in_background(table: Table, work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` as one of ``table``'s background tasks."""
    task = asyncio.create_task(work)
    table.background.add(task)
    task.add_done_callback(table.background.discard)


def hand_over_on_signals(ctx: Context, table: Table, registration: Registration) -> None:
    """SIGTERM or SIGINT: stop taking games, say so in the registry, hand every
    game over (for at most ``PAIJU_TABLE_GAME_DRAIN_SECONDS``), then stop; a
    second signal stops at once."""
    drain = ctx.config.table_game_drain_seconds

    async def hand_over_then_stop() -> None:
        table.drain()
        with contextlib.suppress(*NATS_ERRORS, nats.js.errors.APIError):
            await registration.put(len(table.rooms), False)
        try:
            await asyncio.wait_for(table.hand_over(), drain)
        except TimeoutError:
            log.error("handing the games over took longer than %.0fs; stopping", drain)
        ctx.stopping.set()

    def on_signal() -> None:
        if table.accepting:
            ctx.tasks.append(asyncio.create_task(hand_over_then_stop()))
        else:
            ctx.stopping.set()

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)


setup = make_setup(signals=True)


def main() -> None:
    """Run the table service until SIGTERM (then hand the running games over)."""
    run("table", setup)
