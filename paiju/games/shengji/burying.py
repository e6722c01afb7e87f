"""升级 (shengji) burying: the dealer puts back as many cards as the kitty.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 扣底 (the dealer,
having taken the kitty, buries as many cards, seen by nobody else) and 庄家
(the dealer leads the first trick); rulings.md "Settlement" (a timeout buries
the lowest cards in the game's order). The buries listed are a bounded
family (docs/rules/shengji.md); any kitty-size multiset of the hand is
accepted.

The engine (:class:`paiju.games.shengji.game.Shengji`) holds the fields;
the functions take it as a :class:`BuryState`.
"""

from __future__ import annotations

from typing import Protocol

from paiju.games.shengji.state import HandState, hand_changed, hand_sorted, high_first
from paiju.rules.cards import Card, holds, remove
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError


class BuryState(HandState, Protocol):
    """What burying reads and changes besides the hands: ``dealer``,
    ``kitty_size``, ``buried`` (the buried cards, highest first), ``stage``
    (the phase by the rules), ``leader`` and ``trick_no`` (set for the first
    trick)."""

    dealer: int | None
    kitty_size: int
    buried: list[Card]
    stage: str
    leader: int
    trick_no: int


def bury(g: BuryState, a: Action) -> list[Event]:
    """The dealer buries ``a.cards`` (exactly ``kitty_size`` cards it holds;
    else ``wrong_count`` / ``cards_not_in_hand``); play begins, the dealer to
    lead. The ``buried`` event (who buried how many, every seat's count
    after it) and the dealer's hand."""
    dealer = g.dealer
    assert a.seat is not None and dealer is not None
    if len(a.cards) != g.kitty_size:
        raise RulesError("wrong_count", f"bury exactly {g.kitty_size} cards")
    hand = g.hands[dealer]
    if not holds(hand, a.cards):
        raise RulesError("cards_not_in_hand", "the dealer does not hold these cards")
    remove(hand, a.cards)
    hand_changed(g, dealer)
    g.buried = high_first(g, a.cards)
    g.stage = "play"
    g.leader = dealer
    g.trick_no = 1
    return [Event("buried", {"seat": dealer, "count": len(a.cards),
                             "hand_counts": [sum(h.values()) for h in g.hands]}),
            Event("hand", {"cards": hand_sorted(g, dealer)}, to=dealer)]


def lowest_first(g: BuryState) -> list[Card]:
    """The dealer's cards, lowest first in the game's order (equal cards next
    to each other)."""
    assert g.dealer is not None and g.trump is not None
    return sorted(g.hands[g.dealer].elements(), key=g.low_order.__getitem__)


def default_bury(g: BuryState) -> tuple[Card, ...]:
    """The lowest ``kitty_size`` cards of the dealer's hand, sorted
    (rulings.md "Settlement": a timeout during the bury buries the lowest
    cards in the game's order)."""
    return tuple(sorted(lowest_first(g)[: g.kitty_size]))


def bury_options(g: BuryState) -> list[Action]:
    """The buries listed: the runs of ``kitty_size`` consecutive cards of the
    dealer's hand in the game's order, lowest first, each once. (The legal
    set is every kitty-size sub-multiset of the hand: C(33, 8) ≈ 13.9
    million with two decks.)"""
    cards = lowest_first(g)
    k = g.kitty_size
    dealer = g.dealer
    # Equal cards are next to each other in that order, so a run equals an
    # earlier one only when it equals the one just before it.
    return [Action(dealer, "bury", tuple(sorted(cards[i : i + k])))
            for i in range(len(cards) - k + 1) if not i or cards[i - 1] != cards[i + k - 1]]
