"""斗地主 AI players: ``normal`` (heuristics) and ``hard`` (normal + search).

Both decide from a :class:`~paiju.rules.ai.SeatView` only: the seat's hand,
the counts of cards, the bids, the kitty once shown (seed 002: 底牌亮出), the
trick and the public record (every play). Nothing here sees a real table's
:class:`~paiju.rules.engine.Game`.

- ``normal`` (:class:`NormalPlayer`): calls and robs by hand strength
  (:func:`~paiju.games.doudizhu.ai_play.bid_strength`), plays by the
  minimum-hands split and card counting (:mod:`paiju.games.doudizhu.ai_play`).
- ``hard`` (:class:`HardPlayer`): the normal bids; in play, determinized Monte
  Carlo (:class:`~paiju.rules.ai.MonteCarlo`) over a few candidate plays: the
  unseen cards are dealt again (:func:`sample_hands`: the kitty's cards still
  unplayed stay with the landlord, the rest at random by each seat's count),
  each candidate is played out with the normal policy at every seat on rank
  counts (:class:`Rollout`, no Game: about 1 ms a game), and the candidate
  whose side wins most often on the same deals is taken, if it wins more
  than the normal choice beyond chance (one-sided z 1.64), else the normal choice. CPU budget
  :data:`HARD_BUDGET_S` per decision.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from paiju.games.doudizhu import combos as dc
from paiju.games.doudizhu.ai_play import (
    CALL_AT,
    DECK_COUNTS,
    ROB_AT,
    Situation,
    Standing,
    bid_strength,
    cards_counts,
    choose,
    minus,
)
from paiju.games.doudizhu.ai_split import Counts, split
from paiju.games.doudizhu.game import Doudizhu
from paiju.rules.ai import MonteCarlo, PlayerFactory, SeatView
from paiju.rules.cards import deck
from paiju.rules.engine import Action, Game

#: CPU seconds of search per *hard* decision in play.
HARD_BUDGET_S = 0.1
#: The most candidate plays *hard* compares.
HARD_CANDIDATES = 6


# -- reading the view ------------------------------------------------------------------

def played_by(history: Sequence[Action]) -> list[list[str]]:
    """Every seat's cards played so far (public: each ``play`` of the record)."""
    out: list[list[str]] = [[], [], []]
    for a in history:
        if a.type == "play" and a.seat is not None:
            out[a.seat] += a.cards
    return out


def _standing(view: Mapping[str, Any], opts: Mapping[str, Any]) -> tuple[Standing | None, int]:
    """The play to beat and its seat, from the current trick (each play read
    as the engine reads it: a lead by the rulings' order, a follow as the
    highest reading that beats)."""
    standing: Standing | None = None
    seat = -1
    for e in view.get("trick") or ():
        if e.get("pass"):
            continue
        pc = cards_counts(e["cards"])
        rs = dc.readings(pc, opts["jokers_as_wings"], opts["pair_as_two_singles"])
        n = len(e["cards"])
        if standing is None:
            kind, main = dc.lead_reading(rs, n)
        else:
            st = standing
            kind, main = max((r for r in rs if dc.beats(r, n, st)), key=lambda r: r[1])
        standing, seat = (kind, n, main), e["seat"]
    return standing, seat


def _options(sv: SeatView) -> dict[str, bool]:
    return {"jokers_as_wings": bool(sv.options.get("jokers_as_wings", False)),
            "pair_as_two_singles": bool(sv.options.get("pair_as_two_singles", True))}


def situation(sv: SeatView) -> Situation:
    """The :class:`Situation` of ``sv`` (play phase: the landlord is known)."""
    view = sv.view
    hand = cards_counts(view["hand"])
    played = [0] * dc.NRANKS
    for cards in played_by(sv.history):
        for c in cards:
            played[dc.CARD_RANK[c]] += 1
    opts = _options(sv)
    standing, by = _standing(view, opts)
    sizes = tuple(view["hand_counts"])
    return Situation(sv.seat, view["landlord"], hand, (sizes[0], sizes[1], sizes[2]),
                     standing, by, minus(minus(DECK_COUNTS, hand), tuple(played)), **opts)


def action_of(sv: SeatView, play: Counts | None) -> Action:
    """The legal action of ``sv`` playing rank counts ``play`` (``None``: pass)."""
    for a in sv.legal:
        if play is None:
            if a.type == "pass":
                return a
        elif a.type == "play" and cards_counts(a.cards) == play:
            return a
    raise ValueError(f"no legal action plays {play!r}")


# -- normal --------------------------------------------------------------------------------

class NormalPlayer:
    """The *normal* level (see the module docstring). Deterministic: ``rng``
    is kept for the interface."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, sv: SeatView) -> Action:
        phase = sv.view["phase"]
        types = {a.type for a in sv.legal}
        if phase == "bidding" or "call" in types:
            yes = bid_strength(cards_counts(sv.view["hand"])) >= CALL_AT
            return action_of_type(sv, "call" if yes else "no_call")
        if phase == "robbing" or "rob" in types:
            yes = bid_strength(cards_counts(sv.view["hand"])) >= ROB_AT
            return action_of_type(sv, "rob" if yes else "no_rob")
        return action_of(sv, choose(situation(sv)))

    def declare(self, sv: SeatView) -> Action | None:
        return None  # doudizhu has no declaring window


def action_of_type(sv: SeatView, typ: str) -> Action:
    """The legal action of type ``typ``."""
    return next(a for a in sv.legal if a.type == typ)


# -- hard: sampling and rollouts --------------------------------------------------------------

def sample_hands(sv: SeatView, rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """Every seat's hand now and the kitty, consistent with what ``sv.seat``
    has seen: its own hand; the kitty's unplayed cards with the landlord once
    shown; the other unseen cards dealt at random to the others by their card
    counts (and to a hidden kitty before a landlord is known)."""
    view = sv.view
    me = sv.seat
    played = played_by(sv.history)
    gone = Counter(c for cards in played for c in cards)
    landlord = view.get("landlord")
    kitty = list(view["kitty"]) if view.get("kitty") else None
    hands: list[list[str]] = [[], [], []]
    hands[me] = list(view["hand"])
    known: set[str] = set(hands[me]) | set(gone)
    if kitty is not None and landlord is not None and landlord != me:
        hands[landlord] = [c for c in kitty if c not in gone]
        known |= set(kitty)
    pool = [c for c in deck(1) if c not in known]
    rng.shuffle(pool)
    sizes = view["hand_counts"]
    for s in range(3):
        if s == me:
            continue
        need = sizes[s] - len(hands[s])
        hands[s] += pool[:need]
        pool = pool[need:]
    bottom = kitty if kitty is not None else pool[:3]
    return hands, bottom


def determinize(sv: SeatView, rng: random.Random) -> Game:
    """A full game with ``sv.history`` applied in which ``sv.seat`` holds its
    own cards and the unseen ones are dealt by :func:`sample_hands` (the
    :data:`~paiju.rules.ai.Determinize` of doudizhu)."""
    hands, bottom = sample_hands(sv, rng)
    played = played_by(sv.history)
    landlord = sv.view.get("landlord")
    dealt: list[list[str]] = []
    for s in range(3):
        h = hands[s] + played[s]
        if s == landlord:
            h = [c for c in h if c not in bottom]
        dealt.append(dc.sort_cards(h))
    game = Doudizhu(sv.options, {"hands": dealt, "bottom": list(bottom),
                                 "first": sv.view["first"]})
    for a in sv.history:
        game.apply(a)
    return game


class Rollout:
    """A game played out on rank counts by the normal policy at every seat:
    the state of play (hands, who stands, whose turn)."""

    def __init__(self, hands: list[Counts], landlord: int, turn: int,
                 standing: Standing | None, standing_seat: int, passes: int,
                 opts: Mapping[str, bool]) -> None:
        self.hands = hands
        self.played = [0] * dc.NRANKS
        for r in range(dc.NRANKS):
            self.played[r] = DECK_COUNTS[r] - sum(h[r] for h in hands)
        self.landlord, self.turn = landlord, turn
        self.standing, self.standing_seat, self.passes = standing, standing_seat, passes
        self.opts = opts

    def step(self, play: Counts | None) -> int | None:
        """The seat to act plays ``play`` (``None``: pass); the winner once out."""
        seat = self.turn
        self.turn = (seat + 1) % 3
        if play is None:
            self.passes += 1
            if self.passes == 2:
                self.standing, self.passes = None, 0
                self.turn = self.standing_seat
            return None
        n = sum(play)
        rs = dc.readings(play, self.opts["jokers_as_wings"], self.opts["pair_as_two_singles"])
        st = self.standing
        if st is None:
            kind, main = dc.lead_reading(rs, n)
        else:
            kind, main = max((r for r in rs if dc.beats(r, n, st)), key=lambda r: r[1])
        self.standing, self.standing_seat, self.passes = (kind, n, main), seat, 0
        self.hands[seat] = minus(self.hands[seat], play)
        for r in range(dc.NRANKS):
            self.played[r] += play[r]
        return seat if not any(self.hands[seat]) else None

    def situation(self) -> Situation:
        seat = self.turn
        hand = self.hands[seat]
        unseen = tuple(DECK_COUNTS[r] - hand[r] - self.played[r] for r in range(dc.NRANKS))
        sizes = tuple(sum(h) for h in self.hands)
        return Situation(seat, self.landlord, hand, (sizes[0], sizes[1], sizes[2]),
                         self.standing, self.standing_seat, unseen, **self.opts)

    def finish(self, limit: int = 400) -> int:
        """Play to the end; the winning seat."""
        for _ in range(limit):
            won = self.step(choose(self.situation()))
            if won is not None:
                return won
        raise RuntimeError("a rollout did not end")


class HardPlayer(MonteCarlo):
    """The *hard* level: :class:`~paiju.rules.ai.MonteCarlo` with doudizhu's
    :func:`determinize`, its rollouts on rank counts (:class:`Rollout`) and
    its candidates from the normal policy (its choice, a pass, the split's
    groups or the cheapest follows), scored by the seat's side winning (WP)."""

    def __init__(self, rng: random.Random, budget_s: float = HARD_BUDGET_S) -> None:
        super().__init__(rng, NormalPlayer, determinize, budget_s=budget_s,
                         max_candidates=HARD_CANDIDATES)

    def decide(self, sv: SeatView) -> Action:
        own = self.policy.decide(sv)
        if sv.view["phase"] != "play" or len(sv.legal) <= 1:
            return own
        sit = situation(sv)
        candidates = self._candidates(sv, sit, own)
        if len(candidates) <= 1:
            return own
        # every candidate is played out on the same deals (common random numbers)
        diffs: list[list[int]] = [[] for _ in candidates]
        deadline = time.process_time() + self.budget_s
        while time.process_time() < deadline:
            hands = [cards_counts(h) for h in sample_hands(sv, self.rng)[0]]
            outcomes = [self._play_out(sv, sit, hands, c) for c in candidates]
            for k, won in enumerate(outcomes):
                diffs[k].append(won - outcomes[0])
        best = max(range(len(candidates)), key=lambda j: (sum(diffs[j]), j == 0))
        return action_of(sv, candidates[best] if _better(diffs[best]) else candidates[0])

    def _candidates(self, sv: SeatView, sit: Situation, own: Action) -> list[Counts | None]:
        mine: Counts | None = cards_counts(own.cards) if own.type == "play" else None
        out: list[Counts | None] = [mine]
        plays = [cards_counts(a.cards) for a in sv.legal if a.type == "play"]
        if sit.standing is not None:
            out.append(None)
            hand = sit.hand
            plays.sort(key=lambda c: split(minus(hand, c)).cost)
        else:
            groups = {g[2] for g in split(sit.hand).groups}
            plays = [c for c in plays if c in groups] + [c for c in plays if c not in groups]
        for c in plays:
            if len(out) >= self.max_candidates:
                break
            if c not in out:
                out.append(c)
        return [c for i, c in enumerate(out) if c not in out[:i]]

    def _play_out(self, sv: SeatView, sit: Situation, hands: list[Counts],
                  first: Counts | None) -> int:
        """1 when ``sv.seat``'s side wins the play-out of ``first`` from ``hands``, else 0."""
        r = Rollout(list(hands), sit.landlord, sv.seat, sit.standing,
                    sit.standing_seat, _passes(sv.view), _options(sv))
        won = r.step(first)
        if won is None:
            won = r.finish()
        mine = sv.seat == sit.landlord
        return int((won == sit.landlord) == mine)


def _better(diffs: list[int], z: float = 1.64) -> bool:
    """True when a candidate's wins over the normal choice on the same deals
    (``diffs``: +1, 0 or -1 each) are positive beyond chance (one-sided z)."""
    n = len(diffs)
    if n < 4:
        return False
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > 0 and mean * n ** 0.5 > z * max(var, 1e-9) ** 0.5


def _passes(view: Mapping[str, Any]) -> int:
    """Passes since the standing play in the current trick."""
    n = 0
    for e in view.get("trick") or ():
        n = n + 1 if e.get("pass") else 0
    return n


LEVELS: dict[str, PlayerFactory] = {"normal": NormalPlayer, "hard": HardPlayer}
