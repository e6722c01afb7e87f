"""Rooms as pure data and the rules that change them (no I/O, no clock).

A :class:`Room` is the state of one room; every operation takes a room and
returns a new one (or raises :class:`~services.lobby.domain.errors.LobbyError`),
which the store then writes with compare-and-set. Times are unix milliseconds
given by the caller. Source: seed 000 第二节 (room states, sitting, the start
button, the 20 s kick), architecture.md "Flows", and rulings.md "Shared by all
games" (presence outside a game: an absent player is never ready, a game never
starts with an absent seat, an absent seat is stood up after
``idle_disconnect_seconds``; the last result shown to a player coming back).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from paiju.rules.engine import result_line
from services.lobby.domain import errors as E

IDLE, WAITING, STARTED = "idle", "waiting", "started"
STATES = (IDLE, WAITING, STARTED)


@dataclass(frozen=True)
class Seat:
    """An occupied seat: ``seat`` number, ``player`` id, display ``name``,
    ``coins`` (balance when last read from the ledger), ``ready`` (准备),
    ``connected`` (the player has a live session: presence) and ``away_ms``
    (unix ms since when it is absent; None while connected); ``ai``: the
    player is an AI player (机器人)."""

    seat: int
    player: str
    name: str
    coins: int
    ready: bool = False
    connected: bool = True
    away_ms: int | None = None
    ai: bool = False


@dataclass(frozen=True)
class Row:
    """One row of a settlement table (结算表): points and coins after the fee,
    and the player's display ``name`` as it sat (``""`` where unknown)."""

    player: str
    seat: int
    points: int
    coins: int
    fee: int
    name: str = ""


@dataclass(frozen=True)
class Line:
    """One line of a settlement screen (the engine's ``result_lines()``, issue
    21): ``label``, ``value`` (``""``: none) and the ``seats`` it names."""

    label: str
    value: str = ""
    seats: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"label": str, "value": str, "seats": [int]}``, value and seats
        only where given (the shape of ``game_finished.lines``)."""
        return result_line(self.label, self.value, self.seats)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Line:
        """The inverse of :meth:`to_json`."""
        return Line(str(data["label"]), str(data.get("value", "")),
                    tuple(int(s) for s in data.get("seats", ())))


@dataclass(frozen=True)
class Result:
    """A finished game of a room: the lobby's ``game_id``, the ``record_id`` of
    the deal played out, its settlement ``rows``, ``ended_ms`` (unix ms) and
    the settlement screen's ``lines``."""

    room: str
    game_id: str
    record_id: str
    rows: tuple[Row, ...]
    ended_ms: int
    lines: tuple[Line, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """As stored: {room, game_id, record_id, ended_ms, settlement: [{player,
        seat, points, coins, fee}], lines: [{label, value?, seats?}]}."""
        return {"room": self.room, "game_id": self.game_id, "record_id": self.record_id,
                "ended_ms": self.ended_ms,
                "settlement": [dataclasses.asdict(r) for r in self.rows],
                "lines": [line.to_json() for line in self.lines]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Result:
        """The inverse of :meth:`to_json` (a result stored before ``lines``
        existed has none)."""
        return Result(str(data["room"]), str(data["game_id"]), str(data["record_id"]),
                      tuple(Row(**r) for r in data["settlement"]), int(data["ended_ms"]),
                      tuple(Line.from_json(x) for x in data.get("lines", ())))


@dataclass(frozen=True)
class Room:
    """One room of a coin server.

    ``seats`` maps seat number to the occupied :class:`Seat`; ``size`` is the
    number of seats; ``game_id`` / ``table_instance`` are set while started;
    ``kick_at_ms`` is when the last unready player of a full room is removed;
    ``carry`` holds what the next game needs from the previous one (merged into
    the next CreateGame's options); ``last_result`` is the room's last finished
    game; ``version`` is the stored row version; ``private``: a private room
    (好友房, opened by ``owner``, joined by its code, never listed);
    ``options``: the rule options its opener chose over the server's.
    """

    room: str
    server: str
    game: str
    size: int
    seats: dict[int, Seat] = field(default_factory=dict)
    game_id: str = ""
    table_instance: str = ""
    kick_at_ms: int | None = None
    carry: dict[str, Any] = field(default_factory=dict)
    last_result: Result | None = None
    version: int = 0
    private: bool = False
    owner: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> str:
        """``started`` while a game runs, else ``waiting`` if anyone sits, else ``idle``."""
        if self.game_id:
            return STARTED
        return WAITING if self.seats else IDLE

    @property
    def full(self) -> bool:
        """Every seat is taken."""
        return len(self.seats) == self.size

    @property
    def can_start(self) -> bool:
        """Full, not started, and everyone connected and pressed start."""
        return self.full and not self.game_id and all(
            s.ready and s.connected for s in self.seats.values())

    @property
    def missing(self) -> list[str]:
        """The seated players who are absent, by seat."""
        return [s.player for _, s in sorted(self.seats.items()) if not s.connected]

    def seat_of(self, player: str) -> Seat | None:
        """The seat ``player`` holds in this room, or None."""
        for s in self.seats.values():
            if s.player == player:
                return s
        return None


def _with_seats(room: Room, seats: dict[int, Seat], now_ms: int, ready_seconds: int) -> Room:
    return _rearm(dataclasses.replace(room, seats=seats), now_ms, ready_seconds)


def _rearm(room: Room, now_ms: int, ready_seconds: int) -> Room:
    """Set or clear the ready kick: a full, not started room with exactly one
    unready player gets a deadline ``ready_seconds`` from when that became true
    (an existing deadline is kept); any other room has none."""
    unready = [s for s in room.seats.values() if not s.ready]
    if room.full and not room.game_id and len(unready) == 1:
        if room.kick_at_ms is None:
            return dataclasses.replace(room, kick_at_ms=now_ms + ready_seconds * 1000)
        return room
    if room.kick_at_ms is not None:
        return dataclasses.replace(room, kick_at_ms=None)
    return room


def check_sit(room: Room, seat: int, player: str) -> None:
    """Raise the refusal of a Sit at ``seat`` that the room alone decides:
    ``room_started``, ``no_such_seat``, ``already_seated`` (here), ``seat_taken``."""
    if room.game_id:
        raise E.LobbyError(E.ROOM_STARTED, f"the game in room {room.room} has started")
    if not 0 <= seat < room.size:
        raise E.LobbyError(E.NO_SUCH_SEAT,
                           f"room {room.room} has seats 0..{room.size - 1}, not {seat}")
    mine = room.seat_of(player)
    if mine is not None:
        raise E.LobbyError(E.ALREADY_SEATED,
                           f"player {player} already sits at seat {mine.seat} of {room.room}")
    if seat in room.seats:
        raise E.LobbyError(E.SEAT_TAKEN, f"seat {seat} of room {room.room} is taken")


def sit(room: Room, seat: int, player: str, name: str, coins: int, *, now_ms: int,
        ready_seconds: int, connected: bool = True, ai: bool = False) -> Room:
    """``player`` sits at ``seat`` (not ready; ``connected``: whether presence
    knows it present, else absent from ``now_ms``; ``ai``: an AI player).
    Refusals as :func:`check_sit`."""
    check_sit(room, seat, player)
    seats = {**room.seats, seat: Seat(seat, player, name, coins, False, connected,
                                      None if connected else now_ms, ai)}
    return _with_seats(room, seats, now_ms, ready_seconds)


def _seated(room: Room, player: str) -> Seat:
    mine = room.seat_of(player)
    if mine is None:
        raise E.LobbyError(E.NOT_SEATED, f"player {player} does not sit in room {room.room}")
    return mine


def stand(room: Room, player: str, *, now_ms: int, ready_seconds: int) -> Room:
    """``player`` leaves its seat. ``room_started`` while the game runs (leaving a
    game is an escape, the table's business); ``not_seated``."""
    mine = _seated(room, player)
    if room.game_id:
        raise E.LobbyError(E.ROOM_STARTED,
                           f"the game in room {room.room} runs: leave the game at the table")
    seats = {k: v for k, v in room.seats.items() if k != mine.seat}
    room = _with_seats(room, seats, now_ms, ready_seconds)
    return room if seats else dataclasses.replace(room, carry={})


def ready(room: Room, player: str, *, now_ms: int, ready_seconds: int) -> Room:
    """``player`` presses start (准备); pressing again changes nothing.
    ``room_started``; ``not_seated``. The caller starts the game when
    :attr:`Room.can_start` holds afterwards."""
    mine = _seated(room, player)
    if room.game_id:
        raise E.LobbyError(E.ROOM_STARTED, f"the game in room {room.room} has started")
    if not mine.connected:
        raise E.LobbyError(E.NOT_CONNECTED,
                           f"player {player} has no live session: an absent player "
                           "is never ready")
    if mine.ready:
        return room
    seats = {**room.seats, mine.seat: dataclasses.replace(mine, ready=True)}
    return _with_seats(room, seats, now_ms, ready_seconds)


def unready(room: Room, player: str) -> Room:
    """``player``'s start flag cleared (a start that could not be placed)."""
    mine = room.seat_of(player)
    if mine is None or not mine.ready:
        return room
    return dataclasses.replace(
        room, seats={**room.seats, mine.seat: dataclasses.replace(mine, ready=False)})


def start(room: Room, game_id: str, table_instance: str) -> Room:
    """The room's game starts as ``game_id`` on ``table_instance``. The room must
    satisfy :attr:`Room.can_start` (else ``ValueError``: a caller bug)."""
    if not room.can_start:
        raise ValueError(f"room {room.room} cannot start")
    return dataclasses.replace(room, game_id=game_id, table_instance=table_instance,
                               kick_at_ms=None)


def move(room: Room, game_id: str, table_instance: str) -> Room:
    """The starting game ``game_id`` is placed on another ``table_instance``."""
    if room.game_id != game_id:
        raise ValueError(f"room {room.room} does not run {game_id}")
    return dataclasses.replace(room, table_instance=table_instance)


def abort_start(room: Room, game_id: str, player: str, *, now_ms: int,
                ready_seconds: int) -> Room:
    """No table instance took ``game_id``: back to waiting, with ``player`` (whose
    start press would have started it) not ready. No-op if ``game_id`` is not
    the room's game."""
    if room.game_id != game_id:
        return room
    room = dataclasses.replace(room, game_id="", table_instance="")
    return _rearm(unready(room, player), now_ms, ready_seconds)


def game_over(room: Room, game_id: str, escaped: list[str], carry: dict[str, Any],
              balances: dict[str, int], min_coins: int, *, now_ms: int,
              ready_seconds: int, result: Result | None = None) -> Room:
    """The game ``game_id`` ended (architecture.md flow 4): back to waiting with
    nobody ready; escapees removed; players whose balance (``balances``, from
    the ledger after settlement; a player missing there keeps its seat) is now
    below ``min_coins`` stood up; ``carry`` kept for the next game; ``result``
    (if given) becomes the room's last result. An absent player's time away
    counts from ``now_ms`` (only absence outside a game stands a player up).
    Returns the room unchanged when ``game_id`` is not its running game (a
    repeat)."""
    if not game_id or room.game_id != game_id:
        return room
    gone = set(escaped)
    seats: dict[int, Seat] = {}
    for n, s in room.seats.items():
        if s.player in gone:
            continue
        coins = balances.get(s.player, s.coins)
        if s.player in balances and coins < min_coins:
            continue
        away = None if s.connected else now_ms
        seats[n] = Seat(n, s.player, s.name, coins, False, s.connected, away)
    room = dataclasses.replace(room, seats=seats, game_id="", table_instance="",
                               kick_at_ms=None, carry=dict(carry) if seats else {},
                               last_result=result or room.last_result)
    return _rearm(room, now_ms, ready_seconds)


def void_game(room: Room, game_id: str, balances: dict[str, int], min_coins: int, *,
              now_ms: int, ready_seconds: int) -> Room:
    """The game ``game_id`` was lost (its table instance no longer runs it and
    no GameOver came): the game is void. Back to waiting with nobody ready;
    nobody removed as an escapee; the carry-over from before that game kept;
    seats' coins refreshed from ``balances`` and players now below
    ``min_coins`` stood up (the ledger may have settled the game before it
    was lost). Unchanged when ``game_id`` is not the room's running game."""
    return game_over(room, game_id, [], room.carry, balances, min_coins, now_ms=now_ms,
                     ready_seconds=ready_seconds)


def kick_due(room: Room, now_ms: int) -> tuple[Room, Seat | None]:
    """The 20 s kick: if the room's deadline has passed and it is still full,
    not started, with exactly one unready player, that player is removed.
    Returns the new room and the removed seat (None and the room as is when
    nothing is due)."""
    if room.kick_at_ms is None or now_ms < room.kick_at_ms or room.game_id:
        return room, None
    unready_seats = [s for s in room.seats.values() if not s.ready]
    if not room.full or len(unready_seats) != 1:
        return dataclasses.replace(room, kick_at_ms=None), None
    gone = unready_seats[0]
    seats = {k: v for k, v in room.seats.items() if k != gone.seat}
    return dataclasses.replace(room, seats=seats, kick_at_ms=None), gone


def set_presence(room: Room, player: str, present: bool, at_ms: int, *,
                 now_ms: int, ready_seconds: int) -> Room:
    """Presence says ``player`` became present or absent (``at_ms``: since when).
    Its seat's ``connected`` follows; an absent player's start flag drops outside
    a game (an absent player is never ready; the ready kick is re-armed). No
    change when it does not sit here or its seat already says so (idempotent:
    several lobby replicas apply the same news)."""
    mine = room.seat_of(player)
    if mine is None or mine.connected == present:
        return room
    if present:
        seat = dataclasses.replace(mine, connected=True, away_ms=None)
    else:
        seat = dataclasses.replace(mine, connected=False, away_ms=at_ms,
                                   ready=mine.ready and bool(room.game_id))
    room = dataclasses.replace(room, seats={**room.seats, mine.seat: seat})
    return room if room.game_id else _rearm(room, now_ms, ready_seconds)


def mark_presence(room: Room, present: Callable[[str], bool], *, now_ms: int,
                  ready_seconds: int) -> Room:
    """Every seat's ``connected`` set from ``present(player)`` (absent from
    ``now_ms`` for a seat that was connected): before a start, so that a game
    never starts with an absent seat and the room says who is missing."""
    for s in list(room.seats.values()):
        room = set_presence(room, s.player, present(s.player), now_ms, now_ms=now_ms,
                            ready_seconds=ready_seconds)
    return room


def stand_idle(room: Room, now_ms: int, idle_seconds: int, *, ready_seconds: int,
               present: Callable[[str], bool] = lambda _: False) -> tuple[Room, list[Seat]]:
    """Outside a game, stand up every seat absent for ``idle_seconds`` or more at
    ``now_ms`` (rulings.md "Shared by all games": 30 s) whose player is not
    ``present`` now. Returns the new room and the seats removed (none, and the
    room as is, while the game runs or nobody is due)."""
    if room.game_id:
        return room, []
    gone = [s for s in room.seats.values()
            if not s.connected and s.away_ms is not None
            and now_ms - s.away_ms >= idle_seconds * 1000 and not present(s.player)]
    if not gone:
        return room, []
    seats = {k: v for k, v in room.seats.items() if v not in gone}
    room = _with_seats(room, seats, now_ms, ready_seconds)
    return (room if seats else dataclasses.replace(room, carry={})), gone


def remove_seat(room: Room, owner: str, seat: int, *, now_ms: int, ready_seconds: int) -> Room:
    """The ``owner`` of a private room stands up the player at ``seat`` (踢出).
    ``not_owner`` (not the room's owner, or a public room); ``room_started``
    while a game runs; ``no_such_seat`` (no player there);
    ``invalid_argument`` (the owner's own seat: it stands up instead)."""
    if not room.private or room.owner != owner:
        raise E.LobbyError(E.NOT_OWNER, f"{owner} does not own room {room.room}")
    if room.game_id:
        raise E.LobbyError(E.ROOM_STARTED, f"the game in room {room.room} runs")
    target = room.seats.get(seat)
    if target is None:
        raise E.LobbyError(E.NO_SUCH_SEAT, f"nobody sits at seat {seat} of {room.room}")
    if target.player == owner:
        raise E.invalid("the owner stands up instead of removing its own seat")
    return stand(room, target.player, now_ms=now_ms, ready_seconds=ready_seconds)
