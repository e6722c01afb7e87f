"""对决 duel: a small two-player trick game that exists for the tests only
(a fifth game is one module and its registration).

It is registered by naming this module in ``PAIJU_GAMES``; nothing else in
paiju knows it. Twelve cards (9 to A of spades and hearts), six to each seat,
dealt at once; ``first`` leads the first trick. The follower must follow the
led suit when it can; the higher card of the led suit wins the trick and
leads the next. Each trick is a point: after six tricks each seat scores its
tricks minus 3 (zero-sum). An escapee pays 3 to the other seat. A timeout
plays the lowest legal card.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from paiju.rules.cards import parse_cards
from paiju.rules.engine import (
    Action,
    Event,
    Game,
    Presentation,
    Result,
    check_room_options,
)
from paiju.rules.errors import RulesError

RANKS = "9TJQKA"
DECK = [r + s for s in "SH" for r in RANKS]
HAND = 6


def _low(card: str) -> tuple[int, str]:
    return RANKS.index(card[0]), card[1]


class Duel(Game):
    """The duel engine (see the module docstring)."""

    name: ClassVar[str] = "duel"
    seats: ClassVar[int] = 2
    presentation: ClassVar[Presentation] = Presentation(
        title="对决", phase_labels={"play": "比大小"})

    def __init__(self, options: Mapping[str, Any], deal: Mapping[str, Any]) -> None:
        super().__init__(options, deal)
        self.check_options(options)
        try:
            hands = [sorted(parse_cards(h), key=_low) for h in deal["hands"]]
            first = deal.get("first", 0)
        except (KeyError, TypeError) as e:
            raise RulesError("bad_deal", f"duel: {e}") from e
        if (len(hands) != 2 or any(len(h) != HAND for h in hands)
                or sorted(hands[0] + hands[1]) != sorted(DECK) or first not in (0, 1)):
            raise RulesError("bad_deal", "duel deals 6 of its 12 cards to each of 2 seats")
        self.hands = hands
        self.first = first
        self.turn = first
        self.trick: list[tuple[int, str]] = []
        self.last_trick: list[tuple[int, str]] = []
        self.last_winner: int | None = None
        self.tricks = [0, 0]

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """Only the room-wide options."""
        check_room_options(cls.name, options, frozenset())

    @classmethod
    def random_deal(cls, options: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """Six cards each of the shuffled twelve, a random first leader."""
        cards = list(DECK)
        rng.shuffle(cards)
        return {"hands": [cards[:HAND], cards[HAND:]], "bottom": [], "first": rng.randrange(2)}

    @property
    def phase(self) -> str:
        """``play``, then ``finished``."""
        return "finished" if self.finished else "play"

    def _ended(self) -> bool:
        return sum(self.tricks) == HAND

    def _to_act(self) -> list[int]:
        return [self.turn]

    def _legal_cards(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        if self.trick:
            suited = [c for c in hand if c[1] == self.trick[0][1][1]]
            return suited or list(hand)
        return list(hand)

    def legal_actions(self, seat: int) -> list[Action]:
        """One play per legal card on ``seat``'s turn."""
        if self.finished or seat != self.turn:
            return []
        return [Action(seat, "play", (c,)) for c in self._legal_cards(seat)]

    def default_action(self, seat: int) -> Action:
        """The lowest legal card."""
        if self.finished or seat != self.turn:
            raise RulesError("not_your_turn", f"seat {seat} is not to act")
        return Action(seat, "play", (min(self._legal_cards(seat), key=_low),))

    def _apply(self, action: Action) -> list[Event]:
        seat = action.seat
        if action.type != "play":
            raise RulesError("unknown_action", f"duel has no {action.type!r}")
        if seat is None or seat != self.turn:
            raise RulesError("not_your_turn", f"seat {self.turn} is to play")
        if len(action.cards) != 1:
            raise RulesError("invalid_combination", "play one card")
        card = action.cards[0]
        if card not in self.hands[seat]:
            raise RulesError("cards_not_in_hand", f"{card} is not in the hand")
        if card not in self._legal_cards(seat):
            raise RulesError("must_follow_suit", "follow the led suit")
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        events = [Event("played", {"seat": seat, "cards": [card], "combination": "single"})]
        if len(self.trick) == 1:
            self.turn = 1 - seat
            return events
        (s0, c0), (s1, c1) = self.trick
        winner = s1 if c1[1] == c0[1] and _low(c1) > _low(c0) else s0
        self.tricks[winner] += 1
        self.last_trick, self.last_winner, self.trick = self.trick, winner, []
        self.turn = winner
        events.append(Event("trick_won", {"seat": winner, "next_leader": winner, "points": 1}))
        return events

    def view(self, seat: int) -> dict[str, Any]:
        """Own hand, both counts, the trick, tricks won."""
        return {"game": self.name, "phase": self.phase, "seat": seat,
                "hand": list(self.hands[seat]), "hand_counts": [len(h) for h in self.hands],
                "to_act": self.to_act(), "first": self.first,
                "trick": [{"seat": s, "cards": [c]} for s, c in self.trick],
                "captured": list(self.tricks)}

    def _result(self) -> Result:
        return Result([t - HAND // 2 for t in self.tricks], {"tricks": list(self.tricks)})

    def escape_points(self, seat: int) -> list[int]:
        """The escapee pays 3 to the other seat."""
        return [-3 if s == seat else 3 for s in range(2)]

    def scores_view(self) -> dict[str, Any]:
        """看分: tricks won per seat."""
        return {"captured": list(self.tricks)}

    def last_trick_view(self) -> dict[str, Any]:
        """上一轮: the last trick and its winner."""
        return {"last_trick": {"plays": [{"seat": s, "cards": [c]} for s, c in self.last_trick],
                               "winner": self.last_winner}}

    def display(self) -> dict[str, Any]:
        """Tricks won as each seat's points; the leader of the trick as a badge."""
        lead = self.trick[0][0] if self.trick else None
        return {"points": list(self.tricks),
                "badges": [[{"text": "先手", "kind": "ll"}] if s == lead else [] for s in range(2)],
                "rows": [{"label": "已出", "text": f"{sum(self.tricks)}/{HAND} 轮",
                          "id": "tricks"}]}
