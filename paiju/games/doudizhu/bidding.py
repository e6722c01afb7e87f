"""斗地主 doudizhu: bidding (叫地主 / 不叫) and robbing (抢地主 / 不抢) (seed 002;
rulings.md "doudizhu").

:class:`Bidding` is a mixin of :class:`paiju.games.doudizhu.game.Doudizhu`: the seat
to act calls or not; after a call the others who did not say ``no_call`` may
rob in turn (each rob doubles the multiplier), the caller answering once
someone robbed; the last robber (else the caller) is the landlord and takes
the kitty, shown to all. Nobody calls: a redeal.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from paiju.games.doudizhu.deal import SEATS
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError


class Bidding(ABC):
    """Bidding and robbing (a mixin: the engine sets the fields)."""

    _phase: str
    _turn: int
    multiplier: int
    landlord: int | None
    caller: int | None
    no_called: set[int]
    bids: list[dict[str, Any]]
    _rob_queue: list[int]
    _robbed_by: list[int]
    bottom: list[str]
    redeal: bool
    #: every seat's number of cards
    _sizes: list[int]

    @abstractmethod
    def _add(self, seat: int, cards: list[str]) -> None:
        """Give ``cards`` to ``seat`` (the engine's hand bookkeeping)."""

    @abstractmethod
    def hand(self, seat: int) -> list[str]:
        """``seat``'s cards in doudizhu order."""

    def _check_bid_turn(self, seat: int, action: Action) -> None:
        if seat != self._turn:
            raise RulesError("not_your_turn", f"seat {self._turn} is to bid")
        if action.cards:
            raise RulesError("malformed_action", f"{action.type!r} carries no cards")

    def _bid_event(self, seat: int, kind: str) -> Event:
        self.bids.append({"seat": seat, "kind": kind})
        return Event("bid", {"seat": seat, "kind": kind, "multiplier": self.multiplier})

    def _bid(self, seat: int, typ: str) -> list[Event]:
        if typ == "no_call":
            self.no_called.add(seat)
            events = [self._bid_event(seat, typ)]
            if len(self.no_called) == SEATS:  # all no_call: redeal (rulings)
                self._phase = "finished"
                self.redeal = True
                return events
            self._turn = (seat + 1) % SEATS
            return events
        self.caller = seat
        events = [self._bid_event(seat, typ)]
        self._rob_queue = [
            s for s in ((seat + 1) % SEATS, (seat + 2) % SEATS) if s not in self.no_called
        ]
        return events + self._next_robber()

    def _rob(self, seat: int, typ: str) -> list[Event]:
        self._rob_queue.pop(0)
        if typ == "rob":
            self.multiplier *= 2
            self._robbed_by.append(seat)
            if seat != self.caller and self.caller not in self._rob_queue:
                self._rob_queue.append(self.caller)  # type: ignore[arg-type]
        events = [self._bid_event(seat, typ)]
        return events + self._next_robber()

    def _next_robber(self) -> list[Event]:
        q = self._rob_queue  # the caller is appended (last) only once someone robbed
        if q:
            self._phase = "robbing"
            self._turn = q[0]
            return []
        caller = self.caller
        assert caller is not None
        landlord = self._robbed_by[-1] if self._robbed_by else caller
        self.landlord = landlord
        self._add(landlord, self.bottom)
        self._phase = "play"
        self._turn = landlord
        return [
            # hand_counts: the landlord's 17 + 3 (the page counts on from them)
            Event("kitty_shown", {"cards": list(self.bottom), "landlord": landlord,
                                  "hand_counts": list(self._sizes)}),
            Event("kitty", {"cards": list(self.bottom)}, to=landlord),
            Event("hand", {"cards": self.hand(landlord)}, to=landlord),
        ]
