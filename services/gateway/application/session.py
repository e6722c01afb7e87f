"""One client connection: its life, and what its command handlers use (a
:class:`~services.gateway.application.connection.Connection`).

Commands are handled one at a time in the order received, so replies keep the
commands' order (:mod:`services.gateway.application.dispatch`). Everything the
client is sent goes through one bounded queue
(:mod:`services.gateway.adapters.writer`). What the connection follows is in
:mod:`services.gateway.application.subscriptions`, signing in and out in
:mod:`services.gateway.application.signin`, where the player's game runs in
:mod:`services.gateway.application.routing`; the commands are the table
:data:`services.gateway.application.commands.COMMANDS`.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import jsontext
from paiju.table.v1 import table_pb2
from services.gateway import metrics
from services.gateway.adapters import auth
from services.gateway.adapters.keepalive import keepalive
from services.gateway.adapters.writer import SendQueue
from services.gateway.application import signin
from services.gateway.application.commands.game import view_event
from services.gateway.application.connection import Ports
from services.gateway.application.dispatch import dispatch, handle_frame
from services.gateway.application.routing import Router
from services.gateway.application.sequencing import Sequencer
from services.gateway.application.subscriptions import OnEvent, Subscriptions
from services.gateway.domain import limits
from services.gateway.domain.protocol import ClientError, TokenBucket

#: Close code: replaced by a newer connection of the same player.
CLOSE_REPLACED = 4001
#: The subscription keys of a spectator's table events and chat.
WATCH_KEYS = ("watch", "watch_chat")

#: Close code of a frame over protocol.MAX_WS_FRAME (sent by websockets itself).
CLOSE_MESSAGE_TOO_BIG = 1009


class Session:
    """One WebSocket connection (see the module docstring)."""

    def __init__(self, ws: ServerConnection, gateway: Ports) -> None:
        self.ws = ws
        self.gw = gateway
        self.id = uuid.uuid4().hex
        self.bucket = TokenBucket()
        #: Replays opened on this connection: game id → viewer, record, steps
        #: (services.gateway.application.commands.records keeps the last few).
        self.replays: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.identity: auth.Identity | None = None
        #: True once this session's presence ``connect`` was published.
        self.announced = False
        self.sends = SendQueue(ws, self.id, budget=gateway.queue_budget)
        #: The numbered events' lines: no gap or repeat reaches the client.
        self.seqs = Sequencer(self.sends.put, lambda key: view_event(self, key))
        self.subs = Subscriptions(gateway.nats, gateway.fanout, self.seqs.offer,
                                  self.seqs.forget)
        self.route = Router(gateway.backends, self.subs, lambda: self.player)
        #: The room this connection watches (旁观), or None.
        self.watching: str | None = None
        #: When the client's last frame came (``time.monotonic()``; the keepalive's).
        self.heard = 0.0

    # -- the connection's life -----------------------------------------------------

    async def run(self, token: str | None) -> None:
        """Serve the connection until it closes (``token``: the ``?token=`` of
        the URL, signed in with as an ``auth`` command)."""
        metrics.CONNECTIONS.inc()
        self.sends.start()
        pinger = asyncio.create_task(keepalive(self.ws, self.id, *self.gw.ping,
                                               heard=lambda: self.heard))
        try:
            if token:
                await dispatch(self, None, "auth", {"token": token})
            async for frame in self.ws:
                self.heard = time.monotonic()
                metrics.MESSAGES_IN.inc()
                await handle_frame(self, frame)
        except ConnectionClosed as e:
            if e.sent is not None and e.sent.code == CLOSE_MESSAGE_TOO_BIG:
                limits.refused("frame_size")
        finally:
            pinger.cancel()
            self.seqs.close()
            # First: the presence publisher forgets the session at once, so
            # that even a cancelled close leaves no session in its heartbeats.
            await signin.sign_out(self)
            await self.sends.stop()
            if self.watching is not None:
                self.watching = None
                metrics.SPECTATORS.dec()
            metrics.CONNECTIONS.dec()
            if self.identity:
                metrics.PLAYERS.dec()
            await self.subs.close()

    def resync(self) -> None:
        """The gateway's NATS connection came back: send the client its view
        of the table it follows, if any (events may have been lost meanwhile)."""
        if not self.closing:
            self.seqs.resync(self.subs.keys())

    @property
    def closing(self) -> bool:
        """True once nothing more is sent to the client."""
        return self.sends.closed

    async def close_replaced(self) -> None:
        """A newer connection of the player signed in: close this one (4001)."""
        self.sends.closed = True
        await self.ws.close(CLOSE_REPLACED, "replaced")

    # -- sending ------------------------------------------------------------------

    def send(self, obj: dict[str, Any]) -> None:
        """Queue ``obj`` for the client; cut the client off when it is too slow."""
        if not self.closing:
            self.sends.put(jsontext.dumps(obj))

    # -- the player ---------------------------------------------------------------

    @property
    def player(self) -> str:
        """The signed-in player's id (commands after sign-in only)."""
        assert self.identity is not None
        return self.identity.player

    def identify(self, identity: auth.Identity) -> None:
        """Make ``identity`` this connection's player; ``bad_request`` where it
        is signed in as another one already."""
        if self.identity is not None and self.identity.player != identity.player:
            raise ClientError("bad_request", "this connection is signed in as another player")
        if self.identity is None:
            metrics.PLAYERS.inc()
        self.identity = identity

    def forget_identity(self) -> None:
        """The connection is signed out (:func:`signin.sign_out_connection`)."""
        if self.identity is not None:
            metrics.PLAYERS.dec()
        self.identity = None

    async def sign_in(self, identity: auth.Identity,
                      account: ledger_pb2.Account | None = None) -> dict[str, Any]:
        """Sign in as ``identity`` (:func:`services.gateway.application.signin.sign_in`)."""
        return await signin.sign_in(self, identity, account)

    # -- subscriptions ------------------------------------------------------------

    async def subscribe(self, key: str, subject: str, on_event: OnEvent | None = None
                        ) -> None:
        """Forward every event of ``subject`` to the client, replacing what
        ``key`` held (:meth:`Subscriptions.follow`)."""
        await self.subs.follow(key, subject, on_event)

    async def unsubscribe(self, key: str) -> None:
        """Drop the subscription held under ``key``, if any."""
        await self.subs.drop(key)

    # -- the seat and the game ------------------------------------------------------

    async def seated(self, room: lobby_pb2.Room) -> None:
        """The player sits in ``room`` (as the lobby answered): follow its table."""
        await self.route.seated(room)

    async def stood_up(self) -> None:
        """The player sits nowhere now."""
        await self.route.stood_up()

    async def left_game(self) -> None:
        """The player left its running game (退出): it sits nowhere once the
        game ends (the lobby removes escapees)."""
        await self.route.left_game()

    async def table_call(self, method: str, make: Callable[[str], Any]) -> Any:
        """Call ``method`` of the table hosting the player's game with the request
        ``make(room)`` (:meth:`Router.table_call`; ``no_game`` without one,
        ``spectators_cannot_act`` for a spectator that sits nowhere)."""
        if self.watching is not None and self.route.seat is None:
            raise ClientError("spectators_cannot_act", "a spectator cannot act in the game")
        return await self.route.table_call(method, make)

    async def stop_watching(self) -> bool:
        """End this connection's watch (旁观), if any: its follows, and its
        presence ``watch`` of nothing. True if it watched."""
        if self.watching is None:
            return False
        self.watching = None
        for key in WATCH_KEYS:
            await self.unsubscribe(key)
        metrics.SPECTATORS.dec()
        if self.announced and self.identity is not None:
            await self.gw.presence.watch(self.player, self.id, None)
        return True

    def player_request(self, room: str) -> table_pb2.PlayerRequest:
        """The table's PlayerRequest of this player in ``room``."""
        return table_pb2.PlayerRequest(room=room, player=self.player)

    def view_request(self, room: str) -> table_pb2.ViewRequest:
        """The table's ViewRequest of this player in ``room``."""
        return table_pb2.ViewRequest(room=room, player=self.player)
