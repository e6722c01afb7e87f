"""Presence: which players have a live session on some gateway.

Every gateway publishes its signed-in sessions (one WebSocket connection each)
on core NATS, subject ``paiju.presence.<gateway_id>``
(:func:`paiju.runtime.subjects.presence`); the lobby and the table watch
:data:`paiju.runtime.subjects.PRESENCE_ALL`. A gateway id is ``<name>.<process>``
(:func:`paiju.presence.book.publisher.new_gateway_id`): the replica's name, which
is its NATS user, allowed to publish under its own name only
(:mod:`paiju.security.natsauth`), and a token new with each process. A message
counts only on its gateway's own subject (:func:`parse` with the subject): no
gateway can speak for another. A player is present while any of its sessions
is live on any gateway. Messages are JSON objects, each with ``"gateway"``
(str) and ``"at"`` (the sender's unix ms, informational):

- ``{"kind": "connect", "gateway", "at", "player", "session"}``: a session signed in;
- ``{"kind": "disconnect", "gateway", "at", "player", "session"}``: a session closed;
- ``{"kind": "heartbeat", "gateway", "at", "sessions": [{"player", "session", "watching"?}, ...]}``:
  every heartbeat interval (2 s), all the gateway's live sessions. It is
  authoritative for its gateway: sessions missing from it are gone (repairs a lost
  ``disconnect``), sessions in it are live (repairs a lost ``connect``);
  ``watching`` is the room a spectator session watches (旁观), absent otherwise;
- ``{"kind": "watch", "gateway", "at", "player", "session", "room"}``: a live
  session starts watching ``room`` (a room id) or stops (``room`` null); the
  spectator counts of :mod:`paiju.presence.book.spectators` come from these and the heartbeats;
- ``{"kind": "gateway_down", "gateway", "at"}``: the gateway stops cleanly.

A gateway not heard from for longer than the timeout (6 s) is dead: its sessions
are gone as of the last time it was heard from. The timing comes from
PAIJU_PRESENCE_HEARTBEAT_SECONDS and PAIJU_PRESENCE_TIMEOUT_SECONDS
(:func:`paiju.config.presence_seconds`).

:class:`PresenceBook` is the pure bookkeeping (no I/O, the clock is passed in);
:class:`PresenceWatcher` feeds it from NATS;
:class:`paiju.presence.book.publisher.PresencePublisher` is the gateway's side.
All times are the receiver's clock in unix milliseconds, except
``"at"`` in the messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from paiju.config import presence_seconds
from paiju.runtime import subjects

log = logging.getLogger("paiju.presence")

#: Default seconds between heartbeats, and without one before a gateway is dead.
HEARTBEAT_SECONDS = 2.0
TIMEOUT_SECONDS = 6.0

KINDS = ("connect", "disconnect", "heartbeat", "gateway_down", "watch")
#: A gateway replica's name, and a gateway id (``<name>.<process>``).
TOKEN = re.compile(r"^[A-Za-z0-9_-]+$")
GATEWAY_ID = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")


def wall_ms() -> int:
    """The wall clock in unix milliseconds."""
    return int(time.time() * 1000)


class PresenceError(ValueError):
    """A presence message that is not one of the four kinds of the module
    docstring (the text says what is wrong). The book is left unchanged."""


class Session(NamedTuple):
    """One live session: the gateway holding it and its id on that gateway."""

    gateway: str
    session: str


@dataclass(frozen=True)
class Change:
    """``player`` became present (``present=True``) or absent, at ``at_ms``
    (unix ms on the watcher's clock; for a dead gateway, when it was last heard).
    A caller running on another (injected) clock carries it over by its age:
    ``its_now - (watcher_now - at_ms)`` (services/lobby/application/presence.py does)."""

    player: str
    present: bool
    at_ms: int


@dataclass
class _Gateway:
    heard_ms: int
    sessions: dict[str, str] = field(default_factory=dict)  # session id -> player


def _text(message: Mapping[str, Any], key: str, where: str = "") -> str:
    value = message.get(key)
    if not isinstance(value, str) or not value:
        raise PresenceError(f"presence message{where}: {key!r} must be a non-empty string")
    return value


def check(message: Any) -> Mapping[str, Any]:
    """``message`` if it is a well-formed presence message (module docstring),
    else :class:`PresenceError`."""
    if not isinstance(message, Mapping):
        raise PresenceError("presence message: not a JSON object")
    kind = message.get("kind")
    if kind not in KINDS:
        raise PresenceError(f"presence message: unknown kind {kind!r}")
    _text(message, "gateway")
    at = message.get("at")
    if not isinstance(at, int) or isinstance(at, bool):
        raise PresenceError("presence message: 'at' must be unix milliseconds (integer)")
    if kind in ("connect", "disconnect", "watch"):
        _text(message, "player")
        _text(message, "session")
    if kind == "watch" and message.get("room") is not None:
        _text(message, "room")
    elif kind == "heartbeat":
        sessions = message.get("sessions")
        if not isinstance(sessions, list):
            raise PresenceError("presence heartbeat: 'sessions' must be a list")
        for i, entry in enumerate(sessions):
            if not isinstance(entry, Mapping):
                raise PresenceError(f"presence heartbeat: sessions[{i}] is not an object")
            _text(entry, "player", f" sessions[{i}]")
            _text(entry, "session", f" sessions[{i}]")
            if entry.get("watching") is not None:
                _text(entry, "watching", f" sessions[{i}]")
    return message


def parse(data: bytes, subject: str | None = None) -> Mapping[str, Any]:
    """Decode the bytes of a presence message (JSON) and :func:`check` it;
    with ``subject`` (where it came from), also that it speaks for the
    gateway of that subject (``subject == paiju.presence.<its "gateway">``):
    only that gateway's NATS user may publish there, so another gateway
    cannot forge its heartbeats or its ``gateway_down``."""
    try:
        message = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise PresenceError(f"presence message: not JSON ({e})") from None
    checked = check(message)
    if subject is not None and subject != subjects.presence(checked["gateway"]):
        raise PresenceError(f"presence message for gateway {message['gateway']!r} "
                            f"sent on another gateway's subject {subject}")
    return checked


class PresenceBook:
    """Who is present, from presence messages (pure: the caller passes the time).

    ``now_ms``: when the book starts (unix ms); ``timeout_ms``: a gateway not
    heard from for longer is dead; ``forget_ms``: how long an absent player's
    ``absent_since`` is remembered (afterwards it reads as never seen).

    Warm-up: for ``timeout_ms`` after the start, a player never seen counts as
    present (a restarted lobby or table must not stand everyone up before the first
    heartbeats). After the warm-up a player never seen is absent, but no
    :class:`Change` is emitted for it: callers ask :meth:`present`.
    """

    def __init__(self, now_ms: int, timeout_ms: int = int(TIMEOUT_SECONDS * 1000),
                 forget_ms: int = 3_600_000) -> None:
        if timeout_ms <= 0:
            raise ValueError(f"timeout_ms={timeout_ms} must be positive")
        self.started_ms = now_ms
        self.timeout_ms = timeout_ms
        self.forget_ms = forget_ms
        self.now_ms = now_ms
        self._gateways: dict[str, _Gateway] = {}
        self._live: dict[str, set[Session]] = {}  # player -> its live sessions
        self._absent: dict[str, int] = {}  # seen player without sessions -> since (ms)

    # ----------------------------------------------------------------- queries
    def warming_up(self, now_ms: int | None = None) -> bool:
        """Whether the book is still in its warm-up at ``now_ms`` (default: the
        latest time it was given)."""
        now = self.now_ms if now_ms is None else now_ms
        return now < self.started_ms + self.timeout_ms

    def present(self, player: str, now_ms: int | None = None) -> bool:
        """Whether ``player`` has a live session (a player never seen: present
        during the warm-up only)."""
        if player in self._live:
            return True
        if player in self._absent:
            return False
        return self.warming_up(now_ms)

    def absent_since(self, player: str, now_ms: int | None = None) -> int | None:
        """``None`` while ``player`` is :meth:`present`, else since when (unix ms)
        it is absent: its last session's end, or the end of the warm-up for a
        player never seen (or forgotten)."""
        if self.present(player, now_ms):
            return None
        return self._absent.get(player, self.started_ms + self.timeout_ms)

    def sessions(self, player: str) -> frozenset[Session]:
        """The live sessions of ``player`` (empty when it has none)."""
        return frozenset(self._live.get(player, ()))

    def players(self) -> frozenset[str]:
        """The players with at least one live session."""
        return frozenset(self._live)

    def gateways(self) -> frozenset[str]:
        """The gateways heard from and not (yet) dead or down."""
        return frozenset(self._gateways)

    # ----------------------------------------------------------------- updates
    def apply(self, message: Mapping[str, Any], now_ms: int) -> list[Change]:
        """Take one presence message received at ``now_ms``; returns the players
        whose presence flipped (sorted by player, ``at_ms=now_ms``). Raises
        :class:`PresenceError` on a malformed message (nothing changes)."""
        check(message)
        self.now_ms = max(self.now_ms, now_ms)
        kind, gateway_id = message["kind"], message["gateway"]
        gateway = self._gateways.get(gateway_id)
        if kind == "gateway_down":
            if gateway is None:
                return []
            del self._gateways[gateway_id]
            return self._replace(gateway_id, gateway.sessions, {}, now_ms)
        if gateway is None:
            gateway = self._gateways[gateway_id] = _Gateway(heard_ms=now_ms)
        gateway.heard_ms = max(gateway.heard_ms, now_ms)
        # Only the sessions that change are swapped (a connect or disconnect
        # is one session, not the gateway's thousands: the ramp of 2,000 logins).
        sessions = gateway.sessions
        if kind == "heartbeat":
            new = {e["session"]: e["player"] for e in message["sessions"]}
            gateway.sessions = new
            return self._replace(
                gateway_id, {k: v for k, v in sessions.items() if new.get(k) != v},
                {k: v for k, v in new.items() if sessions.get(k) != v}, now_ms)
        session, player = message["session"], message["player"]
        if kind in ("connect", "watch"):  # a session that watches is live
            before = sessions.get(session)
            sessions[session] = player
            if before == player:
                return self._replace(gateway_id, {}, {}, now_ms)
            return self._replace(gateway_id, {} if before is None else {session: before},
                                 {session: player}, now_ms)
        # disconnect
        if session not in sessions:
            # A session we never knew of (lost connect, or before our start):
            # the player was seen leaving; its other sessions are in heartbeats.
            return self._replace(gateway_id, {}, {}, now_ms, also=player)
        return self._replace(gateway_id, {session: sessions.pop(session)}, {}, now_ms)

    def hear_all(self, now_ms: int) -> None:
        """Count every known gateway as heard from at ``now_ms``: after the
        caller's own outage (it could not hear them), so that they get a whole
        timeout to show they live instead of being declared dead at once."""
        self.now_ms = max(self.now_ms, now_ms)
        for gateway in self._gateways.values():
            gateway.heard_ms = max(gateway.heard_ms, now_ms)

    def expire(self, now_ms: int) -> list[Change]:
        """Declare dead the gateways not heard from for more than ``timeout_ms``
        at ``now_ms``: their players without other sessions become absent as of
        the gateway's last message. Also forgets absences older than
        ``forget_ms``. Returns the flips (sorted by time, then player)."""
        self.now_ms = max(self.now_ms, now_ms)
        changes: list[Change] = []
        for gateway_id, gateway in list(self._gateways.items()):
            if now_ms - gateway.heard_ms > self.timeout_ms:
                del self._gateways[gateway_id]
                changes += self._replace(gateway_id, gateway.sessions, {}, gateway.heard_ms)
        for player, since in list(self._absent.items()):
            if now_ms - since > self.forget_ms:
                del self._absent[player]
        return sorted(changes, key=lambda c: (c.at_ms, c.player))

    def _replace(self, gateway_id: str, old: Mapping[str, str], new: Mapping[str, str],
                 at_ms: int, also: str | None = None) -> list[Change]:
        """Swap ``gateway_id``'s sessions ``old`` for ``new``; the flips."""
        affected = set(old.values()) | set(new.values())
        if also is not None:
            affected.add(also)
        before = {p: self.present(p) for p in affected}
        for session_id, player in old.items():
            live = self._live.get(player)
            if live is not None:
                live.discard(Session(gateway_id, session_id))
                if not live:
                    del self._live[player]
        for session_id, player in new.items():
            self._live.setdefault(player, set()).add(Session(gateway_id, session_id))
        changes = []
        for player in sorted(affected):
            if player in self._live:
                self._absent.pop(player, None)
            elif player not in self._absent:
                self._absent[player] = at_ms
            if self.present(player) != before[player]:
                changes.append(Change(player, not before[player], at_ms))
        return changes


OnChange = Callable[[Change], Awaitable[None]]


class Listening:
    """A subscription to every gateway's presence (``paiju.presence.*.*``) and a
    task ticking beside it: what :class:`PresenceWatcher` and
    :class:`paiju.presence.book.spectators.SpectatorWatcher` run."""

    def __init__(self) -> None:
        self._sub: Subscription | None = None
        self._ticker: asyncio.Task[None] | None = None

    async def start(self, nc: NATS, on_message: Callable[[Msg], Awaitable[None]],
                    tick: Coroutine[Any, Any, None], name: str) -> None:
        """Subscribe ``on_message`` and run ``tick`` as the task ``name``."""
        self._sub = await nc.subscribe(subjects.PRESENCE_ALL, cb=on_message)
        self._ticker = asyncio.create_task(tick, name=name)

    async def stop(self) -> None:
        """Stop the task, then unsubscribe (either may be gone already)."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.unsubscribe()
            self._sub = None


class PresenceWatcher:
    """Keeps a :class:`PresenceBook` from NATS and tells ``on_change`` each flip.

    Subscribes :data:`paiju.runtime.subjects.PRESENCE_ALL` on ``nc`` and calls
    :meth:`PresenceBook.expire` every ``tick_seconds``. ``timeout_ms`` defaults to
    PAIJU_PRESENCE_TIMEOUT_SECONDS; ``clock`` (unix ms) to the wall clock.
    ``on_change`` is awaited once per :class:`Change`, one at a time, in order; its
    exceptions are logged and do not stop the watcher. The book is up to date as
    each message arrives; a task of its own hands the changes on, so a slow
    ``on_change`` never leaves :attr:`book` behind the news. Malformed messages are
    logged and ignored. While ``nc`` is disconnected nothing expires (the
    watcher cannot hear the heartbeats); once it is back every known gateway
    gets a fresh timeout (:meth:`PresenceBook.hear_all`).
    """

    def __init__(self, nc: NATS, on_change: OnChange, timeout_ms: int | None = None,
                 tick_seconds: float = 1.0, clock: Callable[[], int] = wall_ms) -> None:
        self.nc = nc
        self.on_change = on_change
        self.timeout_ms = (int(presence_seconds()[1] * 1000) if timeout_ms is None
                           else timeout_ms)
        self.tick_seconds = tick_seconds
        self.clock = clock
        self.book = PresenceBook(clock(), self.timeout_ms)
        self._changes: asyncio.Queue[Change] = asyncio.Queue()
        self._teller: asyncio.Task[None] | None = None
        self._listening = Listening()
        #: gateway id -> when (``clock``, unix ms) a message of it last arrived
        self.last_heard: dict[str, int] = {}

    async def start(self) -> None:
        """Start a fresh book (its warm-up begins now), subscribe, start ticking."""
        self.book = PresenceBook(self.clock(), self.timeout_ms)
        self._changes = asyncio.Queue()
        self._teller = asyncio.create_task(self._tell(), name="presence-changes")
        await self._listening.start(self.nc, self._on_message, self._tick(), "presence-expire")

    async def stop(self) -> None:
        """Unsubscribe, stop ticking and handing changes on (the book keeps its state)."""
        await self._listening.stop()
        if self._teller is not None:
            self._teller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._teller
            self._teller = None

    async def _on_message(self, msg: Msg) -> None:
        try:
            message = parse(msg.data, msg.subject)
        except PresenceError as e:
            log.warning("ignored presence message on %s: %s", msg.subject, e)
            return
        self.last_heard[str(message["gateway"])] = self.clock()
        self._emit(self.book.apply(message, self.clock()))

    async def _tick(self) -> None:
        deaf = False
        while True:
            await asyncio.sleep(self.tick_seconds)
            if not self.nc.is_connected:
                deaf = True
                continue
            if deaf:
                deaf = False
                self.book.hear_all(self.clock())
            self._emit(self.book.expire(self.clock()))

    def _emit(self, changes: list[Change]) -> None:
        for change in changes:
            self._changes.put_nowait(change)

    async def _tell(self) -> None:
        """Hand the changes to ``on_change``, one at a time, in order."""
        while True:
            change = await self._changes.get()
            try:
                await self.on_change(change)
            except Exception:
                log.exception("presence on_change failed for %s", change)
