"""Watching a game (旁观) and quick start (快速开始): docs/client-protocol.md
"Spectators" and "Quick start".

A spectator follows the room's public table events (the same subject and
rule as the seated players: never a hand, never a hidden card) and its quick
chat, gets the table's public view, is not seated (the lobby knows nothing of
it) and cannot act. Its session announces the room it watches on presence
(``watch``), so that every gateway counts the room's spectators
(paiju/presence/spectators.py) and tells the room's followers (``spectators``).
"""

from __future__ import annotations

import json
from typing import Any

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import subjects
from paiju.table.v1 import table_pb2
from services.gateway import metrics
from services.gateway.adapters.backends import call
from services.gateway.application.commands.lobby import ROOM_ID, private_room
from services.gateway.application.connection import Connection
from services.gateway.domain import convert
from services.gateway.domain.protocol import ClientError, field, shown


async def public_view(s: Connection, room: lobby_pb2.Room) -> dict[str, Any] | None:
    """The table's public view of ``room``'s running game (GetPublicView), or
    ``None`` where the table does not answer with one (the client asks again)."""
    if not room.table_instance:
        return None
    try:
        resp = await call(s.gw.backends.table(room.table_instance).GetPublicView,
                          table_pb2.ViewRequest(room=room.room))
    except ClientError:
        return None
    view: dict[str, Any] = json.loads(resp.json)
    return view


async def seat_of(s: Connection) -> lobby_pb2.Room | None:
    """The room the player sits in, or ``None``: the lobby's ``WhereIs``; its
    failure (other than ``not_seated``) refuses the watch (``unavailable``), so
    that a seated player never watches another game for want of an answer."""
    try:
        room: lobby_pb2.Room = await call(s.gw.backends.lobby.WhereIs,
                                          lobby_pb2.PlayerRequest(player=s.player))
    except ClientError as e:
        if e.code == "not_seated":
            return None
        raise
    return room if room.room else None


async def watch(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """旁观 ``room``: reply ``room``, ``view`` (the public view) and
    ``spectators`` (how many watch it now, this one included). Refusals, in
    this order: ``no_such_room``, ``spectators_forbidden`` (its server's
    room-wide option ``spectators`` is false), ``room_not_started`` (only a
    started room is watched), ``seated_elsewhere`` (the player sits in another room). A player
    seated in this very room is answered its own ``view`` (``seated: true``)
    and not counted. Watching another room ends the former watch. A private
    room (好友房) is watched by its ``code`` (instead of ``room``; refusals
    ``too_many_attempts``, ``no_such_code``); by its id it is ``no_such_room``."""
    if "code" in args:
        room = await private_room(s, args)
        room_id = room.room
    else:
        room_id = field(args, "room", str)
        if not ROOM_ID.fullmatch(room_id):
            raise ClientError("no_such_room", f"no room {shown(room_id)}")
        room = await call(s.gw.backends.lobby.GetRoom, lobby_pb2.GetRoomRequest(room=room_id))
        if room.private:
            raise ClientError("no_such_room", f"no room {shown(room_id)}")
    servers = await call(s.gw.backends.lobby.ListServers, lobby_pb2.ListServersRequest())
    server = next((x for x in servers.servers if x.server == room.server), None)
    if server is not None and not server.allow_spectators:
        raise ClientError("spectators_forbidden", f"watching is off in {room.server}")
    if room.state != "started":
        raise ClientError("room_not_started", f"room {room_id} has no game to watch")
    seat = await seat_of(s)
    if seat is not None:
        if seat.room != room_id:
            raise ClientError("seated_elsewhere", f"you sit in {seat.room}: a seated player "
                              "watches no other game")
        await s.stop_watching()
        await s.seated(seat)
        own = await s.table_call("GetView", s.view_request)
        return {"room": convert.room(room), "view": json.loads(own.json), "seated": True,
                "spectators": s.gw.spectator_count(room_id)}
    if s.watching != room_id:
        await s.stop_watching()
        await s.subscribe("watch", subjects.table_events(room_id))
        await s.subscribe("watch_chat", subjects.chat(room_id))
        s.watching = room_id
        metrics.SPECTATORS.inc()
        metrics.WATCHES.inc()
        await s.gw.presence.watch(s.player, s.id, room_id)
    return {"room": convert.room(room), "view": await public_view(s, room), "seated": False,
            "spectators": s.gw.spectator_count(room_id, s.id)}


async def unwatch(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Stop watching (a spectator leaves freely); ``watching``: whether it watched."""
    return {"watching": await s.stop_watching()}


async def quick_start(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """快速开始 in ``game``: the lobby seats the player at the best room it can
    afford (its QuickStart: the fullest waiting room first, then an idle one);
    reply ``room``. Refusals: ``no_such_game_type``, ``already_seated``,
    ``not_enough_coins``, ``no_free_room``. A watch ends once seated."""
    game = field(args, "game", str)
    assert s.identity is not None
    room = await call(s.gw.backends.lobby.QuickStart, lobby_pb2.QuickStartRequest(
        player=s.player, name=s.identity.name, game=game))
    await s.stop_watching()
    await s.seated(room)
    metrics.QUICK_STARTS.inc()
    return {"room": convert.room(room)}
