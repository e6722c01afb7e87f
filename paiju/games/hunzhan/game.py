"""混战 hunzhan: four players each for themselves, two decks without 3, 4, 6.

Sources: seed 000 (the rules part), shared/spec/rulings.md sections "hunzhan",
"Shared by all games" and "Settlement" (escape), records.md (``deal.order``
and a declare's ``dealt``). docs/rules/hunzhan.md states the rules as
implemented with every ruling.

Phases:

- ``declaring`` (叫主/反主, while cards are dealt): any seat may ``declare`` with
  one ten (that suit is trump) or a pair of equal jokers (no-trump 无主); each
  declare must be strictly stronger than the standing one (BJ pair > SJ pair >
  ♠10 > ♥10 > ♣10 > ♦10). Nobody is *to act* (``to_act()`` is empty). The
  system's ``end_declare`` closes the window: with no declaration the game
  ends as a redeal; otherwise the last declarer leads.
- ``play``: 21 tricks of single / pair / run-of-pairs leads; followers follow
  suit and shape and obey the two point rules (出牌限制). A trick's points go to
  its winner, who leads the next.
- ``finished``: ``points`` = captured − 60 per seat.

The engine :class:`Hunzhan` holds the state and is the state machine
(declaring, tricks, the engine interface); its parts are functions of that
state: :mod:`~paiju.games.hunzhan.cards` (card order, point cards,
combinations, declarations), :mod:`~paiju.games.hunzhan.deal` (options, the
deal, the cards held part way through it), :mod:`~paiju.games.hunzhan.follow`
(following suit and shape, what beats), :mod:`~paiju.games.hunzhan.points`
(the point rules: the legal follows), :mod:`~paiju.games.hunzhan.results`
(the result, escape points, settlement lines) and
:mod:`~paiju.games.hunzhan.display` (views, 看分, 上一轮, the client's words).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

from paiju.games.hunzhan import display, results
from paiju.games.hunzhan.cards import (
    DECK,
    DECLARATIONS,
    ORDERS,
    POINTS,
    TRUMP,
    TrumpOrder,
    classify,
    declared_trump,
    holds,
    lead_options,
)
from paiju.games.hunzhan.deal import SEATS, held_at, parse_deal, parse_options, random_deal
from paiju.games.hunzhan.display import (
    PHASE_AFTER_DEAL,
    PHASE_AFTER_DECLARING,
    POLICY,
    PRESENTATION,
)
from paiju.games.hunzhan.follow import beats
from paiju.games.hunzhan.points import (
    check_follow,
    iter_legal_follows,
    legal_follows,
    lowest_follow,
)
from paiju.rules.cards import Card
from paiju.rules.engine import Action, Event, Game, Policy, Presentation, Result
from paiju.rules.errors import RulesError


class Hunzhan(Game):
    """The 混战 engine (seed 000). See the module docstring and docs/rules/hunzhan.md.

    ``deal``: ``hands`` (4 × 21 cards), ``bottom`` (empty or absent), ``first``
    (the seat dealt to first, 先摸牌) and optionally ``order`` (the 84 cards in
    the order dealt: card ``j`` went to seat ``(first + j) % 4``). Raises
    ``RulesError("bad_deal")`` / ``RulesError("bad_options")``.
    """

    name: ClassVar[str] = "hunzhan"
    seats: ClassVar[int] = SEATS
    presentation: ClassVar[Presentation] = PRESENTATION
    policy: ClassVar[Policy] = POLICY
    phase_after_deal: ClassVar[str] = PHASE_AFTER_DEAL
    phase_after_declaring: ClassVar[str] = PHASE_AFTER_DECLARING

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        self.options = parse_options(options)
        hands, first, order = parse_deal(deal)
        self.first: int = first
        self.order: list[Card] | None = order
        self.dealt_hands: list[list[Card]] = hands
        self.hands: list[dict[Card, int]] = [dict(Counter(h)) for h in hands]
        #: the hands in hand order during play (kept in step with ``hands``)
        self.sorted_hands: list[list[Card]] = []
        #: ``declaring`` or ``play``: where the rules stand, whether or not the
        #: game has finished (:attr:`phase` says ``finished`` then)
        self.stage = "declaring"
        self.redeal = False
        self._done = False
        #: the standing declaration: (seat, cards, strength) or None
        self.declaration: tuple[int, tuple[Card, ...], int] | None = None
        self.trump: str | None = None
        self.ord: TrumpOrder = ORDERS[None]
        self.leader: int | None = None
        self.turn = 0
        self.trick: list[tuple[int, tuple[Card, ...]]] = []
        self.trick_points = 0
        self.led_group = TRUMP
        self.led_len = 0
        self.win_seat = 0
        self.win_group = TRUMP
        self.win_level = 0
        self.tricks_played = 0
        self.captured: list[int] = [0] * SEATS
        self.captured_cards: list[list[Card]] = [[] for _ in range(SEATS)]
        self.last_trick: dict[str, Any] | None = None
        self.last_trick_winner: int | None = None
        self._version = 0
        self._cache_version = -1
        self._cache: list[tuple[Card, ...]] = []

    # -- deal and options (deal) ---------------------------------------------------

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """:func:`paiju.games.hunzhan.deal.random_deal`."""
        return random_deal(options, rng)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """As the constructor checks them (:func:`~paiju.games.hunzhan.deal.parse_options`)."""
        parse_options(options)

    # -- state ---------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``declaring``, ``play`` or ``finished``."""
        return "finished" if self.finished else self.stage

    def _ended(self) -> bool:
        return self._done

    def _to_act(self) -> list[int]:
        return [self.turn] if self.stage == "play" else []

    # -- declaring -----------------------------------------------------------------

    def held_at(self, seat: int, dealt: int | None) -> dict[Card, int]:
        """:func:`paiju.games.hunzhan.deal.held_at` of this game."""
        return held_at(self, seat, dealt)

    def declare_options(self, seat: int, dealt: int | None = None) -> list[Action]:
        """The declarations ``seat`` could make now (the client's declare buttons):
        each a ``declare`` action with the cards shown, strictly stronger than
        the standing declaration, from the cards held after ``dealt`` cards were
        dealt (whole hand when None). Empty outside the declaring phase.
        Raises ``malformed_action`` for a bad ``dealt``."""
        if self.finished or self.stage != "declaring":
            return []
        held = held_at(self, seat, dealt)
        standing = self.declaration[2] if self.declaration else 0
        return [Action(seat, "declare", cards, dealt) for cards, strength in DECLARATIONS.items()
                if strength > standing and holds(held, cards)]

    def _declare(self, action: Action) -> list[Event]:
        if self.stage != "declaring":
            raise RulesError("wrong_phase", "declaring has closed")
        seat = action.seat
        assert seat is not None
        cards = tuple(sorted(action.cards))
        strength = DECLARATIONS.get(cards)
        if strength is None:
            raise RulesError(
                "invalid_combination", "declare with one ten or a pair of equal jokers"
            )
        held = held_at(self, seat, action.dealt)
        if not holds(held, cards):
            raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
        if self.declaration is not None and strength <= self.declaration[2]:
            raise RulesError("declare_too_weak", "a declare must be stronger than the standing one")
        self.declaration = (seat, cards, strength)
        self._version += 1
        return [
            Event(
                "declared",
                {"seat": seat, "cards": list(cards), "trump": declared_trump(cards),
                 "no_trump": declared_trump(cards) is None},
            )
        ]

    def _end_declare(self, action: Action) -> list[Event]:
        if action.seat is not None:
            raise RulesError("malformed_action", "end_declare is sent by the system (seat null)")
        if self.stage != "declaring":
            raise RulesError("wrong_phase", "declaring has closed")
        self._version += 1
        if self.declaration is None:
            self.redeal = True
            self._done = True
            return [Event("declaring_closed", {"trump": None, "leader": None, "redeal": True})]
        seat, cards, _ = self.declaration
        self.trump = declared_trump(cards)
        self.ord = ORDERS[self.trump]
        key = self.ord.sort_key.__getitem__
        self.sorted_hands = [sorted(h, key=key) for h in self.dealt_hands]
        self.stage = "play"
        self.leader = seat
        self.turn = seat
        return [
            Event(
                "declaring_closed",
                {"trump": self.trump, "no_trump": self.trump is None, "leader": seat,
                 "redeal": False},
            )
        ]

    # -- play (following and the point rules: follow, points) ---------------------

    def _legal_plays(self, seat: int) -> list[tuple[Card, ...]]:
        if self._cache_version != self._version:
            if self.trick:
                plays = legal_follows(self, seat)
            else:
                plays = lead_options(self.hands[seat], self.ord)
            self._cache = plays
            self._cache_version = self._version
        return self._cache

    def _play(self, action: Action) -> list[Event]:
        if self.stage != "play":
            raise RulesError("wrong_phase", "cards are played after declaring")
        seat = action.seat
        assert seat is not None
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to play")
        cards = action.cards
        if not cards:
            raise RulesError("invalid_combination", "play at least one card")
        hand = self.hands[seat]
        if not holds(hand, cards):
            raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
        o = self.ord
        play = tuple(sorted(cards, key=o.sort_key.__getitem__))
        cl, kind = self._combination(seat, play)
        # -- valid: mutate --
        self._version += 1
        sorted_hand = self.sorted_hands[seat]
        for c in play:
            sorted_hand.remove(c)
            n = hand[c] - 1
            if n:
                hand[c] = n
            else:
                del hand[c]
        pts = sum(POINTS[c] for c in play)
        self._standing(seat, play, cl)
        self.trick.append((seat, play))
        self.trick_points += pts
        events = [
            Event("played", {"seat": seat, "cards": list(play), "combination": kind,
                             "trick": self.tricks_played + 1}),
            Event("hand", {"cards": list(sorted_hand)}, to=seat),
        ]
        if len(self.trick) < SEATS:
            self.turn = (seat + 1) % SEATS
            return events
        return events + self._finish_trick()

    def _combination(self, seat: int, play: tuple[Card, ...]
                     ) -> tuple[tuple[str, str, int] | None, str]:
        """The classification of ``play`` (sorted) by ``seat`` and the name of
        its combination, once it is checked legal: a lead must be a single, a
        pair or a run of pairs; a follow as
        :func:`~paiju.games.hunzhan.points.check_follow` says (a ``mixed`` one
        where it is no combination of the lead's size)."""
        o = self.ord
        if not self.trick:
            cl = classify(play, o)
            if cl is None:
                raise RulesError(
                    "invalid_combination", "lead a single, a pair or a run of pairs"
                )
            return cl, cl[0]
        if self._cache_version != self._version or play not in self._cache:
            check_follow(self, seat, play)
        cl = classify(play, o) if len(play) == self.led_len else None
        return cl, cl[0] if cl else "mixed"

    def _standing(self, seat: int, play: tuple[Card, ...],
                  cl: tuple[str, str, int] | None) -> None:
        """The trick's winner so far after ``seat`` played ``play``
        (classified ``cl``): a lead stands; a follow that beats it takes over."""
        o = self.ord
        if not self.trick:
            assert cl is not None
            self.led_len = len(play)
            self.led_group = self.win_group = cl[1]
            self.win_level = cl[2]
            self.win_seat = seat
        elif beats(self, play):
            c0 = play[0]
            self.win_seat = seat
            if cl is None:  # single
                self.win_group, self.win_level = o.group[c0], o.level[c0]
            else:
                self.win_group, self.win_level = cl[1], cl[2]

    def _finish_trick(self) -> list[Event]:
        w = self.win_seat
        pts = self.trick_points
        self.captured[w] += pts
        self.captured_cards[w].extend(c for _, p in self.trick for c in p if POINTS[c])
        self.last_trick = {
            "plays": [{"seat": s, "cards": list(p)} for s, p in self.trick],
            "winner": w,
            "points": pts,
        }
        self.last_trick_winner = w
        self.tricks_played += 1
        self.trick = []
        self.trick_points = 0
        self.leader = w
        self.turn = w
        if not self.hands[w]:
            self._done = True
        return [
            Event("trick_won", {"seat": w, "points": pts,
                                "next_leader": None if self._done else w}),
            Event("scores", {"captured": list(self.captured),
                             "cards": [list(cs) for cs in self.captured_cards]}),
        ]

    # -- engine interface ----------------------------------------------------------

    def _apply(self, action: Action) -> list[Event]:
        if action.type == "play":
            return self._play(action)
        if action.type == "declare":
            return self._declare(action)
        if action.type == "end_declare":
            return self._end_declare(action)
        raise RulesError("unknown_action", f"hunzhan has no action {action.type!r}")

    def legal_actions(self, seat: int) -> list[Action]:
        """Declaring: :meth:`declare_options` for the whole hand. Play: for the
        seat to act, every distinct legal card multiset (canonical tuples in
        hand order); otherwise empty."""
        if self.finished:
            return []
        if self.stage == "declaring":
            return self.declare_options(seat)
        if seat != self.turn:
            return []
        return [Action(seat, "play", p) for p in self._legal_plays(seat)]

    def non_play_actions(self, seat: int) -> list[Action]:
        """The non-play actions: the declares while declaring (hunzhan has no
        pass)."""
        if self.finished or self.stage != "declaring":
            return []
        return self.declare_options(seat)

    def iter_plays(self, seat: int) -> Iterator[Action]:
        """The plays of :meth:`legal_actions`, lazily (a void follower's from
        :func:`~paiju.games.hunzhan.points.iter_legal_follows`, one per step)."""
        if self.finished or self.stage != "play" or seat != self.turn:
            return
        if self._cache_version == self._version:
            plays: Iterable[tuple[Card, ...]] = self._cache
        elif self.trick:
            plays = iter_legal_follows(self, seat)
        else:
            plays = self._legal_plays(seat)
        for p in plays:
            yield Action(seat, "play", p)

    def default_action(self, seat: int) -> Action:
        """The timeout move (rulings.md "Shared"): the lowest legal play with the
        fewest cards — a leader's lowest single; a follower's legal play whose
        highest card is lowest (then the next highest, …), computed without
        listing every follow (:func:`~paiju.games.hunzhan.points.lowest_follow`).
        Raises ``wrong_phase`` while declaring (the default there is no
        declaration, and nobody is to act), ``not_your_turn`` for a seat not to
        act."""
        if self.finished:
            raise RulesError("game_over", "the game has finished")
        if self.stage != "play":
            raise RulesError("wrong_phase", "the default while declaring is no declaration")
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to play")
        if self.trick:
            return Action(seat, "play", lowest_follow(self, seat))
        low = self.ord.low_key
        plays = self._legal_plays(seat)
        best = min(plays, key=lambda p: (len(p), sorted((low[c] for c in p), reverse=True)))
        return Action(seat, "play", best)

    # -- results (results) and what clients see (display) ----------------------------

    def _result(self) -> Result:
        return results.normal_result(self)

    def _result_detail_on_escape(self) -> dict[str, Any]:
        return results.detail(self)

    def escape_points(self, seat: int) -> list[int]:
        """:func:`paiju.games.hunzhan.results.escape_points` of the points captured so far."""
        return results.escape_points(self.captured, seat)

    def result_lines(self) -> list[dict[str, Any]]:
        """:func:`paiju.games.hunzhan.results.result_lines`."""
        return results.result_lines(self)

    def carry_over(self) -> dict[str, Any]:
        """:func:`paiju.games.hunzhan.results.carry_over`: ``{"first": the last
        trick's winner}``."""
        return results.carry_over(self)

    def view(self, seat: int) -> dict[str, Any]:
        """:func:`paiju.games.hunzhan.display.view`: what ``seat`` may see."""
        return display.view(self, seat)

    def display(self) -> dict[str, Any]:
        """:func:`paiju.games.hunzhan.display.display`: trump and captured points."""
        return display.display(self)

    def deck_cards(self) -> list[Card]:
        """Two decks without 3, 4 and 6: 84 cards (rulings.md "hunzhan")."""
        return list(DECK)

    def played_cards(self) -> list[Card]:
        """The deck less every hand (no kitty): what was played."""
        out = Counter(DECK)
        for h in self.hands:
            out.subtract(h)
        return list(out.elements())

    def scores_view(self) -> dict[str, Any]:
        """:func:`paiju.games.hunzhan.display.scores_view` (看分)."""
        return display.scores_view(self)

    def scores_detail(self) -> list[dict[str, Any]]:
        """:func:`paiju.games.hunzhan.display.scores_detail` (看分 per seat)."""
        return display.scores_detail(self)

    def last_trick_view(self) -> dict[str, Any]:
        """:func:`paiju.games.hunzhan.display.last_trick_view` (上一轮)."""
        return display.last_trick_view(self)
