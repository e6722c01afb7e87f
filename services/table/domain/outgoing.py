"""The plain values a running game hands out: its seats, the events it causes,
the answer to an action, and the refusals it makes before the rules see a request.

No I/O. Times on the wire are unix milliseconds (:func:`ms`); inside the table
they are unix seconds (float).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Seat:
    """A seat of a game and who sits there."""

    seat: int
    player: str
    name: str = ""


@dataclass(frozen=True)
class Outgoing:
    """One event to publish: public (``player`` None, on paiju.table.<room>.events)
    or private to ``player`` (paiju.player.<player>.events). ``seq`` is already
    assigned; ``data`` is the events.md payload."""

    type: str
    data: dict[str, Any]
    seq: int
    player: str | None = None


@dataclass(frozen=True)
class Answer:
    """The answer to an action: ``ok``, else a stable ``error`` code
    (records.md) and a ``message``; ``seq`` is the public seq after it."""

    ok: bool
    error: str = ""
    message: str = ""
    seq: int = 0


class GameError(Exception):
    """A request the game refuses before the rules see it: ``code`` is a stable
    reason (``not_seated``), ``status`` the gRPC status name to answer with."""

    def __init__(self, code: str, message: str, status: str = "FAILED_PRECONDITION") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


def ms(t: float) -> int:
    """Unix seconds ``t`` as unix milliseconds (rounded)."""
    return round(t * 1000)


def ms_at_or_after(t: float) -> int:
    """The first unix millisecond ``m`` with ``m / 1000 >= t`` (``t`` unix
    seconds): a deadline as an entry's ``at`` that, read back, is not before it
    (a deadline such as ``start + 3 * 0.06`` lies between two milliseconds)."""
    m = math.ceil(t * 1000)
    while m / 1000 < t:
        m += 1
    while (m - 1) / 1000 >= t:
        m -= 1
    return m
