"""升级 (shengji) cards: sizes, points, trumps and the order of cards.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 底牌 (hand and kitty
sizes), 分牌 (point cards), 主牌 / 付牌 (trumps), 牌的大小 (the order) and 牌型
(combinations of identical cards); the suit tie-break of "the lowest cards" is
a paiju ruling (docs/rules/shengji.md, "Trump and card order"). Pure tables and
functions, no game state; :mod:`paiju.games.shengji.game` is the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from paiju.rules.cards import JOKERS, RANKS, Card, Hand, deck, parse_cards

#: Seats at a shengji table; seats 0 & 2 and 1 & 3 are partners (seed 对家).
SEATS = 4

#: decks → (cards per hand, kitty size) (seed 底牌: 12/6, 25/8; three decks a
#: kitty of 6, four decks 8; the hands are the rest shared equally).
SIZES: dict[int, tuple[int, int]] = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}

#: Point cards (seed 分牌): 5 is 5, 10 and K are 10.
CARD_POINTS: dict[str, int] = {"5": 5, "T": 10, "K": 10}

#: Ranks that are trumps in every suit (seed 主牌: 大小王、5、3、2、主花色牌).
TRUMP_RANKS = "532"

#: Combination names by size (seed 牌型: 单牌 / 对牌 / 三张牌 / 四张牌).
SHAPE_NAMES: dict[int, str] = {1: "single", 2: "pair", 3: "triple", 4: "quad"}

#: Class of a trump card (the whole trump "suit" of follow-suit).
TRUMP = "T"

#: Suit tie-break for equal-ranked cards when "lowest" must pick one
#: (paiju ruling): diamonds lowest, then clubs, hearts, spades.
SUIT_TIE = {"D": 0, "C": 1, "H": 2, "S": 3, "J": 0}


def card_points(cards: Iterable[Card]) -> int:
    """Sum of the point cards (seed 分牌: 5 → 5, 10 and K → 10) in ``cards``."""
    return sum(CARD_POINTS.get(c[0], 0) for c in cards)


def is_trump(card: Card, trump: str) -> bool:
    """True for 主牌: jokers, every 5, 3 and 2, and the trump suit (seed 主牌)."""
    return card in JOKERS or card[0] in TRUMP_RANKS or card[1] == trump


def card_class(card: Card, trump: str) -> str:
    """The "suit" a card follows as (seed 跟牌): ``"T"`` for a trump, else its suit letter."""
    return TRUMP if is_trump(card, trump) else card[1]


def card_power(card: Card, trump: str) -> int:
    """The card's strength in the seed's order (牌的大小), higher is stronger.

    BJ > SJ > trump 5 > other 5s (equal) > trump 3 > other 3s (equal) > trump 2
    > other 2s (equal) > trump suit A..4 > side suits A..4 (a side card's power
    is its rank: side cards of different suits never meet in a trick).
    """
    if card == "BJ":
        return 51
    if card == "SJ":
        return 50
    r, s = card[0], card[1]
    own = 1 if s == trump else 0
    if r == "5":
        return 44 + own
    if r == "3":
        return 42 + own
    if r == "2":
        return 40 + own
    return RANKS.index(r) + (20 if own else 0)


def low_key(card: Card, trump: str) -> tuple[int, int]:
    """Total order of "lowest cards" (bury default, default plays, hand order):
    :func:`card_power`, then the suit tie-break (D < C < H < S, paiju ruling)."""
    return card_power(card, trump), SUIT_TIE[card[1]]


def group_size(cards: Sequence[Card]) -> int | None:
    """``len(cards)`` when they are 1–4 identical cards (a combination of seed
    牌型), else ``None``."""
    if not 1 <= len(cards) <= 4:
        return None
    first = cards[0]
    return len(cards) if all(c == first for c in cards) else None


def partition(cards: Iterable[Card]) -> tuple[int, ...]:
    """The multiplicities of identical cards, largest first: ``7H 7H 9H`` → ``(2, 1)``."""
    return tuple(sorted(Counter(cards).values(), reverse=True))


def dealt_cards(order: Sequence[Card], first: int, seat: int, k: int) -> Hand:
    """The cards ``seat`` held after the first ``k`` cards of ``order`` were dealt.

    Dealing order (paiju ruling, from records.md ``deal.order`` and seed 开牌):
    the kitty is set aside first; ``order`` lists the hand cards only, card
    ``i`` going to seat ``(first + i) % 4``.
    """
    return Counter(order[(seat - first) % SEATS : min(k, len(order)) : SEATS])


#: Every card of one deck, in :func:`~paiju.rules.cards.deck` order.
DECK1: list[Card] = deck(1)

#: Every card of one deck, for the fast path of :func:`fast_cards`.
_ONE_DECK: frozenset[Card] = frozenset(DECK1)

#: :func:`card_points` of each card.
POINTS: dict[Card, int] = {c: CARD_POINTS.get(c[0], 0) for c in DECK1}

#: decks → the multiset of their cards.
DECK_COUNTS: dict[int, Counter[Card]] = {d: Counter(deck(d)) for d in SIZES}

#: A trump suit's tables (see :func:`trump_tables`).
Tables = tuple[
    dict[Card, int], dict[Card, str], dict[Card, tuple[int, int]], dict[Card, int], dict[Card, int]
]
_TABLES: dict[str, Tables] = {}


def trump_tables(trump: str) -> Tables:
    """Per card, computed once per trump suit and shared (read only):
    ``(power, cls, key, strength, order)``: :func:`card_power`,
    :func:`card_class`, :func:`low_key`, the strength in a trick (a trump above
    every side card, then the power) as one integer, and :func:`low_key` as one
    integer (the same order; distinct cards have distinct keys)."""
    tables = _TABLES.get(trump)
    if tables is None:
        power = {c: card_power(c, trump) for c in DECK1}
        cls = {c: card_class(c, trump) for c in DECK1}
        key = {c: low_key(c, trump) for c in DECK1}
        strength = {c: power[c] + (100 if cls[c] == TRUMP else 0) for c in DECK1}
        order = {c: 4 * key[c][0] + key[c][1] for c in DECK1}
        tables = _TABLES[trump] = (power, cls, key, strength, order)
    return tables


_STR: frozenset[type] = frozenset({str})


def fast_cards(items: object) -> list[Card]:
    """:func:`~paiju.rules.cards.parse_cards`, with a fast path for a list that
    holds canonical cards only (every deal of ``Shengji.random_deal``).
    Raises ``RulesError`` (``malformed_cards``) as ``parse_cards`` does."""
    if type(items) is list:
        try:
            if _ONE_DECK.issuperset(items) and set(map(type, items)) <= _STR:
                return list(items)
        except TypeError:  # an unhashable item: not a card
            pass
    return parse_cards(items)


def same_cards(a: Counter[Card], b: Counter[Card]) -> bool:
    """``a == b`` for multisets built by counting (no zero counts): the plain
    dict comparison, faster than ``Counter.__eq__``."""
    return dict.__eq__(a, b) is True


# -- the order of a hand as players hold it ------------------------------------------

#: Side suits in hand order (black, red, black, red).
SUIT_GROUPS = {"S": 1, "H": 2, "C": 3, "D": 4}

_KEYS: dict[str, dict[Card, int]] = {}


def hand_order_keys(trump: str) -> dict[Card, int]:
    """Per card, its place in :func:`in_hand_order` for ``trump`` (a suit
    letter, or ``""`` before the trump is fixed): smaller comes first."""
    keys = _KEYS.get(trump)
    if keys is None:
        keys = {}
        for r in "23456789TJQKA":
            for s in "SHCD":
                keys[r + s] = _key(r + s, trump)
        for c in ("BJ", "SJ"):
            keys[c] = _key(c, trump)
        _KEYS[trump] = keys
    return keys


def _key(card: Card, trump: str) -> int:
    power = card_power(card, trump)
    if is_trump(card, trump):  # group 0, strongest first, then 黑 红 梅 方
        return -(power * 4 + SUIT_TIE[card[1]]) - 1000
    return SUIT_GROUPS[card[1]] * 100 - power


def in_hand_order(cards: Iterable[Card], trump: str) -> list[Card]:
    """``cards`` in the order players hold them: the trumps together (seed
    主牌: 大王, 小王, 5s, 3s, 2s, then the trump suit, in the seed's 牌的大小
    order, high to low; equal cards of other suits by 黑 红 梅 方), then each
    side suit together (♠ ♥ ♣ ♦, the trump suit left out), high to low. Before
    the trump is fixed (``trump`` ``""``) the trumps are the jokers, 5s, 3s
    and 2s."""
    return sorted(cards, key=hand_order_keys(trump).__getitem__)
