"""What CreateGame asks the table for: a room's game and its settlement terms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.table.domain.options import TableOptions
from services.table.domain.outgoing import Seat


@dataclass(frozen=True)
class Terms:
    """A room's settlement settings (rulings.md "Settlement")."""

    base: int = 1
    unit: int = 1
    fee_rate: float = 0.02


@dataclass(frozen=True)
class GameSpec:
    """What CreateGame asked for: the first game of a room's start.
    ``table_instance``: the gRPC address the lobby placed it at ("" unknown)."""

    game_id: str
    room: str
    server: str
    game: str
    engine_options: dict[str, Any]
    table_options: TableOptions
    seats: tuple[Seat, ...]
    terms: Terms
    deal: dict[str, Any] | None = None
    table_instance: str = ""
