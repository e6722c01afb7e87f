"""升级 (shengji), seed 004: four players in two partnerships, 1 to 4 decks.

Source: shared/seeds/004_87bdd40096bb5c2e.txt, shared/spec/rulings.md sections
"shengji" and "Settlement", shared/spec/records.md. docs/rules/shengji.md
explains the rules as implemented, with every ruling.

Phases:

- ``declaring`` (亮主 / 冲主 while the cards are dealt): any seat may
  ``declare`` 3s of one suit; nobody is on the clock; the system's
  ``end_declare`` closes the window. Nobody declared: a redeal (the game ends
  with ``detail.redeal``).
- ``burying`` (扣底): the kitty was shown to all; the dealer took it and
  ``bury``\\ s exactly as many cards.
- ``play``: tricks of single / pair / triple / quad of identical cards; the
  dealer leads the first.
- ``finished``.

Seats 0 & 2 and 1 & 3 are partners (对家); play goes 0, 1, 2, 3.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from typing import Any, ClassVar

from paiju.rules.cards import (
    JOKERS,
    RANKS,
    SUITS,
    Card,
    Hand,
    check_deal,
    deck,
    holds,
    parse_cards,
    remove,
)
from paiju.rules.engine import Action, Event, Game, Result
from paiju.rules.errors import RulesError

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
_SUIT_TIE = {"D": 0, "C": 1, "H": 2, "S": 3, "J": 0}

#: Score tables of the seed (局分计算 一 to 四): rows of
#: (lowest defender points of the row, 庄家得分, 非庄家得分, 是否换庄).
#: "0分" is the row p == 0; "5—15" is 5 <= p <= 15; ">100" is p >= 100
#: (rulings.md). A row runs up to the next row's lowest points minus 5.
SCORE_TABLES: dict[int, tuple[tuple[int, int, int, bool], ...]] = {
    1: ((0, 3, -3, False), (5, 2, -2, False), (20, 1, -1, False), (40, -1, 1, True),
        (60, -2, 2, True), (80, -3, 3, True), (100, -4, 4, True)),
    2: ((0, 3, -3, False), (5, 2, -2, False), (40, 1, -1, False), (80, -1, 1, True),
        (120, -2, 2, True), (160, -3, 3, True), (200, -4, 4, True)),
    3: ((0, 3, -3, False), (5, 2, -2, False), (60, 1, -1, False), (120, -1, 1, True),
        (180, -2, 2, True), (240, -3, 3, True), (300, -4, 4, True)),
    4: ((0, 3, -3, False), (5, 2, -2, False), (80, 1, -1, False), (160, -1, 1, True),
        (240, -2, 2, True), (320, -3, 3, True), (400, -4, 4, True)),
}

#: Option keys every room may carry (rulings.md "Shared" and "Settlement");
#: accepted and ignored by the rules.
_ROOM_OPTIONS = frozenset({"turn_seconds", "reconnect_seconds", "base", "unit", "fee_rate"})


def score_row(decks: int, defender_points: int) -> tuple[int, int, bool]:
    """The seed's score-table row for ``defender_points`` (非庄家方得分).

    Returns ``(庄家得分, 非庄家得分, 是否换庄)``. Source: seed 局分计算 (一)–(四)
    with rulings.md's reading of ranges. Raises ``ValueError`` for a deck count
    outside 1..4 or negative points.
    """
    if decks not in SCORE_TABLES or defender_points < 0:
        raise ValueError(f"no score row for {decks} decks and {defender_points} points")
    row = SCORE_TABLES[decks][0]
    for r in SCORE_TABLES[decks]:
        if defender_points >= r[0]:
            row = r
    return row[1], row[2], row[3]


def card_points(cards: Iterable[Card]) -> int:
    """Sum of the point cards (5 → 5, 10 and K → 10) in ``cards``."""
    return sum(CARD_POINTS.get(c[0], 0) for c in cards)


def is_trump(card: Card, trump: str) -> bool:
    """True for 主牌: jokers, every 5, 3 and 2, and the trump suit (seed 主牌)."""
    return card in JOKERS or card[0] in TRUMP_RANKS or card[1] == trump


def card_class(card: Card, trump: str) -> str:
    """The "suit" a card follows as: ``"T"`` for a trump, else its suit letter."""
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
    :func:`card_power`, then the suit tie-break (D < C < H < S)."""
    return card_power(card, trump), _SUIT_TIE[card[1]]


def group_size(cards: Sequence[Card]) -> int | None:
    """``len(cards)`` when they are 1–4 identical cards (a combination), else ``None``."""
    if not 1 <= len(cards) <= 4:
        return None
    first = cards[0]
    return len(cards) if all(c == first for c in cards) else None


def partition(cards: Iterable[Card]) -> tuple[int, ...]:
    """The multiplicities of identical cards, largest first: ``7H 7H 9H`` → ``(2, 1)``."""
    return tuple(sorted(Counter(cards).values(), reverse=True))


def required_pattern(group_sizes: Iterable[int], lead_size: int, need: int) -> tuple[int, ...]:
    """The shape a follower's ``need`` cards of the led suit must reach at least.

    ``group_sizes``: how many identical copies of each card of the led suit the
    follower holds. Seed 跟牌: a quad lead asks a quad, else a triple and a
    single, else two pairs, else singles; a triple lead a triple, else a pair
    and a single, else singles; a pair lead a pair, else singles. Groups larger
    than the lead (a quad on a triple or pair lead, a triple on a pair lead)
    may be kept whole (seed 可以不拆) and do not count here. The best shape is
    greedy: the largest group first, cut to what is still needed. A play
    satisfies it when its :func:`partition` is lexicographically >= it.
    """
    usable = sorted((g for g in group_sizes if g <= lead_size), reverse=True)
    out: list[int] = []
    left = need
    for g in usable:
        if left <= 0:
            break
        take = min(g, left)
        out.append(take)
        left -= take
    out.sort(reverse=True)
    return tuple(out)


def _available(items: Sequence[tuple[Card, int]]) -> list[int]:
    """``out[i]``: how many cards ``items[i:]`` hold (for pruning)."""
    out = [0] * (len(items) + 1)
    for i in range(len(items) - 1, -1, -1):
        out[i] = out[i + 1] + max(items[i][1], 0)
    return out


def multiset_combinations(items: Sequence[tuple[Card, int]], r: int) -> list[tuple[Card, ...]]:
    """Every distinct sub-multiset of size ``r`` of ``items`` (card, count).

    Each result lists the cards in the order of ``items``; the results come
    in the order of taking as many of the first item as possible first (the
    lexicographic order of their item indexes). The number of results is at
    most C(len(items) + r - 1, r).
    """
    if r <= 1:
        return [()] if r == 0 else [] if r < 0 else [(c,) for c, k in items if k > 0]
    out: list[tuple[Card, ...]] = []
    avail = _available(items)
    n = len(items)

    def rec(i: int, left: int, acc: tuple[Card, ...]) -> None:
        # left >= 2; the cards from item i on, lowest index first
        for j in range(i, n):
            if avail[j] < left:
                return
            card, count = items[j]
            for take in range(min(count, left), 0, -1):
                rest = left - take
                t = acc + (card,) * take
                if rest == 0:
                    out.append(t)
                elif rest == 1:
                    out.extend([(*t, c) for c, k in items[j + 1 :] if k > 0])
                else:
                    rec(j + 1, rest, t)

    rec(0, r, ())
    return out


def _reaches(parts: tuple[int, ...], req: tuple[int, ...]) -> bool:
    return tuple(sorted(parts, reverse=True)) >= req


def shaped_combinations(
    items: Sequence[tuple[Card, int]], r: int, req: tuple[int, ...]
) -> list[tuple[Card, ...]]:
    """The :func:`multiset_combinations` of size ``r`` whose :func:`partition`
    is lexicographically >= ``req`` (the follow-shape filter, computed during
    the enumeration: a branch stops when even its best completion, the cards
    still to choose as one group, falls short)."""
    if r <= 0:
        return [()] if r == 0 and req <= () else []
    out: list[tuple[Card, ...]] = []
    avail = _available(items)
    n = len(items)

    def rec(i: int, left: int, acc: tuple[Card, ...], parts: tuple[int, ...]) -> None:
        for j in range(i, n):
            if avail[j] < left:
                return
            card, count = items[j]
            for take in range(min(count, left), 0, -1):
                rest = left - take
                got = (*parts, take)
                t = acc + (card,) * take
                if rest == 0:
                    if _reaches(got, req):
                        out.append(t)
                elif not _reaches((*got, rest), req):
                    continue
                elif rest == 1:
                    out.extend([(*t, c) for c, k in items[j + 1 :] if k > 0])
                else:
                    rec(j + 1, rest, t, got)

    rec(0, r, (), ())
    return out


def dealt_cards(order: Sequence[Card], first: int, seat: int, k: int) -> Hand:
    """The cards ``seat`` held after the first ``k`` cards of ``order`` were dealt.

    Dealing order (paiju ruling, from records.md ``deal.order`` and seed 开牌):
    the kitty is set aside first; ``order`` lists the hand cards only, card
    ``i`` going to seat ``(first + i) % 4``.
    """
    return Counter(order[(seat - first) % SEATS : min(k, len(order)) : SEATS])


#: Every card of one deck, in :func:`~paiju.rules.cards.deck` order.
_DECK1: list[Card] = deck(1)

#: Every card of one deck, for the fast path of :func:`_cards`.
_ONE_DECK: frozenset[Card] = frozenset(_DECK1)

#: :func:`card_points` of each card.
_POINTS: dict[Card, int] = {c: CARD_POINTS.get(c[0], 0) for c in _DECK1}

#: A trump suit's tables (see :func:`_trump_tables`).
_Tables = tuple[
    dict[Card, int], dict[Card, str], dict[Card, tuple[int, int]], dict[Card, int], dict[Card, int]
]
_TABLES: dict[str, _Tables] = {}


def _trump_tables(trump: str) -> _Tables:
    """Per card, computed once per trump suit: :func:`card_power`,
    :func:`card_class`, :func:`low_key`, the strength in a trick (a trump
    above every side card, then the power) as one integer, and :func:`low_key`
    as one integer (the same order; distinct cards have distinct keys)."""
    tables = _TABLES.get(trump)
    if tables is None:
        power = {c: card_power(c, trump) for c in _DECK1}
        cls = {c: card_class(c, trump) for c in _DECK1}
        key = {c: low_key(c, trump) for c in _DECK1}
        strength = {c: power[c] + (100 if cls[c] == TRUMP else 0) for c in _DECK1}
        order = {c: 4 * key[c][0] + key[c][1] for c in _DECK1}
        tables = _TABLES[trump] = (power, cls, key, strength, order)
    return tables


def _slot_setters(cls: type, names: tuple[str, ...]) -> list[Callable[[object, object], None]]:
    """The slot setters of the dataclass ``cls`` when its fields are exactly
    ``names``, each a slot; else an empty list."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") or tuple(
        f.name for f in dataclasses.fields(cls)
    ) != names:
        return []
    slots = [cls.__dict__.get(n) for n in names]
    if not all(type(d).__name__ == "member_descriptor" for d in slots):
        return []
    return [d.__set__ for d in slots]  # type: ignore[union-attr]


def _event_maker() -> Callable[[str, dict[str, Any], int | None], Event]:
    """``Event(type, data, to)`` without the frozen dataclass's ``__init__``
    (which sets each field through ``object.__setattr__``): the object is made
    and its slots filled directly, the same object for half the time. Falls
    back to :class:`Event` itself if its fields are not the expected slots."""
    setters = _slot_setters(Event, ("type", "data", "to"))
    if not setters:
        return Event
    set_type, set_data, set_to = setters
    new = object.__new__

    def make(type_: str, data: dict[str, Any], to: int | None) -> Event:
        e = new(Event)
        set_type(e, type_)
        set_data(e, data)
        set_to(e, to)
        return e

    return make if make("x", {}, 1) == Event("x", {}, 1) else Event


def _play_maker() -> Callable[[int, tuple[Card, ...]], Action]:
    """``Action(seat, "play", cards)``, made as :func:`_event_maker` makes events."""
    setters = _slot_setters(Action, ("seat", "type", "cards", "dealt"))
    if not setters:
        return lambda seat, cards: Action(seat, "play", cards)
    set_seat, set_type, set_cards, set_dealt = setters
    new = object.__new__

    def make(seat: int, cards: tuple[Card, ...]) -> Action:
        a = new(Action)
        set_seat(a, seat)
        set_type(a, "play")
        set_cards(a, cards)
        set_dealt(a, None)
        return a

    if make(1, ("AH",)) == Action(1, "play", ("AH",)):
        return make
    return lambda seat, cards: Action(seat, "play", cards)


_event = _event_maker()
_play_action = _play_maker()


def _group_actions(seat: int) -> dict[Card, tuple[Action, ...]]:
    """``card → (Action(seat, "play", (card,) * n) for n in 1..4)``."""
    return {c: tuple(Action(seat, "play", (c,) * n) for n in range(1, 5)) for c in _DECK1}


#: Actions are immutable: the plays of one, two, three or four identical cards
#: are made once per seat and shared (``_GROUPS[seat][card][n - 1]``).
_GROUPS: list[dict[Card, tuple[Action, ...]]] = [_group_actions(s) for s in range(SEATS)]
#: The single plays, ``_SINGLES[seat][card]``.
_SINGLES: list[dict[Card, Action]] = [{c: g[0] for c, g in gs.items()} for gs in _GROUPS]
#: The leads of a card held ``k`` times (k <= 4): ``_LEADS[seat][card][k]``.
_LEADS: list[dict[Card, tuple[tuple[Action, ...], ...]]] = [
    {c: tuple(g[:k] for k in range(5)) for c, g in gs.items()} for gs in _GROUPS
]
#: Other plays made so far, per seat (cleared when it grows past
#: ``_PLAY_CACHE_SIZE``; lists longer than that are made afresh).
_PLAY_CACHE: list[dict[tuple[Card, ...], Action]] = [{} for _ in range(SEATS)]
_PLAY_CACHE_SIZE = 20_000


def _play_actions(seat: int, plays: list[tuple[Card, ...]]) -> list[Action]:
    """``[Action(seat, "play", t) for t in plays]``, reusing equal actions."""
    make = _play_action
    if len(plays) > _PLAY_CACHE_SIZE:
        return [make(seat, t) for t in plays]
    cache = _PLAY_CACHE[seat]
    if len(cache) > _PLAY_CACHE_SIZE:
        cache.clear()
    get, put = cache.get, cache.setdefault
    return [get(t) or put(t, make(seat, t)) for t in plays]


_STR: frozenset[type] = frozenset({str})


def _cards(items: object) -> list[Card]:
    """:func:`~paiju.rules.cards.parse_cards`, with a fast path for a list that
    holds canonical cards only (every deal of :meth:`Shengji.random_deal`)."""
    if type(items) is list:
        try:
            if _ONE_DECK.issuperset(items) and set(map(type, items)) <= _STR:
                return list(items)
        except TypeError:  # an unhashable item: not a card
            pass
    return parse_cards(items)


#: decks → the multiset of their cards.
_DECK_COUNTS: dict[int, Counter[Card]] = {d: Counter(deck(d)) for d in SIZES}


def _same(a: Counter[Card], b: Counter[Card]) -> bool:
    """``a == b`` for multisets built by counting (no zero counts): the plain
    dict comparison, faster than ``Counter.__eq__``."""
    return dict.__eq__(a, b) is True


def _bad_options(msg: str) -> RulesError:
    return RulesError("bad_options", msg)


def _int_option(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Shengji(Game):
    """升级 with 3s declaring trump (seed 004). See the module docstring.

    Options (rulings.md "shengji"): ``decks`` 1..4 (default 2); ``dealer``
    ``null`` in a room's first game, else the seat that deals (the previous
    game's ``next_dealer``); ``escape_points`` (default 2); ``turn_seconds``
    (default 20). Deal: ``hands`` (4 lists), ``bottom`` (the kitty), ``first``,
    optional ``order`` (see :func:`dealt_cards`). Raises ``bad_options`` and
    ``bad_deal``.
    """

    name: ClassVar[str] = "shengji"
    seats: ClassVar[int] = SEATS

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        self.decks, self.option_dealer, self.escape_pts = self._parse_options(options)
        self.turn_seconds = options.get("turn_seconds", 20)
        self.hand_size, self.kitty_size = SIZES[self.decks]
        held, bottom, first, order = self._parse_deal(deal)
        self.first = first
        self.order: list[Card] | None = order
        self.dealt: list[Hand] = held
        self.hands = [Counter(h) for h in held]
        self.kitty: list[Card] = list(bottom)
        self.buried: list[Card] = []
        self._phase = "declaring"
        self.declarer: int | None = None
        self.declared: tuple[Card, ...] = ()
        self.trump: str | None = None
        self.dealer: int | None = self.option_dealer
        self.redeal = False
        # play state
        self.power: dict[Card, int] = {}
        self.cls: dict[Card, str] = {}
        self.key: dict[Card, tuple[int, int]] = {}
        # shared by the games of one trump, read only (_trump_tables)
        self._strength: dict[Card, int] = {}
        self._order: dict[Card, int] = {}
        self.leader = 0
        self.trick: list[tuple[int, tuple[Card, ...]]] = []
        self.best = 0  # index in self.trick of the play winning so far
        self.trick_no = 0
        self.last_trick: list[tuple[int, tuple[Card, ...]]] = []
        self.last_winner: int | None = None
        self.captured = [0] * SEATS
        self.kitty_multiplier = 0

    @property
    def hands(self) -> list[Hand]:
        """Each seat's hand, a multiset. What is derived from the hands (sorted
        lists, the cards of each class) is kept in step by the plays; assigning
        ``hands`` drops it, to be made again."""
        return self._hands

    @hands.setter
    def hands(self, hands: list[Hand]) -> None:
        self._hands = hands
        # each seat's hand in :meth:`_sorted` order, kept in step with its plays
        # (None: to be sorted again, after the trump or the hand changed)
        self._hand_lists: list[list[Card] | None] = [None] * SEATS
        # in play: each seat's cards by class (card_class), kept in step with
        # its plays (None: to be made again from the hand)
        self._by_class: list[dict[str, dict[Card, int]] | None] = [None] * SEATS
        # each seat's distinct cards, sorted (None: to be made again)
        self._distinct: list[list[Card] | None] = [None] * SEATS

    def _cards_held(self, seat: int) -> list[Card]:
        """``sorted(hands[seat])``, kept in step with the plays."""
        distinct = self._distinct[seat]
        if distinct is None:
            distinct = self._distinct[seat] = sorted(self._hands[seat])
        return distinct

    def _classes(self, seat: int) -> dict[str, dict[Card, int]]:
        """``seat``'s hand split by :func:`card_class`: class → card → count."""
        split = self._by_class[seat]
        if split is None:
            split = {}
            cls = self.cls
            for c, k in self._hands[seat].items():
                part = split.get(cls[c])
                if part is None:
                    split[cls[c]] = {c: k}
                else:
                    part[c] = k
            self._by_class[seat] = split
        return split

    # -- construction ---------------------------------------------------------------

    @staticmethod
    def _parse_options(options: Mapping[str, Any]) -> tuple[int, int | None, int]:
        for key in options:
            if key not in {"decks", "dealer", "escape_points"} | _ROOM_OPTIONS:
                raise _bad_options(f"unknown option {key!r}")
        decks = options.get("decks", 2)
        if not _int_option(decks) or decks not in SIZES:
            raise _bad_options(f"decks must be 1..4, not {decks!r}")
        dealer = options.get("dealer")
        if dealer is not None and (not _int_option(dealer) or not 0 <= dealer < SEATS):
            raise _bad_options(f"dealer must be null or a seat 0..3, not {dealer!r}")
        esc = options.get("escape_points", 2)
        if not _int_option(esc) or esc < 0:
            raise _bad_options(f"escape_points must be an integer >= 0, not {esc!r}")
        ts = options.get("turn_seconds", 20)
        if isinstance(ts, bool) or not isinstance(ts, int | float) or ts <= 0:
            raise _bad_options(f"turn_seconds must be positive, not {ts!r}")
        return decks, dealer, esc

    def _parse_deal(
        self, deal: Mapping[str, Any]
    ) -> tuple[list[Hand], list[Card], int, list[Card] | None]:
        """``(hands as multisets, bottom, first, order)``; raises ``bad_deal``."""
        try:
            raw_hands = deal["hands"]
            if not isinstance(raw_hands, list) or len(raw_hands) != SEATS:
                raise RulesError("bad_deal", "shengji deals 4 hands")
            hands = [_cards(h) for h in raw_hands]
            bottom = _cards(deal.get("bottom", []))
            order = _cards(deal["order"]) if deal.get("order") is not None else None
        except KeyError as e:
            raise RulesError("bad_deal", f"deal lacks {e}") from e
        except RulesError as e:
            if e.code == "bad_deal":
                raise
            raise RulesError("bad_deal", e.message) from e
        first = deal.get("first", 0)
        if not _int_option(first) or not 0 <= first < SEATS:
            raise RulesError("bad_deal", f"first must be a seat 0..3, not {first!r}")
        if any(len(h) != self.hand_size for h in hands) or len(bottom) != self.kitty_size:
            raise RulesError(
                "bad_deal",
                f"{self.decks} deck(s): hands of {self.hand_size}, a kitty of {self.kitty_size}",
            )
        if not _same(Counter(chain(bottom, *hands)), _DECK_COUNTS[self.decks]):
            check_deal(hands, bottom, deck(self.decks))  # raises, naming the difference
        held = [Counter(h) for h in hands]
        if order is not None:
            if len(order) != SEATS * self.hand_size:
                raise RulesError("bad_deal", "deal.order lists the hand cards, kitty excluded")
            for s in range(SEATS):
                if not _same(dealt_cards(order, first, s, len(order)), held[s]):
                    raise RulesError("bad_deal", f"deal.order does not deal seat {s}'s hand")
        return held, bottom, first, order

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A random deal: the kitty is set aside first, the rest dealt one card at a
        time from ``first`` (seed 开牌); ``order`` records the dealing.

        ``first`` is the option ``dealer`` when given, else a random seat.
        Raises ``bad_options``.
        """
        decks, dealer, _ = cls._parse_options(options)
        kitty_size = SIZES[decks][1]
        cards = deck(decks)
        rng.shuffle(cards)
        bottom, order = cards[:kitty_size], cards[kitty_size:]
        first = dealer if dealer is not None else rng.randrange(SEATS)
        hands = [sorted(order[(s - first) % SEATS :: SEATS]) for s in range(SEATS)]
        return {"hands": hands, "bottom": sorted(bottom), "first": first, "order": order}

    # -- state queries ----------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``declaring``, ``burying``, ``play`` or ``finished``."""
        return self._phase

    def _ended(self) -> bool:
        return self._phase == "finished"

    def _to_act(self) -> list[int]:
        if self._phase == "burying":
            assert self.dealer is not None
            return [self.dealer]
        if self._phase == "play":
            return [(self.leader + len(self.trick)) % SEATS]
        return []

    def defenders(self) -> tuple[int, int]:
        """The 非庄家方 seats (the dealer's opponents); ``ValueError`` before a dealer."""
        if self.dealer is None:
            raise ValueError("no dealer yet")
        return (self.dealer + 1) % SEATS, (self.dealer + 3) % SEATS

    def defender_points(self) -> int:
        """Points the defenders captured so far (抠底 included once the last trick is won)."""
        if self.dealer is None:
            return 0
        a, b = self.defenders()
        return self.captured[a] + self.captured[b]

    def _hand_sorted(self, seat: int) -> list[Card]:
        """``seat``'s hand, highest first (:meth:`_sorted`), a fresh list."""
        cached = self._hand_lists[seat]
        if cached is None:
            cached = self._hand_lists[seat] = self._sorted(self.hands[seat].elements())
        return list(cached)

    def _sorted(self, cards: Iterable[Card]) -> list[Card]:
        if not self.key:
            return sorted(cards, key=lambda c: low_key(c, ""), reverse=True)
        return sorted(cards, key=self._order.__getitem__, reverse=True)

    # -- declaring ----------------------------------------------------------------------

    def _min_declare(self) -> int:
        return 1 if self.decks <= 2 else 2

    def _holding(self, seat: int, dealt: int | None) -> Hand:
        if dealt is None or self.order is None:
            return self.dealt[seat]
        return dealt_cards(self.order, self.first, seat, dealt)

    def declare_options(self, seat: int, dealt: int | None = None) -> list[Action]:
        """What the declare buttons of ``seat`` may offer now: every legal
        ``declare`` (each suit's 3s, each allowed count), checked against the
        cards held after ``dealt`` cards were dealt (records.md), or the whole
        hand. Empty outside ``declaring``. Source: seed 亮主 / 冲主, rulings.md.
        """
        if self._phase != "declaring" or seat == self.declarer:
            return []
        if dealt is not None and (self.order is None or not 0 <= dealt <= len(self.order)):
            dealt = None
        held = self._holding(seat, dealt)
        low = max(self._min_declare(), len(self.declared) + 1)
        standing = self.declared[0][1] if self.declared else None
        out: list[Action] = []
        for s in SUITS:
            if s == standing:
                continue
            card = "3" + s
            for n in range(low, held[card] + 1):
                out.append(Action(seat, "declare", (card,) * n, dealt))
        return out

    def _check_declare(self, a: Action) -> None:
        assert a.seat is not None
        cards = a.cards
        if not cards or cards[0][0] != "3" or any(c != cards[0] for c in cards):
            raise RulesError("invalid_combination", "declare 3s of one suit (亮“3”)")
        if a.dealt is not None and self.order is not None and not (
            0 <= a.dealt <= len(self.order)
        ):
            raise RulesError("malformed_action", f"dealt must be 0..{len(self.order)}")
        if self._holding(a.seat, a.dealt)[cards[0]] < len(cards):
            raise RulesError("cards_not_in_hand", "the seat does not hold these 3s (yet)")
        if len(cards) < self._min_declare():
            raise RulesError(
                "declare_too_weak", f"with {self.decks} decks declare at least a pair of 3s"
            )
        if self.declarer is not None:
            if a.seat == self.declarer:
                raise RulesError("not_eligible", "冲主 is for the other players")
            if cards[0] == self.declared[0]:
                raise RulesError("declare_too_weak", "冲主 needs 3s of another suit")
            if len(cards) <= len(self.declared):
                raise RulesError("declare_too_weak", "冲主 needs more 3s than the standing one")

    def _declare(self, a: Action) -> list[Event]:
        self._check_declare(a)
        assert a.seat is not None
        if self.dealer is None:
            self.dealer = a.seat  # seed 抢庄: the first declarer deals the first game
        self.declarer = a.seat
        self.declared = a.cards
        self.trump = a.cards[0][1]
        return [Event("declared", {"seat": a.seat, "cards": list(a.cards), "trump": self.trump})]

    def _end_declare(self) -> list[Event]:
        if self.trump is None:
            self.redeal = True
            self._phase = "finished"
            return [Event("declaring_closed", {"trump": None, "leader": None, "redeal": True})]
        assert self.dealer is not None
        self._fix_trump(self.trump)
        dealer = self.dealer
        self.hands[dealer].update(self.kitty)
        self._hand_lists[dealer] = None
        self._by_class[dealer] = None
        self._distinct[dealer] = None
        self._phase = "burying"
        return [
            Event("declaring_closed", {"trump": self.trump, "leader": dealer, "dealer": dealer}),
            Event("kitty_shown", {"cards": list(self.kitty)}),
            Event("kitty", {"cards": list(self.kitty)}, to=dealer),
            Event("hand", {"cards": self._hand_sorted(dealer)}, to=dealer),
        ]

    def _fix_trump(self, trump: str) -> None:
        self._hand_lists = [None] * SEATS  # the order changes with the trump
        self._by_class = [None] * SEATS  # and the classes
        power, cls, key, self._strength, self._order = _trump_tables(trump)
        self.power, self.cls, self.key = dict(power), dict(cls), dict(key)

    # -- burying ------------------------------------------------------------------------

    def _bury(self, a: Action) -> list[Event]:
        assert a.seat is not None and self.dealer is not None
        if len(a.cards) != self.kitty_size:
            raise RulesError("wrong_count", f"bury exactly {self.kitty_size} cards")
        hand = self.hands[self.dealer]
        if not holds(hand, a.cards):
            raise RulesError("cards_not_in_hand", "the dealer does not hold these cards")
        remove(hand, a.cards)
        self._hand_lists[self.dealer] = None
        self._by_class[self.dealer] = None
        self._distinct[self.dealer] = None
        self.buried = self._sorted(a.cards)
        self._phase = "play"
        self.leader = self.dealer
        self.trick_no = 1
        return [Event("hand", {"cards": self._hand_sorted(self.dealer)}, to=self.dealer)]

    def default_bury(self) -> tuple[Card, ...]:
        """The lowest ``kitty_size`` cards of the dealer's hand (rulings.md "Settlement":
        a timeout during the bury buries the lowest cards in the game's order)."""
        assert self.dealer is not None and self.trump is not None
        cards = sorted(self.hands[self.dealer].elements(), key=self._order.__getitem__)
        return tuple(sorted(cards[: self.kitty_size]))

    def _bury_options(self) -> list[Action]:
        # The legal set is every kitty-size sub-multiset of the hand (C(33, 8) ≈
        # 13.9 million with two decks): listed are the runs of consecutive cards
        # of the hand in the game's order, lowest first (see docs).
        assert self.dealer is not None and self.trump is not None
        # Equal cards are next to each other in that order, so a run equals an
        # earlier one only when it equals the one just before it.
        cards = sorted(self.hands[self.dealer].elements(), key=self._order.__getitem__)
        k = self.kitty_size
        dealer = self.dealer
        return [Action(dealer, "bury", tuple(sorted(cards[i : i + k])))
                for i in range(len(cards) - k + 1) if not i or cards[i - 1] != cards[i + k - 1]]

    # -- play ---------------------------------------------------------------------------

    def _suit_items(self, seat: int, led: str) -> list[tuple[Card, int]]:
        """``seat``'s ``(card, count)`` of class ``led``, sorted."""
        suit = self._classes(seat).get(led)
        return sorted(suit.items()) if suit else []

    def _check_play(self, seat: int, cards: tuple[Card, ...]) -> None:
        hand = self._hands[seat]
        trick = self.trick
        if not trick:
            if group_size(cards) is None:
                raise RulesError(
                    "invalid_combination", "lead a single, pair, triple or quad of identical cards"
                )
            if hand[cards[0]] < len(cards):  # identical cards (group_size)
                raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
            return
        lead = trick[0][1]
        n = len(lead)
        if len(cards) != n:
            raise RulesError("wrong_count", f"follow with {n} card(s)")
        cls = self.cls
        if n == 1:
            card = cards[0]
            if hand[card] < 1:
                raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
            led = cls[lead[0]]
            # off the led class while holding some of it
            if cls[card] != led and self._classes(seat).get(led):
                raise RulesError(
                    "must_follow_suit", "play as many cards of the led suit as you can"
                )
            return
        for c in cards:  # holds(), for a few cards
            if hand.get(c, 0) < cards.count(c):
                raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
        led = cls[lead[0]]
        suit = self._classes(seat).get(led) or {}
        m = sum(suit.values())
        need = min(m, n)
        fs = [c for c in cards if cls[c] == led]
        if len(fs) != need:
            raise RulesError("must_follow_suit", "play as many cards of the led suit as you can")
        if need >= 2 and partition(fs) < required_pattern(suit.values(), n, need):
            raise RulesError("must_follow_shape", "follow the lead's shape as the seed orders")

    def _play(self, a: Action) -> list[Event]:
        seat = a.seat
        assert seat is not None
        trick = self.trick
        if seat != (self.leader + len(trick)) % SEATS:
            raise RulesError("not_your_turn", f"seat {seat} is not to play")
        cards = a.cards
        hand = self._hands[seat]
        cls = self.cls
        listed = self._hand_lists[seat]
        distinct = self._distinct[seat]
        if trick and len(cards) == 1 == len(trick[0][1]):
            # a single on a single lead (the most common play): inline
            card = cards[0]
            k = hand.get(card, 0)
            if k < 1:
                raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
            led = cls[trick[0][1][0]]
            c_cls = cls[card]
            if c_cls != led and self._classes(seat).get(led):
                raise RulesError(
                    "must_follow_suit", "play as many cards of the led suit as you can"
                )
            split = self._by_class[seat]  # (after the checks, which may make it)
            if k > 1:
                hand[card] = k - 1
            else:
                hand.pop(card)
                if distinct is not None:
                    distinct.remove(card)
            if listed is not None:
                listed.remove(card)
            if split is not None:
                part = split[c_cls]
                k = part[card] - 1
                if k:
                    part[card] = k
                else:
                    del part[card]
            combo = "single"
            strength = self._strength
            if c_cls in (led, TRUMP) and strength[card] > strength[trick[self.best][1][0]]:
                self.best = len(trick)
        else:
            self._check_play(seat, cards)
            split = self._by_class[seat]  # (after the checks, which may make it)
            # the hand, its sorted lists and its classes, in step (cards.remove)
            for c in cards:
                k = hand[c] - 1
                if k:
                    hand[c] = k
                else:
                    hand.pop(c)
                    if distinct is not None:
                        distinct.remove(c)
                if listed is not None:
                    listed.remove(c)
                if split is not None:
                    part = split[cls[c]]
                    k = part[c] - 1
                    if k:
                        part[c] = k
                    else:
                        del part[c]
            if trick:
                lead = trick[0][1]
                size = len(lead)  # == len(cards) (_check_play)
                first = cards[0]
                if cards.count(first) == size:  # the lead's shape (group_size)
                    combo = SHAPE_NAMES[size]
                    if self._beats(first, trick[self.best][1][0], cls[lead[0]]):
                        self.best = len(trick)
                else:
                    combo = "follow"
            else:
                self.best = 0
                combo = SHAPE_NAMES[len(cards)]
        trick.append((seat, cards))
        if listed is None:
            listed = self._hand_lists[seat] = self._sorted(hand.elements())
        events = [
            _event("played", {"seat": seat, "cards": list(cards), "combination": combo,
                              "trick": self.trick_no}, None),
            _event("hand", {"cards": list(listed)}, seat),
        ]
        if len(trick) == SEATS:
            events.extend(self._finish_trick())
        return events

    def _beats(self, card: Card, best: Card, led: str) -> bool:
        """A group led by ``card`` (exact lead shape) beats the standing ``best``."""
        c_cls = self.cls[card]
        if c_cls != led and c_cls != TRUMP:
            return False
        strength = self._strength  # (is a trump, power) as one number
        return strength[card] > strength[best]  # equal cards: the first played wins

    def _finish_trick(self) -> list[Event]:
        trick = self.trick
        winner, win_cards = trick[self.best]
        points = _POINTS
        pts = sum(points[c] for _, cs in trick for c in cs)
        self.captured[winner] += pts
        self.last_trick = trick
        self.last_winner = winner
        self.trick = []
        events = [_event("trick_won", {"seat": winner, "points": pts, "next_leader": winner}, None)]
        if not self._hands[winner]:  # all hands are empty together: the last trick
            if winner in self.defenders():
                self.kitty_multiplier = 2 * len(win_cards)  # seed 抠底: ×2/×4/×6/×8
                bonus = card_points(self.buried) * self.kitty_multiplier
                self.captured[winner] += bonus
            self._phase = "finished"
            events.append(Event("scores", {"captured": list(self.captured),
                                           "defender_points": self.defender_points()}))
        else:
            self.leader = winner
            self.trick_no += 1
        return events

    def _lead_options(self, seat: int) -> list[Action]:
        hand = self._hands[seat]
        leads = _LEADS[seat]
        try:
            return [a for c in self._cards_held(seat) for a in leads[c][hand[c]]]
        except (KeyError, IndexError):  # more than 4 copies (hands typed by tests)
            out: list[Action] = []
            for c, k in sorted(hand.items()):
                for n in range(1, min(k, 4) + 1):
                    out.append(Action(seat, "play", (c,) * n))
            return out

    def follow_options(self, seat: int) -> list[tuple[Card, ...]]:
        """Every distinct legal follow of ``seat`` to the current trick, each a
        sorted tuple. Suit part: the ``min(m, n)`` cards of the led suit whose
        :func:`partition` reaches :func:`required_pattern`; when the seat holds
        fewer than ``n`` of the suit, all of them plus every multiset of the
        rest. At most C(d + 3, 4) results for d distinct other cards (see docs).
        """
        lead = self.trick[0][1]
        return self._follows(seat, len(lead), self.cls[lead[0]])

    def _follows(self, seat: int, n: int, led: str) -> list[tuple[Card, ...]]:
        suit = self._suit_items(seat, led)
        m = sum(k for _, k in suit)
        if m >= n:
            if n == 1:
                return [(c,) for c, _ in suit]
            req = required_pattern((k for _, k in suit), n, n)
            if not req or req[0] == 1:  # no shape to keep: any n cards of the suit
                return multiset_combinations(suit, n)
            if req[0] == n:  # a group of the lead's size
                return [(c,) * n for c, k in suit if k >= n]
            return shaped_combinations(suit, n, req)
        base = tuple(c for c, k in suit for _ in range(k))
        cls = self.cls
        rest = sorted((c, k) for c, k in self._hands[seat].items() if cls[c] != led)
        if not base:
            return multiset_combinations(rest, n)
        return [tuple(sorted(base + t)) for t in multiset_combinations(rest, n - m)]

    def _follow_actions(self, seat: int) -> list[Action]:
        """:meth:`follow_options` as actions."""
        lead = self.trick[0][1]
        n = len(lead)
        led = self.cls[lead[0]]
        if n == 1:  # a card of the led class, or any card without one
            split = self._by_class[seat]
            suit = (self._classes(seat) if split is None else split).get(led)
            singles = _SINGLES[seat]
            try:
                return [singles[c] for c in (sorted(suit) if suit else self._cards_held(seat))]
            except KeyError:  # not a card of the deck (hands typed by tests)
                pass
        return _play_actions(seat, self._follows(seat, n, led))

    # -- the engine interface ----------------------------------------------------------

    def _apply(self, action: Action) -> list[Event]:
        t = action.type
        if t == "play":
            if self._phase != "play":
                raise RulesError("wrong_phase", "not the time to play")
            return self._play(action)
        if t == "end_declare":
            if self._phase != "declaring":
                raise RulesError("wrong_phase", "the declaring window is closed")
            return self._end_declare()
        if t not in ("declare", "bury"):
            raise RulesError("unknown_action", f"shengji has no action {t!r}")
        seat = action.seat
        assert seat is not None
        if t == "declare":
            if self._phase != "declaring":
                raise RulesError("wrong_phase", "declaring is over")
            return self._declare(action)
        if self._phase != "burying":
            raise RulesError("wrong_phase", "not the time to bury")
        if seat != self.dealer:
            raise RulesError("not_your_turn", "the dealer buries")
        return self._bury(action)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now. Declaring: :meth:`declare_options`
        (whole hand). Burying: a bounded family of buries (see docs; any
        kitty-size multiset of the hand is accepted). Play: every distinct
        legal card multiset as a sorted tuple."""
        if self.escaped is not None:
            return []
        phase = self._phase
        if phase == "play":
            if seat != (self.leader + len(self.trick)) % SEATS:
                return []
            if not self.trick:
                return self._lead_options(seat)
            return self._follow_actions(seat)
        if phase == "declaring":
            return self.declare_options(seat)
        if phase == "burying" and seat == self.dealer:
            return self._bury_options()
        return []

    def default_action(self, seat: int) -> Action:
        """What a timeout applies (rulings.md "Shared", "Settlement"): bury the
        lowest cards; lead the lowest single; follow with the legal play whose
        highest card is lowest (then the next, …). In ``declaring`` nobody is on
        the clock (no declaration): raises ``not_your_turn``, as for any seat not
        to act."""
        if self.finished or seat not in self._to_act():
            raise RulesError("not_your_turn", f"seat {seat} is not to act")
        if self._phase == "burying":
            return Action(seat, "bury", self.default_bury())
        assert self.trump is not None
        key = self.key.__getitem__
        if not self.trick:
            return Action(seat, "play", (min(self._hands[seat], key=key),))
        lead = self.trick[0][1]
        n = len(lead)
        led = self.cls[lead[0]]
        suit = self._suit_items(seat, led)
        m = sum(k for _, k in suit)
        if m >= n:
            options = self._follows(seat, n, led)
        else:
            rest = sorted((c for c in self._hands[seat].elements() if self.cls[c] != led),
                          key=key)
            base = tuple(c for c, k in suit for _ in range(k))
            options = [tuple(sorted(base + tuple(rest[: n - m])))]

        def weight(t: tuple[Card, ...]) -> list[tuple[int, int]]:
            return sorted(map(key, t), reverse=True)

        return Action(seat, "play", min(options, key=weight))

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see (JSON-able): its own hand (highest first), counts,
        the declaration, trump, dealer, the shown kitty, the trick and the last
        trick, captured points; the buried kitty only for the dealer."""
        v: dict[str, Any] = {
            "game": self.name,
            "phase": self._phase,
            "seat": seat,
            "decks": self.decks,
            "hand": self._hand_sorted(seat),
            "hand_counts": [sum(h.values()) for h in self.hands],
            "to_act": self.to_act(),
            "trump": self.trump,
            "dealer": self.dealer,
            "declarer": self.declarer,
            "declared": list(self.declared),
            "kitty_size": self.kitty_size,
            "kitty_shown": list(self.kitty) if self._phase != "declaring" and not self.redeal
            else None,
            "leader": self.leader if self._phase == "play" else None,
            "trick_no": self.trick_no,
            "trick": [{"seat": s, "cards": list(c)} for s, c in self.trick],
            "last_trick": {
                "plays": [{"seat": s, "cards": list(c)} for s, c in self.last_trick],
                "winner": self.last_winner,
            },
            "captured": list(self.captured),
            "defender_points": self.defender_points(),
            "escaped": self.escaped,
        }
        if seat == self.dealer and self.buried:
            v["buried"] = list(self.buried)
        if self.finished:
            v["result"] = self.result().to_json()
        return v

    def _detail(self) -> dict[str, Any]:
        return {
            "trump": self.trump,
            "dealer": self.dealer,
            "declarer": self.declarer,
            "defender_points": self.defender_points(),
            "kitty_points": card_points(self.buried),
            "kitty_multiplier": self.kitty_multiplier,
            "captured": list(self.captured),
            "redeal": self.redeal,
        }

    def _result(self) -> Result:
        if self.redeal:
            d = self._detail()
            d["next_dealer"] = self.option_dealer
            return Result([0] * SEATS, d)
        assert self.dealer is not None
        p = self.defender_points()
        dealer_pts, defender_pts, change = score_row(self.decks, p)
        points = [0] * SEATS
        for s in range(SEATS):
            points[s] = dealer_pts if (s - self.dealer) % 2 == 0 else defender_pts
        d = self._detail()
        # seed 抢庄 / 上台: defenders up → the dealer's 下家; else the dealer's partner
        d["next_dealer"] = (self.dealer + (1 if change else 2)) % SEATS
        d["up"] = change
        return Result(points, d)

    def escape_points(self, seat: int) -> list[int]:
        """The escapee pays ``escape_points`` (default 2) to each other seat
        (rulings.md "Settlement")."""
        e = self.escape_pts
        return [-e * (SEATS - 1) if s == seat else e for s in range(SEATS)]

    def _result_detail_on_escape(self) -> dict[str, Any]:
        d = self._detail()
        # paiju ruling: an escaped game does not move the deal.
        d["next_dealer"] = self.dealer
        return d
