"""Game commands, routed to the table instance hosting the player's game
(docs/client-protocol.md, "Playing"); ``no_game`` without one."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from paiju.common.v1 import common_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.rules.bounded import HINT_PLAYS
from paiju.table.v1 import table_pb2
from services.gateway.adapters.backends import call
from services.gateway.application.commands import watch as watch_commands
from services.gateway.application.connection import Connection
from services.gateway.domain import convert
from services.gateway.domain.protocol import ClientError

#: Largest ``act`` de-duplication key the table takes (int64 ``ActRequest.client_seq``).
MAX_CLIENT_SEQ = 2**63 - 1


def capped_hints(actions: Sequence[common_pb2.Action]) -> list[common_pb2.Action]:
    """``actions`` in their order, without the plays after the
    :data:`~paiju.rules.bounded.HINT_PLAYS`-th: every non-play option stays."""
    out: list[common_pb2.Action] = []
    plays = 0
    for a in actions:
        if a.type == "play":
            plays += 1
            if plays > HINT_PLAYS:
                continue
        out.append(a)
    return out


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


async def act(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Play ``action``; ``seq`` after it, or the rules' refusal."""
    action, seq = convert.action(args), client_seq(args["_id"])
    resp = await s.table_call("Act", lambda room: table_pb2.ActRequest(
        room=room, player=s.player, action=action, client_seq=seq))
    if not resp.ok:
        raise ClientError(resp.error, resp.message)
    return {"seq": resp.seq}


async def check(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Would ``action`` be legal now (``legal``, and ``error`` where not)?"""
    action = convert.action(args)
    resp = await s.table_call("Check", lambda room: table_pb2.ActRequest(
        room=room, player=s.player, action=action))
    return {"legal": resp.ok, **({} if resp.ok else {"error": resp.error,
                                                     "message": resp.message})}


async def hints(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``actions``: the player's legal actions now (:func:`capped_hints`)."""
    resp = await s.table_call("Hints", s.view_request)
    return {"actions": [convert.action_json(a) for a in capped_hints(resp.actions)]}


async def seat_view(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """The player's decision inputs at its own seat (an AI player's
    :class:`~paiju.rules.ai.SeatView`): ``view``, ``legal`` (record actions),
    ``history`` (the record so far as its seat saw it) and ``options`` (the
    game's options). A spectator that
    sits nowhere gets ``spectators_cannot_act``, a player without a game
    ``no_game``."""
    resp = await s.table_call("GetSeatView", s.view_request)
    found: dict[str, Any] = json.loads(resp.json)
    return {k: found[k] for k in ("view", "legal", "history", "options")}


async def view(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``view``: everything the player may see of its game; a spectator's
    (旁观) is the table's public view of the watched room's game."""
    if s.watching is not None and s.route.seat is None:
        found = await watched_view(s)
        if found is None:
            raise ClientError("no_game", "the watched room has no running game")
        return {"view": found, "spectators": s.gw.spectator_count(s.watching, s.id)}
    resp = await s.table_call("GetView", s.view_request)
    seat = s.route.seat
    return {"view": json.loads(resp.json),
            "spectators": s.gw.spectator_count(seat.room) if seat else 0}


async def watched_view(s: Connection) -> dict[str, Any] | None:
    """The public view of the room ``s`` watches (旁观), or ``None`` where it
    watches none or the room runs no game. Raises ``ClientError`` where the
    lobby does not answer."""
    if s.watching is None:
        return None
    room = await call(s.gw.backends.lobby.GetRoom, lobby_pb2.GetRoomRequest(room=s.watching))
    return await watch_commands.public_view(s, room)


async def view_event(s: Connection, key: str) -> dict[str, Any] | None:
    """The ``view`` event that brings ``s``'s client level
    (:mod:`services.gateway.application.sequencing`): for ``key`` ``watch``
    the watched room's public view (never a hand; its ``seq`` the public
    one), else the player's own view (its own seat's hand only; its ``seq``
    the player's ``player_seq``, ``public_seq`` the table's). ``None`` where
    no game runs to view; ``ClientError`` where a service does not answer."""
    if key == "watch":
        public = await watched_view(s)
        return None if public is None else {**public, "type": "view"}
    if s.route.seat is None:
        return None
    resp = await s.table_call("GetView", s.view_request)
    own: dict[str, Any] = json.loads(resp.json)
    return {**own, "type": "view", "seq": own["player_seq"]}


async def public_read(s: Connection, rpc: str) -> dict[str, Any]:
    """The table's public ``rpc`` (GetScores, GetLastTrick) of the player's
    game, or of the watched room's game for a spectator (旁观: an empty
    player); ``no_game`` where the watched room has none."""
    if s.watching is not None and s.route.seat is None:
        room = await call(s.gw.backends.lobby.GetRoom, lobby_pb2.GetRoomRequest(room=s.watching))
        if not room.table_instance:
            raise ClientError("no_game", "the watched room has no running game")
        resp = await call(getattr(s.gw.backends.table(room.table_instance), rpc),
                          table_pb2.ViewRequest(room=room.room))
    else:
        resp = await s.table_call(rpc, s.view_request)
    found: dict[str, Any] = json.loads(resp.json)
    return found


async def scores(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``scores``: 看分, to a seated player or a spectator (:func:`public_read`)."""
    return {"scores": await public_read(s, "GetScores")}


async def last_trick(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``trick``: 上一轮, to a seated player or a spectator (:func:`public_read`)."""
    return {"trick": await public_read(s, "GetLastTrick")}
