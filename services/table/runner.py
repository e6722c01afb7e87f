"""The driver of running games: one lock per room, its timer, publishing.

:class:`Table` holds every room this instance runs; a room's
:class:`RoomRunner` serialises everything that moves its game under one
``asyncio.Lock`` (one action at a time, in order) and publishes the events of
each step, in order, before it lets the next step in. The room's timer
(:mod:`services.table.timers`) fires at the game's next deadline; the end of a
game (settlement, record, ``game_finished``, redeal or lobby) is
:mod:`services.table.ending`. Redeals (nobody bid or declared) deal again in
the same room with a new game id (``<game_id>.r<n>``); the redeals are the
same sitting: they share the seats' disconnect budgets
(:mod:`services.table.holds`).

Presence (:mod:`paiju.presence`): :meth:`Table.on_presence` takes each
``Change`` of a seated player: absent starts its seat's hold from ``at_ms``,
present ends it. The PlayerDisconnected / PlayerReconnected RPCs feed the same
routine (at the time of the call).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from paiju import subjects
from paiju.common.v1 import common_pb2
from paiju.presence import Change
from paiju.rules import load
from paiju.table.v1 import table_pb2
from services.table import ending, metrics
from services.table.clock import Clock
from services.table.dealing import random_deal, with_first
from services.table.game import Answer, GameError, Outgoing, RunningGame
from services.table.holds import Holds
from services.table.publisher import Publisher
from services.table.remote import Ledger, Lobby
from services.table.spec import GameSpec, Terms
from services.table.store import RecordStore
from services.table.timers import RoomTimer

__all__ = ["GameSpec", "RoomRunner", "Table", "Terms"]

log = logging.getLogger("paiju.table")

#: How many absent players the table remembers before it forgets old ones, and
#: the age (seconds) of an absence it forgets then.
ABSENT_KEPT = 10_000
ABSENT_FORGET_SECONDS = 3600.0


class RoomRunner:
    """Runs the games of one room start: the first deal and its redeals."""

    def __init__(self, table: Table, spec: GameSpec) -> None:
        self.table = table
        self.spec = spec
        self.lock = asyncio.Lock()
        self.redeals = 0
        self.no_call_streak = spec.table_options.no_call_streak
        self.holds = Holds(len(spec.seats), spec.table_options.reconnect_seconds,
                           table.clock.now())
        #: Set once the lobby is being told GameOver: the room is the lobby's again.
        self.over = False
        self.game = self._new_game(spec.game_id, spec.deal)
        self.timer = RoomTimer(table.clock, table.background, self._timer_step)
        self.done = asyncio.Event()
        self.ending: asyncio.Task[None] | None = None
        self._summary: table_pb2.GameSummary | None = None

    @property
    def name(self) -> str:
        """The game type (doudizhu …)."""
        return self.spec.game

    def _new_game(self, game_id: str, deal: Mapping[str, Any] | None) -> RunningGame:
        engine = load(self.spec.game)
        opts = self.spec.table_options
        if deal is None:
            deal = random_deal(engine, self.spec.engine_options, engine.seats, opts.first)
        elif opts.first is not None and deal.get("first") != opts.first:
            deal = with_first(deal, opts.first, engine.seats)
        return RunningGame(
            game_id=game_id, room=self.spec.room, server=self.spec.server, game=self.spec.game,
            engine_options=self.spec.engine_options, table_options=opts,
            seats=self.spec.seats, deal=deal, now=self.table.clock.now(),
            table_instance=self.spec.table_instance, holds=self.holds)

    def summary(self) -> table_pb2.GameSummary:
        """The current game as ListGames lists it (kept between calls: only its
        phase and seq are set again)."""
        g = self.game
        s = self._summary
        if s is None or s.game_id != g.game_id:
            s = self._summary = table_pb2.GameSummary(
                game_id=g.game_id, room=g.room, game=g.name,
                seats=[common_pb2.SeatPlayer(seat=x.seat, player=x.player, name=x.name)
                       for x in g.seats])
        s.phase = g.phase
        s.seq = g.public_seq
        return s

    async def start(self) -> None:
        """Publish the start and the deal; arm the timer."""
        async with self.lock:
            await self._step(self.game.start(self.table.clock.now()))

    async def act(self, player: str, type_: str, cards: Sequence[str],
                  client_seq: int) -> Answer:
        """A player's action, one at a time (see RunningGame.act)."""
        started = time.perf_counter()
        async with self.lock:
            game = self.game
            answer, out = game.act(player, type_, cards, client_seq, self.table.clock.now())
            await self._step(out)
        result = answer.error if not answer.ok else ("ok" if out else "duplicate")
        metrics.ACTIONS.labels(self.name, result).inc()
        metrics.ACTION_SECONDS.labels(self.name).observe(time.perf_counter() - started)
        return answer

    def seated(self, player: str) -> bool:
        """Does ``player`` sit in this room's game?"""
        return player in self.game.by_player

    async def disconnected(self, player: str, at: float | None = None) -> None:
        """Hold the player's seat from ``at`` (unix s; default now)."""
        async with self.lock:
            await self._step(self.game.disconnected(player, self.table.clock.now(), at))

    async def reconnected(self, player: str) -> dict[str, Any]:
        """End the hold; returns the player's full view."""
        async with self.lock:
            now = self.table.clock.now()
            await self._step(self.game.reconnected(player, now))
            return self.game.view(player, now)

    async def leave(self, player: str) -> None:
        """The player's escape."""
        async with self.lock:
            await self._step(self.game.leave(player, self.table.clock.now()))

    async def redeal(self) -> None:
        """Deal the room again: game id ``<first game id>.r<n>``."""
        self.redeals += 1
        async with self.lock:
            self.game = self._new_game(f"{self.spec.game_id}.r{self.redeals}", None)
            self.ending = None
            await self._step(self.game.start(self.table.clock.now()))

    async def _timer_step(self) -> None:
        async with self.lock:
            before = self.game.timeouts
            await self._step(self.game.on_time(self.table.clock.now()))
            if self.game.timeouts > before:
                metrics.TIMEOUTS.labels(self.name).inc(self.game.timeouts - before)

    async def _step(self, out: list[Outgoing]) -> None:
        """Publish ``out`` in order (under the lock), re-arm the timer, and start
        the end once the game finished."""
        await self.table.emit(self.game, out)
        self.timer.arm(self.game.next_deadline())
        if self.game.finished and self.ending is None:
            self.ending = asyncio.get_running_loop().create_task(self._end(self.game))

    async def _end(self, game: RunningGame) -> None:
        try:
            await ending.finish(self, game)
        except Exception:
            log.exception("ending game %s failed", game.game_id)
            self.table.drop(self)


class Table:
    """Every room this instance runs, its clock and its peers."""

    def __init__(self, *, instance: str, clock: Clock, publisher: Publisher, ledger: Ledger,
                 lobby: Lobby | None, store: RecordStore, allow_fixed_deal: bool = False
                 ) -> None:
        self.instance = instance
        self.clock = clock
        self.publisher = publisher
        self.ledger = ledger
        self.lobby = lobby
        self.store = store
        self.allow_fixed_deal = allow_fixed_deal
        self.rooms: dict[str, RoomRunner] = {}
        self.accepting = True
        self.background: set[asyncio.Task[None]] = set()
        self.idle = asyncio.Event()
        self.idle.set()
        #: Players whose last presence Change was absent -> since when (unix s).
        self.absent: dict[str, float] = {}
        #: How long CreateGame waits for a room's ended game to let go (seconds).
        self.ending_wait = 10.0

    async def on_presence(self, change: Change) -> None:
        """A presence flip (:class:`paiju.presence.Change`): the rooms where the
        player sits hold its seat from ``change.at_ms`` (absent) or end the
        hold (present)."""
        at = change.at_ms / 1000.0
        if change.present:
            self.absent.pop(change.player, None)
        else:
            self.absent[change.player] = at
            if len(self.absent) > ABSENT_KEPT:
                for p, since in list(self.absent.items()):
                    if since < at - ABSENT_FORGET_SECONDS:
                        del self.absent[p]
        for runner in list(self.rooms.values()):
            if runner.seated(change.player):
                if change.present:
                    await runner.reconnected(change.player)
                else:
                    await runner.disconnected(change.player, at)

    async def create(self, spec: GameSpec) -> RoomRunner:
        """Start ``spec``'s game. Idempotent by game id; ``GameError`` with
        ``draining`` (UNAVAILABLE) or ``room_busy`` (ALREADY_EXISTS). A room
        whose game told the lobby GameOver is waited for (it only publishes
        ``game_finished`` still). Seats whose player is known to be absent
        (presence) start held."""
        current = self.rooms.get(spec.room)
        if current is not None and current.over and current.spec.game_id != spec.game_id:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(current.done.wait(), self.ending_wait)
            current = self.rooms.get(spec.room)
        if current is not None:
            if current.spec.game_id == spec.game_id:
                return current
            raise GameError("room_busy", f"room {spec.room} runs game {current.spec.game_id}",
                            "ALREADY_EXISTS")
        if not self.accepting:
            raise GameError("draining", f"{self.instance} takes no new games", "UNAVAILABLE")
        runner = RoomRunner(self, spec)
        now = self.clock.now()
        for s in spec.seats:
            if s.player in self.absent:
                runner.holds.leave(s.seat, now)
        self.rooms[spec.room] = runner
        self.idle.clear()
        metrics.GAMES_RUNNING.labels(spec.game).inc()
        await runner.start()
        return runner

    def room(self, room: str) -> RoomRunner:
        """The runner of ``room``; ``GameError(no_game)`` (NOT_FOUND) if none."""
        runner = self.rooms.get(room)
        if runner is None:
            raise GameError("no_game", f"no game runs in room {room!r} here", "NOT_FOUND")
        return runner

    def drop(self, runner: RoomRunner) -> None:
        """Forget a room whose game ended (and was reported)."""
        if self.rooms.get(runner.spec.room) is runner:
            del self.rooms[runner.spec.room]
            metrics.GAMES_RUNNING.labels(runner.spec.game).dec()
        runner.done.set()
        if not self.rooms:
            self.idle.set()

    async def emit(self, game: RunningGame, out: Sequence[Outgoing]) -> None:
        """Publish ``out`` in order: public ones on the room's subject, private
        ones on their player's subject."""
        for o in out:
            subject = (subjects.table_events(game.room) if o.player is None
                       else subjects.player_events(o.player))
            await self.publisher.publish(subject, o.type, o.data, seq=o.seq,
                                         game_id=game.game_id, room=game.room)

    async def store_record(self, record: dict[str, Any]) -> None:
        """Store a record, retried until the database takes it."""
        delay = 0.1
        while True:
            try:
                await self.store.save(record)
                return
            except Exception as e:
                log.warning("storing record %s failed (%s); retrying", record["game_id"], e)
                await asyncio.sleep(delay)
                delay = min(5.0, delay * 2)

    def drain(self) -> None:
        """Take no new games from now on (SIGTERM)."""
        self.accepting = False

    async def wait_idle(self, timeout: float) -> bool:
        """Wait until every game ended (True) or ``timeout`` seconds ran out (False)."""
        try:
            await asyncio.wait_for(self.idle.wait(), timeout)
        except TimeoutError:
            return False
        return True
