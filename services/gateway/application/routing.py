"""Which room a connection's player sits in and which table instance hosts
its game, so that game commands go to that instance.

The instance is the address the lobby placed the game at: ``game_started``
names it (``table_instance``), and ``game_moved`` the instance that took the
game over (its owner died or handed it over, docs/table.md "Takeover");
without it, and after a game, the lobby is asked (``WhereIs``) at the next
game command.

A game command the instance cannot take because the game is moving (the
instance is unreachable: ``unavailable``; it no longer runs the game:
``game_moved``; ``no_game`` while the lobby's room still runs a game) is
sent again, the same request (an ``act`` with its ``client_seq``: the new
owner answers it once, its log de-duplicates it), to where the game is
then, for at most :data:`MOVE_WAIT_SECONDS`: at once when ``game_moved``
arrives, else every :data:`RETRY_SECONDS` (asking the lobby where the game
is every :data:`WHERE_IS_EVERY` tries).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import subjects
from services.gateway.adapters.backends import Backends, call, counted
from services.gateway.application.subscriptions import Subscriptions
from services.gateway.domain.protocol import ClientError

#: Seconds a ``WhereIs`` call may take.
WHERE_IS_TIMEOUT = 5.0
#: Seconds a game command waits for its game to move before its error goes
#: to the client: a lease's TTL (5 s) plus the takeover, with room to spare.
MOVE_WAIT_SECONDS = 15.0
#: Seconds between tries while the game moves.
RETRY_SECONDS = 0.25
#: Ask the lobby where the game is every this many tries.
WHERE_IS_EVERY = 8
#: Client error codes of a game that is moving (the command is sent again).
MOVING = frozenset({"unavailable", "game_moved", "no_game"})


@dataclass
class Seat:
    """Where the signed-in player sits: its room and, once started, the table
    instance hosting its game."""

    room: str
    server: str
    table: str = ""
    #: The player left the running game (退出): the lobby removes it from the
    #: room at the game's end, so its table is followed until ``game_finished``.
    leaving: bool = False


class Router:
    """The seat of one connection's player and the routing of its game
    commands. ``player()`` gives the signed-in player's id."""

    def __init__(self, backends: Backends, subs: Subscriptions,
                 player: Callable[[], str]) -> None:
        self.backends = backends
        self.subs = subs
        self.player = player
        self.seat: Seat | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: Set at every ``game_moved`` of the player's table.
        self.moved = asyncio.Event()
        #: Commands sent again because their game was moving (tests, metrics).
        self.retries = 0

    async def where_is(self) -> lobby_pb2.Room | None:
        """The player's room as the lobby has it, or ``None`` where it sits
        nowhere (or the lobby does not answer)."""
        try:
            with counted():
                room: lobby_pb2.Room = await self.backends.lobby.WhereIs(
                    lobby_pb2.PlayerRequest(player=self.player()), timeout=WHERE_IS_TIMEOUT)
        except grpc.aio.AioRpcError:
            return None
        return room

    async def seated(self, room: lobby_pb2.Room) -> None:
        """Remember the player's ``room`` (as the lobby answered) and follow
        its table's public events."""
        if not room.room:
            return
        table = room.table_instance if room.state == "started" else ""
        if self.seat is None or self.seat.room != room.room:
            self.seat = Seat(room.room, room.server, table)
            await self.subs.follow("table", subjects.table_events(room.room), self.on_table)
            await self.subs.follow("chat", subjects.chat(room.room))
            if room.private:
                await self.subs.follow("private", subjects.lobby_private_room(
                    room.server, room.room), self.on_private)
        else:
            self.seat.table = table or self.seat.table

    async def stood_up(self) -> None:
        """The player sits nowhere now: stop following its old table."""
        self.seat = None
        await self.subs.drop("table")
        await self.subs.drop("chat")
        await self.subs.drop("private")

    def on_private(self, event: dict[str, Any]) -> None:
        """A private room's ``room_changed``: once it no longer seats the
        player (removed by its owner, stood up, an escapee removed) this
        connection stops following the room's changes (that event is the
        last one it is sent)."""
        seats = event.get("seats")
        if not isinstance(seats, list) or any(
                isinstance(s, dict) and s.get("player") == self.player() for s in seats):
            return
        task = asyncio.create_task(self.subs.drop("private"))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def on_table(self, event: dict[str, Any]) -> None:
        """Follow the table instance of the player's room from its events: a new
        game may run on another instance, and after a game none is known."""
        kind = event.get("type")
        if kind == "game_moved" and self.seat:
            where = event.get("table_instance")
            if isinstance(where, str) and where:
                self.seat.table = where
                self.moved.set()
            return
        if kind in ("game_started", "game_finished") and self.seat:
            where = event.get("table_instance") if kind == "game_started" else None
            self.seat.table = where if isinstance(where, str) else ""
            if kind == "game_finished" and self.seat.leaving:
                task = asyncio.create_task(self.stood_up())
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def left_game(self) -> None:
        """The player left its running game (an escape): once the game ends it
        sits nowhere (at once where its ``game_finished`` came already)."""
        if self.seat is None:
            return
        if self.seat.table:
            self.seat.leaving = True
        else:
            await self.stood_up()

    async def game_table(self) -> Seat:
        """The seat with the instance of the player's running game (asking the
        lobby where the game is when not known); ``no_game`` when there is none."""
        if self.seat is None or not self.seat.table:
            room = await self.where_is()
            if room is None:
                raise ClientError("no_game", "you sit at no running game")
            await self.seated(room)
        if self.seat is None or not self.seat.table:
            raise ClientError("no_game", "your room has no running game")
        return self.seat

    async def table_call(self, method: str, make: Callable[[str], Any]) -> Any:
        """Call ``method`` of the table instance hosting the player's game with
        the request ``make(room)`` (made once: a retry sends the same request);
        sent again while the game moves (module docstring); ``no_game`` when
        there is none, else the errors of :func:`services.gateway.adapters.backends.call`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MOVE_WAIT_SECONDS
        request: Any = None
        tries = 0
        while True:
            seat = await self.game_table()
            if request is None:
                request = make(seat.room)
            stub = self.backends.table(seat.table)
            rpc: Callable[..., Awaitable[Any]] = getattr(stub, method)
            self.moved.clear()
            try:
                return await call(rpc, request)
            except ClientError as e:
                left = deadline - loop.time()
                if e.code not in MOVING or left <= 0:
                    raise
                if e.code == "no_game":
                    # Ended (the lobby's room no longer runs it), or moving.
                    room = await self.where_is()
                    if room is None or room.state != "started":
                        raise
                    await self.seated(room)
            tries += 1
            self.retries += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.moved.wait(), min(RETRY_SECONDS, left))
            if not self.moved.is_set() and tries % WHERE_IS_EVERY == 0:
                room = await self.where_is()
                if room is not None and room.state == "started" and room.table_instance:
                    await self.seated(room)
