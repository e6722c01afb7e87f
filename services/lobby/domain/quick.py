"""快速开始 (quick start): which room a player is seated at, as pure data.

One button seats the player at the best room of a chosen game it
can afford, honouring the coin rule (seed 000 第二节: 符合服务器金币要求, a
server's ``min_coins``): among the rooms of the game's servers whose
``min_coins`` the player's balance reaches, the fullest waiting room with a
free seat first, then an idle room. Ties go to the server with the higher
``min_coins`` (the richest table the player may sit at), then to the room id.
A started or full room is never chosen. No I/O here: the lobby reads the rooms
and the balance and sits the player (services/lobby/application/lobby.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from services.lobby.domain.coin_servers import CoinServer
from services.lobby.domain.room_rules import STARTED, Room


def affordable(servers: Iterable[CoinServer], game: str, coins: int) -> list[CoinServer]:
    """The coin servers of ``game`` (practice servers are not quick-started)
    whose ``min_coins`` ``coins`` reaches, in the given order."""
    return [s for s in servers
            if s.game == game and not s.practice and coins >= s.min_coins]


def ranked(rooms: Sequence[Room], servers: Sequence[CoinServer]) -> list[Room]:
    """The rooms a quick start may take, best first: not started, with a free
    seat; the most seated players first (so an idle room, with none, comes
    after every waiting one), then the higher ``min_coins`` of its server,
    then the room id. ``servers`` are the rooms' servers."""
    level = {s.server: s.min_coins for s in servers}
    open_rooms = [r for r in rooms if r.state != STARTED and not r.full]
    return sorted(open_rooms, key=lambda r: (-len(r.seats), -level.get(r.server, 0), r.room))


def free_seat(room: Room) -> int | None:
    """The lowest free seat of ``room``, or None when it is full."""
    return next((i for i in range(room.size) if i not in room.seats), None)
