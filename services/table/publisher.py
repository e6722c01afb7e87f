"""How a game's events are published (on the subjects of :mod:`paiju.subjects`)."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from nats.aio.client import Client as NATS

from paiju import natsconn

log = logging.getLogger("paiju.table")


class Publisher(Protocol):
    """Publishes one event (``paiju.events.v1.Event``) on a subject."""

    async def publish(self, subject: str, type_: str, data: dict[str, Any], *, seq: int,
                      game_id: str, room: str) -> None:
        """Publish; raises on a connection that is closed for good."""

    async def flush(self) -> None:
        """Return once everything published so far reached the server (or it
        could not be told within a second: then logged, not raised)."""


class NatsPublisher:
    """:class:`Publisher` on a nats-py connection."""

    def __init__(self, nc: NATS) -> None:
        self.nc = nc

    async def publish(self, subject: str, type_: str, data: dict[str, Any], *, seq: int,
                      game_id: str, room: str) -> None:
        """``paiju.natsconn.publish``."""
        await natsconn.publish(self.nc, subject, type_, data, seq=seq, game_id=game_id,
                               room=room)

    async def flush(self) -> None:
        """``nc.flush`` (a PING answered), at most a second."""
        try:
            await self.nc.flush(timeout=1)
        except Exception as e:
            log.warning("flushing published events failed: %s", e)
