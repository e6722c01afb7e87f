"""A game's timed steps: what the rules do as time passes, not at a player's
action. No I/O; times are unix seconds passed in.

Two steps exist (rulings.md "Shared by all games"; docs/table.md "Behaviour"):

- **The paced deal.** A deal with ``order`` (the declaring games: hunzhan,
  shengji, daa) is given a few cards at a time, card ``i`` to seat
  ``(first + i) % seats``: steps of ``step`` cards (a round, one card to each
  seat; 1 for a sitting logged before rounds), card ``i`` due ``i *
  deal_interval_ms`` after the start, a step's cards together at the time of
  its first. A card the rules hold back face down (daa: each seat's last
  card, ``Game.held_back_positions``) is counted as dealt but shown to
  nobody. While cards arrive a seat's hand is the cards dealt to it so far.
- **The declaring window (叫主).** From the deal's first card until
  ``window_seconds`` after its last, any seat may ``declare`` out of turn
  with cards it holds so far; then the window closes with the system's
  ``end_declare``. A deal given at once (doudizhu) has neither.

A table asks :meth:`TimedSteps.next_time` ("what is due when?") and, once it
has passed, :meth:`TimedSteps.fire` gives the step: cards dealt (the public
``dealing`` event's data) or a system action for the engine. The state keeps
what is needed to send only what changed: which seats' hands may have
changed, and each seat's declare options as last sent.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paiju.rules.engine import Action, Game


@dataclass(frozen=True)
class DealPlan:
    """The order a deal's cards are given in.

    ``order`` is ``None`` for a deal given at once. ``total`` is the number of
    cards dealt one at a time (0 when at once). ``held_back``: the positions in
    ``order`` of cards dealt face down (the engine's ``held_back_positions``).
    """

    seats: int
    first: int
    order: tuple[str, ...] | None
    held_back: frozenset[int] = frozenset()

    @classmethod
    def of(cls, deal: Mapping[str, Any], seats: int,
           held_back: frozenset[int] = frozenset()) -> DealPlan:
        """The plan of a record's ``deal``; ``held_back`` as the engine gives it."""
        order = deal.get("order")
        return cls(seats, int(deal.get("first", 0)),
                   tuple(order) if order is not None else None, frozenset(held_back))

    @property
    def paced(self) -> bool:
        """True where cards are dealt one at a time (a declaring game)."""
        return self.order is not None

    @property
    def total(self) -> int:
        """Cards dealt one at a time."""
        return len(self.order) if self.order is not None else 0

    def seat_of(self, i: int) -> int:
        """The seat that gets card ``i`` (0-based) of ``order``."""
        return (self.first + i) % self.seats

    def cards(self, seat: int, k: int) -> list[str]:
        """The cards ``seat`` holds face up after the first ``k`` cards were dealt
        (a held-back card is not among them)."""
        assert self.order is not None
        start = (seat - self.first) % self.seats
        end = min(k, len(self.order))
        if not self.held_back:
            return list(self.order[start:end:self.seats])
        return [self.order[i] for i in range(start, end, self.seats)
                if i not in self.held_back]

    def counts(self, k: int) -> list[int]:
        """Cards per seat after the first ``k`` were dealt (held-back ones included:
        they lie face down before their seat)."""
        return [len(range((s - self.first) % self.seats, min(k, self.total), self.seats))
                for s in range(self.seats)]


@dataclass(frozen=True)
class Step:
    """What came due: ``dealt``, the public ``dealing`` event's data
    (``cards_dealt_per_seat``, ``dealt``, ``total``, ``done``), or ``action``,
    a system action the engine applies (``end_declare``)."""

    dealt: dict[str, Any] | None = None
    action: Action | None = None


class TimedSteps:
    """The paced deal and the declaring window of one game (module docstring).

    ``engine``: the game the steps belong to (asked for its declares and, once
    the deal is done, its hands); ``deal``: the record's deal;
    ``deal_interval_ms``: the pace (ms per card); ``window_seconds``: the
    declaring window after the last card; ``step``: cards per step (≥ 1,
    else ``ValueError``)."""

    def __init__(self, engine: Game, deal: Mapping[str, Any], started_at: float,
                 deal_interval_ms: float, window_seconds: float, step: int = 1) -> None:
        if step < 1:
            raise ValueError(f"a deal step is at least one card, not {step}")
        self.engine = engine
        self.plan = DealPlan.of(deal, engine.seats, engine.held_back_positions())
        self.started_at = started_at
        self.interval = deal_interval_ms / 1000.0
        self.grace = window_seconds
        self.step = step
        #: Cards dealt so far: always a multiple of ``step``, or the whole deal.
        self.dealt = 0
        #: When the last card was dealt (the start for a deal given at once).
        self.done_at: float | None = None if self.plan.paced else started_at
        self._window_open = self.plan.paced
        #: The game ended: nothing is due any more.
        self._over = False
        seat_range = range(self.plan.seats)
        #: Cards each seat was dealt so far.
        self._held: list[Counter[str]] = [Counter() for _ in seat_range]
        #: Seats whose hand may have changed since it was last compared with
        #: what was sent (during the deal only the seats dealt to).
        self._hand_dirty: set[int] = set(seat_range)
        #: The engine's declare options per seat (the whole hand), and the cards
        #: they use; None once the engine moved (recomputed at the next use).
        self._declare_full: list[list[tuple[str, ...]]] | None = None
        self._declare_cards: list[frozenset[str]] = []
        #: Seats whose declare options may have changed since last sent.
        self._declare_dirty: set[int] = set(seat_range)
        #: The declare options last sent to each seat.
        self.sent_declare: dict[int, list[list[str]]] = {}

    # -- reading -------------------------------------------------------------------

    @property
    def dealing(self) -> bool:
        """True while cards are still to be dealt one at a time."""
        return self.plan.paced and self.dealt < self.plan.total and not self._over

    @property
    def out_of_turn(self) -> bool:
        """May a seat act when it is not its turn (the declaring window is open)?"""
        return self._window_open

    def card_time(self, i: int) -> float:
        """When card ``i`` is due (unix seconds); a step comes at its first card's."""
        return self.started_at + i * self.interval

    def window_end(self) -> float | None:
        """The declaring window's end while it is open after the deal, else None."""
        if self._window_open and self.done_at is not None:
            return self.done_at + self.grace
        return None

    def next_time(self) -> float | None:
        """When the next step is due: the next card's time, else the window's
        end, else None."""
        if self.dealing:
            return self.card_time(self.dealt)
        return self.window_end()

    def hand(self, seat: int) -> list[str]:
        """The cards ``seat`` holds now, sorted while dealing, else the engine's."""
        if self.dealing:
            return sorted(self.plan.cards(seat, self.dealt))
        hand = self.engine.view(seat).get("hand")
        return list(hand) if isinstance(hand, list) else []

    def counts(self) -> list[int]:
        """Cards per seat dealt so far (held-back ones included)."""
        return self.plan.counts(self.dealt)

    def view_fields(self) -> dict[str, Any]:
        """What a view shows of the steps: ``dealing`` (``{dealt, total,
        done}``) and ``declaring_until`` (the window's end, unix ms, or None)."""
        end = self.window_end()
        return {"dealing": {"dealt": self.dealt, "total": self.plan.total,
                            "done": self.dealt >= self.plan.total},
                "declaring_until": round(end * 1000) if end is not None else None}

    def allowed(self, seat: int, actions: list[Action]) -> list[Action]:
        """``actions`` less the declares ``seat`` cannot make with the cards it
        holds so far (all of them outside the window)."""
        if not self._window_open:
            return actions
        return [a for a in actions if a.type != "declare" or self._holds(seat, a.cards)]

    def _holds(self, seat: int, cards: Sequence[str]) -> bool:
        held = self._held[seat] if self.dealing else Counter(self.hand(seat))
        return all(held[c] >= n for c, n in Counter(cards).items())

    def stamped(self, action: Action) -> Action:
        """``action`` with the cards dealt so far when it is a declare made
        during the deal (records.md ``dealt``)."""
        if action.type == "declare" and self.dealing:
            return Action(action.seat, action.type, action.cards, self.dealt)
        return action

    # -- moving --------------------------------------------------------------------

    def fire(self, t: float, until: float) -> Step:
        """The step due at ``t`` (:meth:`next_time`): every card due by
        ``until`` (at least one step), or the window's end."""
        if self.dealing:
            return Step(dealt=self._deal_until(until))
        self._window_open = False
        return Step(action=Action(None, "end_declare"))

    def _deal_until(self, t: float) -> dict[str, Any]:
        total = self.plan.total
        if self.interval <= 0:
            k = total
        else:
            due = math.floor((t - self.started_at) / self.interval + 1e-9) + 1
            # The whole step of the last card due (it comes at its first card's time).
            k = min(total, -(-due // self.step) * self.step)
        k = max(k, min(total, self.dealt + self.step))
        order = self.plan.order
        assert order is not None
        known = self._declare_full is not None
        for i in range(self.dealt, k):
            seat, card = self.plan.seat_of(i), order[i]
            self._held[seat][card] += 1
            self._hand_dirty.add(seat)
            # A card no declare option of the seat uses cannot change its options.
            if known and card in self._declare_cards[seat]:
                self._declare_dirty.add(seat)
        self.dealt = k
        done = k >= total
        if done:
            self.done_at = t
            # Hands are the engine's from now on (possibly in another order).
            self._hand_dirty.update(range(self.plan.seats))
            self._declare_dirty.update(range(self.plan.seats))
        return {"cards_dealt_per_seat": self.plan.counts(k), "dealt": k,
                "total": total, "done": done}

    def moved(self, action: Action) -> None:
        """The engine applied ``action``: every seat's declare options may
        change; ``end_declare`` closes the window."""
        self._declare_full = None
        if action.type == "end_declare":
            self._window_open = False

    def close(self) -> None:
        """No step is due any more (the game ended)."""
        self._window_open = False
        self._over = True

    def went_on(self, stopped_at: float, now: float, floor: float) -> None:
        """The game stood still from ``stopped_at`` to ``now``: the deal goes on
        with the card it was at, at its pace; the window with the time it had
        left, at least ``floor`` seconds (at most the whole window)."""
        if self.dealing:
            self.started_at += max(0.0, now - stopped_at)
            return
        end = self.window_end()
        if end is not None:
            left = max(end - stopped_at, min(floor, self.grace))
            self.done_at = now + left - self.grace

    def take_dirty_hands(self) -> list[int]:
        """The seats whose hands may have changed since the last call, sorted:
        while dealing those dealt to, after it every seat."""
        if not self.dealing:
            self._hand_dirty.clear()
            return list(range(self.plan.seats))
        seats = sorted(self._hand_dirty)
        self._hand_dirty.clear()
        return seats

    def window_turns(self) -> list[tuple[int, dict[str, Any]]]:
        """``(seat, your_turn data)`` for each seat whose declare options
        changed since last sent while the window is open: ``phase``
        ``declaring``, ``deadline`` (the window's end, unix ms, or None while
        dealing), ``can_pass`` false, ``declare_options``. A seat's options
        are the engine's (asked once per engine move) that it holds now, so
        they change only when the engine moved (every seat), the deal ended,
        or the seat was dealt a card one of them uses."""
        if not self._window_open:
            return []
        full = self._declare_full
        if full is None:
            full = self._declare_full = [
                [a.cards for a in self.engine.non_play_actions(s) if a.type == "declare"]
                for s in range(self.plan.seats)]
            self._declare_cards = [frozenset(c for cards in f for c in cards) for f in full]
            self._declare_dirty.update(range(self.plan.seats))
        dirty = sorted(self._declare_dirty)
        self._declare_dirty.clear()
        end = self.window_end()
        deadline = round(end * 1000) if end is not None else None
        out: list[tuple[int, dict[str, Any]]] = []
        for s in dirty:
            options = [list(cards) for cards in full[s] if self._holds(s, cards)]
            if self.sent_declare.get(s) != options:
                self.sent_declare[s] = options
                out.append((s, {"phase": "declaring", "deadline": deadline,
                                "can_pass": False, "declare_options": options}))
        return out
