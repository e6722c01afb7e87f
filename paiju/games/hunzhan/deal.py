"""混战 hunzhan: options, the deal and its checks, a random deal and the cards
a seat held part way through the deal (seed 000 牌 / 发牌; rulings.md
"hunzhan", "Shared", "Settlement"; records.md ``deal.order``)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any, Protocol

from paiju.games.hunzhan.cards import DECK
from paiju.rules.cards import Card, check_deal, parse_cards
from paiju.rules.engine import check_room_options
from paiju.rules.errors import RulesError, reading_deal

#: Seats (seed 000: 4人参与).
SEATS = 4
#: Cards per hand: 84 / 4, no kitty (rulings.md "hunzhan").
HAND_SIZE = 21
#: Par of the score: a seat's points are captured − 60 (seed 000 积分).
PAR = 60

#: Options with their defaults and allowed ranges (rulings.md "Shared"; the
#: timing options are used by the table service, the engine only checks them).
OPTIONS: dict[str, tuple[int, int, int]] = {
    "turn_seconds": (20, 1, 3600),
    "declare_grace_seconds": (5, 0, 600),
    "reconnect_seconds": (90, 0, 3600),
}



def parse_options(options: Mapping[str, Any]) -> dict[str, int]:
    """The timing options with their defaults (see :data:`OPTIONS`); the room-wide
    keys are accepted and dropped. Raises ``RulesError("bad_options")``."""
    check_room_options("hunzhan", options, frozenset(OPTIONS))
    out: dict[str, int] = {}
    for key, (default, lo, hi) in OPTIONS.items():
        value = options.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError("bad_options", f"{key} must be an integer in {lo}..{hi}")
        out[key] = value
    return out


def parse_deal(deal: Mapping[str, Any]) -> tuple[list[list[Card]], int, list[Card] | None]:
    """``(hands, first, order)`` of a record's ``deal`` (records.md): 4 hands of
    21 cards that are exactly the deck, no kitty, ``first`` a seat, ``order``
    (or None) dealing each seat its hand round-robin from ``first``. Raises
    ``RulesError("bad_deal")``."""
    if not isinstance(deal, Mapping):
        raise RulesError("bad_deal", "deal must be an object")
    with reading_deal():
        raw_hands = deal.get("hands")
        if not isinstance(raw_hands, list) or len(raw_hands) != SEATS:
            raise RulesError("bad_deal", "hunzhan deals 4 hands")
        hands = [parse_cards(h) for h in raw_hands]
        bottom = parse_cards(deal.get("bottom") or [])
        order = None if deal.get("order") is None else parse_cards(deal["order"])
    if bottom:
        raise RulesError("bad_deal", "hunzhan has no kitty")
    if any(len(h) != HAND_SIZE for h in hands):
        raise RulesError("bad_deal", f"every hand has {HAND_SIZE} cards")
    check_deal(hands, [], DECK)
    first = deal.get("first", 0)
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < SEATS:
        raise RulesError("bad_deal", "deal.first must be a seat 0..3")
    if order is not None:
        if len(order) != len(DECK):
            raise RulesError("bad_deal", "deal.order must list all 84 cards")
        for s in range(SEATS):
            got = Counter(order[j] for j in range((s - first) % SEATS, len(DECK), SEATS))
            if got != Counter(hands[s]):
                raise RulesError(
                    "bad_deal", f"deal.order does not deal seat {s}'s hand round-robin"
                )
    return hands, first, order


def random_deal(options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random deal: ``hands``, ``bottom`` (empty), ``first`` (random seat; the
    table service replaces it from the room's second game with the previous
    game's ``last_trick_winner``, seed 000) and ``order`` (dealt round-robin
    from ``first``). Raises ``RulesError("bad_options")``."""
    parse_options(options)
    order = list(DECK)
    rng.shuffle(order)
    first = rng.randrange(SEATS)
    hands = [order[(s - first) % SEATS :: SEATS] for s in range(SEATS)]
    return {"hands": hands, "bottom": [], "first": first, "order": order}


class DealtState(Protocol):
    """What :func:`held_at` reads of a game (the engine has these fields)."""

    #: the seat dealt to first
    first: int
    #: the 84 cards in the order dealt, or None where the deal gave none
    order: list[Card] | None
    #: per seat, card → count (the cards held now)
    hands: list[dict[Card, int]]


def held_at(g: DealtState, seat: int, dealt: int | None) -> dict[Card, int]:
    """The cards ``seat`` held (card → count) after ``dealt`` cards were dealt
    (records.md ``deal.order``); its hand itself (not a copy) when ``dealt`` is
    None or the deal has no ``order``. Raises ``malformed_action`` for
    ``dealt`` outside 0..84."""
    if dealt is not None and not 0 <= dealt <= len(DECK):
        raise RulesError("malformed_action", f"dealt must be 0..{len(DECK)}")
    if dealt is None or g.order is None:
        return g.hands[seat]
    start = (seat - g.first) % SEATS
    return dict(Counter(g.order[start:dealt:SEATS]))
