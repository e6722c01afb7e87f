"""Deals, positions and checks shared by the shengji tests (tests/rules/test_shengji_*.py).

The deals are typed by hand; positions are made with the engine's public
:meth:`~paiju.games.shengji.game.Shengji.from_position`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from paiju.games.shengji import Shengji
from paiju.rules.engine import Action
from paiju.rules.errors import RulesError

# A one-deck deal typed by hand (12 cards each, a kitty of 6, no points in it).
HANDS_1 = [
    ["3S", "3H", "5S", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S"],
    ["3C", "5H", "AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "4H"],
    ["3D", "5C", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "4C"],
    ["BJ", "SJ", "5D", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D"],
]
KITTY_1 = ["4S", "4D", "2S", "2H", "2C", "2D"]
# Dealt one card at a time from seat 0: card i goes to seat i % 4.
ORDER_1 = [HANDS_1[i % 4][i // 4] for i in range(48)]

# The two-deck deal of shared/cases/shengji/declare-and-bury.json.
HANDS_2 = [
    ["2C", "2D", "2H", "2H", "3C", "4H", "4S", "5C", "5D", "6S", "7H", "7S", "8H",
     "9S", "AC", "AS", "JC", "JH", "JS", "JS", "KD", "KH", "KH", "TH", "TS"],
    ["2D", "2S", "2S", "3H", "3S", "3S", "6D", "6H", "6H", "6S", "7S", "8C", "8H",
     "9C", "9S", "AC", "AD", "AH", "BJ", "KD", "QC", "QD", "QH", "QH", "TD"],
    ["3H", "4C", "4C", "5C", "5H", "6C", "6C", "6D", "7D", "7D", "8D", "8S", "9D",
     "9H", "9H", "AD", "AH", "JD", "KC", "KS", "QS", "SJ", "TC", "TD", "TH"],
    ["2C", "3C", "3D", "3D", "4D", "4H", "4S", "5D", "5S", "7C", "7H", "8D", "8S",
     "9C", "9D", "AS", "BJ", "JC", "JH", "KC", "KS", "QC", "QS", "SJ", "TC"],
]
KITTY_2 = ["4D", "5H", "5S", "7C", "8C", "JD", "QD", "TS"]

#: Score-table rows (seed 局分计算 一–四; rulings.md: "5—15" is 5 <= p <= 15,
#: ">100" is p >= 100): (decks, defender points, 庄家得分, 非庄家得分, 是否换庄).
SCORE_CASES = [
    (1, 0, 3, -3, False), (1, 5, 2, -2, False), (1, 15, 2, -2, False), (1, 20, 1, -1, False),
    (1, 35, 1, -1, False), (1, 40, -1, 1, True), (1, 55, -1, 1, True), (1, 60, -2, 2, True),
    (1, 75, -2, 2, True), (1, 80, -3, 3, True), (1, 95, -3, 3, True), (1, 100, -4, 4, True),
    (1, 300, -4, 4, True),
    (2, 0, 3, -3, False), (2, 5, 2, -2, False), (2, 35, 2, -2, False), (2, 40, 1, -1, False),
    (2, 75, 1, -1, False), (2, 80, -1, 1, True), (2, 115, -1, 1, True), (2, 120, -2, 2, True),
    (2, 155, -2, 2, True), (2, 160, -3, 3, True), (2, 195, -3, 3, True), (2, 200, -4, 4, True),
    (2, 520, -4, 4, True),
    (3, 0, 3, -3, False), (3, 5, 2, -2, False), (3, 55, 2, -2, False), (3, 60, 1, -1, False),
    (3, 115, 1, -1, False), (3, 120, -1, 1, True), (3, 175, -1, 1, True), (3, 180, -2, 2, True),
    (3, 235, -2, 2, True), (3, 240, -3, 3, True), (3, 295, -3, 3, True), (3, 300, -4, 4, True),
    (3, 700, -4, 4, True),
    (4, 0, 3, -3, False), (4, 5, 2, -2, False), (4, 75, 2, -2, False), (4, 80, 1, -1, False),
    (4, 155, 1, -1, False), (4, 160, -1, 1, True), (4, 235, -1, 1, True), (4, 240, -2, 2, True),
    (4, 315, -2, 2, True), (4, 320, -3, 3, True), (4, 395, -3, 3, True), (4, 400, -4, 4, True),
    (4, 900, -4, 4, True),
]

#: A buried kitty without points for each deck count (seed 底牌: 6 or 8 cards),
#: one card of each kind, so that positions may hold the other copies.
LOW_KITTY: dict[int, list[str]] = {
    d: ["4D", "6D", "7D", "8D", "9D", "JD", "QD", "AD"][:n]
    for d, n in {1: 6, 2: 8, 3: 6, 4: 8}.items()
}


def one_deck(order: bool = False, **options: Any) -> Shengji:
    """The one-deck deal above (with its dealing order when ``order``)."""
    deal: dict[str, Any] = {"hands": HANDS_1, "bottom": KITTY_1, "first": 0}
    if order:
        deal["order"] = ORDER_1
    return Shengji({"decks": 1, **options}, deal)


def two_decks(**options: Any) -> Shengji:
    """The two-deck deal above."""
    return Shengji({"decks": 2, **options}, {"hands": HANDS_2, "bottom": KITTY_2, "first": 0})


def act(seat: int | None, typ: str, *cards: str, dealt: int | None = None) -> Action:
    """``Action(seat, typ, cards, dealt)``."""
    return Action(seat, typ, tuple(cards), dealt)


def snapshot(g: Shengji) -> str:
    """Everything the interface shows of ``g``, as one string."""
    return json.dumps(
        [g.view(s) for s in range(4)]
        + [[a.to_json() for a in g.legal_actions(s)] for s in range(4)]
        + [g.to_act(), g.timeouts],
        sort_keys=True,
    )


def rejects(g: Shengji, action: Action, code: str) -> None:
    """``action`` is refused with ``code`` and changes nothing."""
    before = snapshot(g)
    with pytest.raises(RulesError) as e:
        g.apply(action)
    assert e.value.code == code
    assert snapshot(g) == before


def position(
    decks: int,
    trump: str,
    dealer: int,
    hands: Sequence[Sequence[str]],
    leader: int,
    buried: Sequence[str] | None = None,
    captured: Sequence[int] = (0, 0, 0, 0),
) -> Shengji:
    """A game in play at a typed position (buried: :data:`LOW_KITTY` unless given)."""
    return Shengji.from_position(
        {"decks": decks}, hands=hands, dealer=dealer, trump=trump, leader=leader,
        buried=LOW_KITTY[decks] if buried is None else buried, captured=captured,
    )


def legal(g: Shengji, seat: int) -> set[tuple[str, ...]]:
    """The listed plays (each already a sorted tuple, as checked here)."""
    out = {a.cards for a in g.legal_actions(seat)}
    assert all(t == tuple(sorted(t)) for t in out)
    return out


def cardsets(*plays: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Hand-written plays as sorted tuples."""
    return {tuple(sorted(p)) for p in plays}


def declared_one_deck() -> tuple[Shengji, list[Any]]:
    """The one-deck deal, seat 1 declared 3C and the window closed: burying."""
    g = one_deck()
    g.apply(act(1, "declare", "3C"))
    return g, g.apply(act(None, "end_declare"))


def after_default_bury() -> Shengji:
    """:func:`declared_one_deck` after the dealer's timeout buried the lowest cards."""
    g, _ = declared_one_deck()
    g.apply(act(1, "timeout"))
    return g
