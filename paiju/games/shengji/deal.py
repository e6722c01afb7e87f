"""升级 (shengji) options and deals: what a game starts from.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 游戏用牌 (1–4 decks),
底牌 (hand and kitty sizes) and 开牌 (the kitty set aside, the rest dealt);
rulings.md "shengji" (option ``decks``), "Shared" and "Settlement" (room-wide
options, ``escape_points``); records.md ``deal`` (``hands``, ``bottom``,
``first``, ``order``). The dealing order is a paiju ruling
(docs/rules/shengji.md, "The dealing order").
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from itertools import chain
from typing import Any, NamedTuple

from paiju.games.shengji.cards import (
    DECK_COUNTS,
    SEATS,
    SIZES,
    dealt_cards,
    fast_cards,
    same_cards,
)
from paiju.rules.cards import Card, Hand, check_deal, deck
from paiju.rules.engine import check_room_options
from paiju.rules.errors import RulesError, reading_deal

#: The options of shengji itself (rulings.md "shengji", "Settlement").
GAME_OPTIONS = frozenset({"decks", "dealer", "escape_points"})


class Options(NamedTuple):
    """Parsed options: ``decks`` 1..4, ``dealer`` (``None`` in a room's first
    game, else the seat that deals), ``escape_points`` (what an escapee pays
    each other seat), ``turn_seconds`` (the turn clock, seconds)."""

    decks: int
    dealer: int | None
    escape_points: int
    turn_seconds: float


def _bad_options(msg: str) -> RulesError:
    return RulesError("bad_options", msg)


def is_int(value: object) -> bool:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def parse_options(options: Mapping[str, Any]) -> Options:
    """The options of a game, checked. Defaults: ``decks`` 2, ``dealer``
    ``None``, ``escape_points`` 2, ``turn_seconds`` 20. Raises ``RulesError``
    ``bad_options`` for an unknown key (room-wide keys are accepted) or a bad
    value."""
    check_room_options("shengji", options, GAME_OPTIONS)
    decks = options.get("decks", 2)
    if not is_int(decks) or decks not in SIZES:
        raise _bad_options(f"decks must be 1..4, not {decks!r}")
    dealer = options.get("dealer")
    if dealer is not None and (not is_int(dealer) or not 0 <= dealer < SEATS):
        raise _bad_options(f"dealer must be null or a seat 0..3, not {dealer!r}")
    esc = options.get("escape_points", 2)
    if not is_int(esc) or esc < 0:
        raise _bad_options(f"escape_points must be an integer >= 0, not {esc!r}")
    ts = options.get("turn_seconds", 20)
    if isinstance(ts, bool) or not isinstance(ts, int | float) or ts <= 0:
        raise _bad_options(f"turn_seconds must be positive, not {ts!r}")
    return Options(decks, dealer, esc, ts)


def parse_deal(
    decks: int, deal: Mapping[str, Any]
) -> tuple[list[Hand], list[Card], int, list[Card] | None]:
    """``(hands as multisets, bottom, first, order)`` of a record's ``deal``
    for ``decks`` decks: 4 hands of the seed's size, a kitty (``bottom``) of
    its size, together exactly the decks; ``first`` a seat (default 0);
    ``order`` (optional) the hand cards in dealing order, dealing exactly the
    hands (:func:`~paiju.games.shengji.cards.dealt_cards`). Raises
    ``RulesError`` ``bad_deal``."""
    hand_size, kitty_size = SIZES[decks]
    with reading_deal():
        raw_hands = deal["hands"]
        if not isinstance(raw_hands, list) or len(raw_hands) != SEATS:
            raise RulesError("bad_deal", "shengji deals 4 hands")
        hands = [fast_cards(h) for h in raw_hands]
        bottom = fast_cards(deal.get("bottom", []))
        order = fast_cards(deal["order"]) if deal.get("order") is not None else None
    first = deal.get("first", 0)
    if not is_int(first) or not 0 <= first < SEATS:
        raise RulesError("bad_deal", f"first must be a seat 0..3, not {first!r}")
    if any(len(h) != hand_size for h in hands) or len(bottom) != kitty_size:
        raise RulesError(
            "bad_deal", f"{decks} deck(s): hands of {hand_size}, a kitty of {kitty_size}"
        )
    if not same_cards(Counter(chain(bottom, *hands)), DECK_COUNTS[decks]):
        check_deal(hands, bottom, deck(decks))  # raises, naming the difference
    held = [Counter(h) for h in hands]
    if order is not None:
        if len(order) != SEATS * hand_size:
            raise RulesError("bad_deal", "deal.order lists the hand cards, kitty excluded")
        for s in range(SEATS):
            if not same_cards(dealt_cards(order, first, s, len(order)), held[s]):
                raise RulesError("bad_deal", f"deal.order does not deal seat {s}'s hand")
    return held, bottom, first, order


def random_deal(options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random deal (records.md ``deal``): the kitty is set aside first, the
    rest dealt one card at a time from ``first`` (seed 开牌); ``order`` records
    the dealing. ``first`` is the option ``dealer`` when given, else a random
    seat. Raises ``bad_options``."""
    opts = parse_options(options)
    kitty_size = SIZES[opts.decks][1]
    cards = deck(opts.decks)
    rng.shuffle(cards)
    bottom, order = cards[:kitty_size], cards[kitty_size:]
    first = opts.dealer if opts.dealer is not None else rng.randrange(SEATS)
    hands = [sorted(order[(s - first) % SEATS :: SEATS]) for s in range(SEATS)]
    return {"hands": hands, "bottom": sorted(bottom), "first": first, "order": order}
