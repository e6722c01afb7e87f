"""大A (daa) AI: a hand split into few plays (牌套), and the public record.

:func:`decompose` splits a hand into combinations of seed 003's 牌套 (龙,
双龙, 连珠蛋, 蛋子, 对儿, 单牌; 大蛋子 and joker sets kept whole; the big A
alone, or 双大A): the fewer plays, the sooner the hand goes out.
:func:`read_record` follows the record as a seat saw it (plays, passes,
取回) to know what each seat played and took back: the card counter of the
AI and the constraints of its sampling (:mod:`paiju.games.daa.aisample`).

Source: seed 003 (牌套, 牌点大小, 取回) and shared/spec/rulings.md "daa". No I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from paiju.games.daa.combos import (
    KIND_RUN,
    POS_OF_POWER,
    POWER,
    POWER_OF_POS,
    Combo,
    classify,
    power_class,
    sort_cards,
)
from paiju.games.daa.deal import SEATS, hand_sizes
from paiju.rules.cards import Card
from paiju.rules.engine import Action

Play = tuple[Card, ...]

_CACHE: dict[tuple[tuple[Card, ...], Card], tuple[Play, ...]] = {}
_CACHE_MAX = 4096


def decompose(hand: Iterable[Card], big: Card) -> tuple[Play, ...]:
    """``hand`` split into few plays (each a combination, cards sorted in the
    game's order), in no particular order. ``big``: the big-A card (``"AH"``).

    Greedy: both big As as 双大A, one alone; jokers together (双王 …); each
    rank of 4+ cards whole (大蛋子, 真七, 真八); then, while one saves plays,
    the run (龙 / 双龙 / 连珠蛋) that absorbs the most ranks of exactly one /
    two / three cards; the rest by rank (单牌, 对儿, 蛋子)."""
    cards = tuple(sort_cards(hand))
    key = (cards, big)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    out = _decompose(cards, big)
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = out
    return out


def _decompose(cards: tuple[Card, ...], big: Card) -> tuple[Play, ...]:
    plays: list[Play] = []
    bigs = [c for c in cards if c == big]
    jokers = [c for c in cards if c[1] == "J"]
    if bigs:
        plays.append(tuple(bigs))
    if len(jokers) >= 2:
        plays.append(tuple(jokers))
    elif jokers:
        plays.append((jokers[0],))
    by_power: list[list[Card]] = [[] for _ in range(13)]
    for c in cards:
        if c != big and c[1] != "J":
            by_power[POWER[c[0]]].append(c)
    for p in range(13):
        if len(by_power[p]) >= 4:
            plays.append(tuple(by_power[p]))
            by_power[p] = []
    while True:
        best = _best_run(by_power)
        if best is None:
            break
        each, low, high = best
        taken: list[Card] = []
        for pos in range(low, high + 1):
            p = POWER_OF_POS[pos]
            taken += by_power[p][:each]
            del by_power[p][:each]
        plays.append(tuple(sort_cards(taken)))
    plays.extend(tuple(group) for group in by_power if group)
    return tuple(plays)


def _best_run(by_power: list[list[Card]]) -> tuple[int, int, int] | None:
    """The run saving the most plays: ``(cards per rank, low, high)`` in the
    natural sequence (A = 1 or 14), or None when none saves one."""
    counts = [len(by_power[POWER_OF_POS[pos]]) if pos else 0 for pos in range(15)]
    best: tuple[int, int, int, int] | None = None  # (gain, -cards, ...)
    best_run: tuple[int, int, int] | None = None
    for each in (1, 2, 3):
        longest = 13 if each == 1 else (12 if each == 2 else 7)
        for low in range(1, 13):
            exact = 0
            for high in range(low, min(low + longest, 15)):
                if high == 14 and low == 1:
                    break  # A once only
                c = counts[high]
                if c < each:
                    break
                exact += c == each
                if high - low >= 2:
                    gain = exact - 1
                    score = (gain, -(high - low + 1) * each, each, -low)
                    if gain > 0 and (best is None or score > best):
                        best, best_run = score, (each, low, high)
    return best_run


def combo_of(play: Sequence[Card], big: Card) -> Combo:
    """The combination of a play known to be one."""
    combo = classify(play, big)
    assert combo is not None, play
    return combo


def is_control(combo: Combo) -> bool:
    """A play kept for taking the lead: class 3 and above (大蛋子 …), a
    joker or the big A alone."""
    return power_class(combo) >= 3 or (combo[0] == 1 and combo[2] >= 13)


def lead_order(combo: Combo) -> tuple[int, int, int]:
    """Sort key of the plays to lead: weak first (controls last), then long
    class-1 runs before short plays, then low before high."""
    length = combo[1] if combo[0] in (KIND_RUN, KIND_RUN + 1) else 0
    return (is_control(combo), -length, combo[2] if combo[0] < 10 else 20 + combo[2])


def run_position(power: int) -> int:
    """The natural position of a power index (A high)."""
    return POS_OF_POWER[power]


@dataclass
class Record:
    """What the record shows every seat: per seat the cards it played
    (``played``), took back by 4s (``taken``) and holds for sure (``known``:
    taken back and not played again); ``table``: the cards played and not
    taken back; ``counts``: cards per seat now."""

    played: list[Counter[Card]] = field(default_factory=lambda: [Counter() for _ in range(SEATS)])
    taken: list[Counter[Card]] = field(default_factory=lambda: [Counter() for _ in range(SEATS)])
    known: list[Counter[Card]] = field(default_factory=lambda: [Counter() for _ in range(SEATS)])
    table: Counter[Card] = field(default_factory=Counter)
    declares: list[Action] = field(default_factory=list)


def read_record(history: Sequence[Action], first: int) -> Record:
    """Follow ``history`` (a seat's record: plays, passes, declares) from the
    deal of ``first``: who played what, and each 取回 (a play of n−1 4s on a
    standing n-of-a-kind takes those n cards back)."""
    rec = Record()
    counts = hand_sizes(first)
    standing: tuple[Card, ...] = ()
    standing_seat = -1
    take_back_standing = False
    passes = 0
    for a in history:
        if a.type == "declare":
            rec.declares.append(a)
            continue
        if a.type == "pass":
            passes += 1
            empty = sum(1 for c in counts if c == 0)
            need = 4 - empty + (counts[standing_seat] == 0)
            if passes >= need:
                standing, standing_seat, passes = (), -1, 0
            continue
        if a.type != "play" or a.seat is None:
            continue
        s, cards = a.seat, a.cards
        rec.played[s].update(cards)
        known = rec.known[s]
        for c in cards:
            if known[c]:
                known[c] -= 1
        counts[s] -= len(cards)
        n = len(standing)
        if (not take_back_standing and n >= 3 and len(cards) == n - 1
                and all(c[0] == "4" for c in cards)
                and all(c[0] == standing[0][0] and c[1] != "J" for c in standing)):
            rec.taken[s].update(standing)
            known.update(standing)
            counts[s] += n
            rec.table.subtract(standing)
            take_back_standing = True
        else:
            take_back_standing = False
        rec.table.update(cards)
        standing, standing_seat, passes = cards, s, 0
    rec.table = +rec.table
    return rec
