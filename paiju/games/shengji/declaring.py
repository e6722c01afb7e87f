"""升级 (shengji) declaring: 亮主 / 冲主 while the cards are dealt, and the
window's close.

Source: shared/seeds/004_87bdd40096bb5c2e.txt sections 亮主 (3s of one suit
declare it trump; with three or four decks at least a pair), 冲主 (another
player overrides with more 3s of another suit), 抢庄 (the first declarer
deals the room's first game) and 底牌 (the dealer takes the kitty); rulings.md
"shengji" (nobody declared: a redeal); records.md ``deal.order`` and
``dealt`` (a declare checked against the cards held so far).

The engine (:class:`paiju.games.shengji.game.Shengji`) holds the fields;
the functions take it as a :class:`DeclareState`.
"""

from __future__ import annotations

from typing import Protocol

from paiju.games.shengji.cards import dealt_cards
from paiju.games.shengji.state import HandState, fix_trump, hand_changed, hand_sorted
from paiju.rules.cards import SUITS, Card, Hand
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError


class DeclareState(HandState, Protocol):
    """What declaring reads and changes besides the hands: ``decks``;
    ``order`` / ``first`` / ``dealt`` (the dealing order, its first seat and
    the hands as dealt); ``declarer`` / ``declared`` (the standing
    declaration); ``dealer``; ``kitty``; ``redeal``; ``stage`` (the phase by
    the rules)."""

    decks: int
    order: list[Card] | None
    first: int
    dealt: list[Hand]
    declarer: int | None
    declared: tuple[Card, ...]
    dealer: int | None
    kitty: list[Card]
    redeal: bool
    stage: str


def min_declare(decks: int) -> int:
    """The fewest 3s of a declaration: one with one or two decks, else a pair (seed 亮主)."""
    return 1 if decks <= 2 else 2


def holding(g: DeclareState, seat: int, dealt: int | None) -> Hand:
    """The cards ``seat`` held once ``dealt`` cards were dealt (``None``, or
    no dealing order: the whole hand as dealt)."""
    if dealt is None or g.order is None:
        return g.dealt[seat]
    return dealt_cards(g.order, g.first, seat, dealt)


def declare_options(g: DeclareState, seat: int, dealt: int | None = None) -> list[Action]:
    """Every legal ``declare`` of ``seat`` now (each suit's 3s, each allowed
    count), checked against the cards held after ``dealt`` cards were dealt
    (records.md; out of range: the whole hand). Empty outside ``declaring``
    and for the standing declarer. Source: seed 亮主 / 冲主, rulings.md."""
    if g.stage != "declaring" or seat == g.declarer:
        return []
    if dealt is not None and (g.order is None or not 0 <= dealt <= len(g.order)):
        dealt = None
    held = holding(g, seat, dealt)
    low = max(min_declare(g.decks), len(g.declared) + 1)
    standing = g.declared[0][1] if g.declared else None
    out: list[Action] = []
    for s in SUITS:
        if s == standing:
            continue
        card = "3" + s
        for n in range(low, held[card] + 1):
            out.append(Action(seat, "declare", (card,) * n, dealt))
    return out


def check_declare(g: DeclareState, a: Action) -> None:
    """Raise ``RulesError`` unless ``a`` (a ``declare`` of a seat) is legal
    now: ``invalid_combination`` (not 3s of one suit), ``malformed_action``
    (``dealt`` out of range), ``cards_not_in_hand``, ``declare_too_weak``
    (too few 3s; a 冲主 not of another suit or not of more 3s),
    ``not_eligible`` (the standing declarer)."""
    assert a.seat is not None
    cards = a.cards
    if not cards or cards[0][0] != "3" or any(c != cards[0] for c in cards):
        raise RulesError("invalid_combination", "declare 3s of one suit (亮“3”)")
    if a.dealt is not None and g.order is not None and not 0 <= a.dealt <= len(g.order):
        raise RulesError("malformed_action", f"dealt must be 0..{len(g.order)}")
    if holding(g, a.seat, a.dealt)[cards[0]] < len(cards):
        raise RulesError("cards_not_in_hand", "the seat does not hold these 3s (yet)")
    if len(cards) < min_declare(g.decks):
        raise RulesError(
            "declare_too_weak", f"with {g.decks} decks declare at least a pair of 3s"
        )
    if g.declarer is not None:
        if a.seat == g.declarer:
            raise RulesError("not_eligible", "冲主 is for the other players")
        if cards[0] == g.declared[0]:
            raise RulesError("declare_too_weak", "冲主 needs 3s of another suit")
        if len(cards) <= len(g.declared):
            raise RulesError("declare_too_weak", "冲主 needs more 3s than the standing one")


def declare(g: DeclareState, a: Action) -> list[Event]:
    """Apply the ``declare`` ``a`` (checked by :func:`check_declare`): its
    seat declares (and deals, the first in a room, seed 抢庄); the
    ``declared`` event."""
    check_declare(g, a)
    assert a.seat is not None
    if g.dealer is None:
        g.dealer = a.seat  # seed 抢庄: the first declarer deals the first game
    g.declarer = a.seat
    g.declared = a.cards
    g.trump = a.cards[0][1]
    return [Event("declared", {"seat": a.seat, "cards": list(a.cards), "trump": g.trump})]


def end_declare(g: DeclareState) -> list[Event]:
    """Close the window: nobody declared, a redeal (the game ends); else the
    trump's tables are taken, the dealer takes the kitty (shown to all) and
    buries next. The ``declaring_closed`` event, then the kitty's and the
    dealer's hand."""
    if g.trump is None:
        g.redeal = True
        g.stage = "finished"
        return [Event("declaring_closed", {"trump": None, "leader": None, "redeal": True})]
    assert g.dealer is not None
    fix_trump(g, g.trump)
    dealer = g.dealer
    g.hands[dealer].update(g.kitty)
    hand_changed(g, dealer)
    g.stage = "burying"
    return [
        Event("declaring_closed", {"trump": g.trump, "leader": dealer, "dealer": dealer}),
        Event("kitty_shown", {"cards": list(g.kitty)}),
        Event("kitty", {"cards": list(g.kitty)}, to=dealer),
        Event("hand", {"cards": hand_sorted(g, dealer)}, to=dealer),
    ]
