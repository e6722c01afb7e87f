"""One client connection: its commands, its subscriptions, its send queue.

Commands are handled one at a time in the order received, so replies keep the
commands' order. Everything the client is sent (replies and events) goes
through one bounded queue drained by a writer task; a client that lets
``SEND_QUEUE`` messages pile up is cut off (``slow_client``) and nobody else
waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from paiju import natsconn, subjects
from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.table.v1 import table_pb2
from services.gateway import auth, convert, metrics
from services.gateway.backends import call
from services.gateway.protocol import (
    SEND_QUEUE,
    ClientError,
    CommandError,
    TokenBucket,
    error,
    field,
    now_ms,
    parse,
    reply,
)

if TYPE_CHECKING:
    from services.gateway.gateway import Gateway

log = logging.getLogger("paiju.gateway")

#: Close code: replaced by a newer connection of the same player.
CLOSE_REPLACED = 4001
SERVER_ID = re.compile(r"[a-z0-9_-]{1,64}")
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: ``hints`` returns at most this many actions.
MAX_HINTS = 200
#: The writer sends at most this many queued messages in one socket write.
WRITE_BATCH = 64
#: Largest seat number and ``act`` de-duplication key the services take
#: (protobuf int32 ``SitRequest.seat``, int64 ``ActRequest.client_seq``).
MAX_SEAT = 2**31 - 1
MAX_CLIENT_SEQ = 2**63 - 1

Handler = Callable[["Session", dict[str, Any]], Awaitable[dict[str, Any]]]
HANDLERS: dict[str, Handler] = {}
#: Commands allowed before signing in.
OPEN_COMMANDS = {"login", "auth", "ping"}


def command(name: str) -> Callable[[Handler], Handler]:
    """Register a command handler (``async def h(session, args) -> reply fields``)."""
    def register(fn: Handler) -> Handler:
        HANDLERS[name] = fn
        return fn
    return register


@dataclass
class Seat:
    """Where the signed-in player sits: its room and, once started, the table
    instance hosting its game."""

    room: str
    server: str
    table: str = ""


class Session:
    """One WebSocket connection (see the module docstring)."""

    def __init__(self, ws: ServerConnection, gateway: Gateway) -> None:
        self.ws = ws
        self.gw = gateway
        self.id = uuid.uuid4().hex
        self.queue: asyncio.Queue[str] = asyncio.Queue(SEND_QUEUE)
        self.bucket = TokenBucket()
        self.identity: auth.Identity | None = None
        self.seat: Seat | None = None
        self.subs: dict[str, Subscription] = {}
        #: Shared subscriptions followed (Fanout handles) by key.
        self.follows: dict[str, tuple[str, int]] = {}
        self.closing = False
        self.replaced = False

    # -- the connection's life -----------------------------------------------------

    async def run(self, token: str | None) -> None:
        """Serve the connection until it closes."""
        metrics.CONNECTIONS.inc()
        writer = asyncio.create_task(self._writer())
        try:
            if token:
                await self._handle_parsed(None, "auth", {"token": token})
            async for frame in self.ws:
                metrics.MESSAGES_IN.inc()
                await self.handle(frame)
        except ConnectionClosed:
            pass
        finally:
            self.closing = True
            writer.cancel()
            metrics.CONNECTIONS.dec()
            if self.identity:
                metrics.PLAYERS.dec()
            await self._cleanup()

    async def _cleanup(self) -> None:
        for sub in list(self.subs.values()):
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        self.subs.clear()
        for handle in list(self.follows.values()):
            await self.gw.fanout.unfollow(handle)
        self.follows.clear()
        if self.identity and self.seat and not self.replaced:
            with contextlib.suppress(ClientError):
                await self._table_call("PlayerDisconnected", self._player_request)

    async def _writer(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while len(batch) < WRITE_BATCH:
                try:
                    batch.append(self.queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            try:
                if len(batch) == 1:
                    await self.ws.send(batch[0])
                else:
                    await self._send_batch(batch)
            except ConnectionClosed:
                return
            metrics.MESSAGES_OUT.inc(len(batch))

    async def _send_batch(self, batch: list[str]) -> None:
        """Send the messages of ``batch`` (each its own text frame) with one
        socket write instead of one each: events come in bursts (a play, the
        turn, the hand), and a write per frame was the gateway's largest cost
        under load (docs/performance.md). Uses the documented pattern of
        ``Connection.send_context`` with the Sans-I/O protocol."""
        ws = self.ws
        async with ws.send_context():
            for text in batch:
                ws.protocol.send_text(text.encode())
            chunks = ws.protocol.data_to_send()
            data = b"".join(chunks)
            if data:
                ws.transport.write(data)
            if any(not c for c in chunks):  # end of stream: as send_data() does
                if ws.transport.can_write_eof():
                    ws.transport.write_eof()
                else:
                    ws.transport.close()

    def send(self, obj: dict[str, Any]) -> None:
        """Queue ``obj`` for the client; cut the client off when it is too slow."""
        if not self.closing:
            self.send_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        """Queue the JSON ``text`` for the client; cut the client off when it is
        too slow."""
        if self.closing:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closing = True
            metrics.SLOW_CLIENT_DISCONNECTS.inc()
            log.info("slow client cut off", extra={"conn": self.id})
            # The client reads nothing, so a closing handshake would wait in vain.
            self.ws.transport.abort()

    # -- commands -----------------------------------------------------------------

    async def handle(self, frame: str | bytes) -> None:
        """Handle one frame: parse it, check the rate, run its command, reply."""
        try:
            cmd = parse(frame)
        except CommandError as e:
            self._refuse(e.id, e.error)
            return
        except ClientError as e:
            self._refuse(None, e)
            return
        if not self.bucket.take():
            self._refuse(cmd.id, ClientError("rate_limited", "too many commands; slow down"))
            return
        await self._handle_parsed(cmd.id, cmd.cmd, cmd.args)

    async def _handle_parsed(self, cid: str | int | None, name: str, args: dict[str, Any]
                             ) -> None:
        handler = HANDLERS.get(name)
        if handler is None:
            self._refuse(cid, ClientError("unknown_command", f"no command {name!r}"))
            return
        start = time.perf_counter()
        try:
            if self.identity is None and name not in OPEN_COMMANDS:
                raise ClientError("unauthenticated", "sign in first (login or auth)")
            self.send(reply(cid, **await handler(self, args | {"_id": cid})))
        except ClientError as e:
            self._refuse(cid, e)
        except Exception:
            log.exception("command failed", extra={"cmd": name, "conn": self.id})
            self._refuse(cid, ClientError("internal", "the gateway failed on this command"))
        finally:
            metrics.COMMAND_SECONDS.labels(name).observe(time.perf_counter() - start)

    def _refuse(self, cid: str | int | None, e: ClientError) -> None:
        metrics.ERRORS.labels(e.code).inc()
        self.send(error(cid, e.code, e.message))

    @property
    def player(self) -> str:
        """The signed-in player's id (commands after sign-in only)."""
        assert self.identity is not None
        return self.identity.player

    # -- subscriptions ------------------------------------------------------------

    async def subscribe(self, key: str, subject: str,
                        on_event: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Forward every event of ``subject`` to the client (replacing the
        subscription held under ``key``). The gateway holds one NATS
        subscription per subject, shared by the connections that follow it
        (:class:`services.gateway.fanout.Fanout`)."""
        old = self.follows.pop(key, None)
        if old is not None:
            await self.gw.fanout.unfollow(old)

        def forward(event: dict[str, Any], text: str) -> None:
            if on_event is not None:
                on_event(event)
            self.send_text(text)

        handle = await self.gw.fanout.follow(subject, forward)
        if self.closing:  # the connection ended while subscribing
            await self.gw.fanout.unfollow(handle)
            return
        self.follows[key] = handle

    async def unsubscribe(self, key: str) -> None:
        """Drop the subscription held under ``key``, if any."""
        handle = self.follows.pop(key, None)
        if handle is not None:
            await self.gw.fanout.unfollow(handle)

    async def sign_in(self, identity: auth.Identity) -> dict[str, Any]:
        """Make ``identity`` this connection's player: its private subjects,
        closing its older connections, and resuming its seat and game."""
        if self.identity is not None and self.identity.player != identity.player:
            raise ClientError("bad_request", "this connection is signed in as another player")
        first = self.identity is None
        self.identity = identity
        if first:
            metrics.PLAYERS.inc()
        player = identity.player
        await self.subscribe("player", subjects.player_events(player))
        control = subjects.player_control(player)

        async def on_control(msg: Msg) -> None:
            event = natsconn.decode(msg.data)
            if event.get("type") == "session_started" and event.get("session") != self.id:
                self.replaced = True
                self.closing = True
                await self.ws.close(CLOSE_REPLACED, "replaced")

        old = self.subs.pop("control", None)
        if old is not None:
            await old.unsubscribe()
        self.subs["control"] = await self.gw.nats.subscribe(control, cb=on_control)
        await natsconn.publish(self.gw.nats, control, "session_started",
                               {"player": player, "session": self.id})
        account = await call(self.gw.backends.ledger.GetBalance,
                             ledger_pb2.GetBalanceRequest(player=player))
        room = await self._resume()
        return {"player": player, "name": identity.name, "coins": account.coins,
                "room": convert.room(room) if room is not None else None}

    async def _resume(self) -> lobby_pb2.Room | None:
        """Find the player's seat (after a reconnect) and have its game's view
        sent; the room, or ``None`` where the player sits nowhere."""
        try:
            room: lobby_pb2.Room = await self.gw.backends.lobby.WhereIs(
                lobby_pb2.PlayerRequest(player=self.player), timeout=5)
        except grpc.aio.AioRpcError:
            return None  # seated nowhere (or the lobby is away: the client asks again)
        await self._seated(room)
        if self.seat and self.seat.table:
            # The table answers with the player's whole `view` on its subject.
            with contextlib.suppress(ClientError):
                await self._table_call("PlayerReconnected", self._player_request)
        return room

    async def _seated(self, room: lobby_pb2.Room) -> None:
        """Remember the player's room and follow its table's public events."""
        if not room.room:
            return
        table = room.table_instance if room.state == "started" else ""
        if self.seat is None or self.seat.room != room.room:
            self.seat = Seat(room.room, room.server, table)
            await self.subscribe("table", subjects.table_events(room.room), self._on_table)
        else:
            self.seat.table = table or self.seat.table

    def _player_request(self, room: str) -> table_pb2.PlayerRequest:
        return table_pb2.PlayerRequest(room=room, player=self.player)

    def view_request(self, room: str) -> table_pb2.ViewRequest:
        """The ViewRequest of this player in ``room``."""
        return table_pb2.ViewRequest(room=room, player=self.player)

    def _on_table(self, event: dict[str, Any]) -> None:
        # A new game may run on another instance: game_started names it (the
        # address the lobby placed it at); without it, and after a game, the
        # lobby is asked (WhereIs) at the next game command.
        kind = event.get("type")
        if kind in ("game_started", "game_finished") and self.seat:
            where = event.get("table_instance") if kind == "game_started" else None
            self.seat.table = where if isinstance(where, str) else ""

    async def _table_call(self, method: str, make: Callable[[str], Any]) -> Any:
        """Call ``method`` of the table instance hosting the player's game with
        the request ``make(room)`` (asking the lobby where the game is when not
        known); ``no_game`` when there is none."""
        if self.seat is None or not self.seat.table:
            try:
                room = await self.gw.backends.lobby.WhereIs(
                    lobby_pb2.PlayerRequest(player=self.player), timeout=5)
            except grpc.aio.AioRpcError as e:
                raise ClientError("no_game", "you sit at no running game") from e
            await self._seated(room)
        if self.seat is None or not self.seat.table:
            raise ClientError("no_game", "your room has no running game")
        stub = self.gw.backends.table(self.seat.table)
        return await call(getattr(stub, method), make(self.seat.room))


def client_seq(cid: str | int | None) -> int:
    """The de-duplication key of an ``act`` command (``ActRequest.client_seq``,
    int64): an integer ``id`` from 1 to 2**63 - 1 as it is; any other ``id``
    (a string, 0, a negative or larger integer) hashed to 56 bits; 0 (no
    de-duplication) without an ``id``."""
    if isinstance(cid, int) and 0 < cid <= MAX_CLIENT_SEQ:
        return cid
    if cid is None:
        return 0
    return int.from_bytes(hashlib.sha256(str(cid).encode()).digest()[:7], "big")


# -- command handlers (docs/client-protocol.md) ----------------------------------------


@command("ping")
async def _ping(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    return {"pong": now_ms()}


@command("login")
async def _login(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    if not s.gw.config.dev_mode:
        raise ClientError("login_disabled", "login by name is for development mode only")
    name = field(args, "name", str).strip()
    if not auth.NAME.fullmatch(name):
        raise ClientError("bad_request", "a name has 1 to 24 printable characters")
    player = auth.dev_player_id(name)
    token = await s.gw.dev_account(player, name)
    return {"token": token, **await s.sign_in(auth.Identity(player, name))}


@command("auth")
async def _auth(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    try:
        identity = auth.verify(s.gw.config.token_secret, args.get("token"))
    except auth.BadToken as e:
        raise ClientError("bad_token", str(e)) from e
    return await s.sign_in(identity)


@command("servers")
async def _servers(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    resp = await call(s.gw.backends.lobby.ListServers, lobby_pb2.ListServersRequest())
    return {"servers": [convert.server(x) for x in resp.servers]}


@command("rooms")
async def _rooms(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    server = field(args, "server", str)
    resp = await call(s.gw.backends.lobby.ListRooms, lobby_pb2.ListRoomsRequest(server=server))
    return {"rooms": [convert.room(r) for r in resp.rooms]}


@command("watch_server")
async def _watch(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    server = field(args, "server", str)
    if not SERVER_ID.fullmatch(server):
        raise ClientError("bad_request", "no such server id")
    await s.subscribe("lobby", subjects.lobby_rooms(server))
    return {"server": server}


@command("sit")
async def _sit(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    room_id, seat = field(args, "room", str), field(args, "seat", int)
    if not ROOM_ID.fullmatch(room_id):
        raise ClientError("no_such_room", f"no room {room_id!r}")
    if not 0 <= seat <= MAX_SEAT:
        raise ClientError("no_such_seat", f"no seat {seat}")
    assert s.identity is not None
    room = await call(s.gw.backends.lobby.Sit, lobby_pb2.SitRequest(
        player=s.player, name=s.identity.name, room=room_id, seat=seat))
    await s._seated(room)
    return {"room": convert.room(room)}


@command("stand")
async def _stand(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    room = await call(s.gw.backends.lobby.Stand, lobby_pb2.PlayerRequest(player=s.player))
    s.seat = None
    await s.unsubscribe("table")
    return {"room": convert.room(room)}


@command("ready")
async def _ready(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    room = await call(s.gw.backends.lobby.Ready, lobby_pb2.PlayerRequest(player=s.player))
    await s._seated(room)
    return {"room": convert.room(room)}


@command("act")
async def _act(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    action, seq = convert.action(args), client_seq(args["_id"])
    resp = await s._table_call("Act", lambda room: table_pb2.ActRequest(
        room=room, player=s.player, action=action, client_seq=seq))
    if not resp.ok:
        raise ClientError(resp.error, resp.message)
    return {"seq": resp.seq}


@command("check")
async def _check(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    action = convert.action(args)
    resp = await s._table_call("Check", lambda room: table_pb2.ActRequest(
        room=room, player=s.player, action=action))
    return {"legal": resp.ok, **({} if resp.ok else {"error": resp.error,
                                                     "message": resp.message})}


@command("hints")
async def _hints(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    resp = await s._table_call("Hints", s.view_request)
    return {"actions": [convert.action_json(a) for a in resp.actions[:MAX_HINTS]]}


@command("view")
async def _view(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    resp = await s._table_call("GetView", s.view_request)
    return {"view": json.loads(resp.json)}


@command("scores")
async def _scores(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    resp = await s._table_call("GetScores", s.view_request)
    return {"scores": json.loads(resp.json)}


@command("last_trick")
async def _last_trick(s: Session, args: dict[str, Any]) -> dict[str, Any]:
    resp = await s._table_call("GetLastTrick", s.view_request)
    return {"trick": json.loads(resp.json)}
