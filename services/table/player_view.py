"""What one seated player may see of a running game: its ``view``, and its
options as ``your_turn`` and the view carry them. Pure: the caller passes the
game and the time (unix s)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paiju.rules import Action
from services.table.outgoing import Seat, ms

if TYPE_CHECKING:
    from services.table.game import RunningGame


def hints_json(actions: Sequence[Action]) -> list[dict[str, Any]]:
    """``actions`` as the ``hints`` command answers them and ``your_turn.hints``
    and ``view.hints`` carry them: ``[{type, cards?}]`` (``cards`` only when
    the action has some; no seat), in order."""
    return [{"type": a.type, "cards": list(a.cards)} if a.cards else {"type": a.type}
            for a in actions]


def seat_state(game: RunningGame, s: Seat, now: float) -> dict[str, Any]:
    """Seat ``s`` in a view: seat, player, name, disconnected, hold_until (unix
    ms while away, else None), budget_left_ms (its disconnect budget left)."""
    end = game.holds.end(s.seat)
    return {"seat": s.seat, "player": s.player, "name": s.name,
            "disconnected": end is not None,
            "hold_until": ms(end) if end is not None else None,
            "budget_left_ms": ms(game.holds.left(s.seat, now))}


def player_view(game: RunningGame, player: str, now: float) -> dict[str, Any]:
    """The whole state ``player`` may see (its own hand only): the engine's
    view plus game_id, seats (:func:`seat_state`), deadlines, ``time_left_ms``
    of its turn, ``can_pass``, ``declare_options`` and ``hints`` (as
    ``your_turn`` gives them; ``hints`` as the ``hints`` command answers), the
    public ``seq`` (also as ``public_seq``: a ``view`` event's own ``seq`` is
    the player's), ``player_seq`` and ``escape_points`` (the points ``player``
    would get if it quit now: an escape, seed 000 例外, rulings.md "Escapes";
    what the client's 退出 warning names). ``GameError(not_seated)`` for a
    player not at the game."""
    seat = game.seat_of(player)
    v = copy.deepcopy(game.engine.view(seat))
    if game.dealing:
        v["hand"] = game.paced.hand(seat)
        v["hand_counts"] = game.paced.counts()
    left = game.turns.time_left(seat, now)
    window = game.paced.window_end()
    legal = game.hints(player)
    v.update({
        "game_id": game.game_id,
        "room": game.room,
        "game": game.name,
        "phase": game.phase,
        "seat": seat,
        "seats": [seat_state(game, s, now) for s in game.seats],
        "to_act": game.engine.to_act(),
        "deadlines": {str(s): ms(t) for s, t in game.turns.deadlines.items()},
        "time_left_ms": ms(left) if left is not None else None,
        "can_pass": any(a.type == "pass" for a in legal),
        "declare_options": [list(a.cards) for a in legal if a.type == "declare"],
        "hints": hints_json(legal),
        "dealing": game.paced.progress(),
        "declaring_until": ms(window) if window is not None else None,
        "seq": game.numbers.public_seq,
        "public_seq": game.numbers.public_seq,
        "player_seq": game.numbers.player_seq[player],
        "escape_points": game.engine.escape_points(seat)[seat],
        "roles": game.engine.public_roles(),
        "rules": game.engine.client_rules(),
        "display": game.engine.display(),
    })
    return v
