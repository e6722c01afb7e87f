"""The reconciler: started rooms whose game was lost go back to waiting.

A room is marked ``started`` before ``CreateGame`` reaches a table instance,
and goes back to waiting when the table reports ``GameOver``. If the lobby
dies between the two, nothing would ever report the end; a table instance
that dies hands its games to another instance (its durable game log,
docs/table.md "Takeover"), which tells the lobby (``GameMoved``). Every few
seconds, in every lobby replica, the reconciler asks each table instance that
a started room names which games it runs (``ListGames``). A game that its
instance does not run (``game_missing``: it answers without the game or one
of its redeals ``<game_id>.r<n>``) or whose instance does not answer
(``table_unreachable``) is looked up in the table pool (``LocateGame`` on
every known instance):

- somebody holds its lease: the game runs there; where that is another
  instance than the room names, the room is moved to it (a ``GameMoved``
  that did not arrive), counted in ``paiju_lobby_games_moved_total{reason="reconciler"}``;
- nobody holds it but its log replays: an instance will take it over (or,
  with no instance alive, the next one to start will); it is left alone;
- nobody has held its lease and its log could not be read (missing, not
  replayable, or no instance answered) for ``lost_after_seconds``, as this
  process saw it: the game is voided
  (:meth:`~services.lobby.application.lobby.Lobby.void_game`: back to waiting, nobody
  ready), logged as an error and counted in
  ``paiju_lobby_rooms_recovered_total{reason}``.

A room started less than ``grace_seconds`` ago is not checked (its
CreateGame may still be on its way). Several lobbies may void the same room
at once: compare-and-set lets one of them do it, and only that one counts it.
A GameOver that comes later for a voided game is answered with the room as
it is (the lobby knows the game id) and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from paiju.config import Config, load
from services.lobby import metrics as M
from services.lobby.adapters.store import StartedGame
from services.lobby.application.lobby import Lobby
from services.lobby.domain import errors as E

log = logging.getLogger("paiju.lobby")

GAME_MISSING = "game_missing"
TABLE_UNREACHABLE = "table_unreachable"


@dataclass(frozen=True)
class ReconcileSettings:
    """``interval_seconds`` between passes (``PAIJU_LOBBY_RECONCILE_SECONDS``,
    5), ``grace_seconds`` a started room is left alone
    (``PAIJU_LOBBY_START_GRACE_SECONDS``, 30), ``lost_after_seconds`` a game
    may have no lease and no readable log before it counts as lost
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


@dataclass(frozen=True)
class Whereabouts:
    """What the pool says of a game: ``owner`` (lease holder's address, "" none)
    and whether its log replays to a game still going (``alive``)."""

    owner: str
    alive: bool


def runs(running: list[str], game_id: str) -> bool:
    """Whether ``running`` (ListGames' game ids) holds ``game_id`` or one of its
    redeals (``<game_id>.r<n>``, services/table/application/runner.py)."""
    redeal = game_id + ".r"
    return any(g == game_id or g.startswith(redeal) for g in running)


class Reconciler:
    """Voids the lost games of ``lobby``'s started rooms (module docstring);
    times from the lobby's clock."""

    def __init__(self, lobby: Lobby, settings: ReconcileSettings | None = None) -> None:
        self.lobby = lobby
        self.settings = settings or ReconcileSettings()
        #: Game id -> unix ms since when this process saw it without a lease
        #: holder and without a readable log.
        self.lost_since: dict[str, int] = {}

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

    async def _ask(self, addr: str, game_id: str) -> tuple[str, bool] | None:
        try:
            found = await self.lobby.tables.locate(addr, game_id)
        except Exception as e:  # an RPC error, or a target gRPC cannot use
            code = getattr(e, "code", None)
            log.info("table instance %s did not answer LocateGame: %s", addr,
                     code().name if callable(code) else e)
            return None
        return found.owner, found.log == "readable" and not found.ended

    async def locate(self, game_id: str, addrs: list[str]) -> Whereabouts:
        """Ask every instance of ``addrs`` where ``game_id`` stands (instances
        of several pools may answer: any lease holder, any readable log counts)."""
        answers = [a for a in await asyncio.gather(*(self._ask(x, game_id) for x in addrs))
                   if a is not None]
        owner = next((o for o, _ in answers if o), "")
        return Whereabouts(owner, any(alive for _, alive in answers))

    async def run_once(self) -> list[Recovery]:
        """One pass over every started room older than the grace; returns the
        rooms this call returned to waiting."""
        s = self.settings
        now = self.lobby.clock.now_ms()
        by_addr: dict[str, list[StartedGame]] = {}
        for g in await self.lobby.store.started_games():
            if now - g.started_ms >= s.grace_seconds * 1000:
                by_addr.setdefault(g.table_instance, []).append(g)
        addrs = list(by_addr)
        answers = await asyncio.gather(*(self._probe(a) for a in addrs))
        suspects: list[tuple[StartedGame, str]] = []
        answering = [a for a, r in zip(addrs, answers, strict=True) if r is not None and a]
        for addr, running in zip(addrs, answers, strict=True):
            if running is None:
                suspects += [(g, TABLE_UNREACHABLE) for g in by_addr[addr]]
            else:
                suspects += [(g, GAME_MISSING) for g in by_addr[addr]
                             if not runs(running, g.game_id)]
        pool = list(dict.fromkeys([*answering, *self.lobby.tables.known()]))
        checked = {g.game_id for g, _ in suspects}
        for gid in set(self.lost_since) - checked:
            del self.lost_since[gid]
        recovered: list[Recovery] = []
        for g, reason in suspects:
            where = await self.locate(g.game_id, pool)
            if where.owner or where.alive:
                self.lost_since.pop(g.game_id, None)
                if where.owner and where.owner != g.table_instance:
                    await self._move(g, where.owner)
                continue
            since = self.lost_since.setdefault(g.game_id, now)
            if now - since < s.lost_after_seconds * 1000:
                continue
            if await self._void(g, reason):
                self.lost_since.pop(g.game_id, None)
                recovered.append(Recovery(g.room, g.game_id, g.table_instance, reason))
        return recovered

    async def _move(self, game: StartedGame, owner: str) -> None:
        try:
            await self.lobby.game_moved(game.game_id, game.room, owner, reason="reconciler")
        except E.LobbyError as e:
            log.warning("moving game %s of %s to %s failed: %s", game.game_id, game.room,
                        owner, e)

    async def _void(self, game: StartedGame, reason: str) -> bool:
        try:
            room, done = await self.lobby.void_game(game.room, game.game_id)
        except E.LobbyError as e:
            log.warning("voiding game %s of %s failed: %s", game.game_id, game.room, e)
            return False
        if done:
            M.ROOMS_RECOVERED.labels(reason).inc()
            log.error("room recovered: its game was lost (no lease, game log unreadable)",
                      extra={"room": game.room, "game_id": game.game_id,
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
