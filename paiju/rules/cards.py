"""The card model of shared/spec/records.md ("Card notation").

A card is a canonical two-character string, rank then suit: ``"TS"`` (ten of
spades), ``"5H"``, ``"AD"``; the jokers are ``"BJ"`` (大王) and ``"SJ"`` (小王).
Ranks ``2 3 4 5 6 7 8 9 T J Q K A``; suits ``S`` 黑桃, ``H`` 红桃, ``C`` 梅花,
``D`` 方片. With several decks equal cards are equal strings, so a hand is a
multiset (:class:`collections.Counter`).

Parsing is lenient (lower case, ``10`` for ``T``, jokers as ``bj``/``sj``);
formatting is canonical. Everything here is pure and raises
:class:`~paiju.rules.errors.RulesError` with code ``malformed_cards`` on bad
input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from paiju.rules.errors import RulesError

RANKS = "23456789TJQKA"
SUITS = "SHCD"
BIG_JOKER = "BJ"
SMALL_JOKER = "SJ"
JOKERS = (BIG_JOKER, SMALL_JOKER)

Card = str
Hand = Counter[str]

_CANONICAL: frozenset[str] = frozenset(
    [r + s for r in RANKS for s in SUITS] + list(JOKERS)
)


def parse_card(text: object) -> Card:
    """Parse one card leniently: ``"10s"`` → ``"TS"``, ``"bj"`` → ``"BJ"``.

    Raises ``RulesError("malformed_cards")`` for anything that is not a card.
    """
    if not isinstance(text, str):
        raise RulesError("malformed_cards", f"a card is a string, not {text!r}")
    s = text.strip().upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    if s not in _CANONICAL:
        raise RulesError("malformed_cards", f"not a card: {text!r}")
    return s


def parse_cards(items: object) -> list[Card]:
    """Parse a list of cards (see :func:`parse_card`); the order is kept.

    Raises ``RulesError("malformed_cards")`` if ``items`` is not a list of cards.
    """
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise RulesError("malformed_cards", f"cards must be a list, not {items!r}")
    return [parse_card(c) for c in items]


def is_joker(card: Card) -> bool:
    """True for ``BJ`` and ``SJ``."""
    return card in JOKERS


def rank(card: Card) -> str:
    """The rank character (``"T"`` for ``"TS"``); ``"B"``/``"S"`` for jokers."""
    return card[0]


def suit(card: Card) -> str:
    """The suit character (``"S"`` for ``"TS"``); ``"J"`` for jokers."""
    return card[1]


def deck(decks: int = 1, *, jokers: bool = True, without_ranks: str = "") -> list[Card]:
    """Every card of ``decks`` standard decks, in a fixed order.

    ``without_ranks`` drops ranks (hunzhan: ``"346"``). One deck with jokers is
    54 cards (seed 002 发牌).
    """
    one = [r + s for r in RANKS if r not in without_ranks for s in SUITS]
    if jokers:
        one += list(JOKERS)
    return one * decks


def hand_of(cards: Iterable[Card]) -> Hand:
    """A multiset of cards."""
    return Counter(cards)


def holds(hand: Hand, cards: Iterable[Card]) -> bool:
    """True where the multiset ``hand`` contains every card of ``cards`` (with repeats)."""
    need = Counter(cards)
    return all(hand[c] >= n for c, n in need.items())


def remove(hand: Hand, cards: Iterable[Card]) -> None:
    """Remove ``cards`` from ``hand`` in place; the caller has checked :func:`holds`."""
    for c in cards:
        n = hand[c] - 1
        if n:
            hand[c] = n
        else:
            del hand[c]


def check_deal(
    hands: Sequence[Sequence[Card]], bottom: Sequence[Card], expected: Sequence[Card]
) -> None:
    """Check that ``hands`` plus ``bottom`` are exactly the multiset ``expected``.

    Raises ``RulesError("bad_deal")`` otherwise (records.md: the engine rejects a
    deal that is not exactly the game's deck).
    """
    got: Counter[str] = Counter(bottom)
    for h in hands:
        got.update(h)
    if got != Counter(expected):
        missing = Counter(expected) - got
        extra = got - Counter(expected)
        raise RulesError(
            "bad_deal",
            f"deal is not the game's deck (missing {sorted(missing.elements())}, "
            f"extra {sorted(extra.elements())})",
        )
