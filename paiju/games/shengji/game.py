"""升级 (shengji), seed 004: four players in two partnerships, 1 to 4 decks.

Source: shared/seeds/004_87bdd40096bb5c2e.txt, shared/spec/rulings.md sections
"shengji" and "Settlement", shared/spec/records.md. docs/rules/shengji.md
explains the rules as implemented, with every ruling.

Phases (this module: the engine, its phase machine, declaring and burying):

- ``declaring`` (亮主 / 冲主 while the cards are dealt): any seat may
  ``declare`` 3s of one suit; nobody is on the clock; the system's
  ``end_declare`` closes the window. Nobody declared: a redeal (the game ends
  with ``detail.redeal``).
- ``burying`` (扣底): the kitty was shown to all; the dealer took it and
  ``bury``\\ s exactly as many cards.
- ``play`` (:mod:`paiju.games.shengji.play`): tricks of single / pair /
  triple / quad of identical cards; the dealer leads the first.
- ``finished``.

Seats 0 & 2 and 1 & 3 are partners (对家); play goes 0, 1, 2, 3. The parts:
:mod:`~paiju.games.shengji.cards` (card tables and order),
:mod:`~paiju.games.shengji.follow` (follow combinatorics),
:mod:`~paiju.games.shengji.scoring` (table rows, 上台),
:mod:`~paiju.games.shengji.deal` (options, deals),
:mod:`~paiju.games.shengji.position` (positions for :meth:`Shengji.from_position`),
:mod:`~paiju.games.shengji.state` (the state, hand bookkeeping),
:mod:`~paiju.games.shengji.actions` (fast-built actions and events).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from paiju.games.shengji.cards import (
    CARD_POINTS,
    SEATS,
    SHAPE_NAMES,
    SIZES,
    TRUMP,
    TRUMP_RANKS,
    card_class,
    card_points,
    card_power,
    dealt_cards,
    group_size,
    is_trump,
    low_key,
    partition,
)
from paiju.games.shengji.deal import Options, parse_deal, parse_options
from paiju.games.shengji.deal import random_deal as _random_deal
from paiju.games.shengji.follow import (
    iter_follows,
    multiset_combinations,
    required_pattern,
    shaped_combinations,
)
from paiju.games.shengji.play import ShengjiPlay
from paiju.games.shengji.position import bad_position, parse_captured_cards, parse_position
from paiju.games.shengji.results import ShengjiResults
from paiju.games.shengji.scoring import SCORE_TABLES, escape_points, score_row, table_result
from paiju.rules.cards import SUITS, Card, Hand, holds, remove
from paiju.rules.engine import Action, Event, Game, Result
from paiju.rules.errors import RulesError

__all__ = [
    "CARD_POINTS", "SCORE_TABLES", "SEATS", "SHAPE_NAMES", "SIZES", "TRUMP", "TRUMP_RANKS",
    "Shengji", "card_class", "card_points", "card_power", "dealt_cards", "group_size",
    "is_trump", "low_key", "multiset_combinations", "partition", "required_pattern",
    "score_row", "shaped_combinations",
]


class Shengji(ShengjiResults, ShengjiPlay):
    """升级 with 3s declaring trump (seed 004). See the module docstring.

    Options (rulings.md "shengji"): ``decks`` 1..4 (default 2); ``dealer``
    ``null`` in a room's first game, else the seat that deals (the previous
    game's ``next_dealer``); ``escape_points`` (default 2); ``turn_seconds``
    (default 20). Deal: ``hands`` (4 lists), ``bottom`` (the kitty), ``first``,
    optional ``order`` (see :func:`dealt_cards`). Raises ``bad_options`` and
    ``bad_deal``. A game in play is made by :meth:`from_position`.
    """

    name: ClassVar[str] = "shengji"
    seats: ClassVar[int] = SEATS

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        opts = parse_options(options)
        held, bottom, first, order = parse_deal(opts.decks, deal)
        self._start(opts, held, bottom, first, order)

    def _start(self, opts: Options, held: list[Hand], bottom: list[Card], first: int,
               order: list[Card] | None) -> None:
        """The state of a new game in ``declaring``."""
        self.decks, self.option_dealer = opts.decks, opts.dealer
        self.escape_pts = opts.escape_points
        self.turn_seconds = opts.turn_seconds
        self.hand_size, self.kitty_size = SIZES[self.decks]
        self.first = first
        self.order = order
        self.dealt = held
        self._set_hands([Counter(h) for h in held])
        self.kitty = list(bottom)
        self.buried = []
        self._phase = "declaring"
        self.declarer = None
        self.declared = ()
        self.trump = None
        self.dealer = self.option_dealer
        self.redeal = False
        # play state (the card tables once trump is fixed)
        self.power, self.cls, self.key = {}, {}, {}
        self._strength, self._order = {}, {}
        self.leader = 0
        self.trick = []
        self.best = 0
        self.trick_no = 0
        self.last_trick = []
        self.last_winner = None
        self.captured = [0] * SEATS
        self.captured_cards = [[] for _ in range(SEATS)]
        self.kitty_multiplier = 0

    @classmethod
    def from_position(
        cls,
        options: Mapping[str, Any],
        *,
        hands: Sequence[Sequence[str]],
        dealer: int,
        trump: str,
        buried: Sequence[str],
        leader: int | None = None,
        trick: Sequence[Sequence[str]] = (),
        captured: Sequence[int] = (0, 0, 0, 0),
        trick_no: int = 1,
        declarer: int | None = None,
        declared: Sequence[str] = (),
        captured_cards: Sequence[Sequence[str]] | None = None,
    ) -> Shengji:
        """A game in ``play`` at a given position (for tests, puzzles, analysis).

        ``options``: as for the constructor (``decks`` sets the sizes; a
        ``dealer`` option, if given, must be ``dealer``). ``hands``: 4 lists of
        cards, what each seat holds now (after its play to ``trick``).
        ``dealer``: the 庄家 seat 0..3. ``trump``: the trump suit, one of
        ``S H C D``. ``buried``: the dealer's buried kitty (the kitty's size
        of cards; its points count for 抠底). ``leader``: the seat that led
        ``trick`` (or is to lead; default ``dealer``). ``trick``: the plays of
        the current trick so far, 0 to 3 card lists by ``leader``,
        ``leader + 1``, … ; each must have been legal (seed 跟牌) from the
        seat's hand plus that play. ``captured``: points per seat of the tricks
        it won (multiples of 5). ``trick_no``: the current trick's number (1
        = the first). ``declarer`` / ``declared``: the standing declaration,
        for the views (default none). ``captured_cards``: per seat the point
        cards behind ``captured`` (看分; default none listed).

        The original kitty is not part of a position: ``view`` shows
        ``kitty_shown`` as ``[]``. The game goes on by :meth:`apply` as any
        other. Raises ``bad_options`` as the constructor, ``bad_deal`` for
        what :func:`~paiju.games.shengji.position.parse_position` refuses and
        for a trick play that was not legal.
        """
        opts = parse_options(options)
        pos = parse_position(opts.decks, hands=hands, dealer=dealer, trump=trump, buried=buried,
                             leader=leader, trick=trick, captured=captured, trick_no=trick_no,
                             declarer=declarer, declared=declared)
        if opts.dealer is not None and opts.dealer != pos.dealer:
            raise bad_position(f"the option dealer {opts.dealer} is not the dealer {pos.dealer}")
        g = cls.__new__(cls)
        Game.__init__(g, options, {})
        g._start(opts, [Counter(h) for h in pos.hands], [], pos.dealer, None)
        g.dealer, g.trump = pos.dealer, pos.trump
        g.declarer, g.declared = pos.declarer, pos.declared
        g._fix_trump(pos.trump)
        g.buried = g._sorted(pos.buried)
        g.captured = list(pos.captured)
        g.captured_cards = parse_captured_cards(opts.decks, pos, captured_cards)
        g._phase, g.leader, g.trick_no = "play", pos.leader, pos.trick_no
        for seat, cards in pos.trick:
            try:
                g._play(Action(seat, "play", tuple(sorted(cards))))
            except RulesError as e:
                raise bad_position(f"seat {seat}'s play to the trick: {e.message}") from e
        return g

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A random deal (:func:`paiju.games.shengji.deal.random_deal`): the
        kitty set aside first, the rest dealt from ``first`` (seed 开牌), with
        ``order``. Raises ``bad_options``."""
        return _random_deal(options, rng)

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
        self._hands[dealer].update(self.kitty)
        self._hand_changed(dealer)
        self._phase = "burying"
        return [
            Event("declaring_closed", {"trump": self.trump, "leader": dealer, "dealer": dealer}),
            Event("kitty_shown", {"cards": list(self.kitty)}),
            Event("kitty", {"cards": list(self.kitty)}, to=dealer),
            Event("hand", {"cards": self._hand_sorted(dealer)}, to=dealer),
        ]

    # -- burying ------------------------------------------------------------------------

    def _bury(self, a: Action) -> list[Event]:
        assert a.seat is not None and self.dealer is not None
        if len(a.cards) != self.kitty_size:
            raise RulesError("wrong_count", f"bury exactly {self.kitty_size} cards")
        hand = self._hands[self.dealer]
        if not holds(hand, a.cards):
            raise RulesError("cards_not_in_hand", "the dealer does not hold these cards")
        remove(hand, a.cards)
        self._hand_changed(self.dealer)
        self.buried = self._sorted(a.cards)
        self._phase = "play"
        self.leader = self.dealer
        self.trick_no = 1
        # who buried how many, and every seat's count after it
        return [Event("buried", {"seat": self.dealer, "count": len(a.cards),
                                 "hand_counts": [sum(h.values()) for h in self._hands]}),
                Event("hand", {"cards": self._hand_sorted(self.dealer)}, to=self.dealer)]

    def default_bury(self) -> tuple[Card, ...]:
        """The lowest ``kitty_size`` cards of the dealer's hand (rulings.md "Settlement":
        a timeout during the bury buries the lowest cards in the game's order)."""
        assert self.dealer is not None and self.trump is not None
        cards = sorted(self._hands[self.dealer].elements(), key=self._order.__getitem__)
        return tuple(sorted(cards[: self.kitty_size]))

    def _bury_options(self) -> list[Action]:
        # The legal set is every kitty-size sub-multiset of the hand (C(33, 8) ≈
        # 13.9 million with two decks): listed are the runs of consecutive cards
        # of the hand in the game's order, lowest first (see docs).
        assert self.dealer is not None and self.trump is not None
        # Equal cards are next to each other in that order, so a run equals an
        # earlier one only when it equals the one just before it.
        cards = sorted(self._hands[self.dealer].elements(), key=self._order.__getitem__)
        k = self.kitty_size
        dealer = self.dealer
        return [Action(dealer, "bury", tuple(sorted(cards[i : i + k])))
                for i in range(len(cards) - k + 1) if not i or cards[i - 1] != cards[i + k - 1]]

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
        if phase == "play":  # leads or follows of the seat to play
            if seat != (self.leader + len(self.trick)) % SEATS:
                return []
            return self._follow_actions(seat) if self.trick else self._lead_options(seat)
        if phase == "declaring":
            return self.declare_options(seat)
        if phase == "burying" and seat == self.dealer:
            return self._bury_options()
        return []

    def non_play_actions(self, seat: int) -> list[Action]:
        """The declares while declaring and the dealer's buries; no play is
        listed (shengji has no pass)."""
        if self.escaped is not None or self._phase == "play":
            return []
        return self.legal_actions(seat)

    def iter_plays(self, seat: int) -> Iterator[Action]:
        """The plays of :meth:`legal_actions`, lazily: a multi-card follow
        from :func:`~paiju.games.shengji.follow.iter_follows`, the lowest
        first, one per step."""
        if (self.escaped is not None or self._phase != "play"
                or seat != (self.leader + len(self.trick)) % SEATS):
            return
        lead = self.trick[0][1] if self.trick else ()
        if len(lead) < 2:
            yield from self.legal_actions(seat)
            return
        led = self.cls[lead[0]]
        for t in iter_follows(self._suit_items(seat, led), self._hands[seat], self.cls, led,
                              len(lead), self.key.__getitem__):
            yield Action(seat, "play", t)

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
        return self._default_play(seat)

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see (JSON-able): its own hand (trumps, then each suit), counts,
        the declaration, trump, dealer, the shown kitty, the trick and the last
        trick, captured points; the buried kitty only for the dealer."""
        v: dict[str, Any] = {
            "game": self.name,
            "phase": self.phase,
            "seat": seat,
            "decks": self.decks,
            "hand": self._hand_sorted(seat),
            "hand_counts": [sum(h.values()) for h in self._hands],
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
            "scores": self.scores_detail(),
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
            return Result([0] * SEATS, d, "redeal")
        assert self.dealer is not None
        points, next_dealer, up = table_result(self.decks, self.dealer, self.defender_points())
        d = self._detail()
        d["next_dealer"] = next_dealer  # seed 抢庄 / 上台
        d["up"] = up
        return Result(points, d)

    def escape_points(self, seat: int) -> list[int]:
        """The escapee pays ``escape_points`` (default 2) to each other seat
        (rulings.md "Settlement")."""
        return escape_points(seat, self.escape_pts)

    def _result_detail_on_escape(self) -> dict[str, Any]:
        d = self._detail()
        # paiju ruling: an escaped game does not move the deal.
        d["next_dealer"] = self.dealer
        return d
