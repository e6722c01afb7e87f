"""混战 hunzhan: following suit and shape, and what beats the trick (rulings.md
"hunzhan", "Following"; seed 000 出牌).

Functions of the trick being followed, read through :class:`TrickState` (the
trump order, the hands, the led suit and length, the current winner); none
changes it. A play is a tuple of cards in hand order; a seat is 0..3. The
point rules built on these are in :mod:`paiju.games.hunzhan.points`.
"""

from __future__ import annotations

from itertools import combinations
from typing import Protocol

from paiju.games.hunzhan.cards import POINTS, TRUMP, TrumpOrder, classify, lead_options, multisets
from paiju.rules.cards import Card


class TrickState(Protocol):
    """What following reads of a game in play (the engine has these fields)."""

    #: the order under the game's trump
    ord: TrumpOrder
    #: per seat, card → count
    hands: list[dict[Card, int]]
    #: the lead's number of cards and group (a suit, or ``"T"`` for trumps)
    led_len: int
    led_group: str
    #: the play winning the trick so far: its group and level
    win_group: str
    win_level: int


def point_cards(cards: tuple[Card, ...] | list[Card]) -> int:
    """How many point cards (5, 10, K, joker) ``cards`` holds."""
    return sum(1 for c in cards if POINTS[c])


def beats(t: TrickState, cards: tuple[Card, ...] | list[Card]) -> bool:
    """True where ``cards`` (a follower's play) would win over every play so
    far in the trick (rulings.md: an equal card does not beat)."""
    m = t.led_len
    o = t.ord
    if m == 1:
        c = cards[0]
        g, lv = o.group[c], o.level[c]
    elif m == 2:
        if cards[0] != cards[1]:
            return False
        g, lv = o.group[cards[0]], o.level[cards[0]]
    else:
        cl = classify(cards, o)
        if cl is None:
            return False
        _, g, lv = cl
    if g == t.win_group:
        return lv > t.win_level
    return g == TRUMP


def follow_candidates(t: TrickState, seat: int, fewest: int | None = None
                      ) -> list[tuple[Card, ...]]:
    """Plays of ``seat`` that follow suit and shape (before the point rules);
    with ``fewest`` (from :func:`~paiju.games.hunzhan.points.fewest_point_cards`)
    only those holding exactly that many point cards."""
    o = t.ord
    key = o.sort_key
    group = o.group
    hand = t.hands[seat]
    m = t.led_len
    g = t.led_group
    distinct = sorted(hand, key=key.__getitem__)
    suited = [(c, hand[c]) for c in distinct if group[c] == g]
    n_suited = sum(k for _, k in suited)
    if n_suited < m and m > 1:
        # every led-suit card is forced; the rest is added freely
        base = [c for c, k in suited for _ in range(k)]
        rest = [(c, hand[c]) for c in distinct if group[c] != g]
        free = m - n_suited
        if fewest is None:
            return [tuple(sorted(base + ms, key=key.__getitem__))
                    for ms in multisets(rest, free)]
        # the free cards hold no more point cards than they must (rulings.md
        # "Point rules", read card by card)
        free_points = fewest - sum(k for c, k in suited if POINTS[c])
        plain_rest = [(c, k) for c, k in rest if not POINTS[c]]
        point_rest = [(c, k) for c, k in rest if POINTS[c]]
        return [tuple(sorted(base + a + b, key=key.__getitem__))
                for a in multisets(plain_rest, free - free_points)
                for b in multisets(point_rest, free_points)]
    if m == 1:
        singles: list[tuple[Card, ...]] = (
            [(c,) for c, _ in suited] if n_suited else [(c,) for c in distinct])
        if fewest is None:
            return singles
        return [p for p in singles if (1 if POINTS[p[0]] else 0) == fewest]
    need = min(m // 2, sum(1 for _, k in suited if k >= 2))
    if fewest == 0:
        suited = [(c, k) for c, k in suited if not POINTS[c]]
    pair_cards = [c for c, k in suited if k >= 2]
    if 2 * need == m:
        out = [tuple(c for c in combo for _ in (0, 1))
               for combo in combinations(pair_cards, need)]
    else:
        out = []
        for ms in multisets(suited, m):
            pairs = sum(1 for i in range(len(ms) - 1) if ms[i] == ms[i + 1])
            if pairs >= need:
                out.append(tuple(ms))
    if fewest:
        out = [p for p in out if point_cards(p) == fewest]
    return out


def suited(t: TrickState, seat: int) -> tuple[dict[Card, int], int]:
    """The seat's cards of the led suit (card → count) and their number."""
    group = t.ord.group
    g = t.led_group
    cards = {c: k for c, k in t.hands[seat].items() if group[c] == g}
    return cards, sum(cards.values())


def beating_pool(t: TrickState, seat: int) -> dict[Card, int] | None:
    """The cards a beating follow must come from (the led suit when the seat
    must play only led-suit cards, else its trumps), or None where no
    follow can be the led shape (part led suit, part other cards)."""
    in_suit, n_suited = suited(t, seat)
    m = t.led_len
    if n_suited >= m:
        return in_suit
    if n_suited and m > 1:
        return None
    group = t.ord.group
    return {c: k for c, k in t.hands[seat].items() if group[c] == TRUMP}


def beating_follows(t: TrickState, seat: int) -> list[tuple[Card, ...]]:
    """Every follow of ``seat`` that follows suit and beats the trick."""
    pool = beating_pool(t, seat)
    if not pool:
        return []
    m = t.led_len
    return [p for p in lead_options(pool, t.ord) if len(p) == m and beats(t, p)]
