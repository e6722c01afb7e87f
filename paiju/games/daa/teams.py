"""大A (daa): declaring the big A and the two sides (seed 003 亮大A / 反大A,
双大A, 推风; rulings.md "daa").

:class:`Teams` is a mixin of :class:`paiju.games.daa.game.Daa`: the declaring phase
(亮大A: the first declaration stands; 反大A: two A of one suit answer it), the
settling of the sides when the window closes (a counter-declarer or a holder
of both big A plays alone; else 主方 and 次方 hold one big A each), who knows
whom (for 推风 and 亮明), and when a side is out. The engine keeps the state
(the fields below).
"""

from __future__ import annotations

from collections import Counter

from paiju.games.daa.combos import sort_cards
from paiju.games.daa.deal import DECK, SEATS
from paiju.rules.cards import Card, holds
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError

#: The big-A suit when nobody declares (rulings.md "daa": hearts).
DEFAULT_BIG_SUIT = "H"


class Teams:
    """Declaring and the sides of a daa game (a mixin: the engine sets the fields)."""

    _phase: str
    first: int
    order: list[Card] | None
    #: per seat: the held-back card (None once given) and its position in ``order``
    held: list[Card | None]
    held_index: list[int]
    #: per seat, the face-up cards
    hands: list[Counter[str]]
    declarer: int | None  # 亮大A
    declared_suit: str | None
    counter: int | None  # 反大A
    counter_suit: str | None
    big_suit: str | None
    big_card: Card
    solo: int | None
    master: int | None  # 主方
    second: int | None  # 次方
    named: bool  # 名A / 名双大A
    leader: int | None
    turn: int
    played_any: bool
    #: seats that played a big A (so everyone knows they hold one)
    big_a_shown: set[int]

    def team(self) -> list[int]:
        """The big-A side: ``[solo]``, ``[主方, 次方]``, or [] while declaring."""
        if self.solo is not None:
            return [self.solo]
        if self.master is not None and self.second is not None:
            return [self.master, self.second]
        return []

    def _visible(self, seat: int, dealt: int | None) -> Counter[str]:
        """What ``seat`` held (face up) after ``dealt`` cards were dealt."""
        if dealt is None or self.order is None:
            return self.hands[seat]
        return Counter(self.order[i] for i in range(min(dealt, len(DECK)))
                       if (self.first + i) % SEATS == seat and i != self.held_index[seat])

    def _check_declare(self, seat: int, cards: tuple[Card, ...], dealt: int | None) -> None:
        if self._phase != "declaring":
            raise RulesError("wrong_phase", "the declaring window is closed")
        if dealt is not None and not 0 <= dealt <= len(DECK):
            raise RulesError("malformed_action", f"dealt must be 0..108, not {dealt}")
        if not 1 <= len(cards) <= 2 or any(c[0] != "A" for c in cards) or (
            len(cards) == 2 and cards[0] != cards[1]
        ):
            raise RulesError("invalid_combination", "declare one A, or two A of one suit (反)")
        if not holds(self._visible(seat, dealt), cards):
            raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
        if len(cards) == 1:
            if self.declarer is not None:
                raise RulesError("declare_too_weak", "the first declaration stands")
        else:
            if self.declarer is None:
                raise RulesError("not_eligible", "反大A answers a declaration (亮大A)")
            if seat == self.declarer:
                raise RulesError("not_eligible", "the declarer cannot counter itself")
            if self.counter is not None:
                raise RulesError("declare_too_weak", "the big A was already countered")

    def declare_options(self, seat: int, dealt: int | None = None) -> list[Action]:
        """The declarations ``seat`` may make now (with ``dealt``: against the
        cards it held then): one A of a suit it holds (亮), or, after another
        seat's 亮, two A of one suit (反). Empty outside the declaring window."""
        out: list[Action] = []
        if self._phase != "declaring" or (dealt is not None and not 0 <= dealt <= len(DECK)):
            return out
        # what _check_declare accepts, without raising for each refusal
        visible = self._visible(seat, dealt)
        single = self.declarer is None
        pair = not single and seat != self.declarer and self.counter is None
        for s in "SHCD":
            card = "A" + s
            have = visible[card]
            if single and have >= 1:
                out.append(Action(seat, "declare", (card,), dealt))
            if pair and have >= 2:
                out.append(Action(seat, "declare", (card, card), dealt))
        return out

    def _declare(self, action: Action) -> list[Event]:
        seat = action.seat
        assert seat is not None
        cards = action.cards
        self._check_declare(seat, cards, action.dealt)
        suit = cards[0][1]
        if len(cards) == 1:
            self.declarer, self.declared_suit = seat, suit
        else:
            self.counter, self.counter_suit = seat, suit
        return [Event("declared", {"seat": seat, "cards": list(cards), "big_a": suit})]

    def _end_declare(self) -> list[Event]:
        if self._phase != "declaring":
            raise RulesError("wrong_phase", "the declaring window is closed")
        suit = self.counter_suit or self.declared_suit or DEFAULT_BIG_SUIT
        self.big_suit = suit
        big = "A" + suit
        self.big_card = big
        events: list[Event] = []
        for s in range(SEATS):
            c = self.held[s]
            if c is not None:
                self.hands[s][c] += 1
            self.held[s] = None
        holders = [s for s in range(SEATS) for _ in range(self.hands[s][big])]
        if self.counter is not None:
            self.solo, self.named, self.leader = self.counter, True, self.counter
        elif holders[0] == holders[1]:
            self.solo = holders[0]
            self.leader = self.declarer if self.declarer is not None else self.solo
        else:
            if self.declarer is not None:
                self.master = self.declarer
            else:
                self.master = min(holders, key=lambda s: (s - self.first) % SEATS)
            self.second = holders[0] if holders[1] == self.master else holders[1]
            self.leader = self.declarer if self.declarer is not None else self.master
        self.turn = self.leader
        self._phase = "play"
        events.append(Event("declaring_closed", {"big_a": suit, "leader": self.leader}))
        for s in range(SEATS):
            events.append(Event("hand", {"cards": sort_cards(self.hands[s].elements())}, s))
        return events

    def _next_with_cards(self, seat: int) -> int:
        for i in range(1, SEATS + 1):
            s = (seat + i) % SEATS
            if self.hands[s]:
                return s
        return seat

    def _known(self, seat: int) -> bool:
        """True where everyone knows ``seat`` holds a big A (for 推风)."""
        if seat == self.master and self.declarer == seat:
            return True
        if seat == self.second and self.named:
            return True
        return seat in self.big_a_shown

    def _push_wind(self, seat: int) -> int:
        """推风: the seat that leads after ``seat`` won a trick with no cards left."""
        if self.solo is None and seat in (self.master, self.second):
            partner = self.second if seat == self.master else self.master
            assert partner is not None
            if self.hands[partner] and self._known(partner):
                return partner
        return self._next_with_cards(seat)

    def _can_reveal(self, seat: int) -> bool:
        if self.named:
            return False
        if self.solo is not None:
            return seat == self.solo == self.declarer and not self.played_any
        return seat == self.second

    def _side_out(self) -> bool:
        """The game ends as soon as one side has no cards left."""
        big_side = self.team()
        big_out = all(not self.hands[s] for s in big_side)
        others_out = all(not self.hands[s] for s in range(SEATS) if s not in big_side)
        return big_out or others_out
