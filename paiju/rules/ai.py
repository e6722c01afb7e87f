"""AI players: the interface every game's AI implements, and what is shared.

An AI player decides from its seat's view only: what a human in that seat
sees. It is given a :class:`SeatView` (the seat's ``view`` as the table sends
it, the seat's legal actions now, and the record's actions so far as the
seat saw them) and answers an :class:`~paiju.rules.engine.Action`. It never
gets a :class:`~paiju.rules.engine.Game`: the engine holds every seat's cards.

Each game's package may have an ``ai`` module with ``LEVELS``, a mapping of
level name (``normal``, ``hard``) to a factory ``(random.Random) -> Player``;
:func:`make_player` finds it. The ``random`` level (uniformly random legal
play, the baseline of ``bench/ai.py``) exists for every game.

:class:`MonteCarlo` is the shared *hard* level: determinized Monte Carlo
(sample the unseen cards consistently with everything the seat has seen, play
each candidate out with a game's policy, keep the best average), given a
game's ``determinize`` function and a CPU budget per decision.

:func:`play_game` plays one deal to its end with one player per seat (the
benches' and tests' driver); it hands each player only its :func:`seat_view`.

This module does no I/O.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from paiju.rules import load
from paiju.rules.engine import Action, Game

#: Levels every game has without an ``ai`` module of its own.
BUILT_IN_LEVELS = ("random",)

#: Action types whose cards only their own seat sees (records.md: 升级's
#: ``bury`` puts the kitty face down). Other seats see the action without cards.
PRIVATE_ACTIONS = frozenset({"bury"})

#: Safety net for :func:`play_game`: no game of paiju takes this many actions.
MAX_ACTIONS = 5000


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat knows at a decision.

    ``view``: the seat's view as the table sends it (``Game.view(seat)``);
    ``legal``: the seat's legal actions now (empty in a declaring window when
    it has nothing to declare); ``history``: the record's actions so far, in
    order, as the seat saw them (:func:`public_action`); ``options``: the
    room's game options."""

    game: str
    options: Mapping[str, Any]
    seat: int
    view: Mapping[str, Any]
    legal: tuple[Action, ...]
    history: tuple[Action, ...]

    @property
    def my_turn(self) -> bool:
        """True when the table waits for this seat (not a declaring window)."""
        return self.seat in (self.view.get("to_act") or ())


class Player(Protocol):
    """An AI player of one game, at one seat."""

    def decide(self, sv: SeatView) -> Action:
        """The action to take when it is this seat's turn (one of
        ``sv.legal``)."""
        ...

    def declare(self, sv: SeatView) -> Action | None:
        """In a declaring window (叫主, no turns: rulings.md), a declaration
        from ``sv.legal`` to make now, or ``None`` to wait."""
        ...


def public_action(action: Action, seat: int) -> Action:
    """``action`` as ``seat`` saw it: another seat's private action
    (:data:`PRIVATE_ACTIONS`) without its cards."""
    if action.type in PRIVATE_ACTIONS and action.seat != seat and action.cards:
        return Action(action.seat, action.type, (), action.dealt)
    return action


def seat_view(game: Game, name: str, options: Mapping[str, Any], seat: int,
              history: Sequence[Action]) -> SeatView:
    """The :class:`SeatView` of ``seat`` in ``game`` (of game ``name``) whose
    record so far is ``history`` (the actions applied, unmasked)."""
    legal = tuple(game.legal_actions(seat)) if not game.finished else ()
    return SeatView(name, dict(options), seat, game.view(seat), legal,
                    tuple(public_action(a, seat) for a in history))


class RandomPlayer:
    """Uniformly random legal play; declares with probability ``declare_p``
    when it can."""

    def __init__(self, rng: random.Random, declare_p: float = 0.3) -> None:
        self.rng, self.declare_p = rng, declare_p

    def decide(self, sv: SeatView) -> Action:
        return self.rng.choice(sv.legal)

    def declare(self, sv: SeatView) -> Action | None:
        if sv.legal and self.rng.random() < self.declare_p:
            return self.rng.choice(sv.legal)
        return None


PlayerFactory = Callable[[random.Random], Player]


def levels(game: str) -> dict[str, PlayerFactory]:
    """The AI levels of ``game``: ``random`` and those of its package's ``ai``
    module (``LEVELS``). ``KeyError`` for an unknown game."""
    load(game)
    out: dict[str, PlayerFactory] = {"random": RandomPlayer}
    try:
        module = importlib.import_module(f"paiju.games.{game}.ai")
    except ModuleNotFoundError as e:
        if e.name != f"paiju.games.{game}.ai":
            raise
        return out
    out.update(getattr(module, "LEVELS", {}))
    return out


def make_player(game: str, level: str, rng: random.Random) -> Player:
    """A player of ``game`` at ``level``; ``KeyError`` for an unknown game or
    level."""
    return levels(game)[level](rng)


def play_game(name: str, options: Mapping[str, Any], deal: Mapping[str, Any],
              players: Sequence[Player]) -> tuple[Game, list[Action]]:
    """Play ``deal`` to its end, ``players[s]`` at seat ``s``; returns the
    finished game and its actions.

    On a turn, the seat to act decides. In a declaring window each seat in
    turn may declare; when a whole round passes without a declaration the
    window is closed (``end_declare``), as the table closes it when the deal
    ends. Raises ``RulesError`` for an illegal action (a player's defect) and
    ``RuntimeError`` past :data:`MAX_ACTIONS`."""
    game = load(name)(options, deal)
    history: list[Action] = []

    def step(action: Action) -> None:
        game.apply(action)
        history.append(action)

    while not game.finished:
        if len(history) >= MAX_ACTIONS:
            raise RuntimeError(f"{name} did not end in {MAX_ACTIONS} actions")
        seats = game.to_act()
        if seats:
            seat = seats[0]
            step(players[seat].decide(seat_view(game, name, options, seat, history)))
            continue
        for seat in range(game.seats):
            sv = seat_view(game, name, options, seat, history)
            choice = players[seat].declare(sv) if sv.legal else None
            if choice is not None:
                step(choice)
                break
        else:
            step(Action(None, "end_declare"))
    return game, history


Determinize = Callable[[SeatView, random.Random], Game]
"""A game's sampler for :class:`MonteCarlo`: a full game, with the record of
``sv.history`` applied, in which ``sv.seat`` holds its own cards and every
card it has not seen is dealt at random among the places it could be
(another seat's hand, a hidden kitty), consistently with everything public
(e.g. a seat that could not follow a suit holds none of it)."""


class MonteCarlo:
    """Determinized Monte Carlo over a game's policy (the *hard* level).

    For each candidate action (the policy's own choice and the others of
    ``sv.legal``, at most ``max_candidates``), deals the unseen cards again
    (``determinize``), plays the candidate and then the rest of the game with
    ``policy`` at every seat, and scores the seat's points (``Game.result``).
    Candidates are sampled in turn until ``budget_s`` of CPU time is spent;
    the best average wins, the policy's choice on ties. ``score`` may map a
    finished game and the seat to the number to maximise (default: the seat's
    points)."""

    def __init__(self, rng: random.Random, policy: PlayerFactory, determinize: Determinize,
                 *, budget_s: float = 0.15, max_candidates: int = 12,
                 score: Callable[[Game, int], float] | None = None) -> None:
        self.rng, self.determinize = rng, determinize
        self.policy = policy(rng)
        self.rollout_policy = policy
        self.budget_s, self.max_candidates = budget_s, max_candidates
        self.score = score or (lambda game, seat: float(game.result().points[seat]))

    def declare(self, sv: SeatView) -> Action | None:
        return self.policy.declare(sv)

    def decide(self, sv: SeatView) -> Action:
        own = self.policy.decide(sv)
        if len(sv.legal) <= 1:
            return own
        others = [a for a in sv.legal if a != own]
        self.rng.shuffle(others)
        candidates = [own, *others[: self.max_candidates - 1]]
        totals = [0.0] * len(candidates)
        counts = [0] * len(candidates)
        deadline = time.process_time() + self.budget_s
        i = 0
        while time.process_time() < deadline:
            k = i % len(candidates)
            totals[k] += self._rollout(sv, candidates[k])
            counts[k] += 1
            i += 1
        best = max(range(len(candidates)),
                   key=lambda j: (totals[j] / counts[j] if counts[j] else float("-inf"), j == 0))
        return candidates[best]

    def _rollout(self, sv: SeatView, first: Action) -> float:
        game = self.determinize(sv, self.rng)
        history = list(sv.history)
        game.apply(first)
        history.append(first)
        players = [self.rollout_policy(self.rng) for _ in range(game.seats)]
        while not game.finished:
            seats = game.to_act()
            if not seats:
                game.apply(Action(None, "end_declare"))
                history.append(Action(None, "end_declare"))
                continue
            seat = seats[0]
            action = players[seat].decide(seat_view(game, sv.game, sv.options, seat, history))
            game.apply(action)
            history.append(action)
        return self.score(game, sv.seat)
