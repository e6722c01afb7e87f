"""A bot counts the public ``seq`` gaps and repeats that reach it; a private
``view`` event (its own ``seq`` is the player's) restarts the public numbers
from its ``public_seq`` (paiju/tools/bots.py, docs/client-protocol.md "Events")."""

from __future__ import annotations

import random
from typing import Any

from paiju.tools.bots import Bot, Stats

GAME = "g1"


def _bot() -> Bot:
    return Bot("ws://127.0.0.1:9/ws", "b1", "doudizhu", "bdou000-01", 1, 1, (0.0, 0.0),
               Stats(), random.Random(1))


def _public(seq: int) -> dict[str, Any]:
    return {"type": "turn", "seat": 0, "game_id": GAME, "seq": seq}


def test_a_view_event_restarts_the_public_numbers_from_its_public_seq() -> None:
    bot = _bot()
    for seq in (1, 2, 3):
        bot._on_event(_public(seq))
    # the player's seq 9 (above the public one) and 2 (below it)
    bot._on_event({"type": "view", "game_id": GAME, "seq": 9, "player_seq": 9,
                   "public_seq": 5, "seat": 1, "to_act": []})
    bot._on_event(_public(6))
    bot._on_event({"type": "view", "game_id": GAME, "seq": 10, "player_seq": 10,
                   "public_seq": 6, "seat": 1, "to_act": []})
    bot._on_event(_public(7))
    assert (bot.stats.seq_gaps, bot.stats.seq_repeats) == (0, 0)
    assert bot.seq == 7 and bot.player_seq == 10


def test_gaps_and_repeats_are_counted() -> None:
    bot = _bot()
    for seq in (1, 2, 4, 4, 3):
        bot._on_event(_public(seq))
    assert (bot.stats.seq_gaps, bot.stats.seq_repeats) == (1, 2)
