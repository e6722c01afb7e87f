"""Spectator counts (旁观), kept across gateways through presence.

A gateway announces which room each of its spectator sessions watches on its
presence subject (:mod:`paiju.presence.book.book`: the ``watch`` message, and
``watching`` in every heartbeat entry). Every gateway reads all the presence
subjects and counts, per room, the sessions that watch it anywhere, so that the
seated players of a room see how many watch whatever gateway they and the
spectators use. A gateway's heartbeat is authoritative for its sessions; a
gateway that says ``gateway_down`` or is not heard from for the presence
timeout counts no spectators any more.

:class:`SpectatorBook` is the pure bookkeeping (the time is passed in, unix
ms); :class:`SpectatorWatcher` feeds it from NATS and tells each change of a
room's count.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from paiju.config import presence_seconds
from paiju.presence.book import Listening, PresenceError, parse, wall_ms

log = logging.getLogger("paiju.spectators")


@dataclass
class _Gateway:
    heard_ms: int
    watching: dict[str, str] = field(default_factory=dict)  # session -> room


class SpectatorBook:
    """Which sessions watch which room, by gateway (module docstring).
    ``timeout_ms``: a gateway not heard from for longer counts nothing."""

    def __init__(self, timeout_ms: int) -> None:
        if timeout_ms <= 0:
            raise ValueError(f"timeout_ms={timeout_ms} must be positive")
        self.timeout_ms = timeout_ms
        self._gateways: dict[str, _Gateway] = {}

    def counts(self) -> Counter[str]:
        """Room -> how many sessions watch it (rooms nobody watches absent)."""
        return Counter(room for g in self._gateways.values() for room in g.watching.values())

    def count(self, room: str) -> int:
        """How many sessions watch ``room`` now, on every gateway."""
        return self.counts()[room]

    def watching(self, gateway: str, session: str) -> str | None:
        """The room ``session`` of ``gateway`` watches, as the book has it."""
        g = self._gateways.get(gateway)
        return g.watching.get(session) if g is not None else None

    def apply(self, message: Mapping[str, Any], now_ms: int) -> dict[str, int]:
        """Take one presence message (already checked: :func:`paiju.presence.book.book.check`)
        received at ``now_ms``; returns the rooms whose count changed, with
        their new counts."""
        before = self.counts()
        kind, gateway_id = message["kind"], message["gateway"]
        if kind == "gateway_down":
            self._gateways.pop(gateway_id, None)
            return self._changed(before)
        gateway = self._gateways.setdefault(gateway_id, _Gateway(now_ms))
        gateway.heard_ms = max(gateway.heard_ms, now_ms)
        if kind == "heartbeat":
            gateway.watching = {e["session"]: e["watching"] for e in message["sessions"]
                                if isinstance(e.get("watching"), str)}
        elif kind == "disconnect":
            gateway.watching.pop(message["session"], None)
        elif kind == "watch":
            room = message.get("room")
            if isinstance(room, str):
                gateway.watching[message["session"]] = room
            else:
                gateway.watching.pop(message["session"], None)
        return self._changed(before)

    def expire(self, now_ms: int) -> dict[str, int]:
        """Forget the gateways not heard from for more than ``timeout_ms``;
        the rooms whose count changed, with their new counts."""
        before = self.counts()
        for gateway_id, gateway in list(self._gateways.items()):
            if now_ms - gateway.heard_ms > self.timeout_ms:
                del self._gateways[gateway_id]
        return self._changed(before)

    def _changed(self, before: Counter[str]) -> dict[str, int]:
        after = self.counts()
        return {room: after[room] for room in set(before) | set(after)
                if before[room] != after[room]}


OnCount = Callable[[str, int], Awaitable[None]]


class SpectatorWatcher:
    """Keeps a :class:`SpectatorBook` from ``paiju.presence.*.*`` on ``nc``;
    awaits ``on_count(room, count)`` for each change (errors logged). Malformed
    messages are ignored (the presence watchers log them)."""

    def __init__(self, nc: NATS, on_count: OnCount, timeout_ms: int | None = None,
                 tick_seconds: float = 1.0, clock: Callable[[], int] = wall_ms) -> None:
        self.nc = nc
        self.on_count = on_count
        self.book = SpectatorBook(int(presence_seconds()[1] * 1000) if timeout_ms is None
                                  else timeout_ms)
        self.tick_seconds = tick_seconds
        self.clock = clock
        self._listening = Listening()

    async def start(self) -> None:
        """Subscribe and start expiring."""
        await self._listening.start(self.nc, self._on_message, self._tick(), "spectators-expire")

    async def stop(self) -> None:
        """Unsubscribe and stop."""
        await self._listening.stop()

    async def _on_message(self, msg: Msg) -> None:
        try:
            message = parse(msg.data, msg.subject)
        except PresenceError:
            return
        await self._emit(self.book.apply(message, self.clock()))

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.tick_seconds)
            if self.nc.is_connected:
                await self._emit(self.book.expire(self.clock()))

    async def _emit(self, changed: dict[str, int]) -> None:
        for room, count in sorted(changed.items()):
            try:
                await self.on_count(room, count)
            except Exception:
                log.exception("spectator count of %s not told", room)
