"""RLCard's doudizhu rule agent (``doudizhu-rule-v1``) as a paiju player, for
bench/ai.py.

The adapter turns a doudizhu :class:`~paiju.rules.ai.SeatView` into the raw
observation the agent reads (``raw_obs``: ``trace`` of ``(player, action)``
with the landlord as player 0 and the others counted on from it,
``current_hand``, ``actions``, ``landlord``, ``self``) in RLCard's notation
(ranks ``3``-``2``, ``B`` the small joker, ``R`` the big one, sorted by rank),
and its answer back into the paiju action of the same ranks. RLCard's agent
cannot bid: it bids as paiju's *normal* level does (the bench fixes the
landlord anyway). A lead or follow whose combination RLCard does not know
(paiju's rulings allow a few it lacks, e.g. 33334444 as four with two pairs)
makes the agent fail: it then passes, or leads its lowest card; those
fallbacks are counted (:attr:`RuleV1Player.fallbacks`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from paiju.games.doudizhu import combos as dc
from paiju.games.doudizhu.ai import NormalPlayer
from paiju.rules.ai import SeatView
from paiju.rules.engine import Action

_RL_CHAR = {**{r: ch for r, ch in enumerate(dc.RANK_CHARS)}, dc.SJ_RANK: "B", dc.BJ_RANK: "R"}


def available() -> bool:
    """True when rlcard is installed."""
    try:
        import rlcard  # noqa: F401
    except ImportError:
        return False
    return True


def rl_cards(cards: Sequence[str]) -> str:
    """Cards in RLCard's notation, sorted by rank (``pass`` for none)."""
    if not cards:
        return "pass"
    return "".join(_RL_CHAR[dc.CARD_RANK[c]] for c in dc.sort_cards(cards))


class RuleV1Player:
    """``doudizhu-rule-v1`` at one paiju seat (see the module docstring)."""

    fallbacks = 0

    def __init__(self, rng: random.Random) -> None:
        import numpy as np
        import rlcard.models
        from rlcard.games.doudizhu.utils import CARD_TYPE

        np.random.seed(rng.randrange(2**31))  # the agent draws from numpy's generator
        self.agent: Any = rlcard.models.load("doudizhu-rule-v1").agents[0]
        self.known: dict[str, Any] = CARD_TYPE[0]
        self.bids = NormalPlayer(rng)

    def declare(self, sv: SeatView) -> Action | None:
        return None

    def decide(self, sv: SeatView) -> Action:
        if sv.view["phase"] != "play":
            return self.bids.decide(sv)
        landlord: int = sv.view["landlord"]

        def rel(seat: int | None) -> int:
            assert seat is not None
            return (seat - landlord) % 3

        trace = [(rel(a.seat), rl_cards(a.cards)) for a in sv.history
                 if a.type in ("play", "pass")]
        by_str = {rl_cards(a.cards): a for a in sv.legal}
        actions = [s for s in by_str if s == "pass" or s in self.known]
        state = {"raw_obs": {"trace": trace, "current_hand": rl_cards(sv.view["hand"]),
                             "actions": actions, "landlord": 0, "self": rel(sv.seat)}}
        try:
            got = self.agent.step(state)
        except (KeyError, ValueError, IndexError):
            got = None
        if got not in by_str:
            RuleV1Player.fallbacks += 1
            return by_str.get("pass") or min(sv.legal, key=lambda a: (len(a.cards), a.cards))
        return by_str[str(got)]
