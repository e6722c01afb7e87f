"""Taking over the games whose owner is gone.

Every ``poll_seconds`` an instance that takes games lists the live sittings
(:meth:`services.table.adapters.lease.Leases.live`) and, for each one without a lease
whose room it does not run already, takes the lease, reads the sitting's log
(:mod:`services.table.adapters.gamelog`), replays it (:func:`services.table.domain.sitting.restore`:
the engines are pure, the entries carry their times) and appends a
``takeover`` entry expecting the last sequence it replayed. Until that append
succeeds it accepts and publishes nothing; if it fails (another instance was
faster, or NATS is away) it releases the lease and tries again next time.

The game stood still from ``stopped_at``: the ``handover`` entry's time when
its owner gave it up, else the later of its last entry and a lease's TTL ago
(when the dead owner's lease was last renewed at the latest). The takeover
entry brings every seat level (:mod:`services.table.domain.sitting`: ``game_moved``
with this instance's address on the table's public subject, each player's
``view``, the turns with their deadlines), the lobby is told (``GameMoved``:
the room's ``table_instance`` becomes this instance) and the game goes on here; a game
that had finished goes on with its end (settlement and record are idempotent
by game id; what the log says was done is not done again). A sitting whose
log says it ended is only unlisted. A log that cannot be replayed is logged
and left (the lobby's reconciler is the last resort for it).
"""

from __future__ import annotations

import asyncio
import logging
import time

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime.natsconn import NATS_ERRORS, logged_step
from services.table import metrics
from services.table.adapters.gamelog import Fenced, LogUnavailable
from services.table.adapters.remote import Refused
from services.table.application.room import RoomRunner
from services.table.application.runner import Table
from services.table.domain import entries as log_entries
from services.table.domain.outgoing import ms
from services.table.domain.sitting import restore

log = logging.getLogger("paiju.table.takeover")


class Takeover:
    """The watcher of one instance (see the module docstring)."""

    def __init__(self, table: Table, poll_seconds: float) -> None:
        self.table = table
        self.poll_seconds = poll_seconds

    async def run(self) -> None:
        """Scan every ``poll_seconds`` while the table takes games, for ever."""
        while True:
            await asyncio.sleep(self.poll_seconds)
            if not self.table.accepting:
                continue
            await logged_step(self.scan, "looking for games to take over", log)

    async def scan(self) -> list[str]:
        """One pass; returns the game ids taken over."""
        table = self.table
        taken: list[str] = []
        # One listing of each bucket, then a look at the games nobody holds
        # only: a look per live game (two requests each) every second was
        # 1,000 requests a second at 500 games (docs/performance.md).
        others = [g for g in await table.leases.live_ids() if g not in table.sittings]
        if not others:
            return taken
        leased = await table.leases.leased_ids()
        for gid in others:
            if not table.accepting:
                break
            if gid in table.sittings or gid in leased:
                continue
            info = await table.leases.live_info(gid)
            if info is None or info.get("room") in table.rooms:
                continue
            if await table.leases.holder(gid) is not None:
                continue
            if await self.take(gid):
                taken.append(gid)
        return taken

    async def take(self, gid: str) -> bool:
        """Take ``gid`` over if its lease is free (True once it runs here).
        Whatever stops it on the way releases the lease again."""
        table = self.table
        started = time.perf_counter()
        if not await table.leases.take(gid):
            return False
        taken = False
        try:
            taken = await self._take(gid, started)
        finally:
            if not taken and gid not in table.sittings:
                await table.leases.release(gid)
        return taken

    async def tell_lobby(self, gid: str, room: str) -> None:
        """``GameMoved``: the room's game runs at this instance now (retried;
        a lobby that no longer runs the game there is logged)."""
        lobby = self.table.lobby
        if lobby is None:
            return
        try:
            await lobby.game_moved(lobby_pb2.GameMovedRequest(
                game_id=gid, room=room, table_instance=self.table.address))
        except Refused as e:
            log.warning("the lobby refused GameMoved of %s: %s", gid, e)

    async def _take(self, gid: str, started: float) -> bool:
        table = self.table
        try:
            logged = await table.log.read(gid)
        except NATS_ERRORS as e:
            log.warning("reading the log of %s failed: %s", gid, e)
            return False
        if not logged:
            log.error("live game %s has no log; unlisted", gid)
            await table.leases.remove_live(gid)
            return False
        entries = [e for _, e in logged]
        try:
            sitting = restore(entries)
        except Exception:
            log.exception("the log of %s cannot be replayed; left alone", gid)
            return False
        if sitting.finished_logged and sitting.reason != "redeal":
            log.info("game %s had ended; unlisted", gid)
            await table.leases.remove_live(gid)
            return False
        if sitting.spec.room in table.rooms or not table.accepting:
            return False
        now = table.clock.now()
        stopped = sitting.handed_over_at
        if stopped is None:
            stopped = max(sitting.last_at, now - table.leases.seconds)
        entry = log_entries.Takeover(ms(now), ms(min(stopped, now)), table.instance,
                                     table.address)
        applied = sitting.apply(entry)
        appended = applied.logged(entry)
        try:
            seq = await table.log.append(gid, appended, logged[-1][0])
        except (Fenced, LogUnavailable) as e:
            log.warning("takeover of %s not written (%s); released", gid, e)
            return False
        runner = RoomRunner(table, sitting, [*entries, appended], seq)
        table.adopt(runner)
        await runner.start(applied.events)
        task = asyncio.get_running_loop().create_task(self.tell_lobby(gid, sitting.spec.room))
        table.background.add(task)
        task.add_done_callback(table.background.discard)
        seconds = time.perf_counter() - started
        metrics.GAMES_TAKEN_OVER.inc()
        metrics.TAKEOVER_SECONDS.observe(seconds)
        log.info("took over game %s (room %s) after %.1fs standing still", gid,
                 sitting.spec.room, now - stopped,
                 extra={"game_id": gid, "room": sitting.spec.room,
                        "takeover_seconds": round(seconds, 4)})
        return True
