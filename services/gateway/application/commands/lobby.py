"""Lobby commands: the coin servers, their rooms, sitting, standing and the
start button (docs/client-protocol.md, "Lobby")."""

from __future__ import annotations

import json
import re
from typing import Any

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import subjects
from services.gateway.adapters.backends import READY_TIMEOUT, call
from services.gateway.application.connection import Connection
from services.gateway.domain import convert
from services.gateway.domain.protocol import ClientError, field, shown

SERVER_ID = re.compile(r"[a-z0-9_-]{1,64}")
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: A relief claim's key as a client sends it (the ledger's rule).
CLAIM_ID = re.compile(r"[A-Za-z0-9_-]{1,31}")
#: An invite code as a client may send it (the lobby checks the rest).
CODE = re.compile(r"[A-Za-z0-9 -]{1,16}")
#: Largest seat number the lobby takes (protobuf int32 ``SitRequest.seat``).
MAX_SEAT = 2**31 - 1


async def servers(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``servers``: every coin server (金币服务器)."""
    resp = await call(s.gw.backends.lobby.ListServers, lobby_pb2.ListServersRequest())
    return {"servers": [convert.server(x) for x in resp.servers],
            "relief": convert.relief(resp.relief)}


async def relief(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """救济金: relief coins for a player below every server of ``game``, once
    per ``claim`` (the client's key, reused on a retry). Reply: ``coins`` (the
    balance after), ``granted``, ``claims_left``, ``day_ends_ms``,
    ``repeated``. Refusals: the lobby's and the ledger's (``relief_off``,
    ``not_eligible``, ``relief_spent``, ``no_such_game_type``,
    ``claim_id_conflict``); ``bad_request`` for a malformed claim."""
    game, claim = field(args, "game", str), field(args, "claim", str)
    if not CLAIM_ID.fullmatch(claim):
        raise ClientError("bad_request", "'claim' must be 1-31 of [A-Za-z0-9_-]")
    resp = await call(s.gw.backends.lobby.ClaimRelief, lobby_pb2.ClaimReliefRequest(
        player=s.player, game=game, claim_id=claim))
    return {"coins": resp.coins, "granted": resp.granted, "claims_left": resp.claims_left,
            "day_ends_ms": resp.day_ends_ms, "repeated": resp.repeated}


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
    """Sit at ``room`` seat ``seat`` (an AI player's seat marked ``ai``); the
    lobby's refusals as they are."""
    room_id, seat = field(args, "room", str), field(args, "seat", int)
    if not ROOM_ID.fullmatch(room_id):
        raise ClientError("no_such_room", f"no room {shown(room_id)}")
    if not 0 <= seat <= MAX_SEAT:
        raise ClientError("no_such_seat", f"no seat {shown(seat)}")
    assert s.identity is not None
    room = await call(s.gw.backends.lobby.Sit, lobby_pb2.SitRequest(
        player=s.player, name=s.identity.name, room=room_id, seat=seat, ai=s.identity.ai))
    return {"room": await _sat(s, room)}


async def stand(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Stand up (outside a game); ``not_seated``, ``room_started``."""
    return {"room": await _stand_up(s)}


async def _stand_up(s: Connection) -> dict[str, Any]:
    room = await call(s.gw.backends.lobby.Stand, lobby_pb2.PlayerRequest(player=s.player))
    await s.stood_up()
    return convert.room(room)


async def ready(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """The seed's start button (开始); waits at most ``READY_TIMEOUT`` s (the
    lobby places the game through a JetStream election)."""
    room = await call(s.gw.backends.lobby.Ready, lobby_pb2.PlayerRequest(player=s.player),
                      timeout=READY_TIMEOUT)
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


async def open_room(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """好友房: open a private room of ``server`` and sit at its seat 0 as its
    owner; ``options`` (optional): the rule options chosen among the server's
    ``choices`` (e.g. ``{"decks": 3}``). Reply ``room``, ``code`` (the invite
    code) and ``link`` (``#join=<code>``, relative to the web client's page).
    Refusals: ``no_such_server``, ``bad_options``, ``already_seated``,
    ``not_enough_coins``, ``too_many_rooms``."""
    server = field(args, "server", str)
    if not SERVER_ID.fullmatch(server):
        raise ClientError("no_such_server", f"no server {shown(server)}")
    options = args.get("options", {})
    if not isinstance(options, dict):
        raise ClientError("bad_request", "'options' must be an object")
    assert s.identity is not None
    resp = await call(s.gw.backends.lobby.OpenRoom, lobby_pb2.OpenRoomRequest(
        player=s.player, name=s.identity.name, server=server,
        options_json=json.dumps(options, ensure_ascii=False) if options else ""))
    return {"room": await _sat(s, resp.room), "code": resp.code, "link": f"#join={resp.code}"}


def _code(args: dict[str, Any]) -> str:
    code: str = field(args, "code", str)
    if not CODE.fullmatch(code):
        raise ClientError("bad_request", "'code' must be 1-16 of [A-Za-z0-9 -]")
    return code


async def join_code(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Sit in the private room of ``code`` (at ``seat``, else the lowest free
    one). Reply ``room``. Refusals: ``too_many_attempts``, ``no_such_code``,
    then those of ``sit``."""
    code = _code(args)
    seat = args.get("seat", -1)
    if isinstance(seat, bool) or not isinstance(seat, int) or not -1 <= seat <= MAX_SEAT:
        raise ClientError("no_such_seat", f"no seat {shown(seat)}")
    assert s.identity is not None
    room = await call(s.gw.backends.lobby.JoinCode, lobby_pb2.JoinCodeRequest(
        player=s.player, name=s.identity.name, code=code, seat=seat))
    return {"room": await _sat(s, room)}


async def private_room(s: Connection, args: dict[str, Any]) -> lobby_pb2.Room:
    """The private room of ``args['code']`` (a try counted by the lobby)."""
    room: lobby_pb2.Room = await call(s.gw.backends.lobby.RoomByCode, lobby_pb2.RoomByCodeRequest(
        player=s.player, code=_code(args)))
    return room


async def kick(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """踢出: the owner of the private room it sits in stands up the player at
    ``seat`` (outside a game). Reply ``room``. Refusals: ``not_seated``,
    ``not_owner``, ``room_started``, ``no_such_seat``, ``bad_request`` (its own
    seat)."""
    seat = field(args, "seat", int)
    if not 0 <= seat <= MAX_SEAT:
        raise ClientError("no_such_seat", f"no seat {shown(seat)}")
    try:
        room = await call(s.gw.backends.lobby.RemoveSeat, lobby_pb2.RemoveSeatRequest(
            player=s.player, seat=seat))
    except ClientError as e:
        if e.code == "invalid_argument":
            raise ClientError("bad_request", "stand up instead of removing your own seat") from e
        raise
    return {"room": convert.room(room)}


async def _sat(s: Connection, room: lobby_pb2.Room) -> dict[str, Any]:
    """The connection sits in ``room`` now (it stops watching, follows the
    room): the room as the reply gives it."""
    await s.stop_watching()
    await s.seated(room)
    return convert.room(room)
