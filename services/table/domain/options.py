"""A game's options, split into the rules engine's and the table's own.

The room's options (CreateGame ``options_json``) carry rule options for the
engine (records.md "options") and timing and carry-over settings that only the
table service reads (rulings.md "Shared by all games", the doudizhu no-call
fee). The table keeps its own out of the engine's options, so that a stored
record's ``options`` are exactly what ``paiju replay`` gives the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Option keys the table service reads and does not pass to the engine.
TABLE_KEYS = frozenset({
    "turn_seconds", "reconnect_seconds", "declare_grace_seconds", "deal_interval_ms",
    "no_call_fee", "no_call_streak", "first", "card_counter", "practice",
})

#: Default pace of a paced deal (milliseconds per card); PAIJU_TABLE_DEAL_INTERVAL_MS.
DEFAULT_DEAL_INTERVAL_MS = 150.0


class OptionsError(ValueError):
    """An option of the table's own is malformed (reason code ``bad_options``)."""


@dataclass(frozen=True)
class TableOptions:
    """The table's own settings of one game.

    ``turn_seconds`` per turn (20); ``reconnect_seconds`` the disconnect hold
    (90); ``declare_grace_seconds`` the declaring window after a paced deal
    (5); ``deal_interval_ms`` the pace of a declaring game's deal (150 ms per
    card); ``no_call_fee`` coins each seated player pays after two doudizhu
    no-call deals in a row (20); ``no_call_streak`` the no-call deals in a row
    so far (carried by the lobby); ``first`` the seat that is dealt first
    (hunzhan carry-over: the previous game's last trick winner), or None;
    ``deal_by_rounds``: a paced deal gives a round (a card to each seat) per
    step (:mod:`paiju.rules.timed`). Not a room option: :func:`split`
    sets it for every new game; False (a card per step) is how sittings
    logged before rounds replay, whose ``created`` entry lacks it.
    ``card_counter``: the 记牌器 is in views and events (default true; the
    room-wide option ``card_counter: false`` of a coin server turns it off).
    ``practice``: a practice server's game (练习场; the lobby sets it): not
    settled by the ledger, no no-call fee (default false).
    """

    turn_seconds: float = 20.0
    reconnect_seconds: float = 90.0
    declare_grace_seconds: float = 5.0
    deal_interval_ms: float = DEFAULT_DEAL_INTERVAL_MS
    no_call_fee: int = 20
    no_call_streak: int = 0
    first: int | None = None
    deal_by_rounds: bool = False
    card_counter: bool = True
    practice: bool = False


def _number(options: Mapping[str, Any], key: str, default: float, minimum: float) -> float:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise OptionsError(f"option {key} must be a number >= {minimum}, not {value!r}")
    return float(value)


def _flag(options: Mapping[str, Any], key: str, default: bool) -> bool:
    value = options.get(key, default)
    if not isinstance(value, bool):
        raise OptionsError(f"option {key} must be true or false, not {value!r}")
    return value


def _integer(options: Mapping[str, Any], key: str, default: int) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise OptionsError(f"option {key} must be an integer >= 0, not {value!r}")
    return value


def split(options: Mapping[str, Any], seats: int,
          pace_default: float = DEFAULT_DEAL_INTERVAL_MS) -> tuple[dict[str, Any], TableOptions]:
    """``(engine options, table options)`` of a room's options.

    ``pace_default``: the deal pace (ms per card) where the options do not set
    ``deal_interval_ms`` (the service passes ``PAIJU_TABLE_DEAL_INTERVAL_MS``).
    Raises :class:`OptionsError` for a malformed table option.
    """
    first = options.get("first")
    if first is not None and (
        isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < seats
    ):
        raise OptionsError(f"option first must be null or a seat 0..{seats - 1}, not {first!r}")
    counter = _flag(options, "card_counter", True)
    practice = _flag(options, "practice", False)
    table = TableOptions(
        turn_seconds=_number(options, "turn_seconds", 20.0, 0.001),
        reconnect_seconds=_number(options, "reconnect_seconds", 90.0, 0.0),
        declare_grace_seconds=_number(options, "declare_grace_seconds", 5.0, 0.0),
        deal_interval_ms=_number(options, "deal_interval_ms", pace_default, 0.0),
        no_call_fee=_integer(options, "no_call_fee", 20),
        no_call_streak=_integer(options, "no_call_streak", 0),
        first=first,
        deal_by_rounds=True,
        card_counter=counter,
        practice=practice,
    )
    engine = {k: v for k, v in options.items() if k not in TABLE_KEYS}
    return engine, table
