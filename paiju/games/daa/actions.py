"""大A (daa): the actions of a turn in play, built fast.

The actions listed most often are made once, per seat: :data:`PASS`,
:data:`REVEAL` (亮明) and the ``play`` of every single and every one-rank
pair; :func:`play_actions` turns plays (sorted card tuples, as
:func:`paiju.games.daa.moves.generate_split` lists them) into ``play``
actions, reusing those.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from paiju.games.daa.combos import RANK_OF_POWER, sort_cards
from paiju.games.daa.deal import SEATS
from paiju.rules.cards import Card
from paiju.rules.engine import Action
from paiju.rules.fastbuild import play_actions as build_plays

#: ``PASS[seat]``, ``REVEAL[seat]``: that seat's ``pass`` and ``reveal``.
PASS: list[Action] = [Action(s, "pass") for s in range(SEATS)]
REVEAL: list[Action] = [Action(s, "reveal") for s in range(SEATS)]


def rank_plays(seat: int) -> dict[tuple[Card, ...], Action]:
    """The ``play`` action of every single and every pair of one rank (sorted in
    the game's order) for ``seat``."""
    out: dict[tuple[Card, ...], Action] = {}
    for r in RANK_OF_POWER:
        for cards in combinations_with_replacement(sort_cards(r + s for s in "SHCD"), 2):
            out[(cards[0],)] = Action(seat, "play", (cards[0],))
            out[cards] = Action(seat, "play", cards)
    for joker in ("SJ", "BJ"):
        out[(joker,)] = Action(seat, "play", (joker,))
    return out


#: ``RANK_PLAYS[seat]``: :func:`rank_plays` of each seat, made once.
RANK_PLAYS: list[dict[tuple[Card, ...], Action]] = [rank_plays(s) for s in range(SEATS)]


def play_actions(seat: int, plays: list[tuple[Card, ...]], k: int) -> list[Action]:
    """``seat``'s ``play`` action of each of ``plays``, in order; the first
    ``k`` are singles and one-rank pairs (their actions made once)."""
    if not k:
        return build_plays(seat, plays)
    n = len(plays)
    out = list(map(RANK_PLAYS[seat].__getitem__, plays if k == n else plays[:k]))
    if k < n:
        out += build_plays(seat, plays[k:])
    return out
