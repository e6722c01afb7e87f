"""斗地主 doudizhu: options, the deal and its checks (seed 002 发牌; rulings.md
"doudizhu", "Shared", "Settlement")."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from paiju.games.doudizhu import combos as dc
from paiju.rules.cards import check_deal, deck, parse_cards
from paiju.rules.engine import check_room_options
from paiju.rules.errors import RulesError, reading_deal

SEATS = 3
HAND_SIZE = 17
KITTY_SIZE = 3

#: Options and their defaults (rulings.md "doudizhu", "Shared", "Settlement").
DEFAULT_OPTIONS: dict[str, Any] = {
    "turn_seconds": 20,
    "jokers_as_wings": False,
    "pair_as_two_singles": True,
    "bomb_doubles": True,
    "spring_doubles": True,
    "no_call_fee": 20,
    "escape_points": None,
}
#: The keys of doudizhu's own options (the room-wide ones are the engine's).
_OWN = frozenset(DEFAULT_OPTIONS)
BOOL_OPTIONS = ("jokers_as_wings", "pair_as_two_singles", "bomb_doubles", "spring_doubles")

_DECK_SET = frozenset(deck(1))


def int_option(opts: Mapping[str, Any], key: str, low: int) -> int:
    """``opts[key]``, an integer ≥ ``low``; else ``RulesError("bad_options")``."""
    v = opts[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise RulesError("bad_options", f"option {key!r} must be an integer >= {low}, not {v!r}")
    return v


def parse_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options with their defaults (:data:`DEFAULT_OPTIONS`); room keys are
    checked and dropped. Raises ``RulesError("bad_options")``."""
    if type(options) is dict and not options:  # the defaults are valid
        return dict(DEFAULT_OPTIONS)
    check_room_options("doudizhu", options, _OWN)
    opts = {**DEFAULT_OPTIONS, **{k: v for k, v in options.items() if k in DEFAULT_OPTIONS}}
    for key in BOOL_OPTIONS:
        if not isinstance(opts[key], bool):
            raise RulesError("bad_options", f"option {key!r} must be true or false")
    int_option(opts, "turn_seconds", 1)
    int_option(opts, "no_call_fee", 0)
    if opts["escape_points"] is not None:
        int_option(opts, "escape_points", 0)
    return opts


def parse_deal(deal: Mapping[str, Any]) -> tuple[list[list[str]], list[str], int]:
    """``(hands, kitty, first)`` of a record's ``deal``: 3 hands of 17 cards and a
    kitty of 3 that are exactly one deck, ``first`` a seat. Raises
    ``RulesError("bad_deal")``."""
    if not isinstance(deal, Mapping):
        raise RulesError("bad_deal", "the deal must be an object")
    with reading_deal():
        raw_hands = deal["hands"]
        if not isinstance(raw_hands, list) or len(raw_hands) != SEATS:
            raise RulesError("bad_deal", "doudizhu deals 3 hands")
        raw_bottom = deal["bottom"]
        if (  # fast path: a deal already in canonical notation (random_deal, the table)
            all(isinstance(h, list) for h in raw_hands)
            and isinstance(raw_bottom, list)
            and len(raw_bottom) == KITTY_SIZE
            and all(len(h) == HAND_SIZE for h in raw_hands)
        ):
            every = [*raw_hands[0], *raw_hands[1], *raw_hands[2], *raw_bottom]
            if set(every) == _DECK_SET and len(every) == len(_DECK_SET):
                first = deal.get("first")
                if not isinstance(first, bool) and first in (0, 1, 2):
                    return [list(h) for h in raw_hands], list(raw_bottom), first
        hands = [parse_cards(h) for h in raw_hands]
        bottom = parse_cards(raw_bottom)
    if any(len(h) != HAND_SIZE for h in hands) or len(bottom) != KITTY_SIZE:
        raise RulesError("bad_deal", "doudizhu deals 17 cards each and a kitty of 3")
    first = deal.get("first")
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < SEATS:
        raise RulesError("bad_deal", f"'first' must be a seat 0..2, not {first!r}")
    check_deal(hands, bottom, deck(1))
    return hands, bottom, first


def random_deal(rng: random.Random) -> dict[str, Any]:
    """A shuffled deck: 17 cards per seat, a kitty of 3, a random first bidder
    (seed §发牌, §第一个叫牌的玩家)."""
    cards = deck(1)
    rng.shuffle(cards)
    return {
        "hands": [
            dc.sort_cards(cards[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(SEATS)
        ],
        "bottom": dc.sort_cards(cards[SEATS * HAND_SIZE:]),
        "first": rng.randrange(SEATS),
    }
