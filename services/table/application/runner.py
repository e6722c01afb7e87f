"""The rooms this instance runs, and what keeps them durable.

:class:`Table` holds every room this instance runs (each a
:class:`~services.table.application.room.RoomRunner`: one lock, its log, its timer). A
game is created with its lease taken (:mod:`services.table.adapters.lease`) and its
``created`` entry in the game log (:mod:`services.table.adapters.gamelog`) before it
starts; the table renews its leases every third of their TTL
(:meth:`Table.keep_leases`) and drops a game whose lease another instance
holds. Redeals (nobody bid or declared) deal again in the same room with a
new game id (``<game_id>.r<n>``); the redeals are the same sitting: they share
the seats' disconnect budgets (:mod:`services.table.domain.holds`) and its log.
On SIGTERM :meth:`Table.hand_over` gives every game up at once.

Presence (:mod:`paiju.presence.book.book`): :meth:`Table.on_presence` takes each
``Change`` of a seated player: absent starts its seat's hold from ``at_ms``,
present ends it. The PlayerDisconnected / PlayerReconnected RPCs feed the same
routine (at the time of the call).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from paiju.presence.book import Change
from paiju.runtime import retries, subjects
from paiju.runtime.natsconn import NATS_ERRORS
from services.table import metrics
from services.table.adapters.gamelog import Fenced, GameLog, LogUnavailable
from services.table.adapters.lease import RENEW_SLICES, Leases
from services.table.adapters.publisher import Publisher
from services.table.adapters.remote import Ledger, Lobby
from services.table.adapters.store import RecordStore
from services.table.application import ending
from services.table.application.clock import Clock
from services.table.application.room import RoomRunner, prepared_deal
from services.table.domain.entries import Created, entry_of
from services.table.domain.outgoing import GameError, Outgoing, ms
from services.table.domain.sitting import Sitting, spec_json
from services.table.domain.spec import GameSpec, Terms

__all__ = ["GameSpec", "RoomRunner", "Table", "Terms"]

log = logging.getLogger("paiju.table")

#: How many absent players the table remembers before it forgets old ones, and
#: the age (seconds) of an absence it forgets then.
ABSENT_KEPT = 10_000
ABSENT_FORGET_SECONDS = 3600.0

#: Seconds a new game's lease and live listing are tried again through a
#: NATS election (the lobby's CreateGame waits 3 s; the log's append retries
#: on its own, :class:`services.table.adapters.gamelog.GameLog`).
BEGIN_RETRY_SECONDS = 2.0


def _nats_error(e: BaseException) -> bool:
    return isinstance(e, NATS_ERRORS)


def created_of(logged: dict[str, Any]) -> Created:
    """The :class:`Created` entry a logged JSON object holds; ``ValueError``
    where it holds another kind."""
    entry = entry_of(logged)
    if not isinstance(entry, Created):
        raise ValueError(f"a {entry.kind!r} entry, not 'created'")
    return entry


def _created_of_game(logged: dict[str, Any], gid: str) -> bool:
    """True where ``logged`` is a ``created`` entry of game ``gid``."""
    try:
        return created_of(logged).spec.get("game_id") == gid
    except (ValueError, KeyError, TypeError):
        return False


class Table:
    """Every room this instance runs, its clock, its log and leases, its peers.
    ``address`` is this instance's gRPC address as others reach it."""

    def __init__(self, *, instance: str, clock: Clock, publisher: Publisher, ledger: Ledger,
                 lobby: Lobby | None, store: RecordStore, log: GameLog, leases: Leases,
                 address: str = "", allow_fixed_deal: bool = False,
                 record_retry_seconds: float = 300.0) -> None:
        self.instance = instance
        self.address = address
        self.clock = clock
        self.publisher = publisher
        self.ledger = ledger
        self.lobby = lobby
        self.store = store
        self.log = log
        self.leases = leases
        self.allow_fixed_deal = allow_fixed_deal
        #: How long storing a record is retried before it is given up (seconds).
        self.record_retry_seconds = record_retry_seconds
        self.rooms: dict[str, RoomRunner] = {}
        #: The same runners by their sitting's game id.
        self.sittings: dict[str, RoomRunner] = {}
        self.accepting = True
        self.background: set[asyncio.Task[None]] = set()
        self.idle = asyncio.Event()
        self.idle.set()
        #: Players whose last presence Change was absent -> since when (unix s).
        self.absent: dict[str, float] = {}
        #: How long CreateGame waits for a room's ended game to let go (seconds).
        self.ending_wait = 10.0
        #: One creation at a time per room (a room's check and adoption are one
        #: step); rooms do not wait for each other: one lock for the instance
        #: queued a burst of starts behind each other's JetStream round trips
        #: past the lobby's 3 s deadline (docs/performance.md).
        #: room -> [its lock, the callers holding or awaiting it]
        self._creating: dict[str, list[Any]] = {}

    async def on_presence(self, change: Change) -> None:
        """A presence flip (:class:`paiju.presence.book.book.Change`): the rooms where the
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
                with contextlib.suppress(GameError):
                    if change.present:
                        await runner.reconnected(change.player)
                    else:
                        await runner.disconnected(change.player, at)

    async def create(self, spec: GameSpec) -> RoomRunner:
        """Start ``spec``'s game. Idempotent by game id; ``GameError`` with
        ``draining`` (UNAVAILABLE), ``room_busy`` (ALREADY_EXISTS),
        ``game_exists`` (ALREADY_EXISTS: another instance runs it or its log
        has entries already) or ``unavailable`` (UNAVAILABLE: the log or the
        lease cannot be written). A room whose game told the lobby GameOver is
        waited for (it only publishes ``game_finished`` still). Seats whose
        player is known to be absent (presence) start held. Raises
        ``RulesError`` for a deal or options the engine refuses."""
        current = self.rooms.get(spec.room)
        if current is not None and current.over and current.sitting.spec.game_id != spec.game_id:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(current.done.wait(), self.ending_wait)
        async with self._room_creation(spec.room):
            current = self.rooms.get(spec.room)
            if current is not None:
                if current.sitting.spec.game_id == spec.game_id:
                    return current
                raise GameError("room_busy", f"room {spec.room} runs game "
                                f"{current.sitting.spec.game_id}", "ALREADY_EXISTS")
            if not self.accepting:
                raise GameError("draining", f"{self.instance} takes no new games",
                                "UNAVAILABLE")
            now = ms(self.clock.now())
            created = Created(now, spec_json(spec), prepared_deal(spec, spec.deal),
                              [[s.seat, now] for s in spec.seats if s.player in self.absent])
            sitting = Sitting(created)
            applied = sitting.first()
            logged = applied.logged(created)
            seq, landed = await self._begin(spec, logged)
            if landed is not logged:  # an earlier try's entry: its deal, its times
                sitting = Sitting(created_of(landed))
                applied = sitting.first()
            runner = RoomRunner(self, sitting, [landed], seq)
            self.adopt(runner)
        await runner.start(applied.events)
        return runner

    @contextlib.asynccontextmanager
    async def _room_creation(self, room: str) -> AsyncIterator[None]:
        """Hold ``room``'s creation lock (forgotten once nobody holds or awaits it)."""
        entry = self._creating.setdefault(room, [asyncio.Lock(), 0])
        entry[1] += 1
        try:
            async with entry[0]:
                yield
        finally:
            entry[1] -= 1
            if not entry[1]:
                del self._creating[room]

    async def _begin(self, spec: GameSpec, created: dict[str, Any]
                     ) -> tuple[int, dict[str, Any]]:
        """Take the lease, append the ``created`` entry, list the sitting live;
        returns the entry's stream sequence and the entry logged (``created``,
        or an earlier try's: :meth:`_append_created`). The lease is released
        where the creation fails or is cancelled."""
        gid = spec.game_id
        try:
            taken = await retries.call("table lease take", lambda: self.leases.take(gid),
                                       _nats_error, give_up_after=BEGIN_RETRY_SECONDS)
            if not taken:
                raise GameError("game_exists", f"game {gid} is run by another instance",
                                "ALREADY_EXISTS")
            seq, created = await self._append_created(gid, created)
            await retries.call("table live listing",
                               lambda: self.leases.add_live(gid, spec.room, spec.game),
                               _nats_error, give_up_after=BEGIN_RETRY_SECONDS)
        except Fenced as e:
            await self.leases.release(gid)
            raise GameError("game_exists", f"game {gid} has a log already",
                            "ALREADY_EXISTS") from e
        except (LogUnavailable, *NATS_ERRORS) as e:
            await self.leases.release(gid)
            raise GameError("unavailable", f"the game log cannot be written: {e}",
                            "UNAVAILABLE") from e
        except asyncio.CancelledError:
            # The caller gave up (the lobby stopped, its deadline passed): no
            # lease is kept renewed for a game this instance does not run. A
            # created entry already logged is listed live by the first
            # LocateGame (services/table/application/locate.py), then taken over.
            await self.leases.release(gid)
            raise
        return seq, created

    async def _append_created(self, gid: str, created: dict[str, Any]
                              ) -> tuple[int, dict[str, Any]]:
        """Append the ``created`` entry of ``gid`` (its lease held); where the
        log holds one ``created`` entry of ``gid`` and nothing else, an earlier
        try of this creation wrote it and failed after (its live listing
        through a JetStream election): that entry, so that the game can
        still be created. ``Fenced`` where the log holds more."""
        try:
            return await self.log.append(gid, created, 0), created
        except Fenced:
            logged = await self.log.read(gid)
            if len(logged) != 1 or not _created_of_game(logged[0][1], gid):
                raise
            log.info("game %s: the created entry of an earlier try is used", gid)
            return logged[0]

    def adopt(self, runner: RoomRunner) -> None:
        """Run ``runner``'s room here (created or taken over)."""
        self.rooms[runner.sitting.spec.room] = runner
        self.sittings[runner.game_id] = runner
        self.idle.clear()
        metrics.GAMES_RUNNING.labels(runner.sitting.spec.game).inc()

    def room(self, room: str) -> RoomRunner:
        """The runner of ``room``; ``GameError(no_game)`` (NOT_FOUND) if none."""
        runner = self.rooms.get(room)
        if runner is None:
            raise GameError("no_game", f"no game runs in room {room!r} here", "NOT_FOUND")
        return runner

    def owned(self, room: str) -> RoomRunner:
        """:meth:`room`, where this instance surely still owns the game (its
        lease is current: :meth:`~services.table.adapters.lease.Leases.current`),
        for answers read from the game's state; ``GameError(unavailable)``
        otherwise: stopped or cut off past its lease, it may hold a state that
        another instance, having taken the game over, has moved on from."""
        runner = self.room(room)
        if not self.leases.current(runner.game_id):
            raise GameError("unavailable", f"game {runner.game_id}: its lease is not "
                            "confirmed; it may be run elsewhere now", "UNAVAILABLE")
        return runner

    def drop(self, runner: RoomRunner) -> None:
        """Forget a room whose game ended, was lost or handed over."""
        if self.rooms.get(runner.sitting.spec.room) is runner:
            del self.rooms[runner.sitting.spec.room]
            metrics.GAMES_RUNNING.labels(runner.sitting.spec.game).dec()
        if self.sittings.get(runner.game_id) is runner:
            del self.sittings[runner.game_id]
        runner.done.set()
        if not self.rooms:
            self.idle.set()

    async def emit(self, game: Sitting, out: Sequence[Outgoing]) -> None:
        """Publish ``out`` in order: public ones on the room's subject, private
        ones on their player's subject; return once NATS has them (so that an
        action is answered only after its events left this process: a crash
        right after the answer loses none of them)."""
        for o in out:
            subject = (subjects.table_events(game.room) if o.player is None
                       else subjects.player_events(o.player))
            await self.publisher.publish(subject, o.type, o.data, seq=o.seq,
                                         game_id=game.game_id, room=game.room)
        if out:
            await self.publisher.flush()

    async def end(self, runner: RoomRunner, game: Sitting) -> None:
        """The end of ``runner``'s finished ``game``
        (:func:`services.table.application.ending.finish`)."""
        await ending.finish(runner, game)

    async def store_record(self, record: dict[str, Any]) -> bool:
        """Store a record (idempotent by game id), retried while the database
        fails (:mod:`paiju.runtime.retries`, operation ``record_store``) for at most
        :attr:`record_retry_seconds`. Then it is given up: logged (ERROR),
        counted in ``paiju_table_records_lost_total`` and False returned; the
        game's end goes on (GameOver: its room is released)."""
        try:
            await retries.call("record_store", lambda: self.store.save(record),
                               lambda e: isinstance(e, Exception),
                               give_up_after=self.record_retry_seconds)
        except Exception as e:
            metrics.RECORDS_LOST.inc()
            log.error("the record of %s is given up after %.0f s: %s", record["game_id"],
                      self.record_retry_seconds, e,
                      extra={"game_id": record["game_id"], "room": record.get("room")})
            return False
        return True

    async def keep_leases(self) -> None:
        """Renew the leases every third of their TTL, for ever, in
        :data:`~services.table.adapters.lease.RENEW_SLICES` slices spread over that
        interval (each lease once per interval, never all at once); a game
        whose lease another instance holds is dropped (:meth:`RoomRunner.lose`)."""
        slices = RENEW_SLICES
        while True:
            for k in range(slices):
                await asyncio.sleep(self.leases.seconds / 3 / slices)
                try:
                    for gid in await self.leases.renew_all(part=(k, slices)):
                        runner = self.sittings.get(gid)
                        if runner is not None:
                            await runner.lose("its lease is held by another instance")
                except Exception:
                    log.exception("renewing leases failed")

    def drain(self) -> None:
        """Take no new games from now on (SIGTERM)."""
        self.accepting = False

    async def hand_over(self) -> None:
        """Take no new games and give every game up (SIGTERM): each gets its
        ``handover`` entry and its lease is released, all at once."""
        self.drain()
        runners = list(self.rooms.values())
        if runners:
            log.info("handing %d games over to the other instances", len(runners))
        await asyncio.gather(*(r.hand_over() for r in runners))

    async def wait_idle(self, timeout: float) -> bool:
        """Wait until every game ended (True) or ``timeout`` seconds ran out (False)."""
        try:
            await asyncio.wait_for(self.idle.wait(), timeout)
        except TimeoutError:
            return False
        return True
