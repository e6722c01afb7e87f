"""Random legal self-play: the driver of property tests, benchmarks and bots.

:func:`play_random` deals with a seeded RNG and plays uniformly random legal
actions until the game ends, closing a declaring window (``end_declare``) at
random moments. It returns the finished game and its record (records.md), so
that replaying the record must give the same result.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from paiju.rules import load
from paiju.rules.engine import Action, Game

#: Safety net: no game of paiju takes this many actions.
MAX_ACTIONS = 5000


def random_step(game: Game, rng: random.Random, declare_p: float = 0.3) -> Action:
    """One random legal action for ``game`` (not finished).

    Where seats are to act, a random legal action of the first of them; in a
    declaring window (nobody in particular to act), a random declaration with
    probability ``declare_p``, else ``end_declare``.
    """
    seats = game.to_act()
    if seats:
        options = game.legal_actions(seats[0])
        return rng.choice(options)
    if rng.random() < declare_p:
        choices = [a for s in range(game.seats) for a in game.legal_actions(s)]
        if choices:
            return rng.choice(choices)
    return Action(None, "end_declare")


def play_random(
    name: str,
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    declare_p: float = 0.3,
) -> tuple[Game, dict[str, Any]]:
    """Deal and play one random game of ``name``; returns ``(game, record)``.

    Raises ``RuntimeError`` if the game does not end within ``MAX_ACTIONS``.
    """
    opts = dict(options or {})
    engine = load(name)
    deal = engine.random_deal(opts, rng)
    game = engine(opts, deal)
    actions: list[dict[str, Any]] = []
    while not game.finished:
        if len(actions) >= MAX_ACTIONS:
            raise RuntimeError(f"{name} did not end in {MAX_ACTIONS} actions")
        action = random_step(game, rng, declare_p)
        game.apply(action)
        actions.append(action.to_json())
    return game, {"game": name, "options": opts, "deal": deal, "actions": actions}
