"""The game record of a running game (records.md), as the table stores it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from services.table.outgoing import ms

if TYPE_CHECKING:
    from services.table.game import RunningGame


def game_record(game: RunningGame) -> dict[str, Any]:
    """The record (records.md): game, options, deal, actions as applied (system
    ones too), plus game_id, room, server, players, table_options, and once the
    game finished reason, result, finished_at; started_at / finished_at in unix ms.
    A game an operator voided has reason ``void``, no result, and ``void``:
    ``{"by", "why", "at"}`` (who, why, when in unix ms; docs/table.md).
    ``paiju replay`` plays ``options``, ``deal`` and ``actions`` again."""
    topts = game.topts
    rec: dict[str, Any] = {
        "game": game.name,
        "options": dict(game.engine_options),
        "deal": dict(game.deal),
        "actions": list(game.actions),
        "game_id": game.game_id,
        "room": game.room,
        "server": game.server,
        "players": [{"seat": s.seat, "player": s.player, "name": s.name}
                    for s in game.seats],
        "table_options": {
            "turn_seconds": topts.turn_seconds,
            "reconnect_seconds": topts.reconnect_seconds,
            "declare_grace_seconds": topts.declare_grace_seconds,
            "deal_interval_ms": topts.deal_interval_ms,
        },
        "started_at": ms(game.started_at),
    }
    if game.voided is not None:
        rec["reason"] = "void"
        rec["void"] = dict(game.voided)
        rec["finished_at"] = ms(game.finished_at or game.started_at)
    elif game.finished:
        rec["reason"] = game.reason
        rec["result"] = game.engine.result().to_json()
        rec["finished_at"] = ms(game.finished_at or game.started_at)
    return rec
