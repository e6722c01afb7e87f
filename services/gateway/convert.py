"""Protobuf replies of the lobby and table as the JSON objects clients get
(the same fields as the events of shared/spec/events.md)."""

from __future__ import annotations

import json
from typing import Any

from paiju.common.v1 import common_pb2
from paiju.lobby.v1 import lobby_pb2
from services.gateway.protocol import ClientError, field


def room(r: lobby_pb2.Room) -> dict[str, Any]:
    """A room as in ``room_changed``."""
    return {
        "server": r.server, "room": r.room, "state": r.state, "game": r.game,
        "seats": [{"seat": s.seat, "player": s.player, "name": s.name, "coins": s.coins,
                   "ready": s.ready} for s in r.seats],
        "game_id": r.game_id, "table_instance": r.table_instance, "version": r.version,
        "size": r.size, "ready_deadline": r.ready_deadline_ms or None,
        "ready_deadline_ms": r.ready_deadline_ms,
    }


def server(s: lobby_pb2.CoinServer) -> dict[str, Any]:
    """A coin server (金币服务器)."""
    return {
        "server": s.server, "name": s.name, "game": s.game, "base": s.base,
        "min_coins": s.min_coins, "fee_rate": s.fee_rate, "unit": s.unit,
        "options": json.loads(s.options_json) if s.options_json else {},
        "rooms": s.rooms, "seats": s.seats, "ready_seconds": s.ready_seconds,
    }


def action(args: dict[str, Any]) -> common_pb2.Action:
    """The ``action`` field of an ``act`` / ``check`` command as a protobuf
    Action; ``bad_request`` when it is not ``{"type": str, "cards": [str]}``."""
    obj = field(args, "action", dict)
    typ = obj.get("type")
    cards = obj.get("cards", [])
    if not isinstance(typ, str) or not isinstance(cards, list) or len(cards) > 64 \
            or not all(isinstance(c, str) and len(c) <= 4 for c in cards):
        raise ClientError("bad_request", "an action is {type: string, cards: [card, ...]}")
    return common_pb2.Action(type=typ, cards=cards)


def action_json(a: common_pb2.Action) -> dict[str, Any]:
    """A protobuf Action as a record action (without the seat)."""
    out: dict[str, Any] = {"type": a.type}
    if a.cards:
        out["cards"] = list(a.cards)
    return out
