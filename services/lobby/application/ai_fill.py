"""Asking the AI pool (``paiju ai --pool``, docs/ai.md) for AI players
(机器人) at a room's free seats: at once in a practice room (练习场), after
the server's ``ai_fill_after_s`` on a coin server with that option, and again
from the lobby's background pass where a room still waits with a player and
free seats (docs/lobby.md "Coin servers and rooms")."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable

from nats.aio.client import Client as NATS

from services.lobby import metrics as M
from services.lobby.adapters import ai_pool
from services.lobby.adapters.store import Store
from services.lobby.domain import errors as E
from services.lobby.domain.coin_servers import CoinServer, RoomsConfig
from services.lobby.domain.room_rules import Room

log = logging.getLogger("paiju.lobby")

#: Seconds after which a practice room with a free seat and a player seated
#: asks the AI pool again (:meth:`AiFill.ask_again`); the first ask comes as
#: the player sits.
PRACTICE_ASK_AGAIN_S = 5.0


class AiFill:
    """The AI pool's seat requests of one lobby process, over ``nc``, for the
    servers of ``config``; ``store`` lists the seats, ``load`` reads a room
    as stored now (raising ``LobbyError``)."""

    def __init__(self, config: RoomsConfig, store: Store, nc: NATS,
                 load: Callable[[str], Awaitable[Room]]) -> None:
        self.config = config
        self.store = store
        self.nc = nc
        self.load = load
        #: The requests under way (kept until done).
        self.asking: set[asyncio.Task[None]] = set()
        #: Rooms with a wait under way in this process (one a room).
        self.waits: set[str] = set()

    def wanted(self) -> bool:
        """Whether any server has AI seats (practice, or ``ai_fill_after_s``)."""
        return any(_fills(s) for s in self.config.servers)

    def room_sat(self, room: Room) -> None:
        """A player (not an AI) sat in ``room``: ask the pool, in the
        background, for an AI player at each free seat, one after the other:
        at once in a practice room; on a coin server with
        ``ai_fill_after_s``, that many seconds from now if the room then still
        waits with a player (not an AI) seated. A seat nobody answers for
        stays free until :meth:`ask_again` asks again."""
        server = self.config.server_of_room(room.room)
        if server is None or not _fills(server) or room.game_id or room.private:
            return
        self._wait(room.room, server, 0 if server.practice else server.ai_fill_after_s)

    async def ask_again(self) -> None:
        """A step of the lobby's background pass: every room of a server with
        AI seats where a player (not an AI) sits, a seat is free and this
        process has no wait under way gets one (its server's
        ``ai_fill_after_s``, :data:`PRACTICE_ASK_AGAIN_S` on a practice
        server), after which it is asked for as in :meth:`room_sat`. So a wait
        lost with a stopped lobby process, and a seat the pool had no AI for,
        are asked for again."""
        seated: Counter[str] = Counter()
        humans: set[str] = set()
        for room_id, seat in await self.store.seats():
            seated[room_id] += 1
            if not seat.ai:
                humans.add(room_id)
        for room_id in sorted(humans - self.waits):
            server = self.config.server_of_room(room_id)
            if server is None or not _fills(server) or seated[room_id] >= server.seats:
                continue
            self._wait(room_id, server,
                       PRACTICE_ASK_AGAIN_S if server.practice else server.ai_fill_after_s)

    def _wait(self, room_id: str, server: CoinServer, wait_s: float) -> None:
        if room_id in self.waits:
            return
        self.waits.add(room_id)
        task = asyncio.create_task(self._fill_later(room_id, server, wait_s))
        self.asking.add(task)
        task.add_done_callback(self.asking.discard)

    async def _fill_later(self, room_id: str, server: CoinServer, wait_s: float) -> None:
        """After ``wait_s`` seconds, ask for the free seats of ``room_id`` if
        it still waits (no game, not private) with a player (not an AI)."""
        try:
            await asyncio.sleep(wait_s)
            room = await self.load(room_id)
            if (not room.game_id and not room.private
                    and any(not s.ai for s in room.seats.values())):
                await self._ask(room, server)
        except E.LobbyError:
            return
        except Exception:
            log.exception("asking the AI pool failed")
        finally:
            self.waits.discard(room_id)

    async def _ask(self, room: Room, server: CoinServer) -> None:
        for seat in range(room.size):
            if seat in room.seats:
                continue
            filled = await ai_pool.ask(self.nc, room.room, server.server, server.game, seat)
            M.AI_SEATS.labels("filled" if filled else "not_filled").inc()


def _fills(server: CoinServer) -> bool:
    return server.practice or server.ai_fill_after_s > 0
