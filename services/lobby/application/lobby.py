"""The lobby's use cases: read a room, apply a domain rule, write it with
compare-and-set (retrying on conflict), tell NATS, talk to ledger and tables.

Every method raises :class:`~services.lobby.domain.errors.LobbyError` on a refusal;
the gRPC servicer only translates messages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from nats.aio.client import Client as NATS

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import retries
from services.lobby import metrics as M
from services.lobby.adapters.events import publish_room
from services.lobby.adapters.ledger_client import Ledger
from services.lobby.adapters.placement import Tables
from services.lobby.adapters.store import Conflict, Store
from services.lobby.application.ai_fill import AiFill
from services.lobby.domain import errors as E
from services.lobby.domain import private as P
from services.lobby.domain import quick, room_rules
from services.lobby.domain.clock import Clock
from services.lobby.domain.coin_servers import CoinServer, RoomsConfig
from services.lobby.domain.relief import NO_RELIEF, ReliefTerms, threshold
from services.lobby.domain.room_rules import Line, Result, Room, Row

log = logging.getLogger("paiju.lobby")

T = TypeVar("T")

#: Compare-and-set attempts before a request gives up with ``busy``.
MAX_ATTEMPTS = 60
#: Seconds a start may wait for a table instance to take its game: while
#: JetStream elects a leader (measured up to 15 s on a loaded two-core
#: machine, tests/e2e/test_nats_cluster.py) the instances can neither renew their
#: registry entries nor write a new game's log, so finding one and
#: ``CreateGame`` are tried again (jittered backoff) this long, less
#: :data:`PLACEMENT_MARGIN` of the caller's deadline where that is shorter.
PLACEMENT_SECONDS = 25.0
#: Seconds of the caller's deadline left for the answer itself.
PLACEMENT_MARGIN = 1.0
#: The longest wait between two tries of a placement (seconds): an election
#: takes seconds, a start should not wait longer than it.
PLACEMENT_RETRY_CAP = 1.0


def placement_window(within: float | None) -> float:
    """Seconds a start may spend placing its game: :data:`PLACEMENT_SECONDS`,
    or less where the caller waits ``within`` seconds only (at least 0)."""
    if within is None:
        return PLACEMENT_SECONDS
    return max(0.0, min(PLACEMENT_SECONDS, within - PLACEMENT_MARGIN))


def _no_instance(e: BaseException) -> bool:
    return isinstance(e, E.LobbyError) and e.code == E.NO_TABLE_INSTANCE


async def _until(operation: str, fn: Callable[[], Awaitable[T]], deadline: float) -> T:
    """``fn()`` tried again while it raises ``no_table_instance``, with
    jittered backoff (:func:`paiju.runtime.retries.call`, its budget), no wait
    past ``deadline`` (event loop time) and no try begun after it."""
    loop = asyncio.get_running_loop()

    async def sleep(seconds: float) -> None:
        await asyncio.sleep(min(seconds, max(0.0, deadline - loop.time())))

    return await retries.call(operation, fn, _no_instance,
                              give_up_after=max(0.0, deadline - loop.time()),
                              cap=PLACEMENT_RETRY_CAP, sleep=sleep)


class Lobby:
    """The lobby of ``config``'s coin servers over ``store``, with the ledger,
    the table instances, NATS (None: no events), a clock and the relief
    offered (救济金; default: none)."""

    def __init__(self, config: RoomsConfig, store: Store, ledger: Ledger, tables: Tables,
                 nc: NATS | None, clock: Clock, relief: ReliefTerms = NO_RELIEF,
                 private: P.PrivateTerms = P.DEFAULT_TERMS) -> None:
        self.config = config
        self.relief = relief
        self.private = private
        self.attempts = P.Attempts(private.attempts_per_minute)
        self.store = store
        self.ledger = ledger
        self.tables = tables
        self.nc = nc
        self.clock = clock
        #: The newest version of each room this process read or wrote. Only a
        #: starting point for a change: the write checks the version in the
        #: database, and a refusal or no-op seen on it is checked again on a
        #: fresh read, so a stale entry (another lobby changed the room) costs
        #: a retry, never a wrong answer.
        self.rooms: dict[str, Room] = {}
        #: Whether a player has a live session (presence; set by
        #: services/lobby/application/presence.py; without it everyone counts present).
        self.present: Callable[[str], bool] = lambda _: True
        #: More steps of the background pass (the presence sweep).
        self.passes: list[Callable[[], Awaitable[Any]]] = []
        #: Asking the AI pool for seats (None without NATS).
        self.ai_fill = None if nc is None else AiFill(config, store, nc, self._load)
        if self.ai_fill is not None and self.ai_fill.wanted():
            self.passes.append(self.ai_fill.ask_again)

    def _remember(self, room: Room) -> Room:
        known = self.rooms.get(room.room)
        if known is None or known.version <= room.version:
            self.rooms[room.room] = room
        return room

    async def _load(self, room_id: str) -> Room:
        """The room as stored now (and remembered)."""
        return self._remember(await self.store.load(room_id))

    async def _decide(self, room_id: str, decide: Callable[[Room], T]) -> T:
        """``decide(room)`` on the room as last seen, without reading it; a
        refusal there (``LobbyError``) is decided again on the stored room. For
        early answers only: what is written is decided again by :meth:`_mutate`."""
        cached = self.rooms.get(room_id)
        if cached is not None:
            try:
                return decide(cached)
            except E.LobbyError:
                pass
        return decide(await self._load(room_id))

    def _server(self, room_id: str) -> CoinServer:
        server = self.config.server_of_room(room_id)
        if server is None:
            raise E.LobbyError(E.NO_SUCH_ROOM, f"there is no room {room_id!r}")
        return server

    async def _mutate(self, room_id: str, change: Callable[[Room], Room], *,
                      publish: bool = True) -> tuple[Room, Room]:
        """Load the room, apply ``change``, save with compare-and-set; on a
        conflict reload and apply again; publish ``room_changed`` unless
        ``publish`` is false. Returns (room before, room after); the same room
        twice when ``change`` changed nothing (nothing written).

        The first attempt starts from the room as this process last saw it
        (:attr:`rooms`), saving a read when nobody else changed it; the version
        check of the write is in the database as always. A refusal or a no-op
        on that copy is not trusted: the room is read again and ``change``
        applied to it."""
        cached = self.rooms.get(room_id)
        for attempt in range(MAX_ATTEMPTS):
            if cached is not None:
                old, cached = cached, None
                try:
                    new = change(old)
                except E.LobbyError:
                    continue  # decided on the stored room below
                if new == old:
                    continue
                from_cache = True
            else:
                old = await self._load(room_id)
                new = change(old)
                if new == old:
                    return old, old
                from_cache = False
            try:
                saved = self._remember(await self.store.save(old, new, self.clock.now_ms()))
            except Conflict:
                if from_cache:
                    continue  # the copy was stale: read the room
                M.CAS_CONFLICTS.inc()
                await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
                continue
            if publish:
                await publish_room(self.nc, saved)
            if saved.private and not saved.seats and not saved.game_id:
                await self._close(saved)
            return old, saved
        raise E.LobbyError(E.BUSY, f"room {room_id} is too busy, try again",
                           grpc.StatusCode.ABORTED)

    async def _close(self, room: Room) -> None:
        """Delete the emptied private ``room`` (its last player left)."""
        if await self.store.close_private(room):
            self.rooms.pop(room.room, None)
            log.info("private room closed", extra={"room": room.room})

    async def _seated_nowhere(self, player: str) -> None:
        """``already_seated`` where ``player`` sits in a room."""
        elsewhere = await self.store.find_player(player)
        if elsewhere is not None:
            raise E.LobbyError(E.ALREADY_SEATED, f"player {player} already sits in {elsewhere}")

    async def _coins_to_sit(self, server: CoinServer, player: str) -> int:
        """``player``'s ledger balance; ``not_enough_coins`` below ``server``'s
        ``min_coins``."""
        coins = await self.ledger.balance(player)
        if coins < server.min_coins:
            raise E.LobbyError(E.NOT_ENOUGH_COINS,
                               f"{server.server} needs {server.min_coins} coins to sit; "
                               f"{player} has {coins}")
        return coins

    # -- private rooms (好友房) -------------------------------------------------

    async def open_room(self, player: str, name: str, server_id: str,
                        options_json: str = "") -> tuple[Room, str]:
        """``player`` opens a private room of ``server_id`` (its game, options,
        stake and fee; over its options those of ``options_json`` that the
        game lets players choose) and sits at seat 0 as its owner. Returns the
        room and its invite code. ``invalid_argument`` (no player);
        ``no_such_server`` (NOT_FOUND); ``bad_options``; ``already_seated``;
        ``not_enough_coins``; ``too_many_rooms`` (the player owns
        ``rooms_per_player`` open ones)."""
        if not player:
            raise E.invalid("player is required")
        server = self.config.server(server_id)
        if server is None:
            raise E.not_found(E.NO_SUCH_SERVER, f"there is no coin server {server_id!r}")
        options = P.chosen_options(server.game, options_json)
        await self._seated_nowhere(player)
        if await self.store.owned_rooms(player) >= self.private.rooms_per_player:
            raise E.LobbyError(E.TOO_MANY_ROOMS, f"player {player} has "
                               f"{self.private.rooms_per_player} private rooms open")
        coins = await self._coins_to_sit(server, player)
        now = self.clock.now_ms()
        for _ in range(MAX_ATTEMPTS):
            empty = Room(P.new_room_id(server.server), server.server, server.game,
                         server.seats, private=True, owner=player, options=options)
            room = room_rules.sit(empty, 0, player, name or player, coins, now_ms=now,
                                  ready_seconds=server.ready_seconds,
                                  connected=self.present(player))
            code = P.new_code()
            try:
                saved = self._remember(await self.store.open_private(room, code, now))
            except Conflict:
                continue  # the code (or id) was drawn before: draw again
            M.PRIVATE_ROOMS_OPENED.inc()
            await publish_room(self.nc, saved)
            log.info("private room opened", extra={"room": saved.room, "player": player})
            return saved, code
        raise E.LobbyError(E.BUSY, "no free invite code found, try again",
                           grpc.StatusCode.ABORTED)

    async def _room_of_code(self, player: str, code: str) -> str:
        """The private room of ``code``, one of ``player``'s tries counted.
        ``invalid_argument`` (no player); ``too_many_attempts``
        (RESOURCE_EXHAUSTED); ``no_such_code`` (NOT_FOUND)."""
        if not player:
            raise E.invalid("player is required")
        if not self.attempts.take(player, self.clock.now_ms()):
            M.CODE_TRIES.labels("limited").inc()
            raise E.LobbyError(E.TOO_MANY_ATTEMPTS, f"at most {self.attempts.per_minute} "
                               "codes a minute: wait a little",
                               grpc.StatusCode.RESOURCE_EXHAUSTED)
        cleaned = P.normal(code)
        room_id = await self.store.room_of_code(cleaned) if cleaned else None
        if room_id is None:
            M.CODE_TRIES.labels("wrong").inc()
            raise E.not_found(E.NO_SUCH_CODE, "no room has this code")
        M.CODE_TRIES.labels("found").inc()
        return room_id

    async def join_code(self, player: str, name: str, code: str, seat: int = -1) -> Room:
        """``player`` sits in the private room of ``code``: at ``seat``, or the
        lowest free seat where ``seat`` is -1. Refusals: those of
        :meth:`_room_of_code`, then Sit's (``room_started``, ``seat_taken``,
        ``no_such_seat`` (also: the room is full), ``already_seated``,
        ``not_enough_coins``)."""
        room_id = await self._room_of_code(player, code)
        if seat < 0:
            room = await self._load(room_id)
            free = quick.free_seat(room)
            if free is None:
                raise E.LobbyError(E.SEAT_TAKEN, f"every seat of {room_id} is taken")
            seat = free
        return await self.sit(player, name, room_id, seat, private_ok=True)

    async def room_by_code(self, player: str, code: str) -> Room:
        """The private room of ``code`` (to watch it). Refusals as
        :meth:`_room_of_code`."""
        return await self._load(await self._room_of_code(player, code))

    async def remove_seat(self, owner: str, seat: int) -> Room:
        """The owner of the private room it sits in stands up the player at
        ``seat`` (踢出), outside a game. ``not_seated``; ``not_owner``
        (PERMISSION_DENIED); ``room_started``; ``no_such_seat``;
        ``invalid_argument`` (its own seat)."""
        room_id = await self._seated_room(owner)
        server = self._server(room_id)
        now = self.clock.now_ms()
        try:
            old, saved = await self._mutate(room_id, lambda r: room_rules.remove_seat(
                r, owner, seat, now_ms=now, ready_seconds=server.ready_seconds))
        except E.LobbyError as e:
            if e.code == E.NOT_OWNER:
                e.status = grpc.StatusCode.PERMISSION_DENIED
            raise
        log.info("seat removed by the owner", extra={
            "room": room_id, "owner": owner, "player": old.seats[seat].player})
        return saved

    # -- reading ---------------------------------------------------------------

    async def get_room(self, room_id: str) -> Room:
        """One room. ``no_such_room`` (NOT_FOUND)."""
        try:
            return await self._load(room_id)
        except E.LobbyError as e:
            raise E.not_found(e.code, e.message) from e

    async def list_rooms(self, server_id: str) -> list[Room]:
        """The rooms of ``server_id`` in order. ``no_such_server`` (NOT_FOUND)."""
        server = self.config.server(server_id)
        if server is None:
            raise E.not_found(E.NO_SUCH_SERVER, f"there is no coin server {server_id!r}")
        return await self.store.load_rooms(server.room_ids())

    async def where_is(self, player: str) -> Room:
        """The room where ``player`` sits (with its last result). ``not_seated``
        (NOT_FOUND)."""
        room_id = await self.store.find_player(player)
        if room_id is None:
            raise E.not_found(E.NOT_SEATED, f"player {player} sits nowhere")
        return await self._load(room_id)

    async def last_result(self, player: str) -> Result:
        """The last finished game ``player`` played, seated or not (rulings.md
        "Shared by all games": a player back after its game ended is shown that
        settlement table). ``no_result`` (NOT_FOUND)."""
        found = await self.store.last_result(player) if player else None
        if found is None:
            raise E.not_found(E.NO_RESULT, f"player {player} has no finished game")
        return found

    # -- sitting ---------------------------------------------------------------

    async def sit(self, player: str, name: str, room_id: str, seat: int, *,
                  private_ok: bool = False, ai: bool = False) -> Room:
        """``player`` sits at ``seat`` of ``room_id`` if the room is not started,
        the seat exists and is free, the player sits nowhere, and its ledger
        balance reaches the server's ``min_coins``; ``ai``: the player is an AI
        player (its seat is marked). A player (not an AI) seated in a practice
        room (练习场) makes the lobby ask the AI pool for an AI player at each
        free seat, in the background (:meth:`AiFill.room_sat`). Refusals (counted by reason):
        room_started, no_such_seat, seat_taken, already_seated, not_enough_coins,
        no_such_room (also: a private room, unless ``private_ok``: those are
        joined by their code); invalid_argument for an empty player."""
        if not player:
            raise E.invalid("player is required")
        try:
            room = await self._sit(player, name or player, room_id, seat, private_ok, ai)
        except E.LobbyError as e:
            if e.code in E.SIT_REFUSALS:
                M.SITS_REFUSED.labels(e.code).inc()
            raise
        if not ai:
            self._fill_with_ai(room)
        return room

    def _fill_with_ai(self, room: Room) -> None:
        if self.ai_fill is not None:
            self.ai_fill.room_sat(room)

    async def _sit(self, player: str, name: str, room_id: str, seat: int,
                   private_ok: bool = False, ai: bool = False) -> Room:
        server = self._server(room_id)

        def check(r: Room) -> None:
            if r.private and not private_ok:
                raise E.LobbyError(E.NO_SUCH_ROOM, f"there is no room {room_id!r}")
            room_rules.check_sit(r, seat, player)

        await self._decide(room_id, check)
        await self._seated_nowhere(player)
        coins = await self._coins_to_sit(server, player)
        now = self.clock.now_ms()
        connected = self.present(player)
        _, saved = await self._mutate(room_id, lambda r: room_rules.sit(
            r, seat, player, name, coins, now_ms=now, ready_seconds=server.ready_seconds,
            connected=connected, ai=ai))
        return saved

    async def quick_start(self, player: str, name: str, game: str) -> Room:
        """快速开始: seat ``player`` at the best room of ``game`` it can afford
        (:mod:`services.lobby.domain.quick`): the first of the ranked rooms whose
        lowest free seat it gets (a seat taken meanwhile, or a room started,
        moves on to the next room). Refusals (counted by result):
        ``no_such_game_type`` (NOT_FOUND), ``already_seated``,
        ``not_enough_coins`` (no server of the game is affordable),
        ``no_free_room``; invalid_argument for an empty player. Its server's
        ``ai_fill_after_s`` applies as after :meth:`sit`."""
        if not player:
            raise E.invalid("player is required")
        try:
            room = await self._quick_start(player, name or player, game)
        except E.LobbyError as e:
            if e.code in E.QUICK_START_RESULTS:
                M.QUICK_STARTS.labels(e.code).inc()
            raise
        M.QUICK_STARTS.labels("seated").inc()
        self._fill_with_ai(room)
        return room

    async def _quick_start(self, player: str, name: str, game: str) -> Room:
        servers = [s for s in self.config.servers if s.game == game and not s.practice]
        if not servers:
            raise E.not_found(E.NO_SUCH_GAME_TYPE, f"no coin server plays {game!r}")
        await self._seated_nowhere(player)
        coins = await self.ledger.balance(player)
        usable = quick.affordable(servers, game, coins)
        if not usable:
            least = min(s.min_coins for s in servers)
            raise E.LobbyError(E.NOT_ENOUGH_COINS, f"{game} needs {least} coins to sit; "
                               f"{player} has {coins}")
        rooms = await self.store.load_rooms([r for s in usable for r in s.room_ids()])
        for room in quick.ranked(rooms, usable):
            seat = quick.free_seat(room)
            if seat is None:
                continue
            try:
                return await self._sit(player, name, room.room, seat)
            except E.LobbyError as e:
                if e.code not in (E.SEAT_TAKEN, E.ROOM_STARTED):
                    raise
        raise E.LobbyError(E.NO_FREE_ROOM, f"every {game} room {player} can afford is full "
                           "or playing; try again soon")

    async def claim_relief(self, player: str, game: str, claim_id: str,
                           ) -> ledger_pb2.GrantReliefResponse:
        """Relief coins (救济金) for ``player``, who cannot afford any server
        of ``game``: the ledger grants ``relief.coins`` if the balance is below
        the game's lowest ``min_coins``, at most ``relief.per_day`` times per
        relief day, once per ``claim_id``. Refusals: ``invalid_argument`` (no
        player), ``no_such_game_type`` (NOT_FOUND), ``relief_off``, and the
        ledger's: ``not_eligible``, ``relief_spent``, ``claim_id_conflict``,
        ``bad_claim_id``, ``ledger_unavailable``."""
        if not player:
            raise E.invalid("player is required")
        below = threshold(self.config, game)
        if below is None:
            raise E.not_found(E.NO_SUCH_GAME_TYPE, f"no coin server plays {game!r}")
        if not self.relief.offered:
            raise E.LobbyError(E.RELIEF_OFF, "no relief coins are offered")
        return await self.ledger.grant_relief(player, claim_id, below, self.relief)

    async def _seated_room(self, player: str) -> str:
        if not player:
            raise E.invalid("player is required")
        room_id = await self.store.find_player(player)
        if room_id is None:
            raise E.LobbyError(E.NOT_SEATED, f"player {player} sits nowhere")
        return room_id

    async def stand(self, player: str) -> Room:
        """``player`` stands up. ``not_seated``; ``room_started`` while its game runs."""
        room_id = await self._seated_room(player)
        server = self._server(room_id)
        now = self.clock.now_ms()
        _, saved = await self._mutate(room_id, lambda r: room_rules.stand(
            r, player, now_ms=now, ready_seconds=server.ready_seconds))
        return saved

    async def kick(self, player: str, reason: str, by: str) -> Room:
        """An operator stands ``player`` up (``paiju admin kick``), with a
        reason, logged. ``invalid_argument`` without a reason; ``not_seated``;
        ``room_started`` while its game runs (the table's Kick removes it from
        a game)."""
        if not reason.strip():
            raise E.invalid("a kick needs a reason")
        saved = await self.stand(player)
        log.warning("player kicked by an operator", extra={
            "operator": by, "player": player, "room": saved.room, "reason": reason})
        return saved

    async def ready(self, player: str, within: float | None = None) -> Room:
        """``player`` presses start. When that makes the full room all ready, the
        game starts: a new game id, the least loaded table instance that answers,
        CreateGame there (the next one if it fails), the room started. Every
        seat's presence is checked first: an absent seat is marked (not
        connected, not ready) and the game does not start (the room says who is
        missing). ``not_seated``; ``room_started``; ``not_connected`` when the
        presser itself has no live session; ``no_table_instance`` (UNAVAILABLE,
        the press undone) when no instance takes the game within
        :func:`placement_window` of ``within`` (the seconds the caller waits,
        ``None``: no deadline)."""
        room_id = await self._seated_room(player)
        server = self._server(room_id)
        now = self.clock.now_ms()

        def press(r: Room) -> Room:
            marked = room_rules.mark_presence(r, self.present, now_ms=now,
                                          ready_seconds=server.ready_seconds)
            return room_rules.ready(marked, player, now_ms=now, ready_seconds=server.ready_seconds)

        preview = await self._decide(room_id, press)
        if not preview.can_start:
            _, saved = await self._mutate(room_id, press)
            if not saved.can_start:
                return saved
            # Became startable through a concurrent press: start it below.
        return await self._start(room_id, server, player, press, placement_window(within))

    async def _start(self, room_id: str, server: CoinServer, player: str,
                     press: Callable[[Room], Room], window: float) -> Room:
        """Start the game on a candidate instance, looking for one for at most
        ``window`` seconds."""
        deadline = asyncio.get_running_loop().time() + window
        candidates = await _until("lobby_find_table", self._candidates, deadline)
        try:
            return await self._place(room_id, server, player, press, candidates, deadline)
        finally:
            self.tables.release(candidates[0])

    async def _candidates(self) -> list[str]:
        """The instances to try (:meth:`Tables.candidates`, the first held
        until released); ``no_table_instance`` where none answers."""
        candidates = await self.tables.candidates()
        if not candidates:
            raise E.unavailable(E.NO_TABLE_INSTANCE, "no table instance takes games now")
        return candidates

    async def _place(self, room_id: str, server: CoinServer, player: str,
                     press: Callable[[Room], Room], candidates: list[str],
                     deadline: float) -> Room:
        """Start ``room_id``'s game on the first of ``candidates`` that takes
        it, trying them all again until ``deadline`` (event loop time)."""
        game_id = uuid.uuid4().hex

        def begin(r: Room) -> Room:
            if r.game_id:
                return r  # another press started it first
            pressed = press(r)
            return room_rules.start(pressed, game_id, candidates[0]) if pressed.can_start \
                else pressed

        # The started room is announced once its game exists on an instance.
        old, room = await self._mutate(room_id, begin, publish=False)
        if room.game_id != game_id:
            if room != old:
                await publish_room(self.nc, room)
            return room  # someone stood up meanwhile: the press is saved, no game
        tries = 0

        async def create() -> Room:
            nonlocal tries
            tries += 1  # a retry reads the room again: a try may have moved it
            current = room if tries == 1 else await self._load(room_id)
            if current.game_id != game_id:
                return current  # voided meanwhile (the reconciler's grace ran out)
            return await self._create(current, server, game_id, candidates, deadline)

        try:
            return await _until("lobby_create_game", create, deadline)
        except E.LobbyError as e:
            if not _no_instance(e):
                raise
        now = self.clock.now_ms()
        await self._mutate(room_id, lambda r: room_rules.abort_start(
            r, game_id, player, now_ms=now, ready_seconds=server.ready_seconds))
        raise E.unavailable(E.NO_TABLE_INSTANCE, "no table instance took the game")

    async def _create(self, room: Room, server: CoinServer, game_id: str,
                      candidates: list[str], deadline: float) -> Room:
        """``CreateGame`` of the started ``room``'s ``game_id`` on the first of
        ``candidates`` that takes it (the room moved there), no call waiting
        past ``deadline`` (event loop time); the room as it is where the game
        was voided meanwhile; ``no_table_instance`` where none took it."""
        room_id = room.room
        loop = asyncio.get_running_loop()
        for addr in candidates:
            left = deadline - loop.time()
            if left <= 0:
                break
            if addr != room.table_instance:
                _, room = await self._mutate(room_id, _mover(game_id, addr), publish=False)
                if room.game_id != game_id:
                    # The placement outlasted the reconciler's grace and the
                    # game was voided meanwhile: the room is as it is now.
                    log.warning("game voided while being placed",
                                extra={"room": room_id, "game_id": game_id})
                    return room
            try:
                await self.tables.create_game(addr, room, server, timeout=left)
            except grpc.aio.AioRpcError as e:
                M.PLACEMENT_FAILURES.inc()
                log.warning("CreateGame on %s failed: %s", addr, e.code().name,
                            extra={"room": room_id, "game_id": game_id})
                continue
            await publish_room(self.nc, room)
            M.GAMES_STARTED.inc()
            log.info("game started", extra={"room": room_id, "game_id": game_id,
                                            "table_instance": addr})
            return room
        raise E.unavailable(E.NO_TABLE_INSTANCE, "no table instance took the game")

    # -- after the game --------------------------------------------------------

    async def game_over(self, game_id: str, room_id: str, escaped: list[str],
                        carry_json: str,
                        settlement: Sequence[common_pb2.SettlementRow] = (),
                        record_id: str = "",
                        lines: Sequence[lobby_pb2.ResultLine] = ()) -> Room:
        """The table reports ``game_id`` over (idempotent): back to waiting,
        nobody ready, escapees removed, players now below ``min_coins`` stood
        up, ``carry_json`` (a JSON object) kept for the next CreateGame, the
        ``settlement`` table with ``record_id`` and the settlement screen's
        ``lines`` kept as the room's last result (and each of its players' last
        game).
        ``no_such_room``; ``no_such_game`` (NOT_FOUND) for a game never started;
        invalid_argument for a carry that is not a JSON object."""
        if not game_id:
            raise E.invalid("game_id is required")
        try:
            carry = json.loads(carry_json) if carry_json else {}
        except json.JSONDecodeError as e:
            raise E.invalid(f"carry_json is not JSON: {e}") from e
        if not isinstance(carry, dict):
            raise E.invalid("carry_json must be a JSON object")
        server = self._server(room_id)
        room = await self._load(room_id)
        if room.game_id != game_id:
            if await self.store.game_known(game_id):
                # A repeat, or the game was voided by the reconciler before
                # this report came: the room is answered as it is.
                return room
            raise E.not_found(E.NO_SUCH_GAME, f"room {room_id} never ran game {game_id}")
        gone = set(escaped)
        balances = await self.ledger.balances(
            [s.player for s in room.seats.values() if s.player not in gone])
        now = self.clock.now_ms()
        result = Result(room_id, game_id, record_id, tuple(
            Row(r.player, r.seat, r.points, r.coins, r.fee, _name(room, r.player))
            for r in settlement), now,
            tuple(Line(x.label, x.value, tuple(x.seats)) for x in lines))
        _, saved = await self._mutate(room_id, lambda r: room_rules.game_over(
            r, game_id, list(escaped), carry, balances, server.min_coins, now_ms=now,
            ready_seconds=server.ready_seconds, result=result))
        return saved

    async def game_moved(self, game_id: str, room_id: str, table_instance: str,
                         reason: str = "game_moved") -> Room:
        """A table instance took ``game_id`` over: the room's ``table_instance``
        becomes ``table_instance`` (``room_changed`` when it changed;
        idempotent). ``no_such_room``; ``no_such_game`` (NOT_FOUND) when the
        room does not run ``game_id`` (it ended or was voided);
        invalid_argument without a game id or address."""
        if not game_id or not table_instance:
            raise E.invalid("game_id and table_instance are required")
        self._server(room_id)
        room = await self._load(room_id)
        if room.game_id != game_id:
            raise E.not_found(E.NO_SUCH_GAME, f"room {room_id} does not run game {game_id}")
        old, saved = await self._mutate(room_id, _mover(game_id, table_instance))
        if saved.game_id != game_id:
            raise E.not_found(E.NO_SUCH_GAME, f"room {room_id} does not run game {game_id}")
        if old.table_instance != saved.table_instance:
            M.GAMES_MOVED.labels(reason).inc()
        log.info("game moved", extra={"room": room_id, "game_id": game_id,
                                      "table_instance": table_instance})
        return saved

    async def void_game(self, room_id: str, game_id: str) -> tuple[Room, bool]:
        """The room's game ``game_id`` was lost (the reconciler): the room goes
        back to waiting as :func:`room_rules.void_game` says, with compare-and-set,
        so that of several lobbies doing it at once one does. Returns the room
        and whether this call voided the game (False: the room no longer ran
        it, e.g. its GameOver came first or another lobby voided it).
        ``no_such_room``; ``busy``."""
        server = self._server(room_id)
        room = await self._load(room_id)
        if room.game_id != game_id:
            return room, False
        balances = await self.ledger.balances([s.player for s in room.seats.values()])
        now = self.clock.now_ms()
        old, new = await self._mutate(room_id, lambda r: room_rules.void_game(
            r, game_id, balances, server.min_coins, now_ms=now,
            ready_seconds=server.ready_seconds))
        return new, old.game_id == game_id and new.game_id != game_id

    # -- background ------------------------------------------------------------

    async def kick_due(self) -> list[tuple[str, str]]:
        """Remove the last unready player of every full room whose ready time ran
        out (safe with several lobbies: compare-and-set). Returns the
        (room, player) pairs removed by this call."""
        kicked: list[tuple[str, str]] = []
        now = self.clock.now_ms()
        for room_id in await self.store.due_kicks(now):
            if self.config.server_of_room(room_id) is None:
                continue
            try:
                old, new = await self._mutate(room_id, lambda r: room_rules.kick_due(r, now)[0])
            except E.LobbyError as e:
                log.warning("ready kick of %s failed: %s", room_id, e)
                continue
            for seat in old.seats.values():
                if seat.seat not in new.seats:
                    M.READY_KICKS.inc()
                    log.info("ready kick", extra={"room": room_id, "player": seat.player})
                    kicked.append((room_id, seat.player))
        return kicked

    async def refresh_metrics(self) -> None:
        """Set the room and seat gauges from the database."""
        by_state, seated = await self.store.counts()
        for state, n in by_state.items():
            M.ROOMS.labels(state).set(n)
        M.SEATED.set(seated)

    async def run_background(self, interval: float) -> None:
        """Every ``interval`` seconds: the ready kick and the gauges. Runs until cancelled."""
        while True:
            try:
                await self.kick_due()
                for step in self.passes:
                    await step()
                await self.refresh_metrics()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("lobby background pass failed")
            await asyncio.sleep(interval)


def _mover(game_id: str, addr: str) -> Callable[[Room], Room]:
    def move(r: Room) -> Room:
        return room_rules.move(r, game_id, addr) if r.game_id == game_id else r
    return move


def _name(room: Room, player: str) -> str:
    """``player``'s display name in ``room`` (``""`` where it sits nowhere there)."""
    return next((s.name for s in room.seats.values() if s.player == player), "")
