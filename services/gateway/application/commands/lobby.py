"""Lobby commands: the coin servers, their rooms, sitting, standing and the
start button (docs/client-protocol.md, "Lobby")."""

from __future__ import annotations

import re
from typing import Any

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import subjects
from services.gateway.adapters.backends import call
from services.gateway.application.connection import Connection
from services.gateway.domain import convert
from services.gateway.domain.protocol import ClientError, field, shown

SERVER_ID = re.compile(r"[a-z0-9_-]{1,64}")
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Largest seat number the lobby takes (protobuf int32 ``SitRequest.seat``).
MAX_SEAT = 2**31 - 1


async def servers(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``servers``: every coin server (金币服务器)."""
    resp = await call(s.gw.backends.lobby.ListServers, lobby_pb2.ListServersRequest())
    return {"servers": [convert.server(x) for x in resp.servers]}


async def rooms(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``rooms``: the rooms of ``server``."""
    server = field(args, "server", str)
    resp = await call(s.gw.backends.lobby.ListRooms, lobby_pb2.ListRoomsRequest(server=server))
    return {"rooms": [convert.room(r) for r in resp.rooms]}


async def watch_server(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Follow ``server``'s ``room_changed`` events (one watched server at a time)."""
    server = field(args, "server", str)
    if not SERVER_ID.fullmatch(server):
        raise ClientError("bad_request", "no such server id")
    await s.subscribe("lobby", subjects.lobby_rooms(server))
    return {"server": server}


async def sit(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Sit at ``room`` seat ``seat``; the lobby's refusals as they are."""
    room_id, seat = field(args, "room", str), field(args, "seat", int)
    if not ROOM_ID.fullmatch(room_id):
        raise ClientError("no_such_room", f"no room {shown(room_id)}")
    if not 0 <= seat <= MAX_SEAT:
        raise ClientError("no_such_seat", f"no seat {shown(seat)}")
    assert s.identity is not None
    room = await call(s.gw.backends.lobby.Sit, lobby_pb2.SitRequest(
        player=s.player, name=s.identity.name, room=room_id, seat=seat))
    await s.stop_watching()
    await s.seated(room)
    return {"room": convert.room(room)}


async def stand(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Stand up (outside a game); ``not_seated``, ``room_started``."""
    return {"room": await _stand_up(s)}


async def _stand_up(s: Connection) -> dict[str, Any]:
    room = await call(s.gw.backends.lobby.Stand, lobby_pb2.PlayerRequest(player=s.player))
    await s.stood_up()
    return convert.room(room)


async def ready(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """The seed's start button (开始)."""
    room = await call(s.gw.backends.lobby.Ready, lobby_pb2.PlayerRequest(player=s.player))
    await s.seated(room)
    return {"room": convert.room(room)}


async def leave(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """退出. During a game: the table's ``Leave``, an escape (seed 000 例外:
    主动退出的玩家被视为逃跑; the game ends and is settled as the rules settle
    an escape; the lobby removes the escapee from the room at the game's end,
    and the connection follows the table until ``game_finished``); reply
    ``escaped: true``. Outside one: stand up as ``stand`` does; reply
    ``escaped: false`` and ``room``. Refusals: ``not_seated``, and those of
    ``stand``. A spectator (旁观) that sits nowhere stops watching: reply
    ``escaped: false``, ``watching: false``."""
    if s.watching is not None and s.route.seat is None:
        await s.stop_watching()
        return {"escaped": False, "watching": False}
    try:
        await s.table_call("Leave", s.player_request)
    except ClientError as e:
        if e.code != "no_game":
            raise
    else:
        await s.left_game()
        return {"escaped": True}
    return {"escaped": False, "room": await _stand_up(s)}
