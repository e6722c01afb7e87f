"""斗地主 AI: the *normal* level's decisions on rank counts (no Game, no I/O).

A :class:`Situation` is what a seat knows (its hand, every seat's card count,
the landlord, the standing play and who made it, the cards it has not seen:
the deck less its hand less every card played). :func:`choose` answers the
play (rank counts) or ``None`` for a pass; :func:`bid_strength` judges a hand
for 叫地主 / 抢地主. Sources: seed 002 (combinations, landlord vs farmers),
docs/rules/doudizhu.md.

How it plays:

- lead (出牌): a play that empties the hand; with two plays left, the one no
  unseen card can beat first; else the weakest group of the split
  (:func:`~paiju.games.doudizhu.ai_split.split`), not a single when an enemy
  has one card left (报单) nor a pair when it has two (报双); a farmer whose
  partner has one card left leads its lowest single; bombs and the rocket
  last.
- follow (跟牌): over the partner farmer only to go out or to block an enemy
  with one card left; over an enemy with the play that costs the split least,
  if it costs little enough (more as the enemy's hand shrinks); a bomb or the
  rocket only when an enemy is near out or when it leaves one play.
"""

from __future__ import annotations

from dataclasses import dataclass

from paiju.games.doudizhu import combos as dc
from paiju.games.doudizhu.ai_split import Counts, Group, split

#: Every rank's count in one deck.
DECK_COUNTS: Counts = (4,) * 13 + (1, 1)
_CARDS: list[list[str]] = [[r + s for s in "SHCD"] for r in dc.RANK_CHARS] + [["SJ"], ["BJ"]]
#: ``_PRE[r][k]``: the first ``k`` canonical cards of rank ``r``.
_PRE: list[list[tuple[str, ...]]] = [[tuple(cs[:k]) for k in range(len(cs) + 1)] for cs in _CARDS]
Standing = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class Situation:
    """What ``seat`` knows at its turn in play. ``hand``/``unseen``: rank
    counts; ``sizes``: every seat's number of cards; ``standing``: the play to
    beat ``(kind, n, main)`` made by ``standing_seat``, or ``None`` to lead."""

    seat: int
    landlord: int
    hand: Counts
    sizes: tuple[int, int, int]
    standing: Standing | None
    standing_seat: int
    unseen: Counts
    jokers_as_wings: bool = False
    pair_as_two_singles: bool = True

    def enemies(self) -> list[int]:
        """The seats of the other side."""
        if self.seat == self.landlord:
            return [s for s in range(3) if s != self.seat]
        return [self.landlord]

    def enemy_min(self) -> int:
        """The fewest cards an enemy holds."""
        return min(self.sizes[s] for s in self.enemies())


def cards_counts(cards: tuple[str, ...] | list[str]) -> Counts:
    """Rank counts of ``cards``."""
    c = [0] * dc.NRANKS
    for card in cards:
        c[dc.CARD_RANK[card]] += 1
    return tuple(c)


def canonical_cards(counts: Counts) -> tuple[str, ...]:
    """Canonical cards (suits S H C D) of rank counts, in doudizhu order."""
    out: tuple[str, ...] = ()
    for r, k in enumerate(counts):
        if k:
            out += _PRE[r][k]
    return out


def minus(a: Counts, b: Counts) -> Counts:
    """``a - b`` rank by rank."""
    return tuple(x - y for x, y in zip(a, b, strict=True))


def reading_of(counts: Counts, sit: Situation) -> tuple[str, int] | None:
    """The reading a lead of ``counts`` takes (rulings), or ``None``."""
    rs = dc.readings(counts, sit.jokers_as_wings, sit.pair_as_two_singles)
    if not rs:
        return None
    return dc.lead_reading(rs, sum(counts))


def follows(sit: Situation) -> list[Counts]:
    """Every play (rank counts) that beats the standing play."""
    assert sit.standing is not None
    plays = dc.follow_plays(sit.hand, _PRE, sit.standing, sit.jokers_as_wings,
                            sit.pair_as_two_singles)
    return [cards_counts(p) for p in plays]


# -- card counting ---------------------------------------------------------------------

def unseen_bomb_above(unseen: Counts, main: int) -> bool:
    """Could the unseen cards hold a bomb above rank ``main`` (-1: any bomb) or the rocket?"""
    if unseen[dc.SJ_RANK] and unseen[dc.BJ_RANK]:
        return True
    return any(unseen[r] == 4 for r in range(max(main + 1, 0), dc.TWO_RANK + 1))


def is_boss(kind: str, main: int, counts: Counts, unseen: Counts) -> bool:
    """No combination of the unseen cards can beat this group (card counting)."""
    if kind == dc.ROCKET:
        return True
    if kind == dc.BOMB:
        return not unseen_bomb_above(unseen, main)
    if unseen_bomb_above(unseen, -1):
        return False
    n = sum(counts)
    if kind in (dc.SINGLE, dc.PAIR, dc.TRIO):
        k = counts[main]
        return not any(unseen[r] >= k for r in range(main + 1, dc.NRANKS))
    if kind in (dc.FOUR_TWO_SINGLES, dc.FOUR_TWO_PAIRS):
        return True  # only a higher four, already ruled out with the bombs
    unit = {dc.CHAIN: 1, dc.PAIR_CHAIN: 2}.get(kind, 3)
    length = dc.chain_length(kind, n)
    limit = dc.CHAIN_TOP if length > 1 else dc.TWO_RANK
    for top in range(main + 1, limit + 1):
        if all(unseen[r] >= unit for r in range(top - length + 1, top + 1)):
            return False
    return True


# -- leading -----------------------------------------------------------------------------

def _with_kickers(group: Group, groups: tuple[Group, ...]) -> Counts:
    """A trio or airplane group with its kickers: the lowest loose singles
    (below 2), else pairs, as many as it has trios."""
    kind, _main, gc = group
    if kind not in (dc.TRIO, dc.AIRPLANE):
        return gc
    need = sum(gc) // 3
    singles = sorted(g[1] for g in groups if g[0] == dc.SINGLE and g[1] < dc.TWO_RANK)
    pairs = sorted(g[1] for g in groups if g[0] == dc.PAIR and g[1] < dc.TWO_RANK)
    c = list(gc)
    if len(singles) >= need:
        for r in singles[:need]:
            c[r] += 1
    elif len(pairs) >= need:
        for r in pairs[:need]:
            c[r] += 2
    return tuple(c)


def lead(sit: Situation) -> Counts:
    """The lead of :func:`choose`."""
    hand = sit.hand
    if reading_of(hand, sit) is not None:
        return hand  # one play empties the hand
    sp = split(hand)
    groups = sp.groups
    bosses = [g for g in groups if is_boss(g[0], g[1], g[2], sit.unseen)]
    if sp.plays <= 2 and bosses:
        boss = max(bosses, key=lambda g: (g[0] not in (dc.BOMB, dc.ROCKET), sum(g[2])))
        return _with_kickers(boss, groups)
    partner = [s for s in range(3) if s != sit.seat and s != sit.landlord]
    if sit.seat != sit.landlord and partner and sit.sizes[partner[0]] == 1:
        singles = [g for g in groups if g[0] == dc.SINGLE]
        low = min((r for r in range(dc.NRANKS) if hand[r]), default=None)
        if singles:
            return min(singles, key=lambda g: g[1])[2]
        if low is not None:
            return tuple(1 if r == low else 0 for r in range(dc.NRANKS))
    danger = sit.enemy_min()
    options = [g for g in groups if g[0] not in (dc.BOMB, dc.ROCKET)]
    safe = [g for g in options
            if not (danger == 1 and g[0] == dc.SINGLE and g not in bosses)
            and not (danger == 2 and g[0] == dc.PAIR and g not in bosses)]
    if safe:
        carried = _carried(groups)
        pool = [g for g in safe if g not in carried] or safe
        pick = min(pool, key=lambda g: (g[1] if g[0] in (dc.SINGLE, dc.PAIR, dc.TRIO)
                                        else g[1] - 2, -sum(g[2])))
        return _with_kickers(pick, groups)
    if options:  # only singles/pairs an enemy can take: the highest single, to block
        top = max(r for r in range(dc.NRANKS) if hand[r])
        if danger == 1:
            return tuple(1 if r == top else 0 for r in range(dc.NRANKS))
        return min(options, key=lambda g: -g[1])[2]
    return min(groups, key=lambda g: g[1])[2]  # bombs and the rocket only: lowest first


def _carried(groups: tuple[Group, ...]) -> list[Group]:
    """The loose singles and pairs the split's trios and airplanes carry as kickers."""
    capacity = sum(sum(g[2]) // 3 for g in groups if g[0] in (dc.TRIO, dc.AIRPLANE))
    loose = sorted((g for g in groups if g[0] in (dc.SINGLE, dc.PAIR) and g[1] < dc.TWO_RANK),
                   key=lambda g: g[1])
    return loose[:capacity]


# -- following ---------------------------------------------------------------------------

def _slack(danger: int) -> float:
    """How much split cost a follow over an enemy may add, by the enemy's cards left."""
    if danger <= 2:
        return 1e9
    if danger <= 5:
        return 8.0
    if danger <= 10:
        return 1.0
    return -1.0


def follow(sit: Situation) -> Counts | None:
    """The follow of :func:`choose` (``None``: pass)."""
    cands = follows(sit)
    if not cands:
        return None
    hand = sit.hand
    for c in cands:
        if c == hand:
            return c
    bombs = [c for c in cands if _is_bomb(c)]
    plain = [c for c in cands if not _is_bomb(c)]
    partner_played = sit.seat != sit.landlord and sit.standing_seat != sit.landlord
    before = split(hand).cost
    if partner_played:
        return _over_partner(sit, plain)
    danger = sit.enemy_min()
    scored = sorted(((split(minus(hand, c)).cost - before, c) for c in plain),
                    key=lambda t: (t[0], max(r for r in range(dc.NRANKS) if t[1][r])))
    if scored and scored[0][0] <= _slack(danger):
        return scored[0][1]
    for b in sorted(bombs, key=lambda c: max(r for r in range(dc.NRANKS) if c[r])):
        if danger <= 3 or split(minus(hand, b)).plays <= 1:
            return b
    return None


def _over_partner(sit: Situation, plain: list[Counts]) -> Counts | None:
    """Over the partner farmer: only to leave one sure play, or to block a
    landlord with one card left after a low single."""
    for c in plain:
        after = split(minus(sit.hand, c))
        if after.plays == 1 and after.groups and is_boss(*after.groups[0][:2],
                                                         after.groups[0][2], sit.unseen):
            return c
    st = sit.standing
    assert st is not None
    next_seat = (sit.seat + 1) % 3
    if (next_seat == sit.landlord and sit.sizes[sit.landlord] == 1 and st[0] == dc.SINGLE
            and plain):
        top = max(plain, key=lambda c: max(r for r in range(dc.NRANKS) if c[r]))
        top_rank = max(r for r in range(dc.NRANKS) if top[r])
        if not any(sit.unseen[r] for r in range(top_rank + 1, dc.NRANKS)):
            return top
    return None


def _is_bomb(c: Counts) -> bool:
    n = sum(c)
    return (n == 4 and 4 in c) or (n == 2 and c[dc.SJ_RANK] == 1 and c[dc.BJ_RANK] == 1)


def choose(sit: Situation) -> Counts | None:
    """The play of ``sit.seat`` (rank counts), ``None`` for a pass."""
    if sit.standing is None:
        return lead(sit)
    return follow(sit)


# -- bidding -------------------------------------------------------------------------------

def bid_strength(hand: Counts) -> float:
    """A hand's strength for the landlord's seat: the rocket 8 (a lone big
    joker 4, small 3), each 2 counts 2, each bomb 6, each A 0.5, and up to 4
    more for a split into few plays (≤ 6)."""
    s = 0.0
    if hand[dc.SJ_RANK] and hand[dc.BJ_RANK]:
        s += 8
    else:
        s += 4 * hand[dc.BJ_RANK] + 3 * hand[dc.SJ_RANK]
    s += 2 * hand[dc.TWO_RANK] + 0.5 * hand[dc.TWO_RANK - 1]
    s += 6 * sum(1 for r in range(dc.TWO_RANK) if hand[r] == 4)
    if hand[dc.TWO_RANK] == 4:
        s += 2
    s += max(0, 10 - split(hand).plays) * 0.8
    return s


#: Strength to call (叫地主) and to rob (抢地主, which doubles the stakes).
CALL_AT = 8.0
ROB_AT = 11.0
