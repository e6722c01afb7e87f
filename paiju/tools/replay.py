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


#: Keys of a seat's view that are its own (the rest is the same for every seat).
_OWN_KEYS = frozenset({"hand", "seat", "can_pass", "held_back"})


def frame(game: Game) -> dict[str, Any]:
    """The whole table of ``game`` now, every hand face up (for a finished
    game's replay): ``phase``, ``to_act``, ``hands`` (per seat, the engine's
    own order) and ``table``: what the engine's view of seat 0 shows beside
    its hand (trick, last trick, bids, landlord, trump, scores... as the game
    has them; records.md, docs/table.md "The view")."""
    views = [game.view(s) for s in range(game.seats)]
    table = {k: v for k, v in views[0].items() if k not in _OWN_KEYS}
    return {"phase": game.phase, "to_act": game.to_act(),
            "hands": [list(v.get("hand") or []) for v in views], "table": table}


def steps(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every step of ``record`` through its engine: step 0 is the deal, step
    ``i`` the table after the record's ``i``-th action. Each step is
    :func:`frame` plus ``step``, ``action`` (the record's, None at the deal),
    ``ok`` / ``error`` (the engine's verdict), ``events`` (the types of the
    events it caused) and ``trick_won`` (that event's data where the action
    ended a trick, else None); the last step of a finished game carries
    ``result``. Raises :class:`RecordError` on an unreadable deal."""
    game = start(record)
    out = [{"step": 0, "action": None, "ok": True, "events": [], "trick_won": None,
            **frame(game)}]
    for i, raw in enumerate(record.get("actions", []), start=1):
        step: dict[str, Any] = {"step": i, "action": raw, "ok": True, "trick_won": None}
        try:
            events = game.apply(Action.from_json(raw))
        except RulesError as e:
            step |= {"ok": False, "error": e.code, "events": []}
        else:
            step["events"] = [e.type for e in events]
            won = [e.data for e in events if e.type == "trick_won"]
            step["trick_won"] = won[-1] if won else None
        out.append(step | frame(game))
    if game.finished:
        out[-1]["result"] = game.result().to_json()
    return out
