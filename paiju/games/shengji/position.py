"""升级 (shengji) positions: a game in play given by its cards and points.

What :meth:`paiju.games.shengji.game.Shengji.from_position` starts from (tests,
puzzles, analysis), checked so that the engine's invariants hold: the cards
are a part of the decks (seed 游戏用牌), every seat held as many cards when
the trick began (seed 发牌 / 一轮: each trick takes the lead's size from every
hand), the current trick has a lead of identical cards (seed 牌型) followed
by plays of its size, and the captured points are point cards' (seed 分牌)
not still in play. Each refusal is ``RulesError`` ``bad_deal``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

from paiju.games.shengji.cards import (
    CARD_POINTS,
    DECK_COUNTS,
    SEATS,
    SIZES,
    card_points,
    group_size,
)
from paiju.games.shengji.deal import is_int
from paiju.rules.cards import SUITS, Card, Hand, parse_cards
from paiju.rules.errors import RulesError


@dataclass(frozen=True, slots=True)
class Position:
    """A checked position: ``hands`` as the seats held them when the current
    trick began (the trick's cards given back), the trick's plays as
    ``(seat, cards)`` in playing order, and the rest as given."""

    hands: list[Hand]
    dealer: int
    trump: str
    buried: list[Card]
    leader: int
    trick: list[tuple[int, tuple[Card, ...]]]
    captured: list[int]
    trick_no: int
    declarer: int | None
    declared: tuple[Card, ...]


def bad_position(msg: str) -> RulesError:
    """The error of a refused position: ``bad_deal`` (a position plays the
    part of a deal: what the game starts from)."""
    return RulesError("bad_deal", msg)


def _cards(items: object, what: str) -> list[Card]:
    try:
        return parse_cards(items)
    except RulesError as e:
        raise bad_position(f"{what}: {e.message}") from e


def _seat(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SEATS:
        raise bad_position(f"{what} must be a seat 0..3, not {value!r}")
    return value


def parse_position(
    decks: int,
    *,
    hands: Sequence[Sequence[str]],
    dealer: int,
    trump: str,
    buried: Sequence[str],
    leader: int | None,
    trick: Sequence[Sequence[str]],
    captured: Sequence[int],
    trick_no: int,
    declarer: int | None,
    declared: Sequence[str],
) -> Position:
    """Check a position of ``decks`` decks (see
    :meth:`paiju.games.shengji.game.Shengji.from_position` for the arguments).

    Raises ``bad_deal`` for: not 4 hands; cards that do not parse; a seat
    outside 0..3; a trump that is not a suit letter; a buried kitty not of the
    kitty's size; more cards of a kind than the decks hold; a trick of 4 or
    more plays, a lead that is not 1–4 identical cards, a follow not of the
    lead's size; hands of different sizes at the trick's start (or all empty);
    captured points not 4 integers >= 0 in steps of 5, or more than the point
    cards not in the hands, the trick or the kitty; ``trick_no`` < 1; a
    declaration that is not 3s of the trump suit.
    """
    hand_size, kitty_size = SIZES[decks]
    if isinstance(hands, str | bytes) or len(hands) != SEATS:
        raise bad_position("a position has 4 hands")
    held = [_cards(h, f"hand {s}") for s, h in enumerate(hands)]
    dealer = _seat(dealer, "dealer")
    leader = dealer if leader is None else _seat(leader, "leader")
    if not isinstance(trump, str) or len(trump) != 1 or trump not in SUITS:
        raise bad_position(f"trump must be one of {', '.join(SUITS)}, not {trump!r}")
    kitty = _cards(buried, "buried")
    if len(kitty) != kitty_size:
        raise bad_position(f"{decks} deck(s): the buried kitty is {kitty_size} cards")
    if isinstance(trick, str | bytes) or len(trick) >= SEATS:
        raise bad_position("a trick in progress has 0 to 3 plays")
    plays = [(leader + i) % SEATS for i in range(len(trick))]
    played = [tuple(_cards(p, f"trick play {i}")) for i, p in enumerate(trick)]
    if played and group_size(played[0]) is None:
        raise bad_position("a lead is a single, pair, triple or quad of identical cards")
    if any(len(p) != len(played[0]) for p in played):
        raise bad_position("every play of a trick has the lead's size")
    before = [Counter(h) for h in held]
    for seat, cards in zip(plays, played, strict=True):
        before[seat].update(cards)
    sizes = {sum(h.values()) for h in before}
    if len(sizes) != 1 or not 0 < sizes.pop() <= hand_size:
        raise bad_position(
            "every seat holds as many cards (1 to a hand's size) when a trick begins"
        )
    counts = Counter(chain(kitty, *(h.elements() for h in before)))
    full = DECK_COUNTS[decks]
    extra = sorted(c for c, k in counts.items() if k > full.get(c, 0))
    if extra:
        raise bad_position(f"more cards than {decks} deck(s) hold: {' '.join(extra)}")
    if isinstance(captured, str | bytes) or len(captured) != SEATS or not all(
        is_int(p) and p >= 0 and p % 5 == 0 for p in captured
    ):
        raise bad_position("captured is 4 integers >= 0, in steps of 5 (seed 分牌)")
    in_play = card_points(counts.elements())
    total = sum(k * CARD_POINTS.get(c[0], 0) for c, k in full.items())
    if sum(captured) > total - in_play:
        raise bad_position(
            f"captured {sum(captured)} points; only {total - in_play} left the hands and kitty"
        )
    if not is_int(trick_no) or trick_no < 1:
        raise bad_position(f"trick_no must be an integer >= 1, not {trick_no!r}")
    decl = tuple(_cards(declared, "declared"))
    if declarer is not None:
        declarer = _seat(declarer, "declarer")
    if decl and (declarer is None or any(c != "3" + trump for c in decl)):
        raise bad_position("declared is 3s of the trump suit, by a declarer")
    return Position(before, dealer, trump, kitty, leader, list(zip(plays, played, strict=True)),
                    list(captured), trick_no, declarer, decl)


def parse_captured_cards(decks: int, pos: Position,
                         cards: Sequence[Sequence[str]] | None) -> list[list[Card]]:
    """Check the point cards behind ``pos.captured`` (看分; ``None``: not
    given, none listed): 4 lists of point cards only (seed 分牌: 5, 10, K)
    whose points are each seat's ``captured`` (a position is in play: no
    抠底 yet), no more of a card than the decks hold with the hands, the
    trick and the kitty. Raises ``bad_deal``."""
    if cards is None:
        return [[] for _ in range(SEATS)]
    if isinstance(cards, str | bytes) or len(cards) != SEATS:
        raise bad_position("captured_cards is 4 lists of cards")
    won = [_cards(c, f"captured_cards {s}") for s, c in enumerate(cards)]
    for s, got in enumerate(won):
        if any(c[0] not in CARD_POINTS for c in got):
            raise bad_position(f"captured_cards {s}: point cards only (seed 分牌: 5, 10, K)")
        if card_points(got) != pos.captured[s]:
            raise bad_position(f"captured_cards {s} make {card_points(got)} points, "
                               f"not the {pos.captured[s]} captured")
    counts = Counter(chain(pos.buried, *(h.elements() for h in pos.hands), *won))
    full = DECK_COUNTS[decks]
    extra = sorted(c for c, k in counts.items() if k > full.get(c, 0))
    if extra:
        raise bad_position(f"more cards than {decks} deck(s) hold: {' '.join(extra)}")
    return won
