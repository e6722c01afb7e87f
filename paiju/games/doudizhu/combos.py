"""斗地主 combinations (牌型): reading a played card set, and listing the plays of a hand.

Source: seed 002 §牌型 and §牌型的大小, rulings.md "doudizhu". Suits never
matter in doudizhu, so everything here works on *rank indices*:

====  ====================================================
0-12  3 4 5 6 7 8 9 T J Q K A 2 (``RANK_CHARS``)
13    小王 small joker ``SJ``
14    大王 big joker ``BJ``
====  ====================================================

A *reading* is ``(kind, main)``: ``kind`` one of :data:`KINDS`, ``main`` the
rank index that decides the comparison (the single/pair/trio/four rank, the
highest rank of a chain or of an airplane's trio chain). Two plays compare
only when their kind and their card count are equal (seed: 牌型相同且总张数相同);
bombs and the rocket beat the rest.

Two halves that must agree (tested by property tests):

- :func:`readings` classifies the rank counts of a card set (``apply``);
- :func:`lead_plays` / :func:`follow_plays` list, for a hand, one canonical
  card tuple per distinct rank multiset that has a reading (``legal_actions``).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Rank characters of ranks 0..12 (3 low .. 2 high); 13 = SJ, 14 = BJ.
RANK_CHARS = "3456789TJQKA2"
SJ_RANK = 13
BJ_RANK = 14
TWO_RANK = 12
#: The highest rank that may stand in a chain (A); 2s and jokers never do.
CHAIN_TOP = 11
NRANKS = 15
_CHAIN_RANKS = range(12)  # 3 .. A

_SUIT_ORDER = "SHCD"

#: card string -> rank index.
CARD_RANK: dict[str, int] = {"SJ": SJ_RANK, "BJ": BJ_RANK}
#: card string -> sort key in doudizhu order (rank, then suit S H C D).
CARD_KEY: dict[str, int] = {"SJ": SJ_RANK * 4, "BJ": BJ_RANK * 4}
for _i, _r in enumerate(RANK_CHARS):
    for _j, _s in enumerate(_SUIT_ORDER):
        CARD_RANK[_r + _s] = _i
        CARD_KEY[_r + _s] = _i * 4 + _j

SINGLE = "single"
PAIR = "pair"
TRIO = "trio"
TRIO_SINGLE = "trio_single"
TRIO_PAIR = "trio_pair"
CHAIN = "chain"
PAIR_CHAIN = "pair_chain"
AIRPLANE = "airplane"
#: 飞机带翅膀 with single wings / with pair wings (public name ``airplane_wings``).
AIRPLANE_SINGLES = "airplane_singles"
AIRPLANE_PAIRS = "airplane_pairs"
#: 四带二 with two singles / two pairs (public name ``four_two``).
FOUR_TWO_SINGLES = "four_two_singles"
FOUR_TWO_PAIRS = "four_two_pairs"
BOMB = "bomb"
ROCKET = "rocket"

KINDS = (SINGLE, PAIR, TRIO, TRIO_SINGLE, TRIO_PAIR, CHAIN, PAIR_CHAIN, AIRPLANE,
         AIRPLANE_SINGLES, AIRPLANE_PAIRS, FOUR_TWO_SINGLES, FOUR_TWO_PAIRS, BOMB, ROCKET)

#: Internal kind -> the ``combination`` name of the ``played`` event.
PUBLIC_NAME: dict[str, str] = {k: k for k in KINDS}
PUBLIC_NAME[AIRPLANE_SINGLES] = "airplane_wings"
PUBLIC_NAME[AIRPLANE_PAIRS] = "airplane_wings"
PUBLIC_NAME[FOUR_TWO_SINGLES] = "four_two"
PUBLIC_NAME[FOUR_TWO_PAIRS] = "four_two"

#: Kinds that carry no kicker (rulings: a lead prefers a reading without kickers).
NO_KICKER = frozenset({SINGLE, PAIR, TRIO, CHAIN, PAIR_CHAIN, AIRPLANE})

Reading = tuple[str, int]
_GROUP_SIZE = {SINGLE: 1, PAIR: 2, TRIO: 3}
Pre = Sequence[Sequence[tuple[str, ...]]]


def card_sort_key(card: str) -> int:
    """Sort key of a card in doudizhu order: 3 < 4 < ... < 2 < SJ < BJ, then S H C D."""
    return CARD_KEY[card]


def sort_cards(cards: Sequence[str]) -> list[str]:
    """``cards`` sorted in doudizhu order (see :func:`card_sort_key`)."""
    return sorted(cards, key=CARD_KEY.__getitem__)


def _run(ranks: Sequence[int]) -> bool:
    """True when ``ranks`` (ascending) are consecutive and none is above A."""
    return ranks[-1] <= CHAIN_TOP and ranks[-1] - ranks[0] == len(ranks) - 1


#: The fewest ranks a chain of each count per rank needs: 5 singles, 3 pairs,
#: 2 trios (seed §牌型).
MIN_CHAIN = {1: 5, 2: 3, 3: 2}


def chain_count(pc: Sequence[int], nz: Sequence[int]) -> int:
    """``k`` where every rank of ``nz`` (ascending, those ``pc`` holds) holds
    ``k`` cards and they make a chain long enough (:data:`MIN_CHAIN`), else 0."""
    k = pc[nz[0]]
    if len(nz) < MIN_CHAIN.get(k, NRANKS) or not _run(nz):
        return 0
    return k if all(pc[r] == k for r in nz) else 0


def readings(
    pc: Sequence[int], jokers_as_wings: bool = False, pair_as_two_singles: bool = True
) -> list[Reading]:
    """Every reading ``(kind, main)`` of a card set given by its rank counts ``pc``
    (15 ints). Empty when the set is no combination (seed §牌型, rulings).
    """
    nz = [r for r in range(NRANKS) if pc[r]]
    if not nz:
        return []
    n = sum(pc)
    chained = chain_count(pc, nz)
    only = _only_reading(pc, nz, n, chained)
    if only is not None:
        return [only]
    # 333444555666 reads as an airplane and also with wings
    out: list[Reading] = [(AIRPLANE, nz[-1])] if chained == 3 else []
    if n in (6, 8):
        out += _four_with_two(pc, nz, n, jokers_as_wings, pair_as_two_singles)
    out += _airplanes_with_wings(pc, nz, n, jokers_as_wings)
    return out


def _only_reading(pc: Sequence[int], nz: Sequence[int], n: int, chained: int
                  ) -> Reading | None:
    """The reading of a set that has no other: one rank (single, pair, trio,
    bomb), the rocket, a chain or pair chain, a trio with a single or a pair."""
    if len(nz) == 1:
        return ((SINGLE, PAIR, TRIO, BOMB)[pc[nz[0]] - 1], nz[0])
    if n == 2 and pc[SJ_RANK] and pc[BJ_RANK]:
        return (ROCKET, BJ_RANK)
    if chained in (1, 2):
        return ((CHAIN, PAIR_CHAIN)[chained - 1], nz[-1])
    if len(nz) == 2:
        a, b = nz
        counts = (pc[a], pc[b])
        trio = a if pc[a] == 3 else b
        if n == 4 and 3 in counts:
            return (TRIO_SINGLE, trio)
        if n == 5 and 3 in counts and 2 in counts:
            return (TRIO_PAIR, trio)
    return None


def _four_with_two(pc: Sequence[int], nz: Sequence[int], n: int, jokers_as_wings: bool,
                   pair_as_two_singles: bool) -> list[Reading]:
    """Four of a rank with two singles (``n`` 6) or two pairs (``n`` 8)."""
    out: list[Reading] = []
    for f in nz:
        if pc[f] != 4:
            continue
        if n == 8:
            if all(pc[r] % 2 == 0 for r in nz):
                out.append((FOUR_TWO_PAIRS, f))
            continue
        rest = [r for r in nz if r != f]
        if len(rest) == 1:  # a pair as two singles
            if pair_as_two_singles:
                out.append((FOUR_TWO_SINGLES, f))
        elif jokers_as_wings or rest != [SJ_RANK, BJ_RANK]:
            out.append((FOUR_TWO_SINGLES, f))
    return out


def _airplanes_with_wings(pc: Sequence[int], nz: Sequence[int], n: int,
                          jokers_as_wings: bool) -> list[Reading]:
    """Airplanes with single wings (4 cards a trio) or pair wings (5 a trio):
    a chain of ranks holding exactly 3 cards, the rest its wings."""
    trios = [r for r in nz if pc[r] == 3 and r <= CHAIN_TOP]
    if len(trios) < 2:
        return []
    out: list[Reading] = []
    if n % 4 == 0 and (jokers_as_wings or not (pc[SJ_RANK] and pc[BJ_RANK])):
        out += [(AIRPLANE_SINGLES, hi) for _, hi in _trio_chains(trios, n // 4)]
    if n % 5 == 0:
        out += [(AIRPLANE_PAIRS, hi) for lo, hi in _trio_chains(trios, n // 5)
                if all(pc[r] % 2 == 0 for r in nz if r < lo or r > hi)]
    return out


def _trio_chains(trios: Sequence[int], length: int) -> list[tuple[int, int]]:
    """``(lowest, highest)`` of each run of ``length`` >= 2 consecutive ranks in
    ``trios`` (ascending)."""
    if length < 2:
        return []
    return [(trios[i], trios[i + length - 1]) for i in range(len(trios) - length + 1)
            if trios[i + length - 1] - trios[i] == length - 1]


def chain_length(kind: str, n: int) -> int:
    """The length of the chain part of a reading with ``n`` cards (1 for no chain)."""
    if kind == CHAIN:
        return n
    if kind == PAIR_CHAIN:
        return n // 2
    if kind == AIRPLANE:
        return n // 3
    if kind == AIRPLANE_SINGLES:
        return n // 4
    if kind == AIRPLANE_PAIRS:
        return n // 5
    return 1


def lead_reading(rs: Sequence[Reading], n: int) -> Reading:
    """The reading a lead takes among ``rs`` (non-empty): the first that fits of
    rocket, bomb, a reading without kickers, the longer chain (rulings.md);
    **paiju ruling:** then the higher ``main``."""

    def rank_of(r: Reading) -> tuple[int, int, int]:
        kind, main = r
        cls = 0 if kind == ROCKET else 1 if kind == BOMB else 2 if kind in NO_KICKER else 3
        return (cls, -chain_length(kind, n), -main)

    return min(rs, key=rank_of)


def beats(reading: Reading, n: int, standing: tuple[str, int, int]) -> bool:
    """True when ``reading`` of a set of ``n`` cards beats ``standing`` =
    ``(kind, n, main)`` (seed §牌型的大小)."""
    kind, main = reading
    skind, sn, smain = standing
    if skind == ROCKET:
        return False
    if kind == ROCKET:
        return True
    if kind == BOMB:
        return skind != BOMB or main > smain
    return kind == skind and n == sn and main > smain


# -- listing the plays of a hand ---------------------------------------------------

_MS_CACHE: dict[tuple[tuple[tuple[int, int], ...], int], list[tuple[tuple[int, int], ...]]] = {}


def _multisets(
    avail: tuple[tuple[int, int], ...], k: int
) -> list[tuple[tuple[int, int], ...]]:
    """Every multiset of size ``k`` over ``avail`` = ((rank, max count), ...),
    as ((rank, count), ...) ascending by rank. Memoised."""
    key = (avail, k)
    got = _MS_CACHE.get(key)
    if got is not None:
        return got
    res: list[tuple[tuple[int, int], ...]] = []
    if k == 0:
        res.append(())
    else:
        for i, (r, m) in enumerate(avail):
            rest = avail[i + 1:]
            for take in range(min(m, k), 0, -1):
                head = ((r, take),)
                for tail in _multisets(rest, k - take):
                    res.append(head + tail)
    if len(_MS_CACHE) > 200_000:
        _MS_CACHE.clear()
    _MS_CACHE[key] = res
    return res


def _with_kickers(
    out: list[tuple[str, ...]],
    pre: Pre,
    body: tuple[str, ...],
    lo: int,
    hi: int,
    kickers: list[tuple[tuple[int, int], ...]],
    unit: int,
) -> None:
    """Append ``body`` (ranks lo..hi) with each kicker multiset, in sorted order."""
    for ms in kickers:
        below: tuple[str, ...] = ()
        above: tuple[str, ...] = ()
        for r, m in ms:
            if r < lo:
                below += pre[r][m * unit]
            else:
                above += pre[r][m * unit]
        out.append(below + body + above)


def _groups(out: list[tuple[str, ...]], c: Sequence[int], pre: Pre, k: int, min_main: int) -> None:
    out += [pre[r][k] for r in range(min_main + 1, NRANKS) if c[r] >= k]


def _chains(
    out: list[tuple[str, ...]], c: Sequence[int], pre: Pre, unit: int, min_len: int,
    only_len: int, min_main: int,
) -> None:
    """Chains of ``unit`` cards per rank, at least ``min_len`` long (exactly
    ``only_len`` when non-zero), whose top rank is above ``min_main``."""
    run = 0
    for r in _CHAIN_RANKS:
        if c[r] >= unit:
            run += 1
            if r < CHAIN_TOP:
                continue
            r += 1
        if run >= min_len:
            _run_chains(out, pre, unit, r - run, r - 1, min_len, only_len, min_main)
        run = 0


def _run_chains(
    out: list[tuple[str, ...]], pre: Pre, unit: int, s: int, e: int, min_len: int,
    only_len: int, min_main: int,
) -> None:
    """The chains inside the maximal run of ranks ``s..e``."""
    for a in range(s, e - min_len + 2):
        acc: tuple[str, ...] = ()
        for r in range(a, a + min_len - 1):
            acc += pre[r][unit]
        if only_len:
            top = a + only_len - 1
            if top > e:
                break
            for r in range(a + min_len - 1, top + 1):
                acc += pre[r][unit]
            if top > min_main:
                out.append(acc)
            continue
        for r in range(a + min_len - 1, e + 1):
            acc += pre[r][unit]
            if r > min_main:
                out.append(acc)


def _trio_kickers(
    out: list[tuple[str, ...]], c: Sequence[int], pre: Pre, unit: int, min_main: int
) -> None:
    for t in range(min_main + 1, TWO_RANK + 1):
        if c[t] < 3:
            continue
        p3 = pre[t][3]
        for s in range(NRANKS):
            if s != t and c[s] >= unit:
                ps = pre[s][unit]
                out.append(ps + p3 if s < t else p3 + ps)


def _airplane_wings(
    out: list[tuple[str, ...]], c: Sequence[int], pre: Pre, pairs: bool, only_len: int,
    min_main: int, jokers_as_wings: bool,
) -> None:
    n_cards = sum(c)
    unit = 2 if pairs else 1
    per = 3 + unit
    for s in range(CHAIN_TOP):
        if c[s] < 3:
            continue
        body = pre[s][3]
        for e in range(s + 1, CHAIN_TOP + 1):
            if c[e] < 3:
                break
            body += pre[e][3]
            length = e - s + 1
            if length * per > n_cards:
                break
            if (only_len and length != only_len) or e <= min_main:
                continue
            if pairs:
                avail = tuple(
                    (r, min(c[r] // 2, length)) for r in range(TWO_RANK + 1)
                    if c[r] >= 2 and (r < s or r > e)
                )
            else:
                avail = tuple(
                    (r, min(c[r], length)) for r in range(NRANKS) if c[r] and (r < s or r > e)
                )
            kick = _multisets(avail, length)
            if not pairs and not jokers_as_wings and c[SJ_RANK] and c[BJ_RANK]:
                kick = [ms for ms in kick if not _has_rocket(ms)]
            _with_kickers(out, pre, body, s, e, kick, unit)


def _has_rocket(ms: tuple[tuple[int, int], ...]) -> bool:
    return len(ms) >= 2 and ms[-1][0] == BJ_RANK and ms[-2][0] == SJ_RANK


def _four_two(
    out: list[tuple[str, ...]], c: Sequence[int], pre: Pre, pairs: bool, min_main: int,
    jokers_as_wings: bool, pair_as_two_singles: bool,
) -> None:
    for f in range(min_main + 1, TWO_RANK + 1):
        if c[f] != 4:
            continue
        if pairs:
            avail = tuple(
                (r, min(c[r] // 2, 2)) for r in range(TWO_RANK + 1) if r != f and c[r] >= 2
            )
            kick = _multisets(avail, 2)
        else:
            most = 2 if pair_as_two_singles else 1
            avail = tuple((r, min(c[r], most)) for r in range(NRANKS) if r != f and c[r])
            kick = _multisets(avail, 2)
            if not jokers_as_wings and c[SJ_RANK] and c[BJ_RANK]:
                kick = [ms for ms in kick if not _has_rocket(ms)]
        _with_kickers(out, pre, pre[f][4], f, f, kick, 2 if pairs else 1)


def _bombs(out: list[tuple[str, ...]], c: Sequence[int], pre: Pre, min_main: int) -> None:
    if 4 in c:
        for r in range(min_main + 1, TWO_RANK + 1):
            if c[r] == 4:
                out.append(pre[r][4])
    if c[SJ_RANK] and c[BJ_RANK]:
        out.append(pre[SJ_RANK][1] + pre[BJ_RANK][1])


def add_bombs(out: list[tuple[str, ...]], c: Sequence[int], pre: Pre) -> None:
    """Append every bomb and the rocket of a hand (rank counts ``c``) to ``out``."""
    _bombs(out, c, pre, -1)


def lead_plays(
    c: Sequence[int], pre: Pre, jokers_as_wings: bool = False, pair_as_two_singles: bool = True
) -> list[tuple[str, ...]]:
    """Every distinct play a leader holding rank counts ``c`` may make, one canonical
    card tuple per rank multiset (``pre[r][k]`` = the first ``k`` cards of rank ``r``
    in the hand, sorted). Each tuple is sorted in doudizhu order."""
    ranks = [r for r in range(NRANKS) if c[r]]
    out = [pre[r][1] for r in ranks]
    if len(ranks) >= 5:
        _chains(out, c, pre, 1, 5, 0, -1)
    pairs = [r for r in ranks if c[r] >= 2]
    if not pairs:
        if c[SJ_RANK] and c[BJ_RANK]:
            out.append(pre[SJ_RANK][1] + pre[BJ_RANK][1])
        return out
    out += [pre[r][2] for r in pairs]
    if len(pairs) >= 3:
        _chains(out, c, pre, 2, 3, 0, -1)
    trios = [r for r in pairs if c[r] >= 3]
    for t in trios:  # trio, trio + single, trio + pair
        p3 = pre[t][3]
        out.append(p3)
        out += [pre[s][1] + p3 if s < t else p3 + pre[s][1] for s in ranks if s != t]
        out += [pre[s][2] + p3 if s < t else p3 + pre[s][2] for s in pairs if s != t]
    _bombs(out, c, pre, -1)
    if len(trios) >= 2:
        start = len(out)
        _chains(out, c, pre, 3, 2, 0, -1)
        if len(out) > start:  # there is a trio chain: airplanes with wings
            _airplane_wings(out, c, pre, False, 0, -1, jokers_as_wings)
            _airplane_wings(out, c, pre, True, 0, -1, jokers_as_wings)
    else:
        start = len(out)
    if 4 in c:
        _four_two(out, c, pre, False, -1, jokers_as_wings, pair_as_two_singles)
        _four_two(out, c, pre, True, -1, jokers_as_wings, pair_as_two_singles)
    if len(out) - start > 1:
        out[start:] = dict.fromkeys(out[start:])
    return out


def follow_plays(
    c: Sequence[int], pre: Pre, standing: tuple[str, int, int],
    jokers_as_wings: bool = False, pair_as_two_singles: bool = True,
) -> list[tuple[str, ...]]:
    """Every distinct play that beats ``standing`` = ``(kind, n, main)`` from a hand
    of rank counts ``c`` (see :func:`lead_plays` for ``pre``)."""
    kind, n, main = standing
    out: list[tuple[str, ...]] = []
    if kind == ROCKET:
        return out
    k = _GROUP_SIZE.get(kind)
    if k:  # single, pair, trio: the common cases, inline
        out = [pre[r][k] for r in range(main + 1, NRANKS) if c[r] >= k]
        if 4 in c:
            out += [pre[r][4] for r in range(TWO_RANK + 1) if c[r] == 4]
        if c[SJ_RANK] and c[BJ_RANK]:
            out.append(pre[SJ_RANK][1] + pre[BJ_RANK][1])
        return out
    if kind == BOMB:
        _bombs(out, c, pre, main)
        return out
    if kind == TRIO_SINGLE:
        _trio_kickers(out, c, pre, 1, main)
    elif kind == TRIO_PAIR:
        _trio_kickers(out, c, pre, 2, main)
    elif kind == CHAIN:
        _chains(out, c, pre, 1, 5, n, main)
    elif kind == PAIR_CHAIN:
        _chains(out, c, pre, 2, 3, n // 2, main)
    elif kind == AIRPLANE:
        _chains(out, c, pre, 3, 2, n // 3, main)
    elif kind == AIRPLANE_SINGLES:
        _airplane_wings(out, c, pre, False, n // 4, main, jokers_as_wings)
        out = list(dict.fromkeys(out))
    elif kind == AIRPLANE_PAIRS:
        _airplane_wings(out, c, pre, True, n // 5, main, jokers_as_wings)
        out = list(dict.fromkeys(out))
    elif kind == FOUR_TWO_SINGLES:
        _four_two(out, c, pre, False, main, jokers_as_wings, pair_as_two_singles)
    elif kind == FOUR_TWO_PAIRS:
        _four_two(out, c, pre, True, main, jokers_as_wings, pair_as_two_singles)
        out = list(dict.fromkeys(out))
    _bombs(out, c, pre, -1)
    return out
