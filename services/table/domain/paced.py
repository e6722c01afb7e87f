"""The state of a paced deal (a declaring game's cards a few at a time) and its
declaring window (rulings.md "Shared by all games"; docs/table.md "Behaviour").

The deal goes in steps of ``step`` cards of its ``order`` (the table deals a
round: one card to each seat, ``step`` = the seats; 1 for a sitting logged
before rounds, :class:`services.table.domain.options.TableOptions`). Card ``i`` is
due ``i * deal_interval_ms`` after the start, and a step's cards come
together at the time of its first card: each seat still gets a card every
``seats * deal_interval_ms``, and the table writes one log entry and one
``dealing`` event per round instead of per card.
``declare_grace_seconds`` after the last step the window closes (the
table applies ``end_declare``). While cards arrive a seat's hand is the cards
dealt to it so far, and its declare options are the engine's declares whose
cards it holds so far. The state keeps what is needed to send only what
changed: which seats' hands may have changed, and each seat's declare options
as last sent. No I/O; times are unix seconds passed in.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from paiju.rules import Game
from services.table.domain.dealing import DealPlan


class PacedDeal:
    """The deal's progress and the declaring window of one game."""

    def __init__(self, plan: DealPlan, started_at: float, deal_interval_ms: float,
                 declare_grace_seconds: float, step: int = 1) -> None:
        if step < 1:
            raise ValueError(f"a deal step is at least one card, not {step}")
        self.plan = plan
        self.started_at = started_at
        self.interval = deal_interval_ms / 1000.0
        self.grace = declare_grace_seconds
        #: Cards per step (module docstring); ``dealt`` is always a multiple of
        #: it, or the whole deal.
        self.step = step
        self.dealt = 0
        #: When the last card was dealt (the start for a deal given at once).
        self.done_at: float | None = None if plan.paced else started_at
        self.declaring_open = plan.paced
        seat_range = range(plan.seats)
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
    def running(self) -> bool:
        """True while cards are still to be dealt one at a time."""
        return self.plan.paced and self.dealt < self.plan.total

    def card_time(self, i: int) -> float:
        """When card ``i`` is due (unix seconds); a step comes at its first card's."""
        return self.started_at + i * self.interval

    def grace_end(self) -> float:
        """When the declaring window closes (only once the deal is done)."""
        assert self.done_at is not None
        return self.done_at + self.grace

    def window_end(self) -> float | None:
        """The declaring window's end while it is open after the deal, else None."""
        if self.declaring_open and self.done_at is not None:
            return self.grace_end()
        return None

    def next_time(self) -> float | None:
        """The next card's time, else the window's end, else None."""
        if self.running:
            return self.card_time(self.dealt)
        return self.window_end()

    def card_due(self, t: float) -> bool:
        """Is a card due by ``t``?"""
        return self.running and self.card_time(self.dealt) <= t

    def window_due(self, t: float) -> bool:
        """Does the declaring window close by ``t``?"""
        end = self.window_end()
        return end is not None and end <= t

    def hand(self, seat: int) -> list[str]:
        """The cards dealt to ``seat`` so far, sorted."""
        return sorted(self.plan.cards(seat, self.dealt))

    def held(self, seat: int) -> Counter[str]:
        """The cards dealt to ``seat`` so far, counted."""
        return self._held[seat]

    def counts(self) -> list[int]:
        """Cards per seat dealt so far."""
        return self.plan.counts(self.dealt)

    def progress(self) -> dict[str, Any]:
        """The view's ``dealing``: ``{dealt, total, done}``."""
        return {"dealt": self.dealt, "total": self.plan.total,
                "done": self.dealt >= self.plan.total}

    # -- moving --------------------------------------------------------------------

    def deal_until(self, t: float) -> dict[str, Any]:
        """Deal every step due by ``t`` (at least one); returns the public
        ``dealing`` event's data."""
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
        done = k >= self.plan.total
        if done:
            self.done_at = t
            # Hands are the engine's from now on (possibly in another order).
            self._hand_dirty.update(range(self.plan.seats))
            self._declare_dirty.update(range(self.plan.seats))
        return {"cards_dealt_per_seat": self.plan.counts(k), "dealt": k,
                "total": self.plan.total, "done": done}

    def engine_moved(self) -> None:
        """The engine applied an action: every seat's declare options may change."""
        self._declare_full = None

    def close(self) -> None:
        """The declaring window is closed (``end_declare``, or the game ended)."""
        self.declaring_open = False

    def take_dirty_hands(self) -> list[int]:
        """The seats whose hands may have changed since the last call, sorted."""
        seats = sorted(self._hand_dirty)
        self._hand_dirty.clear()
        return seats

    def declare_changes(self, engine: Game, holds_now: Callable[[int, Sequence[str]], bool]
                        ) -> list[tuple[int, list[list[str]]]]:
        """``(seat, options)`` for each seat whose declare options changed since
        last sent. A seat's options are the engine's (asked once per engine move)
        that ``holds_now(seat, cards)`` says it holds, so they change only when
        the engine moved (every seat), the deal ended, or the seat was dealt a
        card one of them uses (see :meth:`deal_until`)."""
        full = self._declare_full
        if full is None:
            full = self._declare_full = [
                [a.cards for a in engine.non_play_actions(s) if a.type == "declare"]
                for s in range(self.plan.seats)]
            self._declare_cards = [frozenset(c for cards in f for c in cards) for f in full]
            self._declare_dirty.update(range(self.plan.seats))
        dirty = sorted(self._declare_dirty)
        self._declare_dirty.clear()
        out: list[tuple[int, list[list[str]]]] = []
        for s in dirty:
            options = [list(cards) for cards in full[s] if holds_now(s, cards)]
            if self.sent_declare.get(s) != options:
                self.sent_declare[s] = options
                out.append((s, options))
        return out
