"""Dealing: a random deal from ``secrets``, a fixed deal for tests, the deal's pace.

A deal is a record's ``deal`` object (records.md). Declaring games (hunzhan,
shengji, daa) give ``order``: card ``i`` goes to seat ``(first + i) % n``;
the table deals those cards a round at a time (:class:`DealPlan`,
:mod:`services.table.domain.paced`) so that seats can
declare while cards arrive; a card the rules hold back face down (daa: each
seat's last card, ``Game.held_back_positions``) is counted as dealt but shown
to nobody, its own seat included. Other games (doudizhu) are dealt at once.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paiju.rules.engine import Game


def random_deal(engine: type[Game], options: Mapping[str, Any], seats: int,
                first: int | None = None) -> dict[str, Any]:
    """A deal from ``engine.random_deal`` with ``secrets.SystemRandom()``; with
    ``first`` given (hunzhan carry-over), dealing starts at that seat instead."""
    deal = engine.random_deal(options, secrets.SystemRandom())
    if first is not None:
        deal = with_first(deal, first, seats)
    return deal


def with_first(deal: Mapping[str, Any], first: int, seats: int) -> dict[str, Any]:
    """``deal`` dealt from seat ``first``: with ``order``, every seat's hand is
    what round-robin dealing from ``first`` gives; without it only ``first``
    changes."""
    out = dict(deal)
    out["first"] = first
    order = deal.get("order")
    if order is not None:
        out["hands"] = [sorted(order[(s - first) % seats::seats]) for s in range(seats)]
    return out


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
