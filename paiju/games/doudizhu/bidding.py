"""斗地主 doudizhu: bidding (叫地主 / 不叫) and robbing (抢地主 / 不抢) (seed 002;
rulings.md "doudizhu").

Functions over the engine's state (:class:`BidTable`, which
:class:`paiju.games.doudizhu.game.Doudizhu` is): the seat to act calls or
not; after a call the others who did not say ``no_call`` may rob in turn
(each rob doubles the multiplier), the caller answering once someone robbed;
the last robber (else the caller) is the landlord and takes the kitty, shown
to all. Nobody calls: a redeal.
"""

from __future__ import annotations

from typing import Any, Protocol

from paiju.games.doudizhu.deal import SEATS
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError


class BidTable(Protocol):
    """What bidding reads and changes of a doudizhu game."""

    stage: str
    turn: int
    multiplier: int
    landlord: int | None
    caller: int | None
    no_called: set[int]
    bids: list[dict[str, Any]]
    rob_queue: list[int]
    robbed_by: list[int]
    bottom: list[str]
    redeal: bool
    #: every seat's number of cards
    sizes: list[int]

    def add_cards(self, seat: int, cards: list[str]) -> None:
        """Give ``cards`` to ``seat`` (the engine's hand bookkeeping)."""

    def hand(self, seat: int) -> list[str]:
        """``seat``'s cards in doudizhu order."""


def check_bid_turn(g: BidTable, seat: int, action: Action) -> None:
    """``not_your_turn`` unless ``seat`` is to bid; ``malformed_action`` for cards."""
    if seat != g.turn:
        raise RulesError("not_your_turn", f"seat {g.turn} is to bid")
    if action.cards:
        raise RulesError("malformed_action", f"{action.type!r} carries no cards")


def _bid_event(g: BidTable, seat: int, kind: str) -> Event:
    g.bids.append({"seat": seat, "kind": kind})
    return Event("bid", {"seat": seat, "kind": kind, "multiplier": g.multiplier})


def bid(g: BidTable, seat: int, typ: str) -> list[Event]:
    """``seat`` (to act, checked) says ``call`` or ``no_call``: the events."""
    if typ == "no_call":
        g.no_called.add(seat)
        events = [_bid_event(g, seat, typ)]
        if len(g.no_called) == SEATS:  # all no_call: redeal (rulings)
            g.stage = "finished"
            g.redeal = True
            return events
        g.turn = (seat + 1) % SEATS
        return events
    g.caller = seat
    events = [_bid_event(g, seat, typ)]
    g.rob_queue = [
        s for s in ((seat + 1) % SEATS, (seat + 2) % SEATS) if s not in g.no_called
    ]
    return events + _next_robber(g)


def rob(g: BidTable, seat: int, typ: str) -> list[Event]:
    """``seat`` (to act, checked) says ``rob`` (×2) or ``no_rob``: the events."""
    g.rob_queue.pop(0)
    if typ == "rob":
        g.multiplier *= 2
        g.robbed_by.append(seat)
        if seat != g.caller and g.caller not in g.rob_queue:
            g.rob_queue.append(g.caller)  # type: ignore[arg-type]
    events = [_bid_event(g, seat, typ)]
    return events + _next_robber(g)


def _next_robber(g: BidTable) -> list[Event]:
    q = g.rob_queue  # the caller is appended (last) only once someone robbed
    if q:
        g.stage = "robbing"
        g.turn = q[0]
        return []
    caller = g.caller
    assert caller is not None
    landlord = g.robbed_by[-1] if g.robbed_by else caller
    g.landlord = landlord
    g.add_cards(landlord, g.bottom)
    g.stage = "play"
    g.turn = landlord
    return [
        # hand_counts: the landlord's 17 + 3 (the page counts on from them)
        Event("kitty_shown", {"cards": list(g.bottom), "landlord": landlord,
                              "hand_counts": list(g.sizes)}),
        Event("kitty", {"cards": list(g.bottom)}, to=landlord),
        Event("hand", {"cards": g.hand(landlord)}, to=landlord),
    ]
