"""大A (daa) combinations: card order, classification, power classes.

What a hand can play (:class:`HandInfo`, :func:`generate`) is in
:mod:`paiju.games.daa.moves`.

Source: seed 003 (牌点大小, 牌套, 较为特殊牌种) and shared/spec/rulings.md,
section "daa" (its power-class table settles the seed's order).

A *combination* (牌套) is a ``Combo`` tuple ``(kind, size, key)``:

- ``kind``: one of the ``KIND_*`` constants. Class-1 kinds (single, pair, 龙,
  双龙) are below 10; every other kind is ``10 × power class + sub-order``, so
  comparing kinds of class ≥ 2 compares power (rulings' table, classes 2–12).
- ``size``: number of cards for n-of-a-kind and joker sets, number of ranks for
  runs (龙, 双龙, 连珠蛋, 假八 family).
- ``key``: the rank that orders equal kinds: the power index (4 → 0 … 3 → 12)
  for n-of-a-kind; for runs the highest card's position in the natural
  sequence A-2-3-…-K-A (A low = 1, A high = 14); for a single also SJ 13,
  BJ 14 and the big A 15; 0 where a kind has no order (joker sets).

A standing 取回 (take-back) play is the ``Combo`` ``(KIND_TAKE_BACK, n - 1, c)``
where ``c`` is the power class of the n-of-a-kind that the 4s took.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from paiju.rules.cards import BIG_JOKER, SMALL_JOKER, Card

Combo = tuple[int, int, int]

#: Power index of a rank (牌点大小: 3 > 2 > A > K > … > 4); jokers above.
POWER: dict[str, int] = {r: i for i, r in enumerate("456789TJQKA23")}
POWER_SJ = 13
POWER_BJ = 14
#: The key of the single big A (单大A beats every single, jokers included).
KEY_BIG_A = 15
RANK_OF_POWER = "456789TJQKA23"
SUIT_ORDER = "SHCD"

#: Sort key of a card in the game's order (rank power, then suit S H C D).
CARD_ORDER: dict[Card, int] = {
    r + s: POWER[r] * 4 + i for r in RANK_OF_POWER for i, s in enumerate(SUIT_ORDER)
}
CARD_ORDER[SMALL_JOKER] = POWER_SJ * 4
CARD_ORDER[BIG_JOKER] = POWER_BJ * 4

#: Card -> its power index (0–12); SJ 13, BJ 14.
CARD_POWER: dict[Card, int] = {c: k // 4 for c, k in CARD_ORDER.items()}

# Natural sequence positions (runs): A = 1 or 14, 2 = 2, …, K = 13.
POWER_OF_POS: list[int] = [-1] + [POWER[r] for r in "A23456789TJQKA"]
#: Power index -> its natural position (A: 14; it is also 1).
POS_OF_POWER: list[int] = [POWER_OF_POS.index(p, 2) for p in range(13)]

KIND_TAKE_BACK = 0
KIND_SINGLE = 1
KIND_PAIR = 2
KIND_RUN = 3  # 龙
KIND_PAIR_RUN = 4  # 双龙
KIND_TRIO = 20  # 蛋子
KIND_BOMB4 = 30  # 大蛋子 ×4
KIND_BOMB5 = 31
KIND_BOMB6 = 32
KIND_JOKERS2 = 40  # 双王
KIND_CHAIN3 = 50  # 连珠蛋 (3 trios)
KIND_FAKE8 = 60  # 假八
KIND_SEVEN = 70  # 真七
KIND_JOKERS3 = 80  # 三条王
KIND_EIGHT = 90  # 真八
KIND_FAKE10 = 91  # 假十
KIND_CHAIN4 = 92
KIND_FAKE12 = 93  # 假十二
KIND_CHAIN5 = 94
KIND_JOKERS4 = 100  # 四条王
KIND_FAKE14 = 110  # 假十四
KIND_CHAIN6 = 111
KIND_CHAIN7 = 112
KIND_BIG_A_PAIR = 120  # 双大A

#: n-of-a-kind (n ≥ 3) → kind.
SAME_KIND: dict[int, int] = {
    3: KIND_TRIO, 4: KIND_BOMB4, 5: KIND_BOMB5, 6: KIND_BOMB6, 7: KIND_SEVEN, 8: KIND_EIGHT,
}
#: Kinds that 4s may take back (取回): every n-of-a-kind with n ≥ 3.
TAKEABLE = frozenset(SAME_KIND.values())
#: Number of jokers (≥ 2) → kind.
JOKER_KIND: dict[int, int] = {2: KIND_JOKERS2, 3: KIND_JOKERS3, 4: KIND_JOKERS4}
#: 连珠蛋: number of trios → kind.
CHAIN_KIND: dict[int, int] = {
    3: KIND_CHAIN3, 4: KIND_CHAIN4, 5: KIND_CHAIN5, 6: KIND_CHAIN6, 7: KIND_CHAIN7,
}
#: 假八 family: cards per rank (two consecutive ranks) → kind.
FAKE_KIND: dict[int, int] = {4: KIND_FAKE8, 5: KIND_FAKE10, 6: KIND_FAKE12, 7: KIND_FAKE14}

#: kind → the name used in ``played`` events.
KIND_NAMES: dict[int, str] = {
    KIND_TAKE_BACK: "take_back",
    KIND_SINGLE: "single",
    KIND_PAIR: "pair",
    KIND_RUN: "run",
    KIND_PAIR_RUN: "pair_run",
    KIND_TRIO: "trio",
    KIND_BOMB4: "bomb4",
    KIND_BOMB5: "bomb5",
    KIND_BOMB6: "bomb6",
    KIND_JOKERS2: "two_jokers",
    KIND_CHAIN3: "chain3",
    KIND_FAKE8: "fake8",
    KIND_SEVEN: "seven",
    KIND_JOKERS3: "three_jokers",
    KIND_EIGHT: "eight",
    KIND_FAKE10: "fake10",
    KIND_CHAIN4: "chain4",
    KIND_FAKE12: "fake12",
    KIND_CHAIN5: "chain5",
    KIND_JOKERS4: "four_jokers",
    KIND_FAKE14: "fake14",
    KIND_CHAIN6: "chain6",
    KIND_CHAIN7: "chain7",
    KIND_BIG_A_PAIR: "big_a_pair",
}


def power_class(combo: Combo) -> int:
    """The power class (1–12) of rulings.md's table; 0 for a take-back marker."""
    kind = combo[0]
    if kind == KIND_TAKE_BACK:
        return 0
    return 1 if kind < 10 else kind // 10


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted in the game's order (4 lowest, … 3, SJ, BJ; suits S H C D)."""
    return sorted(cards, key=CARD_ORDER.__getitem__)


def run_high(ranks: Iterable[str]) -> int | None:
    """The highest natural-sequence position of consecutive ``ranks`` (distinct
    rank characters), or ``None`` if they are not consecutive.

    A stands low (A23: high 3) or high (QKA: high 14), never in the middle
    (KA2 is no run); where both fit (all 13 ranks) the higher is taken.
    """
    pos = []
    has_ace = False
    for r in ranks:
        if r == "A":
            has_ace = True
        else:
            pos.append(_NAT_POS[r])
    best: int | None = None
    variants = ([*pos, 1], [*pos, 14]) if has_ace else (pos,)
    for v in variants:
        if max(v) - min(v) + 1 == len(v) and len(set(v)) == len(v):
            high = max(v)
            if best is None or high > best:
                best = high
    return best


_NAT_POS: dict[str, int] = {r: i + 2 for i, r in enumerate("23456789TJQK")}


def classify(cards: Sequence[Card], big_a: Card) -> Combo | None:
    """The combination of ``cards`` (canonical strings) or ``None`` if they form
    none (seed 003 牌套; rulings.md "daa"). ``big_a`` is the big-A card (e.g.
    ``"AH"``): alone it is the single big A, two of it the pair of big As;
    inside any other combination it is an ordinary A.
    """
    n = len(cards)
    if n == 1:
        c = cards[0]
        if c[1] == "J":
            return (KIND_SINGLE, 1, POWER_BJ if c == BIG_JOKER else POWER_SJ)
        return (KIND_SINGLE, 1, KEY_BIG_A if c == big_a else POWER[c[0]])
    if n == 0:
        return None
    jokers = sum(1 for c in cards if c[1] == "J")
    if jokers:  # jokers go only with jokers
        return (JOKER_KIND[n], n, 0) if jokers == n and n in JOKER_KIND else None
    counts: dict[str, int] = {}
    for c in cards:
        r = c[0]
        counts[r] = counts.get(r, 0) + 1
    if len(counts) == 1:
        return _same_rank(cards, big_a)
    return _chained(counts)


def _same_rank(cards: Sequence[Card], big_a: Card) -> Combo | None:
    """Two or more cards of one rank: a pair (or 双大A), 蛋子, 大蛋子, 真七, 真八."""
    n = len(cards)
    if n == 2:
        if cards[0] == big_a and cards[1] == big_a:
            return (KIND_BIG_A_PAIR, 2, 0)
        return (KIND_PAIR, 2, POWER[cards[0][0]])
    return (SAME_KIND[n], n, POWER[cards[0][0]]) if n in SAME_KIND else None


def _chained(counts: dict[str, int]) -> Combo | None:
    """Ranks in a run, as many cards of each (``counts``: rank → cards): 龙,
    双龙, 连珠蛋 (3 to 7 trios) and the 假八 family (two ranks of 4 to 7 cards
    each) (seed 003 牌套)."""
    per = set(counts.values())
    if len(per) != 1:
        return None
    each = per.pop()
    m = len(counts)
    high = run_high(counts)
    if high is None:
        return None
    if each == 1 and m >= 3:
        return (KIND_RUN, m, high)
    if each == 2 and m >= 3:
        return (KIND_PAIR_RUN, m, high)
    if each == 3 and m in CHAIN_KIND:
        return (CHAIN_KIND[m], m, high)
    if each in FAKE_KIND and m == 2:
        return (FAKE_KIND[each], m, high)
    return None


def beats(new: Combo, old: Combo) -> bool:
    """True where ``new`` may be played on the standing ``old`` (rulings.md
    "daa", power classes 1–12 and their exceptions; a take-back marker as
    ``old`` is beaten by any class above the taken cards' class).
    """
    nk, ns, nv = new
    ok, os_, ov = old
    if ok == KIND_TAKE_BACK:
        return power_class(new) > ov
    if nk < 10:
        # class 1 beats only the same kind and length, by rank
        return nk == ok and ns == os_ and nv > ov
    if ok < 10:
        if nk == KIND_TRIO:
            # 蛋子 beats ordinary singles, pairs and 龙; not 双龙, jokers, big A
            return ok != KIND_PAIR_RUN and not (ok == KIND_SINGLE and ov >= POWER_SJ)
        if nk == KIND_BOMB4:
            return not (ok == KIND_SINGLE and ov == KEY_BIG_A)
        return True
    if nk != ok:
        return nk > ok
    return nv > ov
