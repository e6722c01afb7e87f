"""Helpers of the hunzhan tests: deals written out card by card and small
readers of the engine's answers (no expectation is computed here).

``SUITED`` gives each seat one suit, which makes every trick predictable;
:func:`make_deal` builds a deal from the cards that matter plus filler.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from paiju.games.hunzhan import Hunzhan
from paiju.rules.cards import deck
from paiju.rules.engine import Action
from paiju.rules.errors import RulesError

PLAIN = "5789JQKA"


def plain(suit: str) -> list[str]:
    """The 16 plain cards (5 7 8 9 J Q K A, twice) of ``suit``."""
    return [r + suit for r in PLAIN for _ in (0, 1)]


#: Seat 0 spades, 1 hearts, 2 clubs, 3 diamonds, plus 10s / 2s / jokers.
#: Seat 0's list starts with BJ, TD and ends with the second BJ (for ``dealt``).
SUITED: list[list[str]] = [
    ["BJ", "TD", *plain("S"), "TS", "2S", "BJ"],
    [*plain("H"), "TH", "TH", "2H", "2H", "2S"],
    [*plain("C"), "TC", "TC", "2C", "2C", "SJ"],
    [*plain("D"), "TD", "2D", "2D", "SJ", "TS"],
]


def suited_deal(first: int = 0, order: bool = False) -> dict[str, Any]:
    deal: dict[str, Any] = {"hands": [list(h) for h in SUITED], "bottom": [], "first": first}
    if order:
        deal["order"] = [SUITED[(first + j) % 4][j // 4] for j in range(84)]
    return deal


def make_deal(spec: dict[int, str], first: int = 0) -> dict[str, Any]:
    """A deal where the seats of ``spec`` hold those cards (filled up to 21 from
    the rest of the deck in deck order); other seats get the rest."""
    pool = Counter(deck(2, without_ranks="346"))
    hands: list[list[str]] = [spec.get(s, "").split() for s in range(4)]
    for h in hands:
        pool.subtract(h)
    assert min(pool.values()) >= 0, "a card is used more than twice"
    rest = [c for c in deck(1, without_ranks="346") for _ in range(pool[c])]
    for h in hands:
        need = 21 - len(h)
        h.extend(rest[:need])
        rest = rest[need:]
    return {"hands": hands, "bottom": [], "first": first}


def start(spec: dict[int, str], declare: tuple[str, ...] = ("TS",)) -> Hunzhan:
    """Seat 0 declares ``declare`` and leads."""
    g = Hunzhan({}, make_deal(spec))
    g.apply(Action(0, "declare", declare))
    g.apply(Action(None, "end_declare"))
    assert g.phase == "play" and g.to_act() == [0]
    return g


def play(g: Hunzhan, seat: int, cards: str) -> list[Any]:
    return g.apply(Action(seat, "play", tuple(cards.split())))


def legal(g: Hunzhan, seat: int) -> set[tuple[str, ...]]:
    return {tuple(sorted(a.cards)) for a in g.legal_actions(seat)}


def cards(*plays: str) -> set[tuple[str, ...]]:
    return {tuple(sorted(p.split())) for p in plays}


def error(g: Hunzhan, action: Action) -> str:
    before = snapshot(g)
    with pytest.raises(RulesError) as e:
        g.apply(action)
    assert snapshot(g) == before, "a refused action changed the state"
    return e.value.code


def snapshot(g: Hunzhan) -> Any:
    return (
        [g.view(s) for s in range(4)],
        [[a.to_json() for a in g.legal_actions(s)] for s in range(4)],
        g.phase,
        list(g.timeouts),
    )
