"""Protobuf replies of the lobby and table as the JSON objects clients get
(the same fields as the events of shared/spec/events.md)."""

from __future__ import annotations

import json
from typing import Any

from paiju.common.v1 import common_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.rules import ENGINES, engine
from paiju.rules import load as load_engine
from services.gateway.domain.protocol import ClientError, field


def game_title(game: str) -> str:
    """The display name of ``game`` (its engine's ``title``), or the id for a
    game this gateway does not know."""
    return load_engine(game).presentation.title or game if game in ENGINES else game


def room(r: lobby_pb2.Room) -> dict[str, Any]:
    """A room as in ``room_changed`` (services/lobby/adapters/events.py): seats with
    ``connected`` and ``away_since`` (unix ms or null), ``missing`` (the absent
    seated players, by seat) and ``last_result`` (or null)."""
    seats = [{"seat": s.seat, "player": s.player, "name": s.name, "coins": s.coins,
              "ready": s.ready, "connected": s.connected,
              "away_since": s.away_since_ms or None, "ai": s.ai} for s in r.seats]
    return {
        "server": r.server, "room": r.room, "state": r.state, "game": r.game,
        "seats": seats, "missing": [s["player"] for s in seats if not s["connected"]],
        "game_id": r.game_id, "table_instance": r.table_instance, "version": r.version,
        "size": r.size, "ready_deadline": r.ready_deadline_ms or None,
        "ready_deadline_ms": r.ready_deadline_ms,
        "last_result": result(r.last_result) if r.HasField("last_result") else None,
        "private": r.private, "owner": r.owner,
        "options": json.loads(r.options_json) if r.options_json else {},
    }


def result(x: lobby_pb2.RoomResult) -> dict[str, Any]:
    """A room's finished game (its settlement table, 结算表) as in
    ``room_changed``'s ``last_result``: game_id, record_id, ended_ms (unix ms),
    settlement [{player, seat, points, coins, fee, name}], lines [{label, value?,
    seats?}] (as ``game_finished.lines``); ``room`` too."""
    return {"room": x.room, "game_id": x.game_id, "record_id": x.record_id,
            "ended_ms": x.ended_ms,
            "settlement": [{"player": row.player, "seat": row.seat, "points": row.points,
                            "coins": row.coins, "fee": row.fee,
                            "name": x.names[i] if i < len(x.names) else ""}
                           for i, row in enumerate(x.settlement)],
            "lines": [result_line(line) for line in x.lines]}


def result_line(x: lobby_pb2.ResultLine) -> dict[str, Any]:
    """A settlement line as ``game_finished.lines`` gives it: ``{label, value,
    seats}``, value and seats only where given."""
    return engine.result_line(x.label, x.value, x.seats)


def server(s: lobby_pb2.CoinServer) -> dict[str, Any]:
    """A coin server (金币服务器), with its game's display name ``game_title``
    and ``choices``: the rule options a private room of it may choose, each
    with its allowed values (``{}``: none)."""
    return {
        "server": s.server, "name": s.name, "game": s.game, "game_title": game_title(s.game),
        "base": s.base,
        "min_coins": s.min_coins, "fee_rate": s.fee_rate, "unit": s.unit,
        "options": json.loads(s.options_json) if s.options_json else {},
        "rooms": s.rooms, "seats": s.seats, "ready_seconds": s.ready_seconds,
        "idle_disconnect_seconds": s.idle_disconnect_seconds,
        "spectators": s.allow_spectators, "practice": s.practice,
        "choices": choices(s.game),
    }


def choices(game: str) -> dict[str, list[Any]]:
    """The rule options a private room of ``game`` may choose
    (:attr:`paiju.rules.engine.Game.choices`), ``{}`` for an unknown game."""
    if game not in ENGINES:
        return {}
    return {k: list(v) for k, v in load_engine(game).choices.items()}


def relief(r: lobby_pb2.Relief) -> dict[str, Any] | None:
    """The relief offered (救济金): ``{coins, per_day, day_starts_utc_hour}``,
    or None when none is."""
    if r.coins <= 0:
        return None
    return {"coins": r.coins, "per_day": r.per_day,
            "day_starts_utc_hour": r.day_starts_utc_hour}


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
