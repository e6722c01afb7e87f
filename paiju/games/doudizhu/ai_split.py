"""斗地主 AI: the minimum-hands split (拆牌) of a hand, on rank counts.

A hand is its rank counts (15 ints, :mod:`paiju.games.doudizhu.combos`'s rank
indices: 0-12 = 3..2, 13 = SJ, 14 = BJ). :func:`split` finds the grouping of
the hand into plays (手数) that costs least: the rocket and every bomb kept
whole, then every choice of chains (单顺 ≥ 5, 双顺 ≥ 3 pairs, 飞机 ≥ 2 trios,
never through 2 or the jokers) by an exhaustive search from the lowest rank,
the rest as trios, pairs and singles; each trio carries a single or a pair
and each airplane as many (三带一, 飞机带翅膀), so those kickers cost no play.

Cost (lower is better): ``HAND_COST`` per play less the groups' values (a
group's value rises with its main rank: a low single is a liability, a 2 or a
joker takes a trick back). Pure, memoised by rank counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from paiju.games.doudizhu import combos as dc

#: What one more play (手数) costs against the groups' values.
HAND_COST = 7.0
#: The value of a bomb and of the rocket (control of a trick at any time).
BOMB_VALUE = 8.0
ROCKET_VALUE = 10.0
_MIN_CHAIN = {1: 5, 2: 3, 3: 2}
_MEMO: dict[tuple[int, ...], Split] = {}
_MEMO_MAX = 100_000

Counts = tuple[int, ...]
#: A group of a split: (kind, main rank, rank counts of its cards).
Group = tuple[str, int, Counts]


@dataclass(frozen=True, slots=True)
class Split:
    """The best split of a hand: ``groups`` (kickers not attached), its
    number of plays ``plays`` (kickers absorbed by trios and airplanes) and
    ``cost`` (lower is better)."""

    groups: tuple[Group, ...]
    plays: int
    cost: float


def rank_value(rank: int) -> float:
    """A single's worth by rank: 3 → -10 … A → 1, 2 → 2, SJ → 3, BJ → 4."""
    return float(rank - 10)


def group_value(kind: str, main: int, n: int) -> float:
    """A group's worth (see :func:`rank_value`); chains are worth more the
    higher they end and the longer they are."""
    if kind == dc.ROCKET:
        return ROCKET_VALUE
    if kind == dc.BOMB:
        return BOMB_VALUE + main / 4
    if kind in (dc.CHAIN, dc.PAIR_CHAIN, dc.AIRPLANE):
        return rank_value(main) / 2 + n / 4
    return rank_value(main)


def counts_of(ranks: dict[int, int]) -> Counts:
    """Rank counts from ``{rank: count}``."""
    c = [0] * dc.NRANKS
    for r, k in ranks.items():
        c[r] = k
    return tuple(c)


def _one(kind: str, r: int, k: int) -> Group:
    return (kind, r, counts_of({r: k}))


def split(counts: Counts) -> Split:
    """The least costly split of the hand ``counts`` (15 rank counts)."""
    got = _MEMO.get(counts)
    if got is not None:
        return got
    c = list(counts)
    fixed: list[Group] = []
    if c[dc.SJ_RANK] and c[dc.BJ_RANK]:
        fixed.append((dc.ROCKET, dc.BJ_RANK, counts_of({dc.SJ_RANK: 1, dc.BJ_RANK: 1})))
        c[dc.SJ_RANK] = c[dc.BJ_RANK] = 0
    for r in range(dc.TWO_RANK + 1):
        if c[r] == 4:
            fixed.append(_one(dc.BOMB, r, 4))
            c[r] = 0
    best: list[Split] = []
    _search(c, 0, [], fixed, best)
    out = best[0]
    if len(_MEMO) > _MEMO_MAX:
        _MEMO.clear()
    _MEMO[counts] = out
    return out


def _search(c: list[int], r: int, chains: list[Group], fixed: list[Group],
            best: list[Split]) -> None:
    """Exhaustive choice of chains from rank ``r`` up: a chain holding the
    lowest rank left starts there; the ranks passed keep their cards in ``c``."""
    while r <= dc.CHAIN_TOP and not c[r]:
        r += 1
    if r > dc.CHAIN_TOP:
        cand = _score([*fixed, *chains], c)
        if not best or cand.cost < best[0].cost:
            best[:] = [cand]
        return
    for unit in (1, 2, 3):
        if c[r] < unit:
            break
        e = r
        while e <= dc.CHAIN_TOP and c[e] >= unit:
            e += 1
        kind = (dc.CHAIN, dc.PAIR_CHAIN, dc.AIRPLANE)[unit - 1]
        for top in range(r + _MIN_CHAIN[unit] - 1, e):
            for q in range(r, top + 1):
                c[q] -= unit
            chains.append((kind, top, counts_of({q: unit for q in range(r, top + 1)})))
            _search(c, r, chains, fixed, best)
            chains.pop()
            for q in range(r, top + 1):
                c[q] += unit
    _search(c, r + 1, chains, fixed, best)  # r's cards left as a group of their own


def _score(chains: list[Group], c: list[int]) -> Split:
    """The split of ``chains`` (and bombs) plus the cards ``c`` left, as
    trios, pairs and singles; kickers absorbed by trios and airplanes."""
    groups = list(chains)
    singles: list[int] = []
    pairs: list[int] = []
    trios = 0
    for r in range(dc.NRANKS):
        k = c[r]
        if k == 1:
            singles.append(r)
            groups.append(_one(dc.SINGLE, r, 1))
        elif k == 2:
            pairs.append(r)
            groups.append(_one(dc.PAIR, r, 2))
        elif k == 3:
            trios += 1
            groups.append(_one(dc.TRIO, r, 3))
    capacity = trios + sum(sum(g[2]) // 3 for g in chains if g[0] == dc.AIRPLANE)
    value = 0.0
    for kind, main, gc in groups:
        value += group_value(kind, main, sum(gc))
    # kickers: the lowest singles and pairs below 2 ride on trios for free
    loose = sorted([r for r in singles if r < dc.TWO_RANK] + [r for r in pairs if r < dc.TWO_RANK])
    carried = loose[:capacity]
    value -= sum(rank_value(r) for r in carried)
    plays = len(groups) - len(carried)
    return Split(tuple(groups), plays, HAND_COST * plays - value)
