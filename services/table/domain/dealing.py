"""Dealing: a random deal from ``secrets``, a fixed deal for tests, the deal's pace.

A deal is a record's ``deal`` object (records.md). Declaring games (hunzhan,
shengji, daa) give ``order``: card ``i`` goes to seat ``(first + i) % n``;
the rules deal those cards a round at a time (:mod:`paiju.rules.timed`) so
that seats can declare while cards arrive. Other games (doudizhu) are dealt
at once.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
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
