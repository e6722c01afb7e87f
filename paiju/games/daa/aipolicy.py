"""大A (daa) AI: the heuristic policy (the *normal* level's choices).

A :class:`Situation` is what the policy needs of a decision: the seat's hand,
the big A, the standing play, cards per seat, its known partners and
opponents, and the cards it has not seen (the card counter), or None where
unknown. :func:`lead` and :func:`follow` answer the cards to play (``None``:
pass). They never list every legal play: a lead comes from the hand's split
(:func:`~paiju.games.daa.aihand.decompose`), a follow from the plays that
beat the standing one.

Sides (rulings.md "daa"): the big-A side (主方 + 次方, or a solo) against
the others; a side wins when all its seats are out, so the policy plays for
its side: it leaves a partner's play standing, stops an opponent close to
going out, and leads to a partner with one or two cards. No I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from paiju.games.daa.aihand import Play, combo_of, decompose, is_control, lead_order
from paiju.games.daa.combos import (
    KEY_BIG_A,
    KIND_PAIR,
    KIND_SINGLE,
    POWER,
    POWER_BJ,
    POWER_SJ,
    TAKEABLE,
    Combo,
    beats,
    classify,
    power_class,
    sort_cards,
)
from paiju.rules.cards import Card


@dataclass(frozen=True, slots=True)
class Situation:
    """One decision as the policy sees it. ``hand``: the seat's cards;
    ``standing``: the play to beat and its ``standing_seat`` (None / -1 when
    leading); ``counts``: cards per seat; ``partners`` / ``opponents``: the
    seats known to be on its side / the other side; ``unseen``: cards neither
    in its hand nor on the table (None: not counted)."""

    seat: int
    hand: Counter[Card]
    big: Card
    standing: Combo | None
    standing_seat: int
    standing_cards: tuple[Card, ...]
    counts: Sequence[int]
    partners: frozenset[int]
    opponents: frozenset[int]
    unseen: Counter[Card] | None


def whole_hand(sit: Situation) -> Play | None:
    """The whole hand when it is one legal play now (it goes out)."""
    cards = tuple(sort_cards(sit.hand.elements()))
    combo = classify(cards, sit.big)
    if combo is None:
        return None
    if sit.standing is None or beats(combo, sit.standing):
        return cards
    return None


def _single_key(card: Card, big: Card) -> int:
    if card[1] == "J":
        return POWER_BJ if card == "BJ" else POWER_SJ
    return KEY_BIG_A if card == big else POWER[card[0]]


def is_top(combo: Combo, sit: Situation) -> bool:
    """True when no unseen cards make a higher play of the same kind (singles
    and pairs; bombs are not counted). Unknown without a card counter."""
    unseen = sit.unseen
    if unseen is None or combo[0] not in (KIND_SINGLE, KIND_PAIR):
        return is_control(combo)
    need = 1 if combo[0] == KIND_SINGLE else 2
    for card, n in unseen.items():
        if n < need:
            continue
        if need == 1:
            if _single_key(card, sit.big) > combo[2]:
                return False
        elif card[1] != "J" and POWER[card[0]] > combo[2]:
            return False
    return True


def _near_out(sit: Situation, seats: frozenset[int], limit: int) -> list[int]:
    return [s for s in seats if 0 < sit.counts[s] <= limit]


def lead(sit: Situation) -> Play:
    """The play to lead: the whole hand if it is one play; with two plays
    left, a top one first; else the weakest play of the split, avoiding a
    single (pair) an opponent with one (two) cards could answer, and feeding a
    partner with one card a low single."""
    out = whole_hand(sit)
    if out is not None:
        return out
    plays = decompose(sit.hand.elements(), sit.big)
    combos = [(combo_of(p, sit.big), p) for p in plays]
    if len(combos) == 2:
        for combo, p in combos:
            if is_top(combo, sit):
                return p
    combos.sort(key=lambda cp: lead_order(cp[0]))
    partner_low = _near_out(sit, sit.partners, 2)
    if partner_low:
        want = KIND_SINGLE if sit.counts[partner_low[0]] == 1 else KIND_PAIR
        for combo, p in combos:
            if combo[0] == want and not is_control(combo):
                return p
    shy = {sit.counts[s] for s in _near_out(sit, sit.opponents, 2)}
    if shy:
        for combo, p in combos:
            if combo[1] not in shy or combo[0] not in (KIND_SINGLE, KIND_PAIR):
                return p
        # only singles / pairs an opponent could answer: the highest first
        return max(combos, key=lambda cp: (cp[0][0], cp[0][2]))[1]
    return combos[0][1]


def _plays_after(sit: Situation, play: Play) -> int:
    rest = sit.hand.copy()
    rest.subtract(play)
    return len(decompose(rest.elements(), sit.big))


def follow(sit: Situation, beaters: Sequence[Play]) -> Play | None:
    """The play answering the standing one (``beaters``: the plays that beat
    it), or None to pass: the whole hand when it beats; pass on a partner's
    play; 取回 an opponent's 大蛋子 with 4s; else the cheapest play of the same
    kind that costs the split no play (one more when an opponent is close to
    out), and a control (大蛋子 …) only against an opponent with few cards or
    when the hand is then nearly out."""
    standing = sit.standing
    assert standing is not None
    if not beaters:
        return None
    out = whole_hand(sit)
    if out is not None:
        return out
    who = sit.standing_seat
    if who in sit.partners:
        return None
    opponent = who in sit.opponents
    danger = sit.counts[who] if who >= 0 else 99
    now = len(decompose(sit.hand.elements(), sit.big))
    take = _take_back(sit, beaters)
    if take is not None and opponent:
        return take
    same: list[tuple[tuple[int, int], Play]] = []
    higher: list[tuple[tuple[int, int], Play]] = []
    for p in beaters:
        combo = classify(p, sit.big)
        if combo is None:
            continue
        if power_class(combo) == power_class(standing) and not is_control(combo):
            same.append(((combo[0], combo[2]), p))
        else:
            higher.append(((combo[0], combo[2]), p))
    same.sort()
    allowance = 1 if (opponent and danger <= 5) or now <= 3 else 0
    for _, p in same[:6]:
        if _plays_after(sit, p) <= now - 1 + allowance:
            return p
    pressing = (opponent and danger <= 3) or (who >= 0 and not opponent and danger <= 2)
    if higher:
        higher.sort()
        p = higher[0][1]
        if pressing or _plays_after(sit, p) <= 1:
            return p
    if pressing and same:
        return same[0][1]
    return None


def _take_back(sit: Situation, beaters: Sequence[Play]) -> Play | None:
    """The 取回 play (n−1 4s on a standing n-of-a-kind), if it is among
    ``beaters`` and the standing play is 大蛋子 or bigger."""
    standing = sit.standing
    if standing is None or standing[0] not in TAKEABLE or standing[1] < 4:
        return None
    for p in beaters:
        if len(p) == standing[1] - 1 and all(c[0] == "4" for c in p):
            return p
    return None


def hand_strength(hand: Sequence[Card], big: Card) -> tuple[int, int]:
    """``(plays, controls)`` of a hand's split with ``big`` as the big A."""
    plays = decompose(hand, big)
    controls = sum(1 for p in plays if is_control(combo_of(p, big)))
    return len(plays), controls
