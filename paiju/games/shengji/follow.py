"""升级 (shengji) following: what a follower must play, listed and checked.

Source: shared/seeds/004_87bdd40096bb5c2e.txt section 跟牌 (follow the led
suit first; the shape fallbacks of a quad, triple and pair lead; larger groups
may be kept whole, 可以不拆) and rulings.md "shengji" ("Following as the seed,
in its order of fallbacks"); the greedy reading of the fallbacks is a paiju
ruling (docs/rules/shengji.md, "Following"). Pure functions over multisets of
cards; the tricks (:mod:`paiju.games.shengji.play`) pass a seat's cards.

A "suit" here is a card class (:func:`~paiju.games.shengji.cards.card_class`):
a side suit's letter or ``"T"`` for all trumps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from paiju.games.shengji.cards import partition
from paiju.rules.bounded import WORK, iter_multisets, lowest_multiset
from paiju.rules.cards import Card
from paiju.rules.errors import RulesError

#: A follower's ``(card, count)`` of one class, sorted.
Suit = Sequence[tuple[Card, int]]
#: A whole hand: card → count.
Hand = Mapping[Card, int]
#: Card → its class (a side suit's letter or ``"T"``).
Classes = Mapping[Card, str]
#: A card's order for "lowest first" (the trick's ranking).
CardKey = Callable[[Card], tuple[int, int]]


def required_pattern(group_sizes: Iterable[int], lead_size: int, need: int) -> tuple[int, ...]:
    """The shape a follower's ``need`` cards of the led suit must reach at least.

    ``group_sizes``: how many identical copies of each card of the led suit the
    follower holds. Seed 跟牌: a quad lead asks a quad, else a triple and a
    single, else two pairs, else singles; a triple lead a triple, else a pair
    and a single, else singles; a pair lead a pair, else singles. Groups larger
    than the lead (a quad on a triple or pair lead, a triple on a pair lead)
    may be kept whole (seed 可以不拆) and do not count here. The best shape is
    greedy: the largest group first, cut to what is still needed. A play
    satisfies it when its :func:`~paiju.games.shengji.cards.partition` is
    lexicographically >= it.
    """
    usable = sorted((g for g in group_sizes if g <= lead_size), reverse=True)
    out: list[int] = []
    left = need
    for g in usable:
        if left <= 0:
            break
        take = min(g, left)
        out.append(take)
        left -= take
    out.sort(reverse=True)
    return tuple(out)


def _available(items: Sequence[tuple[Card, int]]) -> list[int]:
    """``out[i]``: how many cards ``items[i:]`` hold (for pruning)."""
    out = [0] * (len(items) + 1)
    for i in range(len(items) - 1, -1, -1):
        out[i] = out[i + 1] + max(items[i][1], 0)
    return out


def _combinations_from(items: Sequence[tuple[Card, int]], avail: Sequence[int],
                       req: tuple[int, ...] | None, out: list[tuple[Card, ...]], i: int,
                       left: int, acc: tuple[Card, ...], parts: tuple[int, ...]) -> None:
    """The recursion of :func:`multiset_combinations` (``req`` None) and
    :func:`shaped_combinations` (``parts``, the group sizes taken so far,
    checked against ``req``): ``acc`` plus every choice of ``left`` (≥ 2)
    cards from item ``i`` on, lowest index first, appended to ``out``. A
    module function, not a closure: a nested function that calls itself is
    a cycle (its cell holds it) left to the garbage collector."""
    for j in range(i, len(items)):
        if avail[j] < left:
            return
        card, count = items[j]
        for take in range(min(count, left), 0, -1):
            rest = left - take
            t = acc + (card,) * take
            got = parts if req is None else (*parts, take)
            if rest == 0:
                if req is None or _reaches(got, req):
                    out.append(t)
            elif req is not None and not _reaches((*got, rest), req):
                continue
            elif rest == 1:
                out.extend([(*t, c) for c, k in items[j + 1 :] if k > 0])
            else:
                _combinations_from(items, avail, req, out, j + 1, rest, t, got)


def multiset_combinations(items: Sequence[tuple[Card, int]], r: int) -> list[tuple[Card, ...]]:
    """Every distinct sub-multiset of size ``r`` of ``items`` (card, count).

    Each result lists the cards in the order of ``items``; the results come
    in the order of taking as many of the first item as possible first (the
    lexicographic order of their item indexes). The number of results is at
    most C(len(items) + r - 1, r).
    """
    if r <= 1:
        return [()] if r == 0 else [] if r < 0 else [(c,) for c, k in items if k > 0]
    out: list[tuple[Card, ...]] = []
    avail = _available(items)
    _combinations_from(items, avail, None, out, 0, r, (), ())
    WORK.plays += len(out)
    return out


def _reaches(parts: tuple[int, ...], req: tuple[int, ...]) -> bool:
    return tuple(sorted(parts, reverse=True)) >= req


def shaped_combinations(
    items: Sequence[tuple[Card, int]], r: int, req: tuple[int, ...]
) -> list[tuple[Card, ...]]:
    """The :func:`multiset_combinations` of size ``r`` whose partition is
    lexicographically >= ``req`` (the follow-shape filter, computed during
    the enumeration: a branch stops when even its best completion, the cards
    still to choose as one group, falls short)."""
    if r <= 0:
        return [()] if r == 0 and req <= () else []
    out: list[tuple[Card, ...]] = []
    avail = _available(items)
    _combinations_from(items, avail, req, out, 0, r, (), ())
    WORK.plays += len(out)
    return out


def follows(suit: Suit, hand: Hand, cls: Classes, led: str, n: int) -> list[tuple[Card, ...]]:
    """Every distinct legal follow of ``n`` cards, each a sorted tuple.

    ``suit``: the follower's ``(card, count)`` of the led class ``led``,
    sorted; ``hand``: its whole hand (card → count); ``cls``: card → class.
    With at least ``n`` cards of the suit: the ``n`` of them whose partition
    reaches :func:`required_pattern`; else all of them plus every multiset of
    the rest (at most C(d + 3, 4) results for d distinct other cards).
    """
    m = sum(k for _, k in suit)
    if m >= n:
        if n == 1:
            return [(c,) for c, _ in suit]
        req = required_pattern((k for _, k in suit), n, n)
        if not req or req[0] == 1:  # no shape to keep: any n cards of the suit
            return multiset_combinations(suit, n)
        if req[0] == n:  # a group of the lead's size
            return [(c,) * n for c, k in suit if k >= n]
        return shaped_combinations(suit, n, req)
    base = tuple(c for c, k in suit for _ in range(k))
    rest = sorted((c, k) for c, k in hand.items() if cls[c] != led)
    if not base:
        return multiset_combinations(rest, n)
    return [tuple(sorted(base + t)) for t in multiset_combinations(rest, n - m)]


def iter_follows(suit: Suit, hand: Hand, cls: Classes, led: str, n: int,
                 key: CardKey) -> Iterator[tuple[Card, ...]]:
    """:func:`follows` lazily, the lowest cards (by ``key``) first, one
    follow per step (:func:`~paiju.rules.bounded.iter_multisets`) where the
    follows are any multisets (no shape to keep, or short of the suit); the
    shaped cases, a few hundred at most, are listed."""
    m = sum(k for _, k in suit)
    low = sorted(suit, key=lambda ck: key(ck[0]))
    if m >= n:
        req = required_pattern((k for _, k in suit), n, n) if n > 1 else ()
        if n > 1 and req and req[0] > 1:
            yield from follows(suit, hand, cls, led, n)
            return
        for t in iter_multisets(low, n):
            yield tuple(sorted(t))
        return
    base = tuple(c for c, k in suit for _ in range(k))
    rest = sorted(((c, k) for c, k in hand.items() if cls[c] != led), key=lambda ck: key(ck[0]))
    for t in iter_multisets(rest, n - m):
        yield tuple(sorted(base + t))


def check_follow(
    hand: Mapping[Card, int],
    suit: Mapping[Card, int] | None,
    cls: Mapping[Card, str],
    lead: Sequence[Card],
    cards: Sequence[Card],
) -> None:
    """Raise ``RulesError`` unless ``cards`` is a legal follow to ``lead``.

    ``hand``: the follower's hand; ``suit``: its cards of the led class (card
    → count, ``None`` or empty when void). Codes, in this order:
    ``wrong_count`` (not as many cards as the lead), ``cards_not_in_hand``,
    ``must_follow_suit`` (seed: 必须先出首家出的花色, as many as held up to the
    lead's size), ``must_follow_shape`` (the seed's fallbacks,
    :func:`required_pattern`).
    """
    n = len(lead)
    if len(cards) != n:
        raise RulesError("wrong_count", f"follow with {n} card(s)")
    led = cls[lead[0]]
    if n == 1:
        card = cards[0]
        if hand.get(card, 0) < 1:
            raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
        if cls[card] != led and suit:  # off the led class while holding some of it
            raise RulesError("must_follow_suit", "play as many cards of the led suit as you can")
        return
    for c in cards:  # holds(), for a few cards
        if hand.get(c, 0) < cards.count(c):
            raise RulesError("cards_not_in_hand", "the seat does not hold these cards")
    held = suit or {}
    m = sum(held.values())
    need = min(m, n)
    fs = [c for c in cards if cls[c] == led]
    if len(fs) != need:
        raise RulesError("must_follow_suit", "play as many cards of the led suit as you can")
    if need >= 2 and partition(fs) < required_pattern(held.values(), n, need):
        raise RulesError("must_follow_shape", "follow the lead's shape as the seed orders")


def lowest_follow(suit: Suit, hand: Hand, cls: Classes, led: str, n: int,
                  key: CardKey) -> tuple[Card, ...]:
    """The timeout's follow (rulings.md "Shared", "Settlement"): the legal
    follow whose highest card is lowest by ``key``, then the next, … . Short of
    the suit that is all of it plus the lowest other cards. A sorted tuple."""
    m = sum(k for _, k in suit)
    if m >= n:
        req = required_pattern((k for _, k in suit), n, n) if n > 1 else ()
        if not req or req[0] == 1:  # any n cards of the suit: its n lowest
            low = sorted(suit, key=lambda ck: key(ck[0]))
            return tuple(sorted(lowest_multiset(low, n)))
        options = follows(suit, hand, cls, led, n)
    else:
        rest = sorted((c for c, k in hand.items() if cls[c] != led for _ in range(k)), key=key)
        base = tuple(c for c, k in suit for _ in range(k))
        options = [tuple(sorted(base + tuple(rest[: n - m])))]

    def weight(t: tuple[Card, ...]) -> list[tuple[int, int]]:
        return sorted(map(key, t), reverse=True)

    return min(options, key=weight)
