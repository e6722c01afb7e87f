"""Every seated client level after the table's NATS connection came back.

While NATS is away a game stands still (its log cannot be written; the
pause, :mod:`services.table.application.room`), but events may still be lost on the way:
what the table published just before the outage, what it publishes on its
way back before a gateway has its subscriptions again. So once the table is
connected again it sends every seat of every game it runs its whole
``view`` (a ``level`` entry, :meth:`RoomRunner.level_clients`), whatever
the client saw.

The views must not be lost in turn: they go out once every gateway holding
a seated player's session has been heard from (a presence message,
:class:`paiju.presence.book.book.PresenceWatcher`) after the reconnect. A gateway
sends its heartbeats on the connection its subscriptions are on, after
them, so a heartbeat that arrives means the gateway's subscriptions are
back. A gateway not heard from within the presence timeout is dead: the
views go out without it (its players get theirs when they sign in again).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from paiju.presence.book import PresenceWatcher
from services.table.domain.outgoing import GameError

if TYPE_CHECKING:
    from services.table.application.room import RoomRunner
    from services.table.application.runner import Table

log = logging.getLogger("paiju.table")


def unheard(table: Table, presence: PresenceWatcher, since_ms: int) -> set[str]:
    """The gateways holding a session of a seated player of one of
    ``table``'s games that were not heard from after ``since_ms``."""
    out: set[str] = set()
    for runner in list(table.rooms.values()):
        for seat in runner.sitting.seats:
            for session in presence.book.sessions(seat.player):
                if presence.last_heard.get(session.gateway, 0) <= since_ms:
                    out.add(session.gateway)
    return out


async def level_after_outage(table: Table, presence: PresenceWatcher, since_ms: int,
                             timeout: float, poll: float = 0.05) -> int:
    """Wait until every gateway of a seated player was heard from after
    ``since_ms`` (the presence clock's unix ms of the reconnect), at most
    ``timeout`` seconds, then bring every game's seats level; returns how
    many games were."""
    deadline = time.monotonic() + timeout
    while (waiting := unheard(table, presence, since_ms)) and time.monotonic() < deadline:
        await asyncio.sleep(poll)
    if waiting:
        log.warning("bringing clients level without gateways %s (not heard from)",
                    ", ".join(sorted(waiting)))
    runners = list(table.rooms.values())

    async def one(runner: RoomRunner) -> bool:
        try:
            await runner.level_clients()
        except GameError as e:  # it moved on or ended meanwhile
            log.info("game %s not brought level here: %s", runner.game_id, e.message)
            return False
        return True

    done = sum(await asyncio.gather(*(one(r) for r in runners)))
    if runners:
        log.info("%d games brought level after NATS came back", done)
    return done
