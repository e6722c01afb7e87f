"""Test players wrapped around AI players (paiju/rules/ai.py): one that
checks every answer is legal, one that records every SeatView it is given."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from paiju.rules.ai import Player, SeatView
from paiju.rules.engine import Action


class Checked:
    """A player whose every play and declaration must be one of the seat's
    legal actions. A bury is checked by its size and its cards being in the
    hand: any kitty-size cards of the hand are legal, and ``sv.legal`` lists
    only a bounded family of them (docs/rules/shengji.md)."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.decisions = 0

    def decide(self, sv: SeatView) -> Action:
        a: Action = self.player.decide(sv)
        if a.type == "bury":
            assert len(a.cards) == sv.view["kitty_size"]
            assert not Counter(a.cards) - Counter(sv.view["hand"])
        else:
            assert a in sv.legal, (a, sv.view)
        self.decisions += 1
        return a

    def declare(self, sv: SeatView) -> Action | None:
        a: Action | None = self.player.declare(sv)
        assert a is None or a in sv.legal
        return a


class Capture:
    """A player recording every SeatView it is given, on its turns and in
    declaring windows."""

    def __init__(self, player: Any, seen: list[SeatView]) -> None:
        self.player, self.seen = player, seen

    def decide(self, sv: SeatView) -> Action:
        self.seen.append(sv)
        return self.player.decide(sv)  # type: ignore[no-any-return]

    def declare(self, sv: SeatView) -> Action | None:
        self.seen.append(sv)
        return self.player.declare(sv)  # type: ignore[no-any-return]


def trick_players(ai: ModuleType, kinds: Sequence[str], seed: int) -> list[Player]:
    """Checked players of a trick game's ``ai`` module (混战, 升级), one per
    kind (``normal`` or ``hard``; hard with one sample per decision, so the
    game depends only on ``seed``)."""
    made: list[Player] = []
    for s, kind in enumerate(kinds):
        rng = random.Random(seed * 10 + s)
        made.append(Checked(ai.Hard(rng, rounds=1) if kind == "hard" else ai.Normal(rng)))
    return made
