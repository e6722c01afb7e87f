"""``paiju replay``: apply a game record and report every verdict.

Input and output exactly as shared/spec/records.md ("The replay command"):
one record in, one JSON object out::

    {"game": "doudizhu", "actions": [{"ok": true}, {"ok": false, "error": "not_your_turn"}],
     "finished": true, "result": {"points": [4, -2, -2], "detail": {...}}}

A record that cannot be read (not JSON, no known game, no deal, a deal that is
not the game's deck) raises :class:`RecordError`; the command then exits 2.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from paiju.rules import ENGINES, Action, Game, RulesError, new_game


class RecordError(ValueError):
    """The input is not a readable game record (exit status 2 of ``paiju replay``)."""


def parse_record(text: str) -> dict[str, Any]:
    """Parse a record's JSON text; raises :class:`RecordError` with the reason."""
    try:
        record = json.loads(text)
    except ValueError as e:
        raise RecordError(f"not JSON: {e}") from e
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object")
    if record.get("game") not in ENGINES:
        raise RecordError(f"unknown game {record.get('game')!r}; known: {sorted(ENGINES)}")
    if not isinstance(record.get("deal"), dict):
        raise RecordError("a record needs a 'deal' object")
    if not isinstance(record.get("actions", []), list):
        raise RecordError("'actions' must be a list")
    if not isinstance(record.get("options", {}), dict):
        raise RecordError("'options' must be an object")
    return record


def start(record: Mapping[str, Any]) -> Game:
    """The game of ``record`` before any action; :class:`RecordError` on a bad deal."""
    try:
        return new_game(record["game"], record.get("options") or {}, record["deal"])
    except RulesError as e:
        raise RecordError(f"{e.code}: {e.message}") from e


def replay(record: Mapping[str, Any]) -> dict[str, Any]:
    """Apply every action of ``record`` in order and report as records.md says."""
    game = start(record)
    verdicts: list[dict[str, Any]] = []
    for raw in record.get("actions", []):
        try:
            game.apply(Action.from_json(raw))
        except RulesError as e:
            verdicts.append({"ok": False, "error": e.code, "message": e.message})
        else:
            verdicts.append({"ok": True})
    out: dict[str, Any] = {"game": record["game"], "actions": verdicts, "finished": game.finished}
    if game.finished:
        out["result"] = game.result().to_json()
    return out
