"""混战 hunzhan: the point rules (出牌限制, seed 000; rulings.md "Point rules").

For followers only: (1) a play that does not beat the trick may hold a point
card (5, 10, K, joker) only where no other card would do in its place, read
card by card, a point card that beats being such another card (a follower of
a 9H lead holding 5H and KH in hearts plays KH); (2) where the trick holds
points, a follower who can beat it must. The functions here list the follows
these rules allow (all, lazily, or the timeout's lowest) and name the rule a
refused follow breaks, reading the trick through :class:`PointsState`; they
build on :mod:`paiju.games.hunzhan.follow` and change nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from paiju.games.hunzhan.cards import POINTS
from paiju.games.hunzhan.follow import (
    TrickState,
    beating_follows,
    beats,
    follow_candidates,
    point_cards,
    suited,
)
from paiju.rules.bounded import iter_multisets, lowest_multiset
from paiju.rules.cards import Card
from paiju.rules.errors import RulesError


class PointsState(TrickState, Protocol):
    """What the point rules read of a game in play: the trick as following
    reads it, and the points played in it so far."""

    trick_points: int


def fewest_point_cards(t: PointsState, seat: int) -> int:
    """The fewest point cards a follow (suit and shape) of ``seat`` can hold.

    Led-suit cards forced by follow-suit count as they are; the cards a
    void follower adds freely hold a point card only where too few other
    cards are left to add (rulings.md "Point rules", read card by card).
    With pairs to follow, plain pairs are taken first: a point pair in
    place of a plain one never saves a point card."""
    in_suit, n_suited = suited(t, seat)
    m = t.led_len
    if n_suited >= m:
        plain_total = sum(k for c, k in in_suit.items() if not POINTS[c])
        if m == 1:
            return 0 if plain_total else 1
        need = min(m // 2, sum(1 for k in in_suit.values() if k >= 2))
        plain_pairs = sum(1 for c, k in in_suit.items() if k >= 2 and not POINTS[c])
        use = min(need, plain_pairs)
        return 2 * (need - use) + max(0, m - 2 * need - (plain_total - 2 * use))
    forced = sum(k for c, k in in_suit.items() if POINTS[c])
    plain_rest = sum(k for c, k in t.hands[seat].items()
                     if c not in in_suit and not POINTS[c])
    return forced + max(0, m - n_suited - plain_rest)


def legal_follows(t: PointsState, seat: int) -> list[tuple[Card, ...]]:
    """Follows that also obey the point rules (出牌限制, rulings.md):
    (2) points in the trick → a beating play if there is one; (1) a play
    that does not beat holds no more point cards than the fewest a follow
    must hold (card by card: a point card only where no other card would do
    in its place), and none where a beating play exists."""
    beating = beating_follows(t, seat)
    fewest = fewest_point_cards(t, seat)
    if beating and (t.trick_points or fewest):
        # rule (2); or rule (1) where every follow that does not beat holds
        # a point card: a beating one is a play "without such a card"
        return beating
    # rule (1): the follows with the fewest point cards, and the beating
    # ones with more
    plays = follow_candidates(t, seat, fewest)
    return plays + [p for p in beating if point_cards(p) > fewest]


def void_parts(t: PointsState, seat: int, fewest: int) -> tuple[
        list[Card], int, list[tuple[Card, int]], list[tuple[Card, int]]] | None:
    """For a seat short of the led suit on a multi-card lead (its led-suit
    cards forced, the rest added freely): ``(forced cards, free point
    cards, plain others lowest first, point others lowest first)``; None
    in every other case."""
    in_suit, n_suited = suited(t, seat)
    m = t.led_len
    if not (n_suited < m and m > 1):
        return None
    o = t.ord
    low = o.low_key.__getitem__
    group = o.group
    g = t.led_group
    base = sorted((c for c, k in in_suit.items() for _ in range(k)), key=low)
    rest = sorted(((c, k) for c, k in t.hands[seat].items() if group[c] != g),
                  key=lambda ck: low(ck[0]))
    free_points = fewest - sum(k for c, k in in_suit.items() if POINTS[c])
    return (base, free_points, [(c, k) for c, k in rest if not POINTS[c]],
            [(c, k) for c, k in rest if POINTS[c]])


def iter_legal_follows(t: PointsState, seat: int) -> Iterator[tuple[Card, ...]]:
    """:func:`legal_follows` lazily: a void follower's free cards come from
    :func:`~paiju.rules.bounded.iter_multisets` (lowest first), one play per
    step; the other cases are short lists."""
    beating = beating_follows(t, seat)
    fewest = fewest_point_cards(t, seat)
    if beating and (t.trick_points or fewest):
        yield from beating
        return
    parts = void_parts(t, seat, fewest)
    if parts is None:
        yield from follow_candidates(t, seat, fewest)
    else:
        base, free_points, plain_rest, point_rest = parts
        free = t.led_len - len(base)
        key = t.ord.sort_key.__getitem__
        for a in iter_multisets(plain_rest, free - free_points):
            for b in iter_multisets(point_rest, free_points):
                yield tuple(sorted((*base, *a, *b), key=key))
    for p in beating:
        if point_cards(p) > fewest:
            yield p


def lowest_follow(t: PointsState, seat: int) -> tuple[Card, ...]:
    """The timeout's follow (rulings.md "Shared"): the legal follow whose
    highest card is lowest, then the next highest, … ; computed directly
    for a void follower (its forced cards, the lowest plain cards and the
    fewest, lowest point cards it must add), so never by listing."""
    low = t.ord.low_key

    def weight(p: tuple[Card, ...]) -> list[int]:
        return sorted((low[c] for c in p), reverse=True)

    beating = beating_follows(t, seat)
    fewest = fewest_point_cards(t, seat)
    if beating and (t.trick_points or fewest):
        return min(beating, key=weight)
    parts = void_parts(t, seat, fewest)
    if parts is None:
        cands = follow_candidates(t, seat, fewest)
    else:
        base, free_points, plain_rest, point_rest = parts
        free = t.led_len - len(base)
        key = t.ord.sort_key.__getitem__
        cands = [tuple(sorted((*base, *lowest_multiset(plain_rest, free - free_points),
                               *lowest_multiset(point_rest, free_points)), key=key))]
    cands += [p for p in beating if point_cards(p) > fewest]
    return min(cands, key=weight)


def check_follow(t: PointsState, seat: int, play: tuple[Card, ...]) -> None:
    """Raise the first rule a held follow ``play`` breaks (none: return).

    Order: count (``must_follow_shape``), led suit (``must_follow_suit``),
    pairs (``must_follow_shape``), point rule 2 (``must_beat_points``),
    point rule 1 (``cannot_dump_points``). Source: rulings.md "Following",
    "Point rules"."""
    m = t.led_len
    if len(play) != m:
        raise RulesError("must_follow_shape", f"follow with {m} card(s)")
    group = t.ord.group
    g = t.led_group
    in_suit_held, n_suited = suited(t, seat)
    in_suit = [c for c in play if group[c] == g]
    if len(in_suit) != min(m, n_suited):
        raise RulesError("must_follow_suit", "follow the led suit while you can")
    if m > 1:
        have_pairs = sum(1 for k in in_suit_held.values() if k >= 2)
        played_pairs = sum(1 for c in set(in_suit) if in_suit.count(c) >= 2)
        if played_pairs < min(m // 2, have_pairs):
            raise RulesError("must_follow_shape", "follow pairs with pairs of the led suit")
    if beats(t, play):
        return
    if t.trick_points and beating_follows(t, seat):
        raise RulesError("must_beat_points", "points are in the trick: beat them")
    held = point_cards(play)
    if held and (held > fewest_point_cards(t, seat) or beating_follows(t, seat)):
        raise RulesError("cannot_dump_points", "a point card that does not beat the trick "
                         "where another card would do in its place")
