"""大A (daa): options, the deal and its held-back cards (seed 003 发牌;
rulings.md "daa", "Shared", "Settlement"; records.md ``deal.order``).

108 cards (two decks with jokers) go round-robin to 5 seats from ``first``:
the first 3 seats from ``first`` get 22 cards, the others 21. Each seat's last
card is held back face down (扣下) until the big A is settled: with
``deal.order`` it is the seat's last card of the order, without it the last
card of its ``deal.hands`` list (docs/rules/daa.md, paiju ruling).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

from paiju.games.daa.combos import CARD_ORDER
from paiju.rules.cards import Card, deck, hand_of, parse_cards, remove
from paiju.rules.engine import check_room_options
from paiju.rules.errors import RulesError

SEATS = 5
DECK: list[Card] = deck(2)
DECK_COUNT: Counter[str] = Counter(DECK)
_SORTED_DECK: list[Card] = sorted(DECK)
_IS_CARD = CARD_ORDER.__contains__


def parse_card_list(items: object) -> list[Card]:
    """Parse a card list, with a fast path for canonical cards (a deal is
    parsed at every game start). Raises ``malformed_cards``."""
    if isinstance(items, list):
        try:
            if all(map(_IS_CARD, items)):
                return list(items)
        except TypeError:  # an unhashable item: not a card
            pass
    return parse_cards(items)


def hand_sizes(first: int) -> list[int]:
    """Cards per seat: the first 3 seats from ``first`` get 22, the others 21."""
    return [22 if (s - first) % SEATS < 3 else 21 for s in range(SEATS)]


def parse_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The room's options: only the room-wide ones
    (:data:`paiju.rules.engine.ROOM_OPTIONS`; the rules use none of them).
    Raises ``RulesError("bad_options")``."""
    return dict(check_room_options("daa", options, frozenset()))


@dataclass(frozen=True, slots=True)
class DaaDeal:
    """A checked deal: ``hands`` as dealt (22 / 21 cards, held-back card
    included), ``order`` (or None), ``held`` the held-back card per seat and
    ``held_index`` its position in ``order`` (-1 without ``order``)."""

    first: int
    hands: list[list[Card]]
    order: list[Card] | None
    held: list[Card]
    held_index: list[int]


def parse_deal(deal: Mapping[str, Any]) -> DaaDeal:
    """Check a record's ``deal`` (records.md): 5 hands of the sizes
    :func:`hand_sizes` gives that are exactly two decks, no kitty, ``first`` a
    seat, ``order`` (optional) giving each seat its hand round-robin. Raises
    ``RulesError("bad_deal")``."""
    try:
        first = deal.get("first", 0)
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < SEATS:
            raise RulesError("bad_deal", f"bad first seat {first!r}")
        raw = deal.get("hands")
        if not isinstance(raw, list) or len(raw) != SEATS:
            raise RulesError("bad_deal", "daa deals 5 hands")
        hands = [parse_card_list(h) for h in raw]
        bottom = parse_cards(deal.get("bottom") or [])
        if bottom:
            raise RulesError("bad_deal", "daa has no kitty")
        if [len(h) for h in hands] != hand_sizes(first):
            raise RulesError("bad_deal", f"hand sizes must be {hand_sizes(first)}")
        if sorted(chain.from_iterable(hands)) != _SORTED_DECK:  # the multiset DECK_COUNT
            raise RulesError("bad_deal", "the deal is not two full decks")
        order_raw = deal.get("order")
        order: list[Card] | None = None
        if order_raw is not None:
            order = parse_card_list(order_raw)
            if len(order) != len(DECK):
                raise RulesError("bad_deal", "order must list all 108 cards")
            for s in range(SEATS):
                if sorted(order[(s - first) % SEATS::SEATS]) != sorted(hands[s]):
                    raise RulesError("bad_deal", f"order does not give seat {s} its hand")
    except RulesError as e:
        raise RulesError("bad_deal", e.message) from e
    if order is not None:
        held = [order[(s - first) % SEATS::SEATS][-1] for s in range(SEATS)]
        held_index = [(s - first) % SEATS + SEATS * (len(hands[s]) - 1) for s in range(SEATS)]
    else:
        held = [h[-1] for h in hands]
        held_index = [-1] * SEATS
    return DaaDeal(first, hands, order, held, held_index)


def face_up_hands(deal: DaaDeal) -> list[Counter[str]]:
    """Per seat, its dealt hand less its held-back card: what it holds face up
    until the big A is settled."""
    out = []
    for hand, held in zip(deal.hands, deal.held, strict=True):
        h = hand_of(hand)
        remove(h, [held])
        out.append(h)
    return out


def random_deal(rng: random.Random) -> dict[str, Any]:
    """A shuffled deal: ``order`` (108 cards), ``hands`` in dealing order (so
    each hand's last card is its held-back card), ``bottom`` [], ``first``."""
    order = list(DECK)
    rng.shuffle(order)
    first = rng.randrange(SEATS)
    hands: list[list[Card]] = [[] for _ in range(SEATS)]
    for j in range(SEATS):  # card i goes to seat (first + i) % 5
        hands[(first + j) % SEATS] = order[j::SEATS]
    return {"hands": hands, "bottom": [], "first": first, "order": order}
