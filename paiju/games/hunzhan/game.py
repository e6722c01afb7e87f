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

Modules by purpose: :mod:`~paiju.games.hunzhan.cards` (card order, point
cards, combinations), :mod:`~paiju.games.hunzhan.deal` (options and the deal),
:mod:`~paiju.games.hunzhan.follow` (following suit and shape, what beats),
:mod:`~paiju.games.hunzhan.points` (the point rules); this module is the state
machine (declaring, tricks, scores, the engine interface).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

from paiju.games.hunzhan.cards import (
    DECK,
    ORDERS,
    POINTS,
    TRUMP,
    TrumpOrder,
    classify,
    declared_trump,
    lead_options,
)
from paiju.games.hunzhan.deal import PAR, SEATS, parse_deal, parse_options
from paiju.games.hunzhan.display import HunzhanShown
from paiju.games.hunzhan.points import PointRules
from paiju.games.hunzhan.results import HunzhanResults
from paiju.rules.cards import Card
from paiju.rules.engine import Action, Event, Game, Result
from paiju.rules.errors import RulesError

#: Declaration strength (叫主/反主 order, seed 000 叫主): a key of sorted cards →
#: strength. BJ pair > SJ pair > ♠10 > ♥10 > ♣10 > ♦10.
DECLARATIONS: dict[tuple[Card, ...], int] = {
    ("BJ", "BJ"): 6,
    ("SJ", "SJ"): 5,
    ("TS",): 4,
    ("TH",): 3,
    ("TC",): 2,
    ("TD",): 1,
}


def _holds(hand: dict[Card, int], cards: tuple[Card, ...]) -> bool:
    """True where ``hand`` holds every card of ``cards`` (with repeats)."""
    if len(cards) == 1:
        return cards[0] in hand
    need: dict[Card, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    return all(hand.get(c, 0) >= k for c, k in need.items())


class Hunzhan(HunzhanResults, PointRules, HunzhanShown, Game):
    """The 混战 engine (seed 000). See the module docstring and docs/rules/hunzhan.md.

    ``deal``: ``hands`` (4 × 21 cards), ``bottom`` (empty or absent), ``first``
    (the seat dealt to first, 先摸牌) and optionally ``order`` (the 84 cards in
    the order dealt: card ``j`` went to seat ``(first + j) % 4``). Raises
    ``RulesError("bad_deal")`` / ``RulesError("bad_options")``.
    """

    name: ClassVar[str] = "hunzhan"
    seats: ClassVar[int] = SEATS

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
        self._phase = "declaring"
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

    # -- deal (deal) --------------------------------------------------------

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """A random deal: ``hands``, ``bottom`` (empty), ``first`` (random seat; the
        table service replaces it from the room's second game with the previous
        game's ``last_trick_winner``, seed 000) and ``order`` (dealt round-robin
        from ``first``)."""
        parse_options(options)
        order = list(DECK)
        rng.shuffle(order)
        first = rng.randrange(SEATS)
        hands = [order[(s - first) % SEATS :: SEATS] for s in range(SEATS)]
        return {"hands": hands, "bottom": [], "first": first, "order": order}

    # -- state ---------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``declaring``, ``play`` or ``finished``."""
        return "finished" if self.finished else self._phase

    def _ended(self) -> bool:
        return self._done

    def _to_act(self) -> list[int]:
        return [self.turn] if self._phase == "play" else []

    # -- declaring -----------------------------------------------------------------

    def held_at(self, seat: int, dealt: int | None) -> dict[Card, int]:
        """The cards ``seat`` held after ``dealt`` cards were dealt (records.md
        ``deal.order``); the whole hand when ``dealt`` is None or the deal has
        no ``order``. Raises ``malformed_action`` for ``dealt`` outside 0..84."""
        if dealt is not None and not 0 <= dealt <= len(DECK):
            raise RulesError("malformed_action", f"dealt must be 0..{len(DECK)}")
        if dealt is None or self.order is None:
            return self.hands[seat]
        start = (seat - self.first) % SEATS
        return dict(Counter(self.order[start:dealt:SEATS]))

    def declare_options(self, seat: int, dealt: int | None = None) -> list[Action]:
        """The declarations ``seat`` could make now (the client's declare buttons):
        each a ``declare`` action with the cards shown, strictly stronger than
        the standing declaration, from the cards held after ``dealt`` cards were
        dealt (whole hand when None). Empty outside the declaring phase.
        Raises ``malformed_action`` for a bad ``dealt``."""
        if self.finished or self._phase != "declaring":
            return []
        held = self.held_at(seat, dealt)
        standing = self.declaration[2] if self.declaration else 0
        out: list[Action] = []
        for cards, strength in DECLARATIONS.items():
            if strength > standing and _holds(held, cards):
                out.append(Action(seat, "declare", cards, dealt))
        return out

    def _declare(self, action: Action) -> list[Event]:
        if self._phase != "declaring":
            raise RulesError("wrong_phase", "declaring has closed")
        seat = action.seat
        assert seat is not None
        cards = tuple(sorted(action.cards))
        strength = DECLARATIONS.get(cards)
        if strength is None:
            raise RulesError(
                "invalid_combination", "declare with one ten or a pair of equal jokers"
            )
        held = self.held_at(seat, action.dealt)
        if not _holds(held, cards):
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
        if self._phase != "declaring":
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
        self._phase = "play"
        self.leader = seat
        self.turn = seat
        return [
            Event(
                "declaring_closed",
                {"trump": self.trump, "no_trump": self.trump is None, "leader": seat,
                 "redeal": False},
            )
        ]

    # -- play (following and the point rules: follow, points) -----

    def _legal_plays(self, seat: int) -> list[tuple[Card, ...]]:
        if self._cache_version != self._version:
            if self.trick:
                plays = self._legal_follows(seat)
            else:
                plays = lead_options(self.hands[seat], self.ord)
            self._cache = plays
            self._cache_version = self._version
        return self._cache

    def _play(self, action: Action) -> list[Event]:
        if self._phase != "play":
            raise RulesError("wrong_phase", "cards are played after declaring")
        seat = action.seat
        assert seat is not None
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to play")
        cards = action.cards
        if not cards:
            raise RulesError("invalid_combination", "play at least one card")
        hand = self.hands[seat]
        if not _holds(hand, cards):
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
        pair or a run of pairs; a follow as :meth:`_check_follow` says (a
        ``mixed`` one where it is no combination of the lead's size)."""
        o = self.ord
        if not self.trick:
            cl = classify(play, o)
            if cl is None:
                raise RulesError(
                    "invalid_combination", "lead a single, a pair or a run of pairs"
                )
            return cl, cl[0]
        if self._cache_version != self._version or play not in self._cache:
            self._check_follow(seat, play)
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
        elif self._beats(play):
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
        if self._phase == "declaring":
            return self.declare_options(seat)
        if seat != self.turn:
            return []
        return [Action(seat, "play", p) for p in self._legal_plays(seat)]

    def non_play_actions(self, seat: int) -> list[Action]:
        """The non-play actions: the declares while declaring (hunzhan has no
        pass)."""
        if self.finished or self._phase != "declaring":
            return []
        return self.declare_options(seat)

    def iter_plays(self, seat: int) -> Iterator[Action]:
        """The plays of :meth:`legal_actions`, lazily (a void follower's from
        :meth:`_iter_legal_follows`, one per step)."""
        if self.finished or self._phase != "play" or seat != self.turn:
            return
        if self._cache_version == self._version:
            plays: Iterable[tuple[Card, ...]] = self._cache
        elif self.trick:
            plays = self._iter_legal_follows(seat)
        else:
            plays = self._legal_plays(seat)
        for p in plays:
            yield Action(seat, "play", p)

    def default_action(self, seat: int) -> Action:
        """The timeout move (rulings.md "Shared"): the lowest legal play with the
        fewest cards — a leader's lowest single; a follower's legal play whose
        highest card is lowest (then the next highest, …), computed without
        listing every follow (:meth:`_lowest_follow`). Raises ``wrong_phase``
        while declaring (the default there is no declaration, and nobody is to
        act), ``not_your_turn`` for a seat not to act."""
        if self.finished:
            raise RulesError("game_over", "the game has finished")
        if self._phase != "play":
            raise RulesError("wrong_phase", "the default while declaring is no declaration")
        if seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to play")
        if self.trick:
            return Action(seat, "play", self._lowest_follow(seat))
        low = self.ord.low_key
        plays = self._legal_plays(seat)
        best = min(plays, key=lambda p: (len(p), sorted((low[c] for c in p), reverse=True)))
        return Action(seat, "play", best)

    def _sorted_hand(self, seat: int) -> list[Card]:
        if self._phase == "play":
            return list(self.sorted_hands[seat])
        key = self.ord.sort_key
        return sorted((c for c, k in self.hands[seat].items() for _ in range(k)),
                      key=key.__getitem__)

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: own hand (hand order), counts, the declaration,
        trump, the trick so far, the last trick (上一轮), captured points and
        cards (看分). Never another seat's hand."""
        decl = self.declaration
        return {
            "game": self.name,
            "phase": self.phase,
            "seat": seat,
            "hand": self._sorted_hand(seat),
            "hand_counts": [sum(h.values()) for h in self.hands],
            "to_act": self.to_act(),
            "first": self.first,
            "declaration": None if decl is None else {"seat": decl[0], "cards": list(decl[1])},
            "declarer": None if decl is None else decl[0],
            "trump": self.trump,
            "no_trump": self._phase == "play" and self.trump is None,
            "leader": self.leader,
            "turn": self.turn if self._phase == "play" and not self.finished else None,
            "trick": [{"seat": s, "cards": list(p)} for s, p in self.trick],
            "trick_points": self.trick_points,
            "trick_winner": self.win_seat if self.trick else None,
            "tricks_played": self.tricks_played,
            "last_trick": self.last_trick,
            "last_trick_winner": self.last_trick_winner,
            "captured": list(self.captured),
            "scores": self.scores_detail(),
            "redeal": self.redeal,
            "escaped": self.escaped,
        }

    def _detail(self) -> dict[str, Any]:
        return {
            "trump": self.trump,
            "captured": list(self.captured),
            "last_trick_winner": self.last_trick_winner,
            "redeal": self.redeal,
            "declarer": None if self.declaration is None else self.declaration[0],
        }

    def _result(self) -> Result:
        if self.redeal:
            return Result([0] * SEATS, self._detail(), "redeal")
        return Result([c - PAR for c in self.captured], self._detail())

    def _result_detail_on_escape(self) -> dict[str, Any]:
        return self._detail()

    def escape_points(self, seat: int) -> list[int]:
        """Escape (seed 000 例外; rulings.md "Settlement"): the escapee gets
        −3 × (60 − X) for X < 60, −10 for X ≥ 60 (X = its captured points so far);
        each other seat max(0, captured − 60). They do not sum to zero."""
        out = [max(0, c - PAR) for c in self.captured]
        x = self.captured[seat]
        out[seat] = -3 * (PAR - x) if x < PAR else -10
        return out
