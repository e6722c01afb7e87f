"""The lobby's shared state in SQL, written with compare-and-set.

Tables (owned by the lobby, created by its Alembic migrations):

- ``lobby_rooms``: one row per room with its ``version``; every change is
  ``UPDATE … WHERE room = :room AND version = :v`` and fails (:class:`Conflict`)
  when another process changed the room first: the caller reloads and retries.
- ``lobby_seats``: occupied seats, primary key (room, seat): a seat holds one
  player; ``player`` is UNIQUE: a player sits in at most one seat anywhere,
  whatever the number of lobby processes.
- ``lobby_games``: every game the lobby started (game over is idempotent by it),
  with its result (settlement table) once over.
- ``lobby_last_games``: each player's last finished game (``LastResult``).

Private rooms (好友房) are rows of ``lobby_rooms`` with ``private``, their
``owner`` and their invite ``code`` (UNIQUE), inserted when opened and deleted
when their last player leaves.

Seats carry the player's presence (``connected``, ``away_ms``); rooms their last
result (``last_result_json``).

Works on SQLite (the default) and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    delete,
    false,
    func,
    insert,
    select,
    true,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from paiju.runtime import db
from paiju.runtime.db import retryable
from services.lobby.domain import errors as E
from services.lobby.domain.coin_servers import RoomsConfig
from services.lobby.domain.room_rules import STATES, Result, Room, Seat

metadata = MetaData()

rooms_table = Table(
    "lobby_rooms", metadata,
    Column("room", String(64), primary_key=True),
    Column("server", String(64), nullable=False, index=True),
    Column("state", String(16), nullable=False),
    Column("game_id", String(64), nullable=False, server_default=""),
    Column("table_instance", String(256), nullable=False, server_default=""),
    Column("kick_at_ms", BigInteger, nullable=True, index=True),
    Column("carry_json", Text, nullable=False, server_default="{}"),
    Column("last_result_json", Text, nullable=False, server_default=""),
    Column("version", BigInteger, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    Column("private", Boolean, nullable=False, server_default=false()),
    Column("owner", String(128), nullable=False, server_default="", index=True),
    Column("code", String(16), nullable=True),
    Column("options_json", Text, nullable=False, server_default="{}"),
    UniqueConstraint("code", name="uq_lobby_rooms_code"),
)

seats_table = Table(
    "lobby_seats", metadata,
    Column("room", String(64), ForeignKey("lobby_rooms.room"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player", String(128), nullable=False, unique=True),
    Column("name", String(128), nullable=False),
    Column("coins", BigInteger, nullable=False),
    Column("ready", Boolean, nullable=False),
    Column("connected", Boolean, nullable=False, server_default=true()),
    Column("away_ms", BigInteger, nullable=True),
    Column("ai", Boolean, nullable=False, server_default=false()),
)

games_table = Table(
    "lobby_games", metadata,
    Column("game_id", String(64), primary_key=True),
    Column("room", String(64), nullable=False, index=True),
    Column("table_instance", String(256), nullable=False),
    Column("started_ms", BigInteger, nullable=False),
    Column("ended_ms", BigInteger, nullable=True),
    Column("result_json", Text, nullable=True),
)

last_games_table = Table(
    "lobby_last_games", metadata,
    Column("player", String(128), primary_key=True),
    Column("game_id", String(64), nullable=False),
    Column("ended_ms", BigInteger, nullable=False),
)


@dataclass(frozen=True)
class StartedGame:
    """A started room's game as stored: ``room``, ``game_id``, the gRPC address
    ``table_instance`` it was placed on, and ``started_ms`` (unix ms, the lobby
    clock, when the room was marked started)."""

    room: str
    game_id: str
    table_instance: str
    started_ms: int


class Conflict(Exception):
    """The room changed since it was read (its version moved on): reload, retry."""


class Store:
    """Rooms of ``config`` in the database of ``engine`` (see the module docstring).

    On SQLite this process's write transactions take turns on an
    ``asyncio.Lock``: SQLite has one writer at a time, and writers that meet
    on the file wait in its busy handler, sleeping 1 to 100 ms between tries
    (the lobby's seating at 50 a second spent most of its time there: the
    gateway's calls ran over their 5 s deadline, docs/performance.md).
    Other processes on the same file still meet the busy
    handler; PostgreSQL writers are not serialised. Reads see committed
    rows; each read is one statement (a room and its seats are one join)."""

    def __init__(self, engine: AsyncEngine, config: RoomsConfig) -> None:
        self.engine = engine
        self.config = config
        sqlite = engine.dialect.name == "sqlite"
        self._writer = asyncio.Lock() if sqlite else None
        #: Reads are one statement each (:meth:`_rows`; ``counts`` needs no
        #: snapshot): on PostgreSQL in autocommit, without the BEGIN and
        #: ROLLBACK round trips of a transaction (with the pool's ping, a read
        #: was four round trips; the lobby's CPU in a ramp went mostly to them).
        self._reader = engine if sqlite else engine.execution_options(
            isolation_level="AUTOCOMMIT")

    @contextlib.asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction (committed when the block ends without error),
        this process's SQLite writers one at a time."""
        async with contextlib.AsyncExitStack() as stack:
            if self._writer is not None:
                await stack.enter_async_context(self._writer)
            yield await stack.enter_async_context(db.transaction(self.engine))

    async def ensure_rooms(self, now_ms: int) -> int:
        """Insert an idle row for every configured room that has none (rooms of
        every process's config; existing rows are left alone). Returns how many
        were added."""
        have = {r.room for r in await self._rows(select(rooms_table.c.room))}
        missing = [(r, s.server) for r, s in self.config.all_rooms() if r not in have]
        if not missing:
            return 0
        try:
            async with self._write() as conn:
                await conn.execute(insert(rooms_table), [
                    {"room": r, "server": srv, "state": "idle", "game_id": "",
                     "table_instance": "", "kick_at_ms": None, "carry_json": "{}",
                     "version": 1, "updated_ms": now_ms} for r, srv in missing])
        except IntegrityError:
            # Another lobby process inserted some at the same moment: again.
            return await self.ensure_rooms(now_ms)
        return len(missing)

    def _room(self, row: Any, seats: Iterable[Any]) -> Room:
        server = self.config.server_of_room(row.room)
        assert server is not None
        return Room(
            room=row.room, server=server.server, game=server.game, size=server.seats,
            seats={s.seat: Seat(s.seat, s.player, s.name, int(s.coins), bool(s.ready),
                                bool(s.connected),
                                None if s.away_ms is None else int(s.away_ms),
                                bool(s.ai))
                   for s in seats},
            game_id=row.game_id, table_instance=row.table_instance,
            kick_at_ms=None if row.kick_at_ms is None else int(row.kick_at_ms),
            carry=json.loads(row.carry_json or "{}"),
            last_result=(Result.from_json(json.loads(row.last_result_json))
                         if row.last_result_json else None),
            version=int(row.version), private=bool(row.private), owner=str(row.owner or ""),
            options=json.loads(row.options_json or "{}"),
        )

    async def _rows(self, query: Any) -> Sequence[Any]:
        """The rows of the read ``query`` (one statement; on PostgreSQL in
        autocommit). A connection found dropped (the pool pings none: a
        round trip per read saved) is retried once on a fresh one."""
        for attempt in (1, 2):
            try:
                async with self._reader.connect() as conn:
                    return (await conn.execute(query)).all()
            except DBAPIError as e:
                if attempt == 2 or not e.connection_invalidated:
                    raise
        raise AssertionError("unreachable")

    async def _load_many(self, room_ids: Sequence[str]) -> list[Room]:
        j = rooms_table.outerjoin(seats_table, seats_table.c.room == rooms_table.c.room)
        query = (select(rooms_table, seats_table.c.seat, seats_table.c.player,
                        seats_table.c.name, seats_table.c.coins, seats_table.c.ready,
                        seats_table.c.connected, seats_table.c.away_ms, seats_table.c.ai)
                 .select_from(j).where(rooms_table.c.room.in_(list(room_ids))))
        rows: dict[str, Any] = {}
        seats: dict[str, list[Any]] = {}
        for r in await self._rows(query):
            rows[r.room] = r
            if r.seat is not None:
                seats.setdefault(r.room, []).append(r)
        return [self._room(rows[i], seats.get(i, [])) for i in room_ids if i in rows]

    async def load(self, room_id: str) -> Room:
        """The room ``room_id`` as stored now (one consistent read).
        ``no_such_room`` if it is not a configured room."""
        if self.config.server_of_room(room_id) is None:
            raise E.LobbyError(E.NO_SUCH_ROOM, f"there is no room {room_id!r}")
        found = await self._load_many([room_id])
        if not found:
            raise E.LobbyError(E.NO_SUCH_ROOM, f"room {room_id!r} is not in the database")
        return found[0]

    async def load_rooms(self, room_ids: Sequence[str]) -> list[Room]:
        """The rooms ``room_ids`` (configured ones only), in that order."""
        return await self._load_many(room_ids)

    async def open_private(self, room: Room, code: str, now_ms: int) -> Room:
        """Insert the private ``room`` (seats included) with its invite ``code``.
        Raises :class:`Conflict` when the code or the room id is taken (draw
        another) and ``already_seated`` when a seated player sits elsewhere."""
        try:
            async with self._write() as conn:
                await conn.execute(insert(rooms_table).values(
                    room=room.room, server=room.server, state=room.state, game_id="",
                    table_instance="", kick_at_ms=room.kick_at_ms, carry_json="{}",
                    version=1, updated_ms=now_ms, private=True, owner=room.owner, code=code,
                    options_json=json.dumps(room.options, sort_keys=True)))
                await self._write_seats(conn, Room(room.room, room.server, room.game,
                                                   room.size), room)
        except IntegrityError as e:
            if await self.find_player(next(iter(room.seats.values())).player) is not None:
                raise E.LobbyError(E.ALREADY_SEATED,
                                   "the player already sits in another room") from e
            raise Conflict(room.room) from e
        return Room(**{**room.__dict__, "version": 1})

    async def room_of_code(self, code: str) -> str | None:
        """The id of the private room whose invite code is ``code``, or None."""
        found = await self._rows(select(rooms_table.c.room).where(rooms_table.c.code == code))
        return str(found[0].room) if found else None

    async def owned_rooms(self, owner: str) -> int:
        """How many private rooms ``owner`` opened that are still open."""
        found = await self._rows(select(func.count()).select_from(rooms_table).where(and_(
            rooms_table.c.private, rooms_table.c.owner == owner)))
        return int(found[0][0] or 0) if found else 0

    async def close_private(self, room: Room) -> bool:
        """Delete the private ``room`` if it is still at ``room.version``, has
        nobody seated and runs no game. True if deleted."""
        c = rooms_table.c
        async with self._write() as conn:
            seated = (await conn.execute(select(func.count()).select_from(seats_table)
                                         .where(seats_table.c.room == room.room))).scalar()
            if seated:
                return False
            result = await conn.execute(delete(rooms_table).where(and_(
                c.room == room.room, c.private, c.version == room.version, c.game_id == "")))
            return bool(result.rowcount == 1)

    async def find_player(self, player: str) -> str | None:
        """The id of the room where ``player`` sits, or None."""
        found = await self._rows(select(seats_table.c.room)
                                 .where(seats_table.c.player == player))
        return str(found[0].room) if found else None

    async def save(self, old: Room, new: Room, now_ms: int) -> Room:
        """Write ``new`` in place of ``old`` if the room is still at ``old.version``.

        One transaction: the version-checked room update, the seat changes
        (deleted, updated, inserted), and the ``lobby_games`` rows of a game that
        starts (``new`` has a game id ``old`` had not) or ends (``old``'s game id
        is gone). Returns ``new`` with
        its new version. Raises :class:`Conflict` when the version moved on (or
        the database reports a serialization failure or deadlock), and
        ``already_seated`` when a newly seated player sits in another room.
        """
        version = old.version + 1
        try:
            async with self._write() as conn:
                result = await conn.execute(
                    update(rooms_table)
                    .where(and_(rooms_table.c.room == old.room,
                                rooms_table.c.version == old.version))
                    .values(state=new.state, game_id=new.game_id,
                            table_instance=new.table_instance, kick_at_ms=new.kick_at_ms,
                            carry_json=json.dumps(new.carry, sort_keys=True),
                            last_result_json=_result_json(new.last_result),
                            version=version, updated_ms=now_ms))
                if result.rowcount != 1:
                    raise Conflict(old.room)
                await self._write_seats(conn, old, new)
                if new.last_result is not None and new.last_result != old.last_result:
                    await self._write_result(conn, new.last_result)
                if old.game_id and new.game_id != old.game_id:
                    await conn.execute(update(games_table)
                                       .where(games_table.c.game_id == old.game_id)
                                       .values(ended_ms=now_ms))
                if new.game_id and new.game_id != old.game_id:
                    await conn.execute(insert(games_table).values(
                        game_id=new.game_id, room=new.room,
                        table_instance=new.table_instance, started_ms=now_ms, ended_ms=None))
                elif new.game_id and new.table_instance != old.table_instance:
                    await conn.execute(update(games_table)
                                       .where(games_table.c.game_id == new.game_id)
                                       .values(table_instance=new.table_instance))
        except IntegrityError as e:
            raise E.LobbyError(E.ALREADY_SEATED,
                               "the player already sits in another room") from e
        except DBAPIError as e:
            if retryable(e):
                raise Conflict(old.room) from e
            raise
        return Room(**{**new.__dict__, "version": version})

    async def _write_seats(self, conn: AsyncConnection, old: Room, new: Room) -> None:
        c = seats_table.c
        for n, s in old.seats.items():
            kept = new.seats.get(n)
            if kept is None or kept.player != s.player:
                await conn.execute(delete(seats_table).where(and_(c.room == old.room,
                                                                  c.seat == n)))
            elif kept != s:
                await conn.execute(update(seats_table)
                                   .where(and_(c.room == old.room, c.seat == n))
                                   .values(name=kept.name, coins=kept.coins, ready=kept.ready,
                                           connected=kept.connected, away_ms=kept.away_ms))
        fresh = [s for n, s in new.seats.items()
                 if n not in old.seats or old.seats[n].player != s.player]
        if fresh:
            await conn.execute(insert(seats_table), [
                {"room": new.room, "seat": s.seat, "player": s.player, "name": s.name,
                 "coins": s.coins, "ready": s.ready, "connected": s.connected,
                 "away_ms": s.away_ms, "ai": s.ai} for s in fresh])

    async def _write_result(self, conn: AsyncConnection, result: Result) -> None:
        """The game's result, and it as the last game of each of its players."""
        await conn.execute(update(games_table).where(games_table.c.game_id == result.game_id)
                           .values(result_json=_result_json(result)))
        players = sorted({r.player for r in result.rows})
        if not players:
            return
        await conn.execute(delete(last_games_table)
                           .where(last_games_table.c.player.in_(players)))
        await conn.execute(insert(last_games_table), [
            {"player": p, "game_id": result.game_id, "ended_ms": result.ended_ms}
            for p in players])

    async def last_result(self, player: str) -> Result | None:
        """The result of ``player``'s last finished game, or None."""
        query = (select(games_table.c.result_json)
                 .select_from(last_games_table.join(
                     games_table, games_table.c.game_id == last_games_table.c.game_id))
                 .where(last_games_table.c.player == player))
        found = await self._rows(query)
        return Result.from_json(json.loads(found[0].result_json)) \
            if found and found[0].result_json else None

    async def seats(self) -> list[tuple[str, Seat]]:
        """Every occupied seat of the configured rooms and of the private rooms
        of configured servers: (room id, seat)."""
        rows = await self._rows(select(seats_table).select_from(seats_table.join(
            rooms_table, rooms_table.c.room == seats_table.c.room)).where(self._ours()))
        return [(str(r.room), Seat(int(r.seat), r.player, r.name, int(r.coins), bool(r.ready),
                                   bool(r.connected),
                                   None if r.away_ms is None else int(r.away_ms), bool(r.ai)))
                for r in rows]

    async def due_kicks(self, now_ms: int) -> list[str]:
        """Rooms whose ready kick is due at ``now_ms``."""
        rows = await self._rows(select(rooms_table.c.room).where(and_(
            rooms_table.c.kick_at_ms.is_not(None), rooms_table.c.kick_at_ms <= now_ms)))
        return [str(r.room) for r in rows]

    async def started_games(self) -> list[StartedGame]:
        """Every configured room (and private room of a configured server)
        that is started, with its game (from ``lobby_games``; a room without
        that row counts from its last update)."""
        r, g = rooms_table.c, games_table.c
        query = (select(r.room, r.game_id, r.table_instance,
                        func.coalesce(g.started_ms, r.updated_ms).label("started_ms"))
                 .select_from(rooms_table.outerjoin(games_table, g.game_id == r.game_id))
                 .where(and_(r.game_id != "", self._ours()))
                 .order_by(r.room))
        rows = await self._rows(query)
        return [StartedGame(str(x.room), str(x.game_id), str(x.table_instance),
                            int(x.started_ms)) for x in rows]

    def _ours(self) -> Any:
        """Rooms of this configuration: its rooms, and private rooms of its servers."""
        c = rooms_table.c
        ids = [r for r, _ in self.config.all_rooms()]
        return c.room.in_(ids) | (c.private & c.server.in_([s.server for s in self.config.servers]))

    async def game_known(self, game_id: str) -> bool:
        """Whether the lobby ever started ``game_id``."""
        return bool(await self._rows(select(games_table.c.game_id)
                                     .where(games_table.c.game_id == game_id)))

    async def counts(self) -> tuple[dict[str, int], int]:
        """Rooms by state (every state present; the configured rooms and the
        private rooms of configured servers) and the number of seated players."""
        by_state = dict.fromkeys(STATES, 0)
        for state, n in await self._rows(select(rooms_table.c.state, func.count())
                                         .where(self._ours())
                                         .group_by(rooms_table.c.state)):
            by_state[str(state)] = int(n)
        seated = await self._rows(select(func.count()).select_from(seats_table.join(
            rooms_table, rooms_table.c.room == seats_table.c.room)).where(self._ours()))
        return by_state, int(seated[0][0] or 0) if seated else 0


def _result_json(result: Result | None) -> str:
    return "" if result is None else json.dumps(result.to_json(), sort_keys=True)
