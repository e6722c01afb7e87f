"""A room's running sitting on this instance: its lock, its log, its timer.

A :class:`RoomRunner` serialises everything that moves its sitting under one
``asyncio.Lock`` (one action at a time, in order). Each step is an entry
(:mod:`services.table.domain.sitting`): applied, appended to the sitting's log
(:mod:`services.table.adapters.gamelog`, fenced by the last sequence this runner knows),
and only once JetStream acknowledged it are its events published and the
action answered. Then:

- an append another instance fenced off (it took the game over): the runner
  says so in its log, publishes nothing, and drops the game (``game_moved``,
  UNAVAILABLE, to a caller);
- an append JetStream did not acknowledge (NATS away): the step is undone (the
  sitting is rebuilt from the entries logged so far), the game pauses (no
  timer runs, actions get ``unavailable``) and a task retries: once it holds
  the lease again and a ``resume`` entry is appended, every seat is brought
  level (:meth:`services.table.domain.sitting.Sitting.apply`) and the game goes on. Before that it
  reads the log again: an append that timed out may have landed after all
  (its entry is taken in; an action answered ``unavailable`` then is answered
  ``ok`` when sent again with its ``client_seq``). If another instance took
  the game meanwhile, this one drops it.

The end of a game (settlement, record, ``game_finished``, redeal or lobby) is
:mod:`services.table.application.ending`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from paiju.common.v1 import common_pb2
from paiju.rules import load
from paiju.runtime.natsconn import NATS_ERRORS
from paiju.table.v1 import table_pb2
from services.table import metrics
from services.table.adapters.gamelog import Fenced, GameLog, LogUnavailable
from services.table.adapters.lease import Leases
from services.table.adapters.remote import Ledger, Lobby
from services.table.application.clock import Clock
from services.table.application.log_copy import Logged
from services.table.application.timers import RoomTimer
from services.table.domain.dealing import random_deal, with_first
from services.table.domain.entries import (
    Act,
    Disconnected,
    Entry,
    Handover,
    Leave,
    Level,
    Reconnected,
    Redeal,
    Resume,
    Timer,
    Void,
)
from services.table.domain.outgoing import Answer, GameError, Outgoing, ms, ms_at_or_after
from services.table.domain.sitting import Applied, Sitting, restore
from services.table.domain.spec import GameSpec

log = logging.getLogger("paiju.table")

#: Seconds between attempts to go on with a paused game.
RESUME_RETRY_SECONDS = 0.5


def prepared_deal(spec: GameSpec, deal: Mapping[str, Any] | None) -> dict[str, Any]:
    """The deal a game of ``spec`` is dealt: ``deal`` (from seat ``first``
    where the table options say so) or a random one."""
    engine = load(spec.game)
    opts = spec.table_options
    if deal is None:
        return random_deal(engine, spec.engine_options, engine.seats, opts.first)
    if opts.first is not None and deal.get("first") != opts.first:
        return with_first(deal, opts.first, engine.seats)
    return dict(deal)


class RoomHost(Protocol):
    """What a room's runner uses of the table instance that runs it
    (:class:`services.table.application.runner.Table`)."""

    instance: str
    clock: Clock
    log: GameLog
    leases: Leases
    ledger: Ledger
    lobby: Lobby | None
    #: Tasks that run beside the rooms (kept so that they are not collected).
    background: set[asyncio.Task[None]]

    def drop(self, runner: RoomRunner) -> None:
        """Forget ``runner``'s room on this instance."""
        ...

    async def emit(self, game: Sitting, out: Sequence[Outgoing]) -> None:
        """Publish ``out``, ``game``'s events, in order."""
        ...

    async def store_record(self, record: dict[str, Any]) -> bool:
        """Store a game record (idempotent); False once given up."""
        ...

    async def end(self, runner: RoomRunner, game: Sitting) -> None:
        """The end of ``runner``'s finished ``game`` (settlement, record,
        ``game_finished``, then a redeal or the lobby)."""
        ...


class RoomRunner:
    """Runs one sitting (the first deal and its redeals) from its entries so
    far (``entries``, the last one at stream sequence ``last_seq``)."""

    def __init__(self, table: RoomHost, sitting: Sitting, entries: list[dict[str, Any]],
                 last_seq: int) -> None:
        self.table = table
        self.sitting = sitting
        #: The entries applied and logged so far, as text
        #: (:mod:`services.table.application.log_copy`).
        self.entries = Logged(entries)
        self.last_seq = last_seq
        self.lock = asyncio.Lock()
        #: Set once the lobby is being told GameOver: the room is the lobby's again.
        self.over = False
        #: This instance no longer runs the game (lost, handed over, ended).
        self.gone = False
        #: Since when the game stands still for want of the log (unix s), or None.
        self.paused_at: float | None = None
        self.live = asyncio.Event()
        self.live.set()
        self.timer = RoomTimer(table.clock, table.background, self._timer_step)
        self.done = asyncio.Event()
        self.ending: asyncio.Task[None] | None = None
        self._recovery: asyncio.Task[None] | None = None
        self._summary: table_pb2.GameSummary | None = None

    # -- reading -------------------------------------------------------------------

    @property
    def game_id(self) -> str:
        """The sitting's game id (its log subject, its lease key)."""
        return self.sitting.spec.game_id

    def summary(self) -> table_pb2.GameSummary:
        """The current game as ListGames lists it (kept between calls: only its
        phase and seq are set again)."""
        g = self.sitting
        s = self._summary
        if s is None or s.game_id != g.game_id:
            s = self._summary = table_pb2.GameSummary(
                game_id=g.game_id, room=g.room, game=g.name,
                seats=[common_pb2.SeatPlayer(seat=x.seat, player=x.player, name=x.name)
                       for x in g.seats])
        s.phase = g.phase
        s.seq = g.public_seq
        return s

    def seated(self, player: str) -> bool:
        """Does ``player`` sit in this room's game?"""
        return player in self.sitting.by_player

    # -- steps ---------------------------------------------------------------------

    def _now(self) -> int:
        """Now as an entry's ``at`` (unix ms)."""
        return ms(self.table.clock.now())

    def _check_live(self) -> None:
        if self.gone:
            raise GameError("game_moved", f"game {self.game_id} is no longer run here",
                            "UNAVAILABLE")
        if self.paused_at is not None:
            raise GameError("unavailable", f"game {self.game_id} is paused: its log "
                            "cannot be written", "UNAVAILABLE")

    async def _do(self, entry: Entry,
                  worth: Callable[[Applied], bool] = lambda applied: True) -> Applied:
        """Apply ``entry``; where ``worth(applied)``, append it and publish its
        events (under the lock). Raises ``GameError`` (``game_moved``,
        ``unavailable``) with nothing published."""
        self._check_live()
        applied = self.sitting.apply(entry)
        if not worth(applied):
            return applied
        await self._append(applied.logged(entry))
        await self.publish(applied.events)
        return applied

    async def _append(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` (its JSON) to the log, fenced by the last seq."""
        try:
            self.last_seq = await self.table.log.append(self.game_id, entry, self.last_seq)
        except Fenced as e:
            await self.lose(f"its log append was refused ({e})")
            raise GameError("game_moved", f"game {self.game_id} is run elsewhere now",
                            "UNAVAILABLE") from e
        except LogUnavailable as e:
            self.sitting = restore(self.entries.all())
            self._pause(entry["at"] / 1000.0, str(e))
            raise GameError("unavailable", f"game {self.game_id} is paused: its log "
                            "cannot be written", "UNAVAILABLE") from e
        self.entries.append(entry)

    async def publish(self, out: Sequence[Outgoing]) -> None:
        """Publish ``out`` in order (under the lock), re-arm the timer, and start
        the end once the game finished."""
        await self.table.emit(self.sitting, out)
        self.timer.arm(self.sitting.next_deadline())
        if self.sitting.finished and self.ending is None:
            self.ending = asyncio.get_running_loop().create_task(self._end(self.sitting))

    async def start(self, out: list[Outgoing]) -> None:
        """Publish the start (the ``created`` entry's events); arm the timer."""
        async with self.lock:
            await self.publish(out)

    async def act(self, player: str, type_: str, cards: Sequence[str],
                  client_seq: int) -> Answer:
        """A player's action, one at a time (see Sitting.act); answered
        once its entry is in the log."""
        started = time.perf_counter()
        async with self.lock:
            self.sitting.seat_of(player)
            entry = Act(self._now(), player, type_, tuple(cards), client_seq)
            applied = await self._do(entry, lambda a: a.answer.ok and bool(a.events))
            answer = applied.answer
        result = answer.error if not answer.ok else ("ok" if applied.events else "duplicate")
        metrics.ACTIONS.labels(self.sitting.name, result).inc()
        metrics.ACTION_SECONDS.labels(self.sitting.name).observe(time.perf_counter() - started)
        return answer

    async def disconnected(self, player: str, at: float | None = None) -> None:
        """Hold the player's seat from ``at`` (unix s; default now)."""
        async with self.lock:
            self.sitting.seat_of(player)
            now = self._now()
            await self._do(Disconnected(now, player, now if at is None else ms(at)))

    async def reconnected(self, player: str) -> dict[str, Any]:
        """End the hold; returns the player's full view."""
        async with self.lock:
            self.sitting.seat_of(player)
            now = self._now()
            await self._do(Reconnected(now, player))
            return self.sitting.view(player, now / 1000.0)

    async def leave(self, player: str) -> None:
        """The player's escape."""
        async with self.lock:
            self.sitting.seat_of(player)
            await self._do(Leave(self._now(), player))

    async def void(self, by: str, why: str) -> str:
        """An operator ends the current deal without a result (a ``void``
        entry; the ending then stores its record, tells the lobby and
        publishes ``game_finished`` with reason ``void``). Returns its game id.
        ``GameError``: ``game_over`` once it finished, ``game_moved``,
        ``unavailable``."""
        async with self.lock:
            game = self.sitting
            if game.finished:
                raise GameError("game_over", f"game {game.game_id} has finished already",
                                "FAILED_PRECONDITION")
            await self._do(Void(self._now(), by, why))
            return game.game_id

    async def level_clients(self) -> None:
        """Send every seat its whole view (a ``level`` entry, after a pause if
        there is one): whatever a client missed, it is level again."""
        await self.when_live(lambda: Level(self._now()))

    async def when_live(self, make: Callable[[], Entry]) -> None:
        """Apply, log and publish the entry ``make()`` gives, waiting out pauses
        (the end of a game: ``finished``, ``redeal``). ``GameError(game_moved)``
        once the game is gone."""
        while True:
            await self.live.wait()
            async with self.lock:
                try:
                    await self._do(make())
                    return
                except GameError as e:
                    if e.code != "unavailable":
                        raise

    async def redeal(self) -> None:
        """Deal the room again: game id ``<first game id>.r<n>``."""
        def entry() -> Entry:
            self.ending = None
            return Redeal(self._now(), f"{self.game_id}.r{self.sitting.redeals + 1}",
                          prepared_deal(self.sitting.spec, None))
        await self.when_live(entry)

    async def _timer_step(self) -> None:
        """The timer fired: a ``timer`` entry at now, or at the deadline that is
        due where now in whole milliseconds would be before it (a deadline lies
        between two milliseconds; an entry at the millisecond before it would do
        nothing and the game would stand still). Where nothing was due after all,
        the timer is armed again (at least a millisecond on)."""
        async with self.lock:
            if self.gone or self.paused_at is not None:
                return
            game = self.sitting
            before = game.timeouts
            at = self._now()
            due = game.next_deadline()
            if due is not None and due <= self.table.clock.now():
                at = max(at, ms_at_or_after(due))
            try:
                applied = await self._do(Timer(at), lambda a: bool(a.events))
            except GameError:
                return
            if not applied.events:
                due = self.sitting.next_deadline()
                if due is not None:
                    self.timer.arm(max(due, self.table.clock.now() + 0.001))
            if game.timeouts > before:
                metrics.TIMEOUTS.labels(self.sitting.name).inc(game.timeouts - before)

    async def _end(self, game: Sitting) -> None:
        try:
            await self.table.end(self, game)
        except GameError as e:
            log.warning("ending game %s stopped here: %s", game.game_id, e.message)
        except Exception:
            log.exception("ending game %s failed", game.game_id)
            self.table.drop(self)

    # -- pauses, losses, handover -------------------------------------------------

    def _pause(self, at: float, why: str) -> None:
        if self.paused_at is None:
            log.error("game %s (room %s) paused: its log cannot be written (%s)",
                      self.game_id, self.sitting.spec.room, why)
            self.paused_at = at
            self.live.clear()
            self.timer.cancel()
            self._recovery = asyncio.get_running_loop().create_task(self._resume())

    async def _resume(self) -> None:
        """Retry until the game goes on here (or is lost to another instance)."""
        while not self.gone:
            await asyncio.sleep(RESUME_RETRY_SECONDS)
            try:
                if not await self.table.leases.renew(self.game_id):
                    await self.lose("its lease was taken while it was paused")
                    return
            except NATS_ERRORS:
                continue
            async with self.lock:
                if self.gone or self.paused_at is None:
                    return
                try:
                    if not await self._reread():
                        return
                except NATS_ERRORS:
                    continue
                entry = Resume(self._now(), ms(self.paused_at))
                applied = self.sitting.apply(entry)
                logged = applied.logged(entry)
                try:
                    self.last_seq = await self.table.log.append(self.game_id, logged,
                                                                self.last_seq)
                except Fenced as e:
                    await self.lose(f"its log append was refused ({e})")
                    return
                except LogUnavailable:
                    self.sitting = restore(self.entries.all())
                    continue
                self.entries.append(logged)
                self.paused_at = None
                self.live.set()
                log.info("game %s goes on after a pause", self.game_id)
                await self.publish(applied.events)
                return

    async def _reread(self) -> bool:
        """Read the log again after a pause: an append that timed out may have
        landed. Entries of this instance's are taken in (the sitting rebuilt
        from the log); a ``takeover`` by another instance loses the game (False)."""
        logged = await self.table.log.read(self.game_id)
        newer = [e for _, e in logged[len(self.entries):]]
        if any(e["type"] == "takeover" and e.get("instance") != self.table.instance
               for e in newer):
            await self.lose("another instance took it over while it was paused")
            return False
        if newer:
            self.entries = Logged(e for _, e in logged)
            self.sitting = restore(self.entries.all())
        if logged:
            self.last_seq = logged[-1][0]
        return True

    def _stop(self) -> None:
        self.gone = True
        self.live.set()
        self.timer.cancel()
        me = asyncio.current_task()
        for task in (self.ending, self._recovery):
            if task is not None and task is not me:
                task.cancel()

    async def lose(self, why: str) -> None:
        """Another instance owns the game now: stop it here, publish nothing more
        (said in the log, counted in paiju_table_lease_losses_total)."""
        if self.gone:
            return
        log.error("game %s (room %s): %s; another instance owns it now, this one "
                  "stops it", self.game_id, self.sitting.spec.room, why)
        metrics.LEASE_LOSSES.inc()
        self._stop()
        self.table.leases.forget(self.game_id)
        self.table.drop(self)

    async def hand_over(self) -> None:
        """Give the game up (SIGTERM): after the last append, a ``handover``
        entry, then release the lease so that another instance takes it at once."""
        async with self.lock:
            if self.gone:
                return
            self._stop()
            entry = Handover(self._now(), self.table.instance)
            logged = self.sitting.apply(entry).logged(entry)
            try:
                self.last_seq = await self.table.log.append(self.game_id, logged,
                                                            self.last_seq)
            except (Fenced, LogUnavailable) as e:
                log.warning("handover entry of %s not written: %s", self.game_id, e)
            await self.table.leases.release(self.game_id)
            self.table.drop(self)

    async def retire(self) -> None:
        """The sitting ended here: no longer live, lease released, room forgotten."""
        self._stop()
        self.table.drop(self)
        try:
            await self.table.leases.remove_live(self.game_id)
        except NATS_ERRORS as e:
            log.warning("unlisting ended game %s failed: %s", self.game_id, e)
        await self.table.leases.release(self.game_id)
