"""How a game's events are published (on the subjects of :mod:`paiju.runtime.subjects`)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

import nats.errors
from nats.aio.client import Client as NATS

from paiju.runtime import natsconn

log = logging.getLogger("paiju.table")

#: nats-py's PING (the protocol line).
PING = b"PING\r\n"


async def ping(nc: NATS, timeout: int) -> None:
    """``nc.flush(timeout)`` with the PING written behind everything published
    so far, in the same socket write (one write per flush instead of two:
    the NATS client's socket writes were the table's largest own cost under
    load, docs/performance.md; nats-py's own flush
    writes its PING at once, before the publishes still waiting for its
    flusher task). The PONG's future is queued as the PING is written, so
    PONGs answer PINGs in order whoever sent them. Falls back to
    ``nc.flush`` on a client without the fields used (``_pending``,
    ``_pongs``, ``_transport``) or not connected. Raises
    ``nats.errors.FlushTimeoutError`` as ``nc.flush`` does."""
    pending = getattr(nc, "_pending", None)
    pongs = getattr(nc, "_pongs", None)
    transport = getattr(nc, "_transport", None)
    if not (isinstance(pending, list) and isinstance(pongs, list) and transport is not None
            and hasattr(nc, "_pending_data_size") and nc.is_connected):
        await nc.flush(timeout=timeout)
        return
    future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    pending.append(PING)
    nc._pending = []
    nc._pending_data_size = 0
    pongs.append(future)
    transport.writelines(pending)
    try:
        await transport.drain()
        await asyncio.wait_for(future, timeout)
    except TimeoutError:
        future.cancel()
        raise nats.errors.FlushTimeoutError from None


class Publisher(Protocol):
    """Publishes one event (``paiju.events.v1.Event``) on a subject."""

    async def publish(self, subject: str, type_: str, data: dict[str, Any], *, seq: int,
                      game_id: str, room: str) -> None:
        """Publish; raises on a connection that is closed for good."""

    async def flush(self) -> None:
        """Return once everything published so far reached the server (or it
        could not be told within a second: then logged, not raised)."""


class NatsPublisher:
    """:class:`Publisher` on a nats-py connection.

    Flushes are shared: at most one PING is in flight; every :meth:`flush`
    asked while it is joins the next one, begun once it is answered (so each
    caller still returns only after an ``nc.flush`` begun after its own
    publishes, as with a flush of its own). Under
    load the rooms' actions share one PING and one socket write instead of
    one each (profiled: the table's PINGs were 18 % of its busy time at 200
    tables; docs/performance.md)."""

    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        #: the flush asked for and not yet begun (its callers wait on it)
        self._next: asyncio.Future[None] | None = None
        self._flusher: asyncio.Task[None] | None = None
        #: PINGs sent (flushes made on the connection)
        self.pings = 0

    async def publish(self, subject: str, type_: str, data: dict[str, Any], *, seq: int,
                      game_id: str, room: str) -> None:
        """``paiju.runtime.natsconn.publish``."""
        await natsconn.publish(self.nc, subject, type_, data, seq=seq, game_id=game_id,
                               room=room)

    async def flush(self) -> None:
        """Return once an ``nc.flush`` (a PING answered, at most a second)
        begun after everything published so far ended (shared, see the
        class)."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
        waiting = self._next
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush_all())
        await asyncio.shield(waiting)

    async def _flush_all(self) -> None:
        try:
            while self._next is not None:
                batch, self._next = self._next, None
                self.pings += 1
                try:
                    await ping(self.nc, timeout=1)
                except Exception as e:
                    log.warning("flushing published events failed: %s", e)
                finally:
                    if not batch.done():
                        batch.set_result(None)
        finally:
            self._flusher = None
