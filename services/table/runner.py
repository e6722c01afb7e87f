"""The driver of running games: one lock per room, timers on the clock,
publishing, and the end of a game (ledger, record, game_finished, lobby).

:class:`Table` holds every room this instance runs; a room's
:class:`RoomRunner` serialises everything that moves its game under one
``asyncio.Lock`` (one action at a time, in order) and publishes the events of
each step, in order, before it lets the next step in. Redeals (nobody bid or
declared) deal again in the same room with a new game id
(``<game_id>.r<n>``); in doudizhu the second all-no_call deal in a row makes
every seated player pay ``no_call_fee`` (ledger ChargeFee, charge id
``<that deal's game_id>:no_call_fee``) and the streak starts from zero again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paiju import subjects
from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.rules import load
from paiju.table.v1 import table_pb2
from services.table import metrics
from services.table.clock import Clock, TimerHandle
from services.table.dealing import random_deal, with_first
from services.table.game import Answer, GameError, Outgoing, RunningGame, Seat
from services.table.options import TableOptions
from services.table.publisher import Publisher
from services.table.remote import Ledger, Lobby, Refused, settlement_rows
from services.table.store import RecordStore

log = logging.getLogger("paiju.table")


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


class RoomRunner:
    """Runs the games of one room start: the first deal and its redeals."""

    def __init__(self, table: Table, spec: GameSpec) -> None:
        self.table = table
        self.spec = spec
        self.lock = asyncio.Lock()
        self.redeals = 0
        self.no_call_streak = spec.table_options.no_call_streak
        self.game = self._new_game(spec.game_id, spec.deal)
        self.timer: TimerHandle | None = None
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
            table_instance=self.spec.table_instance)

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

    async def disconnected(self, player: str) -> None:
        """Hold the player's seat."""
        async with self.lock:
            await self._step(self.game.disconnected(player, self.table.clock.now()))

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

    def _on_timer(self) -> None:
        self.timer = None
        task = asyncio.get_running_loop().create_task(self._timer_step())
        self.table.background.add(task)
        task.add_done_callback(self.table.background.discard)

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
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        deadline = self.game.next_deadline()
        if deadline is not None:
            self.timer = self.table.clock.call_at(deadline, self._on_timer)
        if self.game.finished and self.ending is None:
            self.ending = asyncio.get_running_loop().create_task(self._end(self.game))

    async def _end(self, game: RunningGame) -> None:
        try:
            await self._finish(game)
        except Exception:
            log.exception("ending game %s failed", game.game_id)
            self.table.drop(self)

    async def _finish(self, game: RunningGame) -> None:
        """Settle, store, publish game_finished, then redeal or tell the lobby."""
        reason = game.reason or "normal"
        metrics.GAMES_FINISHED.labels(self.name, reason).inc()
        if reason == "escape":
            metrics.ESCAPES.labels(self.name).inc()
        result = game.engine.result()
        rows: list[dict[str, Any]] = []
        settlement_error = ""
        if reason != "redeal":
            req = ledger_pb2.SettleRequest(
                game_id=game.game_id, game=game.name, reason=reason,
                terms=common_pb2.SettlementTerms(
                    base=self.spec.terms.base, unit=self.spec.terms.unit,
                    fee_rate=self.spec.terms.fee_rate),
                seats=[ledger_pb2.SettleSeat(seat=s.seat, player=s.player,
                                             points=int(result.points[s.seat]))
                       for s in game.seats])
            try:
                reply = await self.table.ledger.settle(req)
                rows = settlement_rows(list(reply.rows))
            except Refused as e:
                settlement_error = e.details or e.code.name
                log.error("ledger refused settling %s: %s", game.game_id, e)
        record = game.record()
        if rows:
            record["settlement"] = rows
        await self.table.store_record(record)
        async with self.lock:
            event = game.finished_event(rows)
            if settlement_error:
                event.data["settlement_error"] = settlement_error
            await self.table.emit(game, [event])
        if reason == "redeal":
            await self._redeal(game)
            return
        if self.name == "doudizhu":
            self.no_call_streak = 0
        await self._game_over(game, rows)

    async def _redeal(self, game: RunningGame) -> None:
        if self.name == "doudizhu":
            self.no_call_streak += 1
            if self.no_call_streak >= 2:
                fee = self.spec.table_options.no_call_fee
                if fee > 0:
                    try:
                        await self.table.ledger.charge_fee(ledger_pb2.ChargeFeeRequest(
                            charge_id=f"{game.game_id}:no_call_fee",
                            players=[s.player for s in game.seats], coins=fee,
                            reason="no_call_fee"))
                    except Refused as e:
                        log.error("ledger refused the no-call fee of %s: %s", game.game_id, e)
                self.no_call_streak = 0
        self.redeals += 1
        async with self.lock:
            self.game = self._new_game(f"{self.spec.game_id}.r{self.redeals}", None)
            self.ending = None
            await self._step(self.game.start(self.table.clock.now()))

    def carry(self, game: RunningGame) -> dict[str, Any]:
        """What the room's next game needs (lobby GameOver carry_json)."""
        detail = game.engine.result().detail
        if self.name == "hunzhan" and detail.get("last_trick_winner") is not None:
            return {"first": detail["last_trick_winner"]}
        if self.name == "shengji" and detail.get("next_dealer") is not None:
            return {"dealer": detail["next_dealer"]}
        if self.name == "doudizhu":
            return {"no_call_streak": self.no_call_streak}
        return {}

    async def _game_over(self, game: RunningGame, rows: list[dict[str, Any]]) -> None:
        escaped = [] if game.engine.escaped is None else [game.player_of(game.engine.escaped)]
        req = lobby_pb2.GameOverRequest(
            game_id=self.spec.game_id, room=self.spec.room, escaped=escaped,
            carry_json=json.dumps(self.carry(game)),
            settlement=[common_pb2.SettlementRow(
                player=str(r["player"]), seat=int(r["seat"]), points=int(r["points"]),
                coins=int(r["coins"]), fee=int(r["fee"])) for r in rows])
        if self.table.lobby is not None:
            try:
                await self.table.lobby.game_over(req)
            except Refused as e:
                log.error("lobby refused GameOver %s: %s", self.spec.game_id, e)
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

    async def create(self, spec: GameSpec) -> RoomRunner:
        """Start ``spec``'s game. Idempotent by game id; ``GameError`` with
        ``draining`` (UNAVAILABLE) or ``room_busy`` (ALREADY_EXISTS)."""
        current = self.rooms.get(spec.room)
        if current is not None:
            if current.spec.game_id == spec.game_id:
                return current
            raise GameError("room_busy", f"room {spec.room} runs game {current.spec.game_id}",
                            "ALREADY_EXISTS")
        if not self.accepting:
            raise GameError("draining", f"{self.instance} takes no new games", "UNAVAILABLE")
        runner = RoomRunner(self, spec)
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
