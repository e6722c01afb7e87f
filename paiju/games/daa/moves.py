"""大A (daa): what a hand can play (seed 003 牌套, 取回; rulings.md "daa").

:class:`HandInfo` analyses a hand by rank once per change of it;
:func:`generate` lists every distinct card multiset it may play on a standing
combination (or lead), :func:`generate_split` the same with the singles and
one-rank pairs first; :func:`check_play` checks one play; :func:`lowest_single`
is the lead a timeout plays. The combinations themselves (order, kinds, what
beats what) are :mod:`paiju.games.daa.combos`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import chain, combinations, groupby, islice, product
from typing import Any

from paiju.games.daa.combos import (
    CARD_ORDER,
    CARD_POWER,
    CHAIN_KIND,
    FAKE_KIND,
    JOKER_KIND,
    KEY_BIG_A,
    KIND_BIG_A_PAIR,
    KIND_PAIR,
    KIND_PAIR_RUN,
    KIND_RUN,
    KIND_SINGLE,
    KIND_TAKE_BACK,
    POS_OF_POWER,
    POWER,
    POWER_BJ,
    POWER_OF_POS,
    POWER_SJ,
    SAME_KIND,
    TAKEABLE,
    Combo,
    beats,
    classify,
    power_class,
)
from paiju.rules.cards import BIG_JOKER, SMALL_JOKER, Card
from paiju.rules.errors import RulesError


@lru_cache(maxsize=65536)
def sub_multisets(cards: tuple[Card, ...], k: int) -> tuple[tuple[Card, ...], ...]:
    """Every distinct ``k``-card sub-multiset of ``cards`` (sorted in the game's
    order), each sorted the same way."""
    return tuple(sorted(set(combinations(cards, k))))


#: (lowest, highest) natural positions → their power indices, ascending.
_SPAN_POWERS: dict[tuple[int, int], tuple[int, ...]] = {
    (lo, hi): tuple(sorted(POWER_OF_POS[x] for x in range(lo, hi + 1)))
    for lo in range(1, 15) for hi in range(lo, 15)
}


#: ``_SPANS[hi][length]``: ``_SPAN_POWERS[hi - length + 1, hi]`` (``length`` ≤ ``hi``).
_SPANS: list[list[tuple[int, ...]]] = [
    [()] + [_SPAN_POWERS[hi - m + 1, hi] for m in range(1, hi + 1)] if hi else [()]
    for hi in range(15)
]


#: ``bytes(counts).translate(_AT_LEAST[need])``: 1 where a count is ≥ ``need``, else 0.
_AT_LEAST: list[bytes] = [bytes(int(c >= need) for c in range(256)) for need in range(9)]
#: ``_SEGMENTS[k]`` finds the maximal runs of at least ``k`` ones in such bytes.
_SEGMENTS: list[re.Pattern[bytes]] = [re.compile(b"\x01{%d,}" % k) for k in range(15)]
#: ``_ONES[k]``: k ones (a segment of k or more is there when they are).
_ONES: list[bytes] = [b"\x01" * k for k in range(15)]


def _product(parts: list[tuple[tuple[Card, ...], ...]]) -> list[tuple[Card, ...]]:
    res: list[tuple[Card, ...]] = [()]
    for opts in parts:
        res = [r + o for r in res for o in opts]
    return res


class HandInfo:
    """A hand analysed by rank counts, for :func:`generate` (build it once per
    change of the hand and reuse it).

    ``by_rank[p]``: the cards of power index ``p`` (0–12), sorted in the game's
    order; ``jokers``: the jokers, sorted; ``counts[x]``: cards at natural
    position ``x`` (1–14; A is both 1 and 14); ``high``: every combination of
    power class ≥ 2 the hand can make, as ``(combo, need, powers)`` (its cards
    are the product of ``need``-card sub-multisets of those ranks; ``need`` 0
    for joker sets and the big-A pair, whose cards are ``powers`` read as a
    card list).
    """

    __slots__ = ("_singles", "_streaks", "big_a", "by_rank", "counts", "high", "jokers")

    def __init__(self, hand: Iterable[Card], big_a: Card) -> None:
        by_rank: list[tuple[Card, ...]] = [()] * 13
        jokers: tuple[Card, ...] = ()
        for p, group in groupby(sorted(hand, key=CARD_ORDER.__getitem__),
                                CARD_POWER.__getitem__):
            if p < 13:
                by_rank[p] = tuple(group)
            else:
                jokers += tuple(group)
        self._setup(by_rank, jokers, big_a)

    def without(self, cards: Sequence[Card]) -> HandInfo:
        """The analysis of this hand less ``cards`` (which it holds)."""
        by_rank = list(self.by_rank)
        jokers = self.jokers
        keep_high = True  # no rank that makes a class ≥ 2 combination is touched
        for c in cards:
            if c[1] == "J":
                js = list(jokers)
                js.remove(c)
                jokers = tuple(js)
                keep_high = False
            else:
                p = POWER[c[0]]
                old = by_rank[p]
                if len(old) == 1:
                    by_rank[p] = ()
                    continue
                if len(old) >= 3 or p == 10:
                    keep_high = False
                r = list(old)
                r.remove(c)
                by_rank[p] = tuple(r)
        new = HandInfo.__new__(HandInfo)
        if not keep_high:
            new._setup(by_rank, jokers, self.big_a)
            return new
        # only ranks of one or two cards lost cards (never the As): the class ≥ 2
        # combinations are the same; the counts change where the cards went
        new.big_a = self.big_a
        new.by_rank = by_rank
        new.jokers = jokers
        new.counts = counts = self.counts[:]
        for c in cards:
            x = POS_OF_POWER[POWER[c[0]]]
            counts[x] -= 1
            if x == 14:  # an A also stands at 1
                counts[1] -= 1
        new._streaks = {}
        new._singles = None
        new.high = self.high
        return new

    def sorted_cards(self) -> list[Card]:
        """The hand in the game's order."""
        out = [c for r in self.by_rank for c in r]
        out.extend(self.jokers)
        return out

    def _setup(self, by_rank: list[tuple[Card, ...]], jokers: tuple[Card, ...], big_a: Card
               ) -> None:
        self.big_a = big_a
        self.by_rank = by_rank
        self.jokers = jokers
        sizes = list(map(len, by_rank))
        self.counts = counts = [0, sizes[10], sizes[11], sizes[12], *sizes[:11]]
        self._streaks: dict[int, list[int]] = {}
        self._singles: list[tuple[int, tuple[Card]]] | None = None
        most = max(sizes)  # (most hands hold no three of a rank: no more to look for)
        high = _same_rank_plays(sizes) if most >= 3 else []
        if sizes[10] >= 2 and by_rank[10].count(big_a) == 2:
            high.append(((KIND_BIG_A_PAIR, 2, 0), 0, (big_a, big_a)))
        if len(jokers) >= 2:
            high += _joker_plays(jokers)
        if most >= 3 and sum(n >= 3 for n in sizes) >= 3:
            high += _trio_chains(counts)
        if most >= 4 and sum(n >= 4 for n in sizes) >= 2:
            high += _fake_eights(counts)
        self.high = high

    def singles(self) -> list[tuple[int, tuple[Card]]]:
        """Every distinct single play as ``(key, (card,))``, ascending by key
        (ordinary ranks 0–12, SJ 13, BJ 14, the big A 15)."""
        out = self._singles
        if out is None:
            out = []
            big_a = self.big_a
            last = ""
            for p, cards in enumerate(self.by_rank):
                for c in cards:
                    if c != last and c != big_a:
                        out.append((p, (c,)))
                    last = c
            last = ""
            for c in self.jokers:
                if c != last:
                    out.append((POWER_BJ if c == BIG_JOKER else POWER_SJ, (c,)))
                last = c
            if big_a in self.by_rank[10]:
                out.append((KEY_BIG_A, (big_a,)))
            self._singles = out
        return out

    def streak(self, need: int) -> list[int]:
        """``streak(need)[x]``: how many consecutive natural positions up to
        ``x`` hold at least ``need`` cards each."""
        row = self._streaks.get(need)
        if row is None:
            row = [0] * 15
            run = 0
            for x, n in enumerate(self.counts):
                run = run + 1 if n >= need else 0
                row[x] = run
            self._streaks[need] = row
        return row

    def cards_of(self, need: int, powers: tuple[Any, ...],
                 limit: int | None = None) -> list[tuple[Card, ...]]:
        """The card multisets of one entry of :attr:`high` (the first ``limit``
        of them, built lazily, where given)."""
        if need == 0:
            return [powers]
        parts = [sub_multisets(self.by_rank[p], need) for p in powers]
        if limit is None:
            return _product(parts)
        return list(islice(map(tuple, map(chain.from_iterable, product(*parts))), limit))

    def runs(self, need: int, lengths: range, min_high: int,
             limit: int | None = None) -> list[tuple[Card, ...]]:
        """Every 龙 (``need`` 1) or 双龙 (``need`` 2) whose length is in
        ``lengths`` (a step-1 range) with highest natural position ≥ ``min_high``
        (the first ``limit`` of them, built lazily, where given)."""
        out: list[tuple[Card, ...]] = []
        lo_len, hi_len = lengths.start, lengths.stop - 1
        by_rank = self.by_rank
        flags = bytes(self.counts).translate(_AT_LEAST[need])
        if _ONES[lo_len] not in flags:
            return out
        # the maximal segments s .. e - 1 of natural positions holding ``need`` cards each
        for m in _SEGMENTS[lo_len].finditer(flags):
            s, e = m.span()
            # per position of the segment: its distinct cards (need 1) or pairs (need 2)
            if need == 1:
                seg: list[tuple[Any, ...]] = [
                    t if len(t) < 2 else _distinct(t)
                    for t in map(by_rank.__getitem__, POWER_OF_POS[s:e])]
            else:
                seg = [sub_multisets(by_rank[p], 2) for p in POWER_OF_POS[s:e]]
            for hi in range(max(s + lo_len - 1, min_high), e):
                stop = hi - s + 1
                for length in range(lo_len, min(stop, hi_len) + 1):
                    lo = hi - length + 1
                    if lo >= 4 or hi < 4:  # the span's ranks in the game's order
                        args = seg[lo - s:stop]
                    elif length == 13 and hi == 13:
                        continue  # A..K is the same cards as 2..A (A high)
                    else:  # A (low), 2, 3 rank above 4 .. hi
                        args = seg[4 - s:stop] + seg[lo - s:4 - s]
                    if need == 1:
                        runs: Iterable[tuple[Card, ...]] = product(*args)
                    else:
                        runs = map(tuple, map(chain.from_iterable, product(*args)))
                    if limit is None:
                        out.extend(runs)
                        continue
                    out.extend(islice(runs, limit - len(out)))
                    if len(out) >= limit:
                        return out
        return out


@lru_cache(maxsize=8192)
def _pairs(cards: tuple[Card, ...], big_a: Card) -> tuple[tuple[Card, ...], ...]:
    """The distinct pairs of one rank's cards, the pair of big As left out."""
    return tuple(t for t in sub_multisets(cards, 2) if t != (big_a, big_a))


@lru_cache(maxsize=4096)
def _distinct(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """The distinct cards of a sorted tuple, in order."""
    return tuple(dict.fromkeys(cards))


@lru_cache(maxsize=4096)
def _one_each(cards: tuple[Card, ...], but: Card) -> tuple[tuple[Card], ...]:
    """``(c,)`` for each distinct card ``c`` of a sorted tuple but ``but``, in order."""
    return tuple((c,) for c in dict.fromkeys(cards) if c != but)


def _singles_above(out: list[tuple[Card, ...]], info: HandInfo, skey: int) -> None:
    """Append to ``out`` the single plays of :meth:`HandInfo.singles` whose key is
    above ``skey``, in the same order."""
    by_rank = info.by_rank
    big_a = info.big_a
    for p in range(skey + 1, 13):
        t = by_rank[p]
        if t:
            if len(t) == 1 and p != 10:
                out.append(t)  # the one card of the rank: its own single play
            else:
                out.extend(_one_each(t, big_a))
    jokers = info.jokers
    if jokers and skey < POWER_BJ:
        if jokers[0] == SMALL_JOKER and skey < POWER_SJ:
            out.append((SMALL_JOKER,))
        if jokers[-1] == BIG_JOKER:
            out.append((BIG_JOKER,))
    if skey < KEY_BIG_A and big_a in by_rank[10]:
        out.append((big_a,))


def generate(info: HandInfo, standing: Combo | None) -> list[tuple[Card, ...]]:
    """Every distinct card multiset (a sorted tuple) that may be played now.

    ``info``: the hand (see :class:`HandInfo`); ``standing``: the combination
    to beat, ``None`` when leading. Includes the 4s that take back a standing
    n-of-a-kind (取回). Rank-count based: kinds that cannot beat ``standing``
    are not enumerated at all.
    """
    return generate_split(info, standing)[0]


def generate_split(info: HandInfo, standing: Combo | None,
                   limit: int | None = None) -> tuple[list[tuple[Card, ...]], int]:
    """:func:`generate` and how many of its first plays are singles and pairs
    (which come first in its order). With ``limit``: only the first ``limit``
    plays of that order, the runs and sets built lazily up to it (the bounded
    hints)."""
    if standing is None:
        return _leads(info, limit)
    sk, ssize, skey = standing
    out: list[tuple[Card, ...]] = []
    if sk == KIND_SINGLE:
        _singles_above(out, info, skey)
    elif sk == KIND_PAIR:
        _pairs_from(out, info, skey + 1)
    elif sk in (KIND_RUN, KIND_PAIR_RUN):
        out.extend(info.runs(1 if sk == KIND_RUN else 2, range(ssize, ssize + 1), skey + 1,
                             limit))
    k = len(out) if sk <= KIND_PAIR else 0
    for combo, need, powers in info.high:
        if beats(combo, standing):
            out.extend(info.cards_of(need, powers, None if limit is None
                                     else max(limit - len(out), 0)))
    # 取回: n-1 fours answer a standing n-of-a-kind
    if sk in TAKEABLE and len(info.by_rank[0]) >= ssize - 1:
        out.extend(sub_multisets(info.by_rank[0], ssize - 1))
    if limit is not None:
        return out[:limit], min(k, limit)
    return out, k


def _leads(info: HandInfo, limit: int | None) -> tuple[list[tuple[Card, ...]], int]:
    """:func:`generate_split` of a lead: singles, pairs, runs, pair runs, then
    the high plays."""
    out: list[tuple[Card, ...]] = []
    _singles_above(out, info, -1)
    _pairs_from(out, info, 0)
    k = len(out)
    if limit is not None:
        return _bounded_rest(out, info, limit), min(k, limit)
    out.extend(info.runs(1, range(3, 14), 0))
    out.extend(info.runs(2, range(3, 12), 0))
    for _, need, powers in info.high:
        out.extend(info.cards_of(need, powers))
    return out, k


def _pairs_from(out: list[tuple[Card, ...]], info: HandInfo, low: int) -> None:
    """Append every pair of rank position ``low`` or above to ``out``."""
    by_rank = info.by_rank
    for p in range(low, 13):
        if len(by_rank[p]) >= 2:
            out.extend(_pairs(by_rank[p], info.big_a))


def _bounded_rest(out: list[tuple[Card, ...]], info: HandInfo,
                  limit: int) -> list[tuple[Card, ...]]:
    """A leader's plays after its singles and pairs ``out``, in
    :func:`generate_split`'s order, up to ``limit`` in all."""
    out = out[:limit]
    for need, lengths in ((1, range(3, 14)), (2, range(3, 12))):
        out.extend(info.runs(need, lengths, 0, limit - len(out)) if len(out) < limit else ())
    for _, need, powers in info.high:
        if len(out) >= limit:
            break
        out.extend(info.cards_of(need, powers, limit - len(out)))
    return out


#: A high play as :attr:`high` lists it: its combination, how many cards of
#: each position it takes, and its cards or positions.
HighPlay = tuple[Combo, int, tuple[Any, ...]]


def _same_rank_plays(sizes: list[int]) -> list[HighPlay]:
    """Every n-of-a-kind (n ≥ 3) of each rank position holding n or more."""
    return [((SAME_KIND[n], n, p), n, (p,))
            for p, n_p in enumerate(sizes) if n_p >= 3 for n in range(3, n_p + 1)]


def _joker_plays(jokers: tuple[Card, ...]) -> list[HighPlay]:
    """Every set of two or more jokers (双王, 三条王, 四条王)."""
    return [((JOKER_KIND[n], n, 0), 0, t)
            for n in range(2, len(jokers) + 1) for t in sub_multisets(jokers, n)]


def _trio_chains(counts: list[int]) -> list[HighPlay]:
    """连珠蛋: the runs of 3 to 7 positions holding 3 cards each."""
    out: list[HighPlay] = []
    for m in _SEGMENTS[3].finditer(bytes(counts).translate(_AT_LEAST[3])):
        s, e = m.span()
        for hi in range(s + 2, e):
            for k in range(3, min(hi - s + 1, 7) + 1):
                out.append(((CHAIN_KIND[k], k, hi), 3, _SPANS[hi][k]))
    return out


def _fake_eights(counts: list[int]) -> list[HighPlay]:
    """The 假八 family: two consecutive positions holding ``each`` (4 to 7) cards."""
    out: list[HighPlay] = []
    for each, kind in FAKE_KIND.items():
        for m in _SEGMENTS[2].finditer(bytes(counts).translate(_AT_LEAST[each])):
            s, e = m.span()
            for hi in range(s + 1, e):
                out.append(((kind, 2, hi), each, _SPANS[hi][2]))
    return out


def check_play(seat: int, hand: Mapping[Card, int], cards: tuple[Card, ...],
               standing: Combo | None, big_a: Card) -> tuple[Combo, bool]:
    """The combination of ``seat``'s play of ``cards`` from ``hand`` on
    ``standing`` (``None``: a lead) with big A ``big_a``, and whether it is a
    take-back (取回: n-1 fours on a standing n-of-a-kind). Raises
    ``invalid_combination``, ``cards_not_in_hand`` or ``does_not_beat``."""
    n = len(cards)
    if not n:
        raise RulesError("invalid_combination", "play at least one card")
    if n == 1:
        c = cards[0]
        if not hand.get(c, 0) > 0:
            raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
        if c[1] == "J":
            single: Combo = (KIND_SINGLE, 1, POWER_BJ if c == BIG_JOKER else POWER_SJ)
        else:
            single = (KIND_SINGLE, 1, KEY_BIG_A if c == big_a else POWER[c[0]])
        if standing is not None and not beats(single, standing):
            # (one 4 never takes back: a take-back answers 3 or more of a kind)
            raise RulesError("does_not_beat", f"{list(cards)} does not beat the standing play")
        return single, False
    count = cards.count
    if not all(hand.get(c, 0) >= count(c) for c in set(cards)):
        raise RulesError("cards_not_in_hand", f"seat {seat} does not hold {list(cards)}")
    if standing is not None and standing[0] in TAKEABLE and n == standing[1] - 1 and all(
        c[0] == "4" for c in cards
    ):
        return (KIND_TAKE_BACK, n, power_class(standing)), True
    combo = classify(cards, big_a)
    if combo is None:
        raise RulesError("invalid_combination", f"{list(cards)} is no combination")
    if standing is not None and not beats(combo, standing):
        raise RulesError("does_not_beat", f"{list(cards)} does not beat the standing play")
    return combo, False


def lowest_single(hand: Iterable[Card], big_a: Card) -> Card:
    """The lowest card of ``hand`` as a single: by its single's key (the big A
    highest, above the jokers), then in the game's order."""

    def low(card: Card) -> tuple[int, int]:
        combo = classify((card,), big_a)
        assert combo is not None and combo[0] == KIND_SINGLE
        return combo[2], CARD_ORDER[card]

    return min(hand, key=low)
