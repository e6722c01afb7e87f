"""The reconciler: started rooms whose game was lost go back to waiting.

A room is marked ``started`` before ``CreateGame`` reaches a table instance,
and goes back to waiting when the table reports ``GameOver``. If the lobby
dies between the two, or a table instance dies with its games, nothing
would ever report the end. Every few seconds, in every lobby replica, the
reconciler asks each table instance that a started room names which games
it runs (``ListGames``), and voids the room's game
(:meth:`~services.lobby.lobby.Lobby.void_game`: back to waiting, nobody
ready) when

- ``game_missing``: the instance answers and runs neither the game nor one
  of its redeals (``<game_id>.r<n>``). A table keeps a game listed until
  the lobby answered its GameOver, so a game missing there was never
  created or died with its instance's process;
- ``table_unreachable``: the instance did not answer for
  ``lost_after_seconds`` (as this process saw it: a restarted lobby starts
  counting again).

A room started less than ``grace_seconds`` ago is not checked (its
CreateGame may still be on its way). Several lobbies may void the same room
at once: compare-and-set lets one of them do it, and only that one counts it
in ``paiju_lobby_rooms_recovered_total{reason}``. A GameOver that comes
later for a voided game is answered with the room as it is (the lobby knows
the game id) and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from paiju.config import Config, load
from services.lobby import errors as E
from services.lobby import metrics as M
from services.lobby.lobby import Lobby
from services.lobby.store import StartedGame

log = logging.getLogger("paiju.lobby")

GAME_MISSING = "game_missing"
TABLE_UNREACHABLE = "table_unreachable"


@dataclass(frozen=True)
class ReconcileSettings:
    """``interval_seconds`` between passes (``PAIJU_LOBBY_RECONCILE_SECONDS``,
    5), ``grace_seconds`` a started room is left alone
    (``PAIJU_LOBBY_START_GRACE_SECONDS``, 30), ``lost_after_seconds`` an
    instance may not answer before its rooms' games count as lost
    (``PAIJU_LOBBY_TABLE_LOST_SECONDS``, 60)."""

    interval_seconds: float = 5.0
    grace_seconds: float = 30.0
    lost_after_seconds: float = 60.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ReconcileSettings:
        """The settings from ``environ`` (default: the process environment; declared in
        :class:`paiju.config.Settings`); ``ValueError`` naming the variable when
        one is not a positive number."""
        return cls.from_config(load("lobby", environ))

    @classmethod
    def from_config(cls, config: Config) -> ReconcileSettings:
        """The settings of a lobby's :class:`~paiju.config.Config`."""
        return cls(config.lobby_reconcile_seconds, config.lobby_start_grace_seconds,
                   config.lobby_table_lost_seconds)


@dataclass(frozen=True)
class Recovery:
    """A room this process returned to waiting: ``room``, the lost ``game_id``,
    the ``table_instance`` it was placed on, and the ``reason``
    (``game_missing`` or ``table_unreachable``)."""

    room: str
    game_id: str
    table_instance: str
    reason: str


def runs(running: list[str], game_id: str) -> bool:
    """Whether ``running`` (ListGames' game ids) holds ``game_id`` or one of its
    redeals (``<game_id>.r<n>``, services/table/runner.py)."""
    redeal = game_id + ".r"
    return any(g == game_id or g.startswith(redeal) for g in running)


class Reconciler:
    """Voids the lost games of ``lobby``'s started rooms (module docstring);
    times from the lobby's clock."""

    def __init__(self, lobby: Lobby, settings: ReconcileSettings | None = None) -> None:
        self.lobby = lobby
        self.settings = settings or ReconcileSettings()
        #: Table instance address -> unix ms of its first unanswered ListGames
        #: since it last answered.
        self.down_since: dict[str, int] = {}

    async def _probe(self, addr: str) -> list[str] | None:
        """The games ``addr`` runs, or None when it does not answer."""
        if not addr:
            return []  # no instance at all: nothing runs the game
        try:
            return await self.lobby.tables.running_games(addr)
        except Exception as e:  # an RPC error, or a target gRPC cannot use
            code = getattr(e, "code", None)
            log.warning("table instance %s did not answer ListGames: %s", addr,
                        code().name if callable(code) else e)
            return None

    async def run_once(self) -> list[Recovery]:
        """One pass over every started room older than the grace; returns the
        rooms this call returned to waiting."""
        s = self.settings
        now = self.lobby.clock.now_ms()
        by_addr: dict[str, list[StartedGame]] = {}
        for g in await self.lobby.store.started_games():
            if now - g.started_ms >= s.grace_seconds * 1000:
                by_addr.setdefault(g.table_instance, []).append(g)
        for addr in set(self.down_since) - set(by_addr):
            del self.down_since[addr]
        addrs = list(by_addr)
        answers = await asyncio.gather(*(self._probe(a) for a in addrs))
        recovered: list[Recovery] = []
        for addr, running in zip(addrs, answers, strict=True):
            if running is None:
                since = self.down_since.setdefault(addr, now)
                if now - since < s.lost_after_seconds * 1000:
                    continue
                lost, reason = by_addr[addr], TABLE_UNREACHABLE
            else:
                self.down_since.pop(addr, None)
                lost = [g for g in by_addr[addr] if not runs(running, g.game_id)]
                reason = GAME_MISSING
            for g in lost:
                if await self._void(g, reason):
                    recovered.append(Recovery(g.room, g.game_id, g.table_instance, reason))
        return recovered

    async def _void(self, game: StartedGame, reason: str) -> bool:
        try:
            room, done = await self.lobby.void_game(game.room, game.game_id)
        except E.LobbyError as e:
            log.warning("voiding game %s of %s failed: %s", game.game_id, game.room, e)
            return False
        if done:
            M.ROOMS_RECOVERED.labels(reason).inc()
            log.warning("room recovered: its game was lost", extra={
                "room": game.room, "game_id": game.game_id,
                "table_instance": game.table_instance, "reason": reason,
                "players": len(room.seats)})
        return done

    async def run(self) -> None:
        """A pass every ``interval_seconds`` (the first after one interval)
        until cancelled; a failed pass is logged and the next one runs."""
        while True:
            await asyncio.sleep(self.settings.interval_seconds)
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("lobby reconcile pass failed")
