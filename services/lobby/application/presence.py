"""The lobby's side of presence (rulings.md "Shared by all games").

A :class:`SeatPresence` watches every gateway's presence
(:class:`paiju.presence.book.book.PresenceWatcher`) and keeps the seats' ``connected`` flag
in the shared store: a seated player who goes absent is marked (and its start
flag drops outside a game) as soon as the news comes; its periodic
:meth:`SeatPresence.sweep` repairs what the news missed (a lobby restart, a race
with a Sit) and stands up every seat absent outside a game for its server's
``idle_disconnect_seconds``. Every write is the lobby's compare-and-set
(:meth:`Lobby._mutate`), and every change is a no-op on a room that already
shows it, so several lobby replicas doing the same at once change a room once.

Times: the watcher runs on the wall clock (heartbeats are real time); a
change's time is carried over to the lobby's clock by its age
(``lobby now - (wall now - at_ms)``), the same instant under the system clock,
and consistent under the tests' injected clock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from nats.aio.client import Client as NATS

from paiju.presence.book import Change, PresenceWatcher, wall_ms
from services.lobby import metrics as M
from services.lobby.application.lobby import Lobby
from services.lobby.domain import errors as E
from services.lobby.domain import room_rules
from services.lobby.domain.room_rules import Room

log = logging.getLogger("paiju.lobby")


class SeatPresence:
    """Presence for ``lobby``'s seats over ``nc``. ``timeout_ms`` / ``tick_seconds``
    as :class:`PresenceWatcher` (default PAIJU_PRESENCE_TIMEOUT_SECONDS, 1 s);
    ``wall``: the watcher's clock (unix ms). Sets ``lobby.present`` and adds
    :meth:`sweep` to the lobby's background pass."""

    def __init__(self, lobby: Lobby, nc: NATS, timeout_ms: int | None = None,
                 tick_seconds: float = 1.0, wall: Callable[[], int] = wall_ms) -> None:
        self.lobby = lobby
        self.wall = wall
        self.watcher = PresenceWatcher(nc, self.on_change, timeout_ms, tick_seconds, wall)
        lobby.present = self.present
        lobby.passes.append(self.sweep)

    async def start(self) -> None:
        """Subscribe to presence (the book's warm-up starts now)."""
        await self.watcher.start()

    async def stop(self) -> None:
        """Stop watching."""
        await self.watcher.stop()

    def present(self, player: str) -> bool:
        """Whether ``player`` has a live session (during the warm-up, a player
        never seen counts present)."""
        return self.watcher.book.present(player, self.wall())

    def _lobby_ms(self, wall_at_ms: int) -> int:
        return self.lobby.clock.now_ms() - max(0, self.wall() - wall_at_ms)

    async def on_change(self, change: Change) -> None:
        """A player's presence flipped: its seat (if any) follows."""
        room_id = await self.lobby.store.find_player(change.player)
        if room_id is None:
            return
        server = self.lobby.config.server_of_room(room_id)
        if server is None:
            return
        at, now = self._lobby_ms(change.at_ms), self.lobby.clock.now_ms()
        await self.lobby._mutate(room_id, lambda r: room_rules.set_presence(
            r, change.player, change.present, at, now_ms=now,
            ready_seconds=server.ready_seconds))

    async def sweep(self) -> list[tuple[str, str]]:
        """Repair the stored ``connected`` flags from the book (not during its
        warm-up, but for players it knows live), then stand up every seat absent
        outside a game for its server's ``idle_disconnect_seconds``. Returns the
        (room, player) pairs this call stood up."""
        book = self.watcher.book
        wall_now = self.wall()
        warming = book.warming_up(wall_now)
        now = self.lobby.clock.now_ms()
        todo: set[str] = set()
        for room_id, seat in await self.lobby.store.seats():
            server = self.lobby.config.server_of_room(room_id)
            if server is None:
                continue
            live = bool(book.sessions(seat.player))
            stale = seat.connected != live and (live or not warming)
            due = (not seat.connected and seat.away_ms is not None
                   and now - seat.away_ms >= server.idle_disconnect_seconds * 1000)
            if stale or due:
                todo.add(room_id)
        stood: list[tuple[str, str]] = []
        for room_id in sorted(todo):
            try:
                stood += await self._repair(room_id, warming)
            except E.LobbyError as e:
                log.warning("presence sweep of %s failed: %s", room_id, e)
        return stood

    async def _repair(self, room_id: str, warming: bool) -> list[tuple[str, str]]:
        server = self.lobby.config.server_of_room(room_id)
        assert server is not None
        book, now = self.watcher.book, self.lobby.clock.now_ms()

        def repair(r: Room) -> Room:
            for s in list(r.seats.values()):
                live = bool(book.sessions(s.player))
                if live or not warming:
                    since = book.absent_since(s.player, self.wall())
                    at = now if since is None else self._lobby_ms(since)
                    r = room_rules.set_presence(r, s.player, live, at, now_ms=now,
                                            ready_seconds=server.ready_seconds)
            return room_rules.stand_idle(r, now, server.idle_disconnect_seconds,
                                     ready_seconds=server.ready_seconds,
                                     present=self.present)[0]

        old, new = await self.lobby._mutate(room_id, repair)
        stood = []
        for seat in old.seats.values():
            if seat.seat not in new.seats:
                M.IDLE_STANDUPS.inc()
                log.info("absent player stood up", extra={"room": room_id,
                                                           "player": seat.player})
                stood.append((room_id, seat.player))
        return stood
