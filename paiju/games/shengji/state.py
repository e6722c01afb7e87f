"""升级 (shengji) hands: each seat's cards and the lists derived from them.

A seat's hand is a multiset (card → count); derived from it, and kept in step
with its plays, are the hand in the order players hold it, its distinct cards
sorted, and its cards by class (a side suit's letter or ``"T"``, seed 跟牌),
each ``None`` once to be made again. The card tables of a trump (seed 主牌 and
牌的大小, :func:`~paiju.games.shengji.cards.trump_tables`) are taken here
too, since the hand order and the classes change with them. The hand order
(highest first, suit tie-break) is a paiju ruling (docs/rules/shengji.md).

The engine (:class:`paiju.games.shengji.game.Shengji`) holds the fields;
the functions take it as a :class:`HandState`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from paiju.games.shengji.cards import SEATS, in_hand_order, low_key, trump_tables
from paiju.rules.cards import Card, Hand

#: A trick: ``(seat, cards)`` per play, in playing order.
Trick = list[tuple[int, tuple[Card, ...]]]


class HandState(Protocol):
    """The fields of the hands and of the trump's card tables.

    ``hands``: per seat, card → count. ``hand_lists``: each seat's hand in
    :func:`hand_in_order`. ``distinct``: each seat's distinct cards, sorted.
    ``by_class``: each seat's cards by class, class → card → count (each
    ``None``: to be made again). ``trump``: a suit letter or ``None``;
    ``power`` / ``cls`` / ``key``: card → power, class, low key once trump is
    fixed (empty before); ``strength`` / ``low_order``: card → the strength in
    a trick and :func:`~paiju.games.shengji.cards.low_key` as one integer
    (shared by the games of one trump, read only).
    """

    hands: list[Hand]
    hand_lists: list[list[Card] | None]
    distinct: list[list[Card] | None]
    by_class: list[dict[str, dict[Card, int]] | None]
    trump: str | None
    power: dict[Card, int]
    cls: dict[Card, str]
    key: dict[Card, tuple[int, int]]
    strength: dict[Card, int]
    low_order: dict[Card, int]


def set_hands(g: HandState, hands: list[Hand]) -> None:
    """Take ``hands`` as the seats' hands; what was derived is dropped."""
    g.hands = hands
    g.hand_lists = [None] * SEATS
    g.by_class = [None] * SEATS
    g.distinct = [None] * SEATS


def hand_changed(g: HandState, seat: int) -> None:
    """Drop what was derived from ``seat``'s hand (changed otherwise than by a play)."""
    g.hand_lists[seat] = None
    g.by_class[seat] = None
    g.distinct[seat] = None


def cards_held(g: HandState, seat: int) -> list[Card]:
    """``sorted(hands[seat])``, kept in step with the plays."""
    distinct = g.distinct[seat]
    if distinct is None:
        distinct = g.distinct[seat] = sorted(g.hands[seat])
    return distinct


def classes(g: HandState, seat: int) -> dict[str, dict[Card, int]]:
    """``seat``'s hand split by class: class → card → count."""
    split = g.by_class[seat]
    if split is None:
        split = {}
        cls = g.cls
        for c, k in g.hands[seat].items():
            part = split.get(cls[c])
            if part is None:
                split[cls[c]] = {c: k}
            else:
                part[c] = k
        g.by_class[seat] = split
    return split


def suit_items(g: HandState, seat: int, led: str) -> list[tuple[Card, int]]:
    """``seat``'s ``(card, count)`` of class ``led``, sorted."""
    suit = classes(g, seat).get(led)
    return sorted(suit.items()) if suit else []


def fix_trump(g: HandState, trump: str) -> None:
    """Take the card tables of ``trump`` (the hand order and classes change)."""
    g.hand_lists = [None] * SEATS
    g.by_class = [None] * SEATS
    power, cls, key, g.strength, g.low_order = trump_tables(trump)
    g.power, g.cls, g.key = dict(power), dict(cls), dict(key)


def hand_in_order(g: HandState, cards: Iterable[Card]) -> list[Card]:
    """``cards`` as a hand is shown (hand events, views): the trumps
    together, then each side suit, high to low
    (:func:`~paiju.games.shengji.cards.in_hand_order`; before the trump is
    fixed, with no trump suit)."""
    return in_hand_order(cards, (g.trump or "") if g.key else "")


def hand_list(g: HandState, seat: int) -> list[Card]:
    """``seat``'s hand in :func:`hand_in_order`, the list kept in step with
    its plays (not to be changed by the caller)."""
    listed = g.hand_lists[seat]
    if listed is None:
        listed = g.hand_lists[seat] = hand_in_order(g, g.hands[seat].elements())
    return listed


def hand_sorted(g: HandState, seat: int) -> list[Card]:
    """``seat``'s hand in :func:`hand_in_order`, a fresh list."""
    return list(hand_list(g, seat))


def high_first(g: HandState, cards: Iterable[Card]) -> list[Card]:
    """``cards`` highest first: by the trump's order, or before a trump by
    :func:`~paiju.games.shengji.cards.low_key` with no trump suit."""
    if not g.key:
        return sorted(cards, key=lambda c: low_key(c, ""), reverse=True)
    return sorted(cards, key=g.low_order.__getitem__, reverse=True)
