"""大A (daa): the declaring window and the settling of the sides (seed 003
亮大A / 反大A, 双大A; rulings.md "daa").

While the cards are dealt a seat may show one A it holds face up (亮大A: the
first declaration stands); another seat may answer it with two A of one suit
(反大A, once). When the window closes (:func:`close`) the big A's suit is
settled (the counter's, else the declaration's, else :data:`DEFAULT_BIG_SUIT`),
the held-back cards are given, and the sides chosen (:func:`choose_sides`).

The engine checks the phase (``wrong_phase``); these functions raise the
rest as :class:`~paiju.rules.errors.RulesError`.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple, Protocol

from paiju.games.daa.combos import sort_cards
from paiju.games.daa.deal import DECK, SEATS
from paiju.rules.cards import Card, holds
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError

#: The big-A suit when nobody declares (rulings.md "daa": hearts).
DEFAULT_BIG_SUIT = "H"


class Declaring(Protocol):
    """The state a declaration is checked against and recorded in, and that
    the closing of the window settles."""

    #: the deal: the first seat dealt to, the 108 cards in dealing order (or
    #: None) and per seat the position in ``order`` of its held-back card
    first: int
    order: list[Card] | None
    held_index: list[int]
    #: per seat, the held-back card (None once given) and the face-up cards
    held: list[Card | None]
    hands: list[Counter[str]]
    #: 亮大A and 反大A: the seats and suits (None before)
    declarer: int | None
    declared_suit: str | None
    counter: int | None
    counter_suit: str | None
    #: settled by :func:`close`: the big A's suit and card, the sides (see
    #: :class:`Settled`) and the seat to act
    big_suit: str | None
    big_card: Card
    solo: int | None
    master: int | None
    second: int | None
    named: bool
    leader: int | None
    turn: int


def visible(st: Declaring, seat: int, dealt: int | None) -> Counter[str]:
    """What ``seat`` held face up once ``dealt`` cards were dealt (all of its
    face-up hand where ``dealt`` or the deal's order is not known)."""
    if dealt is None or st.order is None:
        return st.hands[seat]
    return Counter(st.order[i] for i in range(min(dealt, len(DECK)))
                   if (st.first + i) % SEATS == seat and i != st.held_index[seat])


def check_declare(st: Declaring, seat: int, cards: tuple[Card, ...], dealt: int | None) -> None:
    """Raise unless ``seat`` may declare ``cards`` now: ``malformed_action``
    (``dealt`` not 0..108), ``invalid_combination`` (not one A or two of one
    suit), ``cards_not_in_hand``, ``declare_too_weak`` (a second 亮, a second
    反) or ``not_eligible`` (反 before any 亮, or against oneself)."""
    if dealt is not None and not 0 <= dealt <= len(DECK):
        raise RulesError("malformed_action", f"dealt must be 0..108, not {dealt}")
    if not 1 <= len(cards) <= 2 or any(c[0] != "A" for c in cards) or (
        len(cards) == 2 and cards[0] != cards[1]
    ):
        raise RulesError("invalid_combination", "declare one A, or two A of one suit (反)")
    if not holds(visible(st, seat, dealt), cards):
        raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
    if len(cards) == 1:
        if st.declarer is not None:
            raise RulesError("declare_too_weak", "the first declaration stands")
    else:
        if st.declarer is None:
            raise RulesError("not_eligible", "反大A answers a declaration (亮大A)")
        if seat == st.declarer:
            raise RulesError("not_eligible", "the declarer cannot counter itself")
        if st.counter is not None:
            raise RulesError("declare_too_weak", "the big A was already countered")


def declare_options(st: Declaring, seat: int, dealt: int | None) -> list[Action]:
    """The declarations ``seat`` may make (with ``dealt``: against the cards it
    held then): one A of a suit it holds (亮), or, after another seat's 亮,
    two A of one suit (反); what :func:`check_declare` accepts."""
    out: list[Action] = []
    if dealt is not None and not 0 <= dealt <= len(DECK):
        return out
    have = visible(st, seat, dealt)
    single = st.declarer is None
    pair = not single and seat != st.declarer and st.counter is None
    for s in "SHCD":
        card = "A" + s
        n = have[card]
        if single and n >= 1:
            out.append(Action(seat, "declare", (card,), dealt))
        if pair and n >= 2:
            out.append(Action(seat, "declare", (card, card), dealt))
    return out


def declare(st: Declaring, seat: int, cards: tuple[Card, ...], dealt: int | None
            ) -> list[Event]:
    """Check and record a declaration (亮: one A, 反: two); its ``declared``
    event. Raises as :func:`check_declare`."""
    check_declare(st, seat, cards, dealt)
    suit = cards[0][1]
    if len(cards) == 1:
        st.declarer, st.declared_suit = seat, suit
    else:
        st.counter, st.counter_suit = seat, suit
    return [Event("declared", {"seat": seat, "cards": list(cards), "big_a": suit})]


class Settled(NamedTuple):
    """The sides once the big A is settled: ``solo`` (双大A, alone) or
    ``master`` (主方) and ``second`` (次方); ``named`` (名双大A: a counter);
    ``leader``, the seat that leads the first trick."""

    solo: int | None
    master: int | None
    second: int | None
    named: bool
    leader: int


def choose_sides(holders: list[int], counter: int | None, declarer: int | None,
                 first: int) -> Settled:
    """The sides (rulings.md "daa"): a counter-declarer plays alone, named; a
    holder of both big As plays alone (the declarer, if any, leads); else the
    declarer, or without one the holder first from ``first``, is 主方 and the
    other holder 次方. ``holders``: the seat of each of the two big As."""
    if counter is not None:
        return Settled(counter, None, None, True, counter)
    if holders[0] == holders[1]:
        solo = holders[0]
        return Settled(solo, None, None, False, declarer if declarer is not None else solo)
    # 主方, who leads: the declarer, else the holder first from ``first``
    master = min(holders, key=lambda s: (s - first) % SEATS) if declarer is None else declarer
    second = holders[0] if holders[1] == master else holders[1]
    return Settled(None, master, second, False, master)


def close(st: Declaring) -> list[Event]:
    """Close the window: settle the big A, give each seat its held-back card,
    choose the sides and the leader (to act). Events: ``declaring_closed``,
    then each seat's whole ``hand`` (to it)."""
    suit = st.counter_suit or st.declared_suit or DEFAULT_BIG_SUIT
    big = "A" + suit
    st.big_suit, st.big_card = suit, big
    hands, held = st.hands, st.held
    for s in range(SEATS):
        c = held[s]
        if c is not None:
            hands[s][c] += 1
        held[s] = None
    holders = [s for s in range(SEATS) for _ in range(hands[s][big])]
    sides = choose_sides(holders, st.counter, st.declarer, st.first)
    st.solo, st.master, st.second, st.named, st.leader = sides
    st.turn = sides.leader
    events = [Event("declaring_closed", {"big_a": suit, "leader": sides.leader})]
    for s in range(SEATS):
        events.append(Event("hand", {"cards": sort_cards(hands[s].elements())}, s))
    return events
