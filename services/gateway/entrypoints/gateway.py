"""The gateway's shared state: configuration, NATS, the service clients, and
the WebSocket handler that gives each connection its :class:`Session`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from nats.aio.client import Client as NATS
from websockets.asyncio.server import ServerConnection

from paiju.config import Config
from paiju.ledger.v1 import ledger_pb2
from paiju.presence.book import wall_ms
from paiju.presence.publisher import PresencePublisher
from paiju.presence.spectators import SpectatorWatcher
from paiju.runtime import subjects
from paiju.runtime.table_instances import TableInstances
from services.gateway import metrics
from services.gateway.adapters import auth
from services.gateway.adapters.backends import IN_FLIGHT, Backends, call
from services.gateway.adapters.fanout import Fanout
from services.gateway.application.commands import chat
from services.gateway.application.session import Session
from services.gateway.domain.admission import Admission
from services.gateway.domain.limits import (
    CLOSE_TRY_AGAIN_LATER,
    Connections,
    PlayerBuckets,
    QueueBudget,
    SessionRate,
)

#: Seconds between two measures of the event loop's lag.
LAG_SAMPLE_SECONDS = 0.1


@dataclass
class Gateway:
    """What every connection of one gateway process shares."""

    config: Config
    nats: NATS
    backends: Backends
    #: Publishes the signed-in sessions (paiju.presence, PRESENCE.md).
    presence: PresencePublisher
    fanout: Fanout = field(init=False)
    #: Checks client tokens (services.gateway.adapters.auth).
    verifier: auth.Verifier = field(init=False)
    #: The limits of services.gateway.domain.limits, from the configuration.
    connections: Connections = field(init=False)
    session_rate: SessionRate = field(init=False)
    queue_budget: QueueBudget = field(init=False)
    #: The quick chat's rate per player, all its connections
    #: (services.gateway.application.commands.chat).
    chat_rate: PlayerBuckets = field(init=False)
    #: The spectator counts of every room, from all gateways' presence.
    spectators: SpectatorWatcher = field(init=False)
    #: The gateway's headroom (services.gateway.domain.admission).
    admission: Admission = field(init=False)
    #: The table instances that announced themselves (read when a record is
    #: looked for: any instance serves the record store they share).
    table_instances: TableInstances = field(init=False)
    #: The open connections (each told when NATS came back: :meth:`resync`).
    sessions: set[Session] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        cfg = self.config
        self.fanout = Fanout(self.nats)
        self.verifier = auth.Verifier.from_config(cfg)
        self.connections = Connections(cfg.gateway_max_connections,
                                       cfg.gateway_max_connections_per_address)
        self.session_rate = SessionRate(cfg.gateway_sessions_per_player_per_minute)
        self.queue_budget = QueueBudget(cfg.gateway_max_queued_bytes)
        self.admission = Admission(cfg.gateway_max_calls_in_flight,
                                   cfg.gateway_max_loop_lag_seconds,
                                   cfg.gateway_max_act_seconds)
        self.chat_rate = PlayerBuckets(1 / chat.CHAT_EVERY_SECONDS, chat.CHAT_BURST)
        self.table_instances = TableInstances(self.nats)
        self.spectators = SpectatorWatcher(
            self.nats, self.tell_spectators,
            timeout_ms=int(cfg.presence_timeout_seconds * 1000))

    async def tell_spectators(self, room: str, count: int) -> None:
        """``room``'s spectator count changed: the event ``{"type":
        "spectators", "room", "count", "ts"}`` to this gateway's followers of
        the room's table (its seated players and spectators)."""
        self.fanout.inject(subjects.table_events(room), {
            "type": "spectators", "room": room, "count": count, "ts": wall_ms()})

    def spectator_count(self, room: str, session: str | None = None) -> int:
        """How many watch ``room`` on every gateway, counting ``session`` of
        this gateway as a spectator of it (its own ``watch`` may not have come
        back from NATS yet)."""
        count = self.spectators.book.count(room)
        if session is not None and self.spectators.book.watching(
                self.presence.gateway_id, session) != room:
            count += 1
        return count

    async def watch_loop_lag(self) -> None:
        """Measure, every :data:`LAG_SAMPLE_SECONDS`, how late the event loop
        runs a timer (seconds; ``paiju_gateway_loop_lag_seconds``), for the
        admission control, and show the calls in flight
        (``paiju_gateway_calls_in_flight``) and the acts' median answer time
        (``paiju_gateway_act_median_seconds``). Runs until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(LAG_SAMPLE_SECONDS)
            now = loop.time()
            lag = max(0.0, now - start - LAG_SAMPLE_SECONDS)
            self.admission.lag_seen(now, lag)
            metrics.LOOP_LAG.set(lag)
            metrics.CALLS_IN_FLIGHT.set(IN_FLIGHT.count)
            metrics.ACT_TIME.set(self.admission.act_time(now))

    @property
    def ping(self) -> tuple[float, float]:
        """WebSocket ping interval and pong timeout, seconds
        (services.gateway.adapters.keepalive)."""
        return (self.config.gateway_ping_interval_seconds,
                self.config.gateway_ping_timeout_seconds)

    async def handler(self, ws: ServerConnection) -> None:
        """Serve one WebSocket connection (``/ws``, optional ``?token=``);
        closed at once with 1013 where the gateway holds
        ``PAIJU_GATEWAY_MAX_CONNECTIONS`` connections already, or
        ``PAIJU_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS`` from the client's address."""
        path = ws.request.path if ws.request else ""
        token = parse_qs(urlsplit(path).query).get("token", [None])[0]
        peer = ws.remote_address
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        why = self.connections.admit(address)
        if why is not None:
            await ws.close(CLOSE_TRY_AGAIN_LATER, why)
            return
        session = Session(ws, self)
        self.sessions.add(session)
        try:
            await session.run(token)
        finally:
            self.sessions.discard(session)
            self.connections.release(address)

    def resync(self) -> None:
        """The gateway's NATS connection came back (nats-py resubscribed):
        what was published meanwhile is lost, so every connection that follows
        a table is sent its view (:meth:`Session.resync`)."""
        for session in list(self.sessions):
            session.resync()

    async def ai_account(self, player: str, name: str) -> ledger_pb2.Account:
        """An AI token's player (机器人): open its account; in development mode
        also grant it PAIJU_AI_START_COINS from the house once (idempotent by
        grant id ``ai-start-<player>``, reason ``ai_start``). Outside it the
        gateway may not grant (paiju/security/authz.py): the operator funds AI
        accounts (``paiju admin fund-ai``). The account as it is now."""
        account: ledger_pb2.Account = await call(
            self.backends.ledger.OpenAccount,
            ledger_pb2.OpenAccountRequest(player=player, name=name))
        if self.config.dev_mode:
            account = await call(self.backends.ledger.Grant, ledger_pb2.GrantRequest(
                player=player, coins=self.config.ai_start_coins, reason="ai_start",
                grant_id=f"ai-start-{player}"),
                metadata=(("x-paiju-grant-key", self.config.grant_key),))
        return account

    async def dev_account(self, player: str, name: str, ai: bool = False
                          ) -> tuple[str, ledger_pb2.Account]:
        """Development login: open ``player``'s account, grant the starting coins
        (PAIJU_DEV_START_COINS) once (idempotent by grant id), and issue a token
        (lifetime PAIJU_TOKEN_TTL_SECONDS; ``ai``: an AI player's). Returns the
        token and the account as the grant left it (its balance now, also for
        a repeated grant)."""
        await call(self.backends.ledger.OpenAccount,
                   ledger_pb2.OpenAccountRequest(player=player, name=name))
        account = await call(self.backends.ledger.Grant,
                   ledger_pb2.GrantRequest(player=player, coins=self.config.dev_start_coins,
                                           reason="dev_login", grant_id=f"dev-start-{player}"),
                   metadata=(("x-paiju-grant-key", self.config.grant_key),))
        return auth.issue(self.config.token_secret, player, name,
                          self.config.token_ttl_seconds, ai=ai), account
