"""Parts shared by the AI players of the trick-taking games (混战, 升级).

- :func:`tricks_of`: the plays of a seat's history grouped into tricks;
- :func:`voids`: which seats showed out of which suit (a follower who played
  fewer cards of the led suit than the lead holds none of it: rulings.md
  "Following", the same in both games);
- :func:`declared_held`: the declared cards each seat still holds;
- :func:`deal_unseen`: the unseen cards dealt at random among places (other
  seats' hands, a hidden kitty) of given sizes, no card to a place that
  showed out of its suit;
- :func:`search`: the *hard* level's loop, determinized Monte Carlo with
  common samples: each sample (a full game consistent with the seat's view)
  is copied once per candidate, the candidate played and the game rolled out
  by a fast policy; the best average score wins, the first candidate (the
  normal level's choice) on ties.

Pure functions of their arguments (the random source given); no I/O.
"""

from __future__ import annotations

import math
import pickle
import random
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from paiju.rules.ai import SeatView
from paiju.rules.cards import Card
from paiju.rules.engine import Action, Game

#: A trick of the record: ``(seat, cards)`` per play, in order (1 to 4 plays).
Trick = list[tuple[int, tuple[Card, ...]]]


def tricks_of(history: Iterable[Action], seats: int = 4) -> list[Trick]:
    """The ``play`` actions of ``history`` grouped into tricks of ``seats``
    plays (the last one may be partial)."""
    out: list[Trick] = []
    for a in history:
        if a.type != "play" or a.seat is None:
            continue
        if not out or len(out[-1]) == seats:
            out.append([])
        out[-1].append((a.seat, a.cards))
    return out


def voids(tricks: Iterable[Trick], group: Mapping[Card, str], seats: int = 4) -> list[set[str]]:
    """Per seat, the groups (suits, or the trumps) it showed out of: it
    followed a lead with fewer cards of the led group than the lead had."""
    out: list[set[str]] = [set() for _ in range(seats)]
    for trick in tricks:
        lead = trick[0][1]
        g = group[lead[0]]
        for seat, cards in trick[1:]:
            if sum(1 for c in cards if group[c] == g) < len(lead):
                out[seat].add(g)
    return out


def declared_held(history: Iterable[Action], seats: int = 4) -> list[Counter[Card]]:
    """Per seat, the cards its declarations showed (叫主 / 亮主: each card as
    many times as one declaration showed it) that it has not played since:
    it holds them still."""
    shown: list[Counter[Card]] = [Counter() for _ in range(seats)]
    played: list[Counter[Card]] = [Counter() for _ in range(seats)]
    for a in history:
        if a.seat is None:
            continue
        if a.type == "declare":
            shown[a.seat] |= Counter(a.cards)
        elif a.type == "play":
            played[a.seat].update(a.cards)
    out = []
    for s in range(seats):
        left = Counter(shown[s])
        left.subtract(played[s])
        out.append(+left)
    return out


def deal_unseen(cards: Sequence[Card], sizes: Sequence[int], barred: Sequence[set[str]],
                group: Mapping[Card, str], rng: random.Random, tries: int = 30,
                caps: Sequence[Mapping[Card, int]] | None = None) -> list[list[Card]] | None:
    """``cards`` dealt at random into places of ``sizes`` (their sum is
    ``len(cards)``), no card of a group in ``barred[place]`` and, with
    ``caps``, no more copies of a card in a place than ``caps[place]`` allows
    (a card not listed: any number). The most constrained cards go first,
    each to an allowed place with probability proportional to its room
    left; None when ``tries`` attempts all fail (the constraints may leave
    no deal)."""
    n = len(sizes)
    limits = caps or [{} for _ in range(n)]
    allowed = {c: [p for p in range(n) if group[c] not in barred[p] and limits[p].get(c, 1) > 0]
               for c in set(cards)}
    for _ in range(tries):
        pool = list(cards)
        rng.shuffle(pool)
        pool.sort(key=lambda c: len(allowed[c]))
        room = list(sizes)
        out: list[list[Card]] = [[] for _ in range(n)]
        got: list[Counter[Card]] = [Counter() for _ in range(n)]
        for c in pool:
            places = [p for p in allowed[c]
                      if room[p] > 0 and got[p][c] < limits[p].get(c, 99)]
            if not places:
                break
            total = sum(room[p] for p in places)
            r = rng.randrange(total)
            for p in places:
                r -= room[p]
                if r < 0:
                    break
            out[p].append(c)
            got[p][c] += 1
            room[p] -= 1
        else:
            return out
    return None


def cap(caps: dict[Card, int], card: Card, most: int) -> None:
    """Lower ``caps[card]`` (no entry: no limit) to ``most``."""
    caps[card] = min(caps.get(card, most), most)


def search(candidates: Sequence[Action], sample: Callable[[], Game | None],
           rollout: Callable[[Game, Action], float], budget_s: float,
           rounds: int | None = None, margin: float = 0.0, z: float = 0.0) -> Action:
    """The candidate with the best average rollout score over samples.

    Each round takes a ``sample`` (a game at the seat's decision; None when
    none could be made) and, for every candidate, a copy of it on which
    ``rollout`` plays the candidate and scores the outcome for the seat.
    Rounds run until ``budget_s`` seconds of CPU time are spent (at least
    one round is tried); with ``rounds``, exactly that many samples are
    drawn whatever the time (the choice is then a function of the random
    source). The first candidate (the normal level's choice) is kept unless
    another's average beats its own by more than ``margin`` and, with ``z``
    above 0, the mean of their paired differences (the same samples) is
    more than ``z`` standard errors above 0; and where no round completed."""
    if len(candidates) <= 1:
        return candidates[0]
    totals = [0.0] * len(candidates)
    squares = [0.0] * len(candidates)  # of the differences to the first candidate
    done = drawn = 0
    timed = rounds is None
    deadline = time.process_time() + budget_s
    while True:
        game = sample()
        drawn += 1
        if game is not None:
            blob = pickle.dumps(game, pickle.HIGHEST_PROTOCOL)
            scores = []
            for cand in candidates:
                scores.append(rollout(pickle.loads(blob), cand))
                if timed and done and time.process_time() > deadline:
                    break
            else:
                for k, s in enumerate(scores):
                    totals[k] += s
                    squares[k] += (s - scores[0]) ** 2
                done += 1
        if (drawn >= rounds) if rounds is not None else time.process_time() > deadline:
            break
    if not done:
        return candidates[0]
    best = max(range(len(candidates)), key=lambda k: (totals[k], k == 0))
    gain = (totals[best] - totals[0]) / done
    if best == 0 or gain <= margin:
        return candidates[0]
    if z > 0:
        spread = squares[best] / done - gain * gain
        if done < 2 or gain * gain * (done - 1) <= z * z * max(spread, 0.0):
            return candidates[0]
    return candidates[best]


class RankingPlayer(Protocol):
    """A trick game's normal level as the hard level uses it: a player that
    also ranks the seat's legal plays, best first."""

    def decide(self, sv: SeatView) -> Action: ...

    def declare(self, sv: SeatView) -> Action | None: ...

    def ranked(self, sv: SeatView) -> list[Action]: ...


class SearchingPlayer(ABC):
    """The ``hard`` level of a trick game: :func:`search` over the normal
    level's best ``max_candidates`` plays within ``budget_s`` CPU seconds
    (``rounds``: that many samples instead, the choice then a function of
    ``rng``); rollouts play ``horizon`` tricks past the current one (None:
    to the end of the game). ``margin`` and ``z``: what another candidate
    must beat the normal choice by (:func:`search`). Declaring (and 升级's
    bury) are the normal level's. A game gives its normal level, its
    sampler and how a rollout plays and scores."""

    def __init__(self, rng: random.Random, normal: RankingPlayer, *, budget_s: float,
                 max_candidates: int, horizon: int | None, rounds: int | None,
                 margin: float, z: float = 0.0) -> None:
        self.rng, self.normal = rng, normal
        self.budget_s, self.max_candidates, self.horizon = budget_s, max_candidates, horizon
        self.rounds, self.margin, self.z = rounds, margin, z

    def declare(self, sv: SeatView) -> Action | None:
        return self.normal.declare(sv)

    def searches(self, sv: SeatView) -> bool:
        """Whether this decision is searched (default: any with a choice)."""
        return len(sv.legal) > 1

    def stop(self, trick: int) -> float:
        """The trick number at which a rollout from trick number ``trick``
        stops (``horizon`` tricks past it; infinite without a horizon)."""
        return math.inf if self.horizon is None else trick + 1 + self.horizon

    @abstractmethod
    def sample(self, sv: SeatView) -> Game | None:
        """A game at the seat's decision with the unseen cards dealt anew."""

    @abstractmethod
    def rollout(self, sv: SeatView) -> Callable[[Game, Action], float]:
        """What plays a candidate on a sample and the next ``horizon``
        tricks, and scores the outcome for ``sv.seat``."""

    def decide(self, sv: SeatView) -> Action:
        if not self.searches(sv):
            return self.normal.decide(sv)
        candidates = self.normal.ranked(sv)[: self.max_candidates]
        return search(candidates, lambda: self.sample(sv), self.rollout(sv), self.budget_s,
                      self.rounds, self.margin, self.z)
