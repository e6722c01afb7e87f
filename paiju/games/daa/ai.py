"""大A (daa) AI players: ``LEVELS`` for :func:`paiju.rules.ai.make_player`.

- ``normal`` (:class:`NormalPlayer`): the heuristic policy of
  :mod:`paiju.games.daa.aipolicy` on what the seat knows: its hand, the sides
  it can tell (:func:`paiju.games.daa.aisample.sides`), the card counter from
  the record; declares (亮大A / 反大A) a strong hand and reveals (亮明) as 次方
  when close to out (the side's win doubles, rulings.md "daa").
- ``hard`` (:class:`HardPlayer`): determinized Monte Carlo over a few
  candidates (the normal choice, the other plays of the hand's split when
  leading, pass and the cheapest plays that beat when following, 亮明):
  each sample deals the unseen cards again
  (:func:`paiju.games.daa.aisample.determinize`), plays every candidate and
  the rest of the game with the policy at every seat on the sampled game
  (:func:`rollout`), and scores the seat's points; the best average wins
  within a CPU budget per decision.

No I/O.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from paiju.games.daa.aihand import combo_of, decompose, read_record
from paiju.games.daa.aipolicy import Situation, follow, hand_strength, lead, whole_hand
from paiju.games.daa.aisample import big_card, determinize, sides, unseen
from paiju.games.daa.combos import KIND_TAKE_BACK, Combo, classify, power_class
from paiju.games.daa.deal import SEATS
from paiju.games.daa.game import Daa
from paiju.games.daa.moves import generate
from paiju.rules.ai import PlayerFactory, SeatView
from paiju.rules.engine import Action, Game

#: Declare (亮大A) one A when the hand splits into at most this many plays
#: beyond its controls (measured against random play: 4 wins 79 % of the
#: deals, 8 91.5 %, 11 92 %, as many as always declaring).
DECLARE_PLAYS = 11
#: 反大A (or keep both big As by declaring one) only with a hand this close
#: to out: the solo must go out first of all five.
SOLO_PLAYS = 5
#: The hidden 次方 reveals (亮明) with this many plays left or fewer.
REVEAL_PLAYS = 4
#: The hard level searches once the five hands hold this many cards or fewer.
SEARCH_CARDS = 85


def situation(sv: SeatView) -> Situation:
    """The policy's :class:`~paiju.games.daa.aipolicy.Situation` of a seat view."""
    view = sv.view
    rec = read_record(sv.history, view["first"])
    partners, opponents = sides(view, rec)
    standing = view.get("standing")
    big = big_card(view)
    cards = tuple(standing["cards"]) if standing else ()
    return Situation(
        seat=sv.seat, hand=Counter(view["hand"]), big=big,
        standing=_combo(cards, big, view), standing_seat=standing["seat"] if standing else -1,
        standing_cards=cards, counts=view["hand_counts"], partners=partners,
        opponents=opponents, unseen=unseen(view, rec))


def _combo(cards: tuple[str, ...], big: str, view: Mapping[str, Any]) -> Combo | None:
    """The standing play's combination; a standing 取回 (4s on an
    n-of-a-kind) is the take-back marker the engine keeps."""
    if not cards:
        return None
    trick = view.get("trick") or []
    if trick and trick[-1].get("type") == "taken_back":
        taken = combo_of(trick[-1]["cards"], big)
        return (KIND_TAKE_BACK, len(cards), power_class(taken))
    return classify(cards, big)


def _find(sv: SeatView, cards: tuple[str, ...] | None) -> Action | None:
    for a in sv.legal:
        if cards is None:
            if a.type == "pass":
                return a
        elif a.type == "play" and a.cards == cards:
            return a
    return None


class NormalPlayer:
    """The heuristic 大A player (module docstring)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, sv: SeatView) -> Action:
        sit = situation(sv)
        reveal = next((a for a in sv.legal if a.type == "reveal"), None)
        if reveal is not None and self._reveals(sit, sv):
            return reveal
        if sit.standing is None:
            choice = _find(sv, lead(sit))
        else:
            beaters = [a.cards for a in sv.legal if a.type == "play"]
            choice = _find(sv, follow(sit, beaters))
        if choice is not None:
            return choice
        plays = [a for a in sv.legal if a.type in ("play", "pass")]
        return next((a for a in plays if a.type == "pass"), plays[0])

    def _reveals(self, sit: Situation, sv: SeatView) -> bool:
        """亮明 as 次方 when close to out; a declaring solo (before the first
        play) when its hand is a solo's."""
        plays = len(decompose(sit.hand.elements(), sit.big))
        if sit.hand[sit.big] >= 2:
            return plays <= SOLO_PLAYS
        return plays <= REVEAL_PLAYS

    def declare(self, sv: SeatView) -> Action | None:
        """亮大A with a strong hand (few plays of its split with that A big);
        反大A, or 亮 with both As of a suit, only with a solo's hand."""
        hand = sv.view["hand"]
        best: tuple[int, Action] | None = None
        for a in sv.legal:
            suit_card = a.cards[0]
            plays, controls = hand_strength(hand, suit_card)
            both = Counter(hand)[suit_card] >= 2
            limit = SOLO_PLAYS if (both or len(a.cards) == 2) else DECLARE_PLAYS
            score = plays - controls
            if score <= limit and (best is None or score < best[0]):
                best = (score, a)
        return best[1] if best else None


# -- rollouts on a full game (the hard level) ------------------------------------

def game_situation(game: Daa, seat: int) -> Situation:
    """The policy's situation of ``seat`` in a full (sampled) game: its true
    sides; no card counter."""
    team = game.team()
    others = frozenset(s for s in range(SEATS) if s != seat)
    if seat in team:
        partners = frozenset(team) - {seat}
        opponents = others - partners
    else:
        opponents = frozenset(team)
        partners = others - opponents
    return Situation(
        seat=seat, hand=game.hands[seat], big=game.big_card, standing=game.standing,
        standing_seat=game.standing_seat, standing_cards=game.standing_cards,
        counts=[sum(h.values()) for h in game.hands], partners=partners,
        opponents=opponents, unseen=None)


def policy_action(game: Daa, seat: int) -> Action:
    """The policy's action for ``seat`` to act in ``game``."""
    sit = game_situation(game, seat)
    if sit.standing is None:
        return Action(seat, "play", lead(sit))
    cards = follow(sit, generate(game.hand_info(seat), game.standing))
    return Action(seat, "pass") if cards is None else Action(seat, "play", cards)


def rollout(game: Game, seat: int) -> float:
    """Play ``game`` to its end with the policy at every seat; ``seat``'s points."""
    assert isinstance(game, Daa)
    while not game.finished:
        game.apply(policy_action(game, game.turn))
    return float(game.result().points[seat])


class HardPlayer:
    """Determinized Monte Carlo over the normal policy (module docstring).
    ``budget_s``: CPU seconds per decision (a sample of every candidate is
    completed or dropped within it); ``max_samples``: samples at most (a
    count instead of the clock makes a decision depend only on the seed);
    ``search_cards``: search only once the hands hold this many cards or
    fewer in all (the normal choice before: a long rollout is slow and noisy)."""

    def __init__(self, rng: random.Random, budget_s: float = 0.15, max_candidates: int = 5,
                 max_samples: int = 1000, search_cards: int = SEARCH_CARDS) -> None:
        self.rng = rng
        self.normal = NormalPlayer(rng)
        self.budget_s = budget_s
        self.max_candidates = max_candidates
        self.max_samples = max_samples
        self.search_cards = search_cards

    def declare(self, sv: SeatView) -> Action | None:
        return self.normal.declare(sv)

    def decide(self, sv: SeatView) -> Action:
        own = self.normal.decide(sv)
        if sum(sv.view["hand_counts"]) > self.search_cards:
            return own
        candidates = self._candidates(sv, own)
        if len(candidates) <= 1:
            return own
        totals = [0.0] * len(candidates)
        samples = 0
        deadline = time.process_time() + self.budget_s
        while samples < self.max_samples:
            seed = self.rng.random()
            scores = []
            for action in candidates:
                if time.process_time() >= deadline:
                    break
                world = determinize(sv, random.Random(seed))
                world.apply(action)
                scores.append(rollout(world, sv.seat))
            if len(scores) < len(candidates):
                break
            totals = [t + x for t, x in zip(totals, scores, strict=True)]
            samples += 1
        if not samples:
            return own
        best = max(range(len(candidates)), key=lambda j: (totals[j], j == 0))
        return candidates[best]

    def _candidates(self, sv: SeatView, own: Action) -> list[Action]:
        """The normal choice first, then the alternatives worth a rollout."""
        if own.type == "play" and whole_hand(situation(sv)) == own.cards:
            return [own]
        out = [own]
        sit = situation(sv)
        if sit.standing is None:
            for p in sorted(decompose(sit.hand.elements(), sit.big),
                            key=lambda p: combo_of(p, sit.big)):
                a = _find(sv, p)
                if a is not None and a not in out:
                    out.append(a)
        else:
            plays = [a for a in sv.legal if a.type == "play"]
            plays.sort(key=lambda a: classify(a.cards, sit.big) or (0, 0, 0))
            for a in [*(x for x in sv.legal if x.type == "pass"), *plays[:3]]:
                if a not in out:
                    out.append(a)
        out = out[: self.max_candidates]
        reveal = next((a for a in sv.legal if a.type == "reveal"), None)
        if reveal is not None and reveal not in out:
            out.append(reveal)
        return out


def _normal(rng: random.Random) -> NormalPlayer:
    return NormalPlayer(rng)


def _hard(rng: random.Random) -> HardPlayer:
    return HardPlayer(rng)


LEVELS: dict[str, PlayerFactory] = {"normal": _normal, "hard": _hard}
