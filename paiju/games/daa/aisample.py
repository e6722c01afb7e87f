"""大A (daa) AI: what a seat knows of the sides, and sampling the unseen cards.

:func:`sides` reads the seat's view and record for its partners and
opponents (rulings.md "daa": the big-A side is the holders of the two big-A
cards; the declarer holds one, a counter-declarer both, a revealed 次方 or a
seat that played a big A one). :func:`determinize` deals the cards the seat
has not seen among the other seats, consistently with everything public
(cards played and taken back, hand counts, declarations, the roles shown),
and replays the record on that deal. No I/O.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from paiju.games.daa.aihand import Record, read_record
from paiju.games.daa.deal import SEATS
from paiju.games.daa.game import Daa
from paiju.rules.cards import Card, deck
from paiju.rules.engine import Game
from paiju.rules.errors import RulesError

DECK: Counter[Card] = Counter(deck(2))

#: View fields a sampled game must show as the seat's view does.
_PUBLIC = ("declarer", "counter_declarer", "leader", "revealed", "named_solo",
           "big_a_played_by", "finish_order", "hand_counts", "to_act", "hand", "big_a")

#: Attempts at a deal whose replay shows what the view shows.
ATTEMPTS = 40


def big_card(view: Mapping[str, Any]) -> Card:
    """The big-A card as the view settles it (♥ while nobody declared)."""
    return "A" + (view.get("big_a") or "H")


def known_holders(view: Mapping[str, Any], rec: Record, big: Card) -> dict[int, int]:
    """Seats everyone knows hold big As, with how many at least (the
    declarer, the counter-declarer or named solo 2, the revealed 次方, a seat
    that played one it had not taken back; without a declaration the leader,
    who is 主方)."""
    out: dict[int, int] = {}

    def at_least(seat: int | None, n: int) -> None:
        if seat is not None:
            out[seat] = max(out.get(seat, 0), n)

    counter = view.get("counter_declarer")
    at_least(counter, 2)
    at_least(view.get("named_solo"), 2)
    if counter is None:
        at_least(view.get("declarer"), 1)
    if view.get("declarer") is None and view.get("phase") != "declaring":
        at_least(view.get("leader"), 1)
    at_least(view.get("revealed"), 1)
    for s in range(SEATS):  # a big A taken back (取回) was not dealt to its taker
        n = rec.played[s][big] - rec.taken[s][big]
        if n > 0:
            at_least(s, n)
    return out


def sides(view: Mapping[str, Any], rec: Record) -> tuple[frozenset[int], frozenset[int]]:
    """``(partners, opponents)`` of the view's seat as far as it knows: a
    seat holding both big As plays alone; one big A: its partner is the other
    holder once known; none: the holders are its opponents and, once both are
    known, the rest its partners."""
    seat = view["seat"]
    big = big_card(view)
    others = frozenset(s for s in range(SEATS) if s != seat)
    mine = Counter(view["hand"])[big] + rec.played[seat][big] - rec.taken[seat][big]
    holders = known_holders(view, rec, big)
    holders.pop(seat, None)
    if mine >= 2:
        return frozenset(), others
    if mine == 1:
        if holders:
            partner = next(iter(holders))
            return frozenset({partner}), others - {partner}
        return frozenset(), frozenset()
    team = frozenset(holders)
    if sum(holders.values()) >= 2:
        return others - team, team
    return frozenset(), team


def unseen(view: Mapping[str, Any], rec: Record) -> Counter[Card]:
    """Cards the seat has not seen: neither in its hand nor on the table."""
    out = DECK.copy()
    out.subtract(view["hand"])
    out.subtract(rec.table)
    return +out


def determinize(sv: Any, rng: random.Random) -> Game:
    """A 大A game with ``sv.history`` replayed on a deal where ``sv.seat``
    holds its own cards and the cards it has not seen are dealt at random
    among the other seats (:data:`paiju.rules.ai.Determinize`), consistent
    with the record (cards each seat played and took back), the hand counts,
    the declarations and the roles shown. Tries :data:`ATTEMPTS` deals for
    one whose replay shows the seat's view; then returns the last one that
    replayed. Raises ``RuntimeError`` when none replays (a record this seat
    could not have seen)."""
    view = sv.view
    rec = read_record(sv.history, view["first"])
    fallback: Game | None = None
    for _ in range(ATTEMPTS):
        deal = sample_deal(view, rec, rng)
        if deal is None:
            continue
        game = Daa(sv.options, deal)
        try:
            for a in sv.history:
                game.apply(a)
        except RulesError:
            continue
        if game.finished:
            continue
        fallback = game
        shown = game.view(sv.seat)
        if all(shown.get(k) == view.get(k) for k in _PUBLIC):
            return game
    if fallback is None:
        raise RuntimeError("no deal replays this record")
    return fallback


def sample_deal(view: Mapping[str, Any], rec: Record, rng: random.Random
                ) -> dict[str, Any] | None:
    """One deal (``hands`` with each seat's held-back card last, ``first``; no
    ``order``) consistent with ``rec`` and the view, or None when the cards
    some seat must hold are not among the unseen."""
    seat, first = view["seat"], view["first"]
    big = big_card(view)
    counts = view["hand_counts"]
    pool = unseen(view, rec)
    dealt: list[Counter[Card]] = []
    for s in range(SEATS):
        base = rec.played[s].copy()
        base.subtract(rec.taken[s])
        base.update(view["hand"] if s == seat else rec.known[s])
        dealt.append(base)
        if s != seat:
            pool.subtract(rec.known[s])
    need = _needs(view, rec, big)
    free = [counts[s] - (0 if s == seat else sum(rec.known[s].values())) for s in range(SEATS)]
    for s, cards in need.items():
        if s == seat:
            continue
        short = cards - dealt[s]
        for c, n in short.items():
            if pool[c] < n or free[s] < n:
                return None
            pool[c] -= n
            free[s] -= n
            dealt[s][c] += n
    rest = list((+pool).elements())
    rng.shuffle(rest)
    at = 0
    for s in range(SEATS):
        if s == seat:
            continue
        dealt[s].update(rest[at:at + free[s]])
        at += free[s]
    hands = []
    for s in range(SEATS):
        hand = list((+dealt[s]).elements())
        held = next((x for x in hand if x[0] != "A"), hand[-1])
        hand.remove(held)
        hand.append(held)
        hands.append(hand)
    return {"hands": hands, "bottom": [], "first": first}


def _needs(view: Mapping[str, Any], rec: Record, big: Card) -> dict[int, Counter[Card]]:
    """Cards each seat must have been dealt: what it declared, and the big As
    the roles shown give it."""
    need: dict[int, Counter[Card]] = {}
    for a in rec.declares:
        if a.seat is not None:
            c = need.setdefault(a.seat, Counter())
            for card, n in Counter(a.cards).items():
                c[card] = max(c[card], n)
    if view.get("phase") != "declaring":
        for s, n in known_holders(view, rec, big).items():
            c = need.setdefault(s, Counter())
            c[big] = max(c[big], n)
    return need

