"""混战 hunzhan: card order, point cards, combinations and declarations (seed
000, rulings.md "hunzhan").

Everything here is pure and table driven. A :class:`TrumpOrder` is built once
per possible trump (``"S"``, ``"H"``, ``"C"``, ``"D"`` or ``None`` for no-trump,
无主) and gives, for every card of the 84-card deck:

- ``group``: ``"T"`` for a trump (主牌), else the card's suit (副牌 compare only
  within their suit);
- ``level``: the card's strength within its group. Equal levels tie (the
  other-suit 10s, the other-suit 2s: rulings.md "Equal cards tie"). Levels
  are chosen so that two pairs are *consecutive* (相差一级, may stand in one
  run 连对) exactly when their levels differ by one.

Levels with a trump suit ``t`` (rulings.md "Order in trump")::

    side suits and trump-suit plain cards: 5=1 7=2 8=3 9=4 J=5 Q=6 K=7 A=8
    other 2s = 9, trump 2 = 10, other 10s = 11, trump 10 = 12, SJ = 13, BJ = 14

so 9-J (the 10 is promoted, the 6 removed: 5-7), trump A - other 2 (主AA和副22
可以连), other 2 - trump 2, trump 2 - other 10, other 10 - trump 10,
trump 10 - SJ and SJ - BJ (大小王可以连) are consecutive; two different
other-suit 2s (or 10s) share a level and are never consecutive.

No-trump (无主): the trumps are the 2s, 10s and jokers only, BJ > SJ > 10s > 2s,
and equal values are ordered ♠ > ♥ > ♣ > ♦ (seed: 同数值牌比较大小时依据黑、红、
梅、方的顺序). Their levels are spaced by two (2♦=20 … 2♠=26, 10♦=28 … 10♠=34) so
that none is consecutive with another; SJ = 40 and BJ = 41 are consecutive
(rulings.md: "In no-trump the only run among trumps is a pair of SJ with a
pair of BJ").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from paiju.rules.bounded import WORK
from paiju.rules.cards import Card, deck

#: The hunzhan deck: two decks without 3, 4, 6 (seed 000 牌), 84 cards.
DECK: tuple[Card, ...] = tuple(deck(2, without_ranks="346"))

#: The group name of trumps (主牌).
TRUMP = "T"

#: The suits in the seed's order 黑、红、梅、方 (also the declaration order of tens).
SUIT_ORDER = "SHCD"

#: Plain ranks of a suit, low to high (seed: A>K>Q>J>9>8>7>5, 6 removed).
PLAIN_RANKS = "5789JQKA"

#: Point cards (分牌): 5 = 5, 10 = 10, K = 10, joker = 10; 240 in the deck.
POINTS: dict[Card, int] = {
    c: 10 if c in ("BJ", "SJ") else {"5": 5, "T": 10, "K": 10}.get(c[0], 0) for c in set(DECK)
}
assert sum(POINTS[c] for c in DECK) == 240

#: The suits a game may have as trump; ``None`` is no-trump (无主).
TRUMPS: tuple[str | None, ...] = ("S", "H", "C", "D", None)


@dataclass(frozen=True, slots=True)
class TrumpOrder:
    """The order of every card under one trump (``None`` = no-trump).

    ``group[c]`` is ``"T"`` or the suit; ``level[c]`` the strength within the
    group (equal = tie; consecutive = may form a run); ``points[c]`` the card's
    points; ``sort_key[c]`` the position in hand order (trumps high to low,
    then ♠ ♥ ♣ ♦ high to low; equal levels ♠ ♥ ♣ ♦); ``low_key[c]`` the position
    from the lowest card of the game up (side cards below trumps, then level,
    then ♦ < ♣ < ♥ < ♠).
    """

    trump: str | None
    group: dict[Card, str]
    level: dict[Card, int]
    sort_key: dict[Card, int]
    low_key: dict[Card, int]


def _level_and_group(card: Card, trump: str | None) -> tuple[str, int]:
    r, s = card[0], card[1]
    if card == "BJ":
        return TRUMP, 41 if trump is None else 14
    if card == "SJ":
        return TRUMP, 40 if trump is None else 13
    if trump is None:
        if r == "T":
            return TRUMP, 28 + 2 * (3 - SUIT_ORDER.index(s))
        if r == "2":
            return TRUMP, 20 + 2 * (3 - SUIT_ORDER.index(s))
        return s, PLAIN_RANKS.index(r) + 1
    if r == "T":
        return TRUMP, 12 if s == trump else 11
    if r == "2":
        return TRUMP, 10 if s == trump else 9
    return (TRUMP if s == trump else s), PLAIN_RANKS.index(r) + 1


def _build(trump: str | None) -> TrumpOrder:
    group: dict[Card, str] = {}
    level: dict[Card, int] = {}
    hand_order: dict[Card, tuple[int, int, int]] = {}
    low_order: dict[Card, tuple[int, int, int]] = {}
    for c in set(DECK):
        g, lv = _level_and_group(c, trump)
        suit_i = SUIT_ORDER.index(c[1]) if c[1] in SUIT_ORDER else -1
        group[c] = g
        level[c] = lv
        gi = 0 if g == TRUMP else 1 + SUIT_ORDER.index(g)
        hand_order[c] = (gi, -lv, suit_i)
        low_order[c] = (1 if g == TRUMP else 0, lv, -suit_i)
    # integer ranks of the two orders (faster to sort by)
    sort_key = {c: i for i, c in enumerate(sorted(hand_order, key=hand_order.__getitem__))}
    low_key = {c: i for i, c in enumerate(sorted(low_order, key=low_order.__getitem__))}
    return TrumpOrder(trump, group, level, sort_key, low_key)


#: The order under each trump (``None`` = no-trump).
ORDERS: dict[str | None, TrumpOrder] = {t: _build(t) for t in TRUMPS}


def sort_cards(cards: Iterable[Card], order: TrumpOrder) -> list[Card]:
    """``cards`` in hand order (trumps high to low, then ♠ ♥ ♣ ♦ high to low)."""
    return sorted(cards, key=order.sort_key.__getitem__)


def card_points(cards: Iterable[Card]) -> int:
    """The points of ``cards`` (5 = 5, 10/K/joker = 10)."""
    return sum(POINTS[c] for c in cards)


def classify(cards: Sequence[Card], order: TrumpOrder) -> tuple[str, str, int] | None:
    """The combination of ``cards``: ``(kind, group, level)`` or ``None``.

    ``kind`` is ``"single"``, ``"pair"`` (two identical cards, 对牌) or ``"run"``
    (two or more pairs of consecutive levels in one group, 连对, e.g. 99JJ,
    主AA+副22, SJSJBJBJ); ``level`` is the combination's strength: its
    (highest) level. Single runs (JQKA) and throws (AAK) are no combination
    (seed 000 出牌). Source: seed 000 出牌; rulings.md "Leads".
    """
    n = len(cards)
    if n == 1:
        c = cards[0]
        return "single", order.group[c], order.level[c]
    if n < 2 or n % 2:
        return None
    if n == 2:
        a, b = cards
        if a != b:
            return None
        return "pair", order.group[a], order.level[a]
    counts: dict[Card, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    if len(counts) * 2 != n or any(k != 2 for k in counts.values()):
        return None
    group = order.group
    g = group[cards[0]]
    if any(group[c] != g for c in counts):
        return None
    levels = sorted(order.level[c] for c in counts)
    if any(levels[i + 1] != levels[i] + 1 for i in range(len(levels) - 1)):
        return None
    return "run", g, levels[-1]


def lead_options(hand: dict[Card, int], order: TrumpOrder) -> list[tuple[Card, ...]]:
    """Every distinct lead of ``hand``: singles, then pairs, then runs (each a
    canonical tuple in hand order). Source: seed 000 出牌; rulings.md "Leads"."""
    key = order.sort_key
    distinct = sorted(hand, key=key.__getitem__)
    out: list[tuple[Card, ...]] = [(c,) for c in distinct]
    pairs = [c for c in distinct if hand[c] >= 2]
    out += [(c, c) for c in pairs]
    if len(pairs) >= 2:
        by_group: dict[str, dict[int, list[Card]]] = {}
        for c in pairs:
            by_group.setdefault(order.group[c], {}).setdefault(order.level[c], []).append(c)
        for levels in by_group.values():
            if len(levels) < 2:
                continue
            for start in sorted(levels, reverse=True):
                end = start
                while end - 1 in levels:
                    end -= 1
                    for choice in product(*(levels[lv] for lv in range(start, end - 1, -1))):
                        run = [c for c in choice for _ in (0, 1)]
                        out.append(tuple(sorted(run, key=key.__getitem__)))
    return out


def _multisets_from(items: Sequence[tuple[Card, int]], cap: list[int], cur: list[Card],
                    out: list[list[Card]], i: int, left: int) -> None:
    """:func:`multisets`' recursion: ``cur`` plus every choice of ``left``
    cards from ``items[i:]`` (at most ``cap[i]`` of them) appended to ``out``.
    A module function, not a closure: a nested function that calls itself
    is a cycle (its cell holds it) left to the garbage collector."""
    if left == 0:
        out.append(list(cur))
        return
    if cap[i] < left:
        return
    c, cnt = items[i]
    for j in range(min(cnt, left), -1, -1):
        cur.extend([c] * j)
        _multisets_from(items, cap, cur, out, i + 1, left - j)
        if j:
            del cur[-j:]


def multisets(items: Sequence[tuple[Card, int]], k: int) -> list[list[Card]]:
    """Every distinct sub-multiset of size ``k`` of ``items`` (``(card, count)``
    pairs, distinct cards), each in the order of ``items``; counted in
    :data:`~paiju.rules.bounded.WORK` (candidate plays built)."""
    out: list[list[Card]] = []
    n = len(items)
    cap = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        cap[i] = cap[i + 1] + items[i][1]
    _multisets_from(items, cap, [], out, 0, k)
    WORK.plays += len(out)
    return out


def declared_trump(cards: tuple[Card, ...]) -> str | None:
    """The trump a declaration makes: the ten's suit, ``None`` (no-trump) for jokers."""
    return cards[0][1] if cards[0][0] == "T" else None


#: Declaration strength (叫主/反主 order, seed 000 叫主): a key of sorted cards →
#: strength. BJ pair > SJ pair > ♠10 > ♥10 > ♣10 > ♦10.
DECLARATIONS: dict[tuple[Card, ...], int] = {
    ("BJ", "BJ"): 6,
    ("SJ", "SJ"): 5,
    ("TS",): 4,
    ("TH",): 3,
    ("TC",): 2,
    ("TD",): 1,
}


def holds(hand: dict[Card, int], cards: tuple[Card, ...]) -> bool:
    """True where ``hand`` (card → count) holds every card of ``cards`` (with repeats)."""
    if len(cards) == 1:
        return cards[0] in hand
    need: dict[Card, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    return all(hand.get(c, 0) >= k for c, k in need.items())
