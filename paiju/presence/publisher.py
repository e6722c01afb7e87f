"""The gateway's side of presence (:mod:`paiju.presence.book.book`): the id of its
process and the :class:`PresencePublisher` that announces its sessions on
``paiju.presence.<name>.<process>``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import socket
from collections.abc import Callable
from typing import Any

from nats.aio.client import Client as NATS

from paiju.config import presence_seconds
from paiju.presence.book import GATEWAY_ID, TOKEN, wall_ms
from paiju.runtime import subjects

log = logging.getLogger("paiju.presence")


def new_gateway_id(name: str) -> str:
    """The id of this process of gateway replica ``name`` (its
    ``PAIJU_INSTANCE``, the name of its NATS user): ``<name>.<host>-<pid>-<random>``.
    ``ValueError`` if ``name`` is not letters, digits, ``-`` and ``_``."""
    if not TOKEN.match(name):
        raise ValueError(f"gateway name {name!r} must be letters, digits, '-', '_'")
    host = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname()) or "gateway"
    return f"{name}.{host}-{os.getpid()}-{secrets.token_hex(3)}"


class PresencePublisher:
    """The gateway's side: publishes its sessions on ``paiju.presence.<gateway_id>``.

    ``gateway_id``: ``<name>.<process>``, unique per gateway process
    (:func:`new_gateway_id`; two tokens of letters, digits, ``-`` and ``_``,
    else ``ValueError``).
    ``heartbeat_seconds`` defaults to PAIJU_PRESENCE_HEARTBEAT_SECONDS. Publishing
    failures (NATS away) are logged, never raised: the next heartbeat repairs them.
    """

    def __init__(self, nc: NATS, gateway_id: str, heartbeat_seconds: float | None = None,
                 clock: Callable[[], int] = wall_ms) -> None:
        if not GATEWAY_ID.match(gateway_id):
            raise ValueError(f"gateway id {gateway_id!r} must be <name>.<process>, each "
                             "letters, digits, '-', '_'")
        self.nc = nc
        self.gateway_id = gateway_id
        self.subject = subjects.presence(gateway_id)
        self.heartbeat_seconds = (presence_seconds()[0] if heartbeat_seconds is None
                                  else heartbeat_seconds)
        self.clock = clock
        self._sessions: dict[str, str] = {}  # session id -> player
        self._watching: dict[str, str] = {}  # session id -> the room it watches
        self._beater: asyncio.Task[None] | None = None

    def sessions(self) -> dict[str, str]:
        """The live sessions this publisher announces: session id -> player."""
        return dict(self._sessions)

    async def start(self) -> None:
        """Send a heartbeat now, then every ``heartbeat_seconds``."""
        self._beater = asyncio.create_task(self._beat(), name="presence-heartbeat")

    async def connect(self, player: str, session: str) -> None:
        """``session`` of ``player`` signed in (published as ``connect``)."""
        self._sessions[session] = player
        await self._send({"kind": "connect", "player": player, "session": session})

    async def disconnect(self, player: str, session: str) -> None:
        """``session`` of ``player`` closed (published as ``disconnect``)."""
        self._sessions.pop(session, None)
        self._watching.pop(session, None)
        await self._send({"kind": "disconnect", "player": player, "session": session})

    async def watch(self, player: str, session: str, room: str | None) -> None:
        """``session`` of ``player`` watches ``room`` from now (旁观), or
        nothing (``None``); published as ``watch`` and kept in heartbeats."""
        if room is None:
            self._watching.pop(session, None)
        else:
            self._watching[session] = room
        await self._send({"kind": "watch", "player": player, "session": session,
                          "room": room})

    async def heartbeat(self) -> None:
        """Publish the full list of live sessions now."""
        await self._send({"kind": "heartbeat", "sessions": [
            {"player": p, "session": s,
             **({"watching": self._watching[s]} if s in self._watching else {})}
            for s, p in self._sessions.items()]})

    async def stop(self) -> None:
        """Stop the heartbeats and publish ``gateway_down`` (flushed, 2 s at most)."""
        if self._beater is not None:
            self._beater.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beater
            self._beater = None
        self._sessions.clear()
        self._watching.clear()
        await self._send({"kind": "gateway_down"})
        with contextlib.suppress(Exception):
            await self.nc.flush(timeout=2)

    async def _beat(self) -> None:
        while True:
            await self.heartbeat()
            await asyncio.sleep(self.heartbeat_seconds)

    async def _send(self, body: dict[str, Any]) -> None:
        message = {**body, "gateway": self.gateway_id, "at": self.clock()}
        try:
            await self.nc.publish(self.subject, json.dumps(message).encode())
        except Exception as e:
            log.warning("presence %s not published: %s", body["kind"], e)
