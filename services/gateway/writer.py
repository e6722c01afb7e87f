"""A connection's outgoing side: one bounded queue of JSON texts drained by a
writer task that sends them in batches.

Everything a client is sent (replies and events) goes through the queue, so
the order is the order of :meth:`Outbox.put`. A client that lets
``SEND_QUEUE`` messages pile up is cut off (``slow_client``): its socket is
aborted at once and nobody else waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from services.gateway import metrics
from services.gateway.protocol import SEND_QUEUE

log = logging.getLogger("paiju.gateway")

#: The writer sends at most this many queued messages in one socket write.
WRITE_BATCH = 64


async def send_batch(ws: ServerConnection, batch: list[str]) -> None:
    """Send the messages of ``batch`` (each its own text frame) with one socket
    write instead of one each.

    Events come in bursts (a play, the turn, the hand), and a write per frame
    was the gateway's largest cost under load (docs/performance.md). The
    public API of websockets writes each message on its own (``send`` of an
    iterable makes one *fragmented* message, not several), so this is the one
    place that uses the connection's Sans-I/O layer: the frames are built by
    ``ws.protocol`` inside ``ws.send_context()`` (which checks the state and
    applies flow control, as ``send`` does) and written together, ending the
    stream where the protocol asks, as websockets' ``send_data`` does.
    Raises ``ConnectionClosed`` when the connection is closed."""
    if len(batch) == 1:
        await ws.send(batch[0])
        return
    async with ws.send_context():
        for text in batch:
            ws.protocol.send_text(text.encode())
        chunks = ws.protocol.data_to_send()
        data = b"".join(chunks)
        if data:
            ws.transport.write(data)
        if any(not c for c in chunks):  # end of stream: as send_data() does
            if ws.transport.can_write_eof():
                ws.transport.write_eof()
            else:
                ws.transport.close()


class Outbox:
    """The bounded send queue of one connection and its writer task."""

    def __init__(self, ws: ServerConnection, conn_id: str, size: int = SEND_QUEUE) -> None:
        self.ws = ws
        self.conn_id = conn_id
        self.queue: asyncio.Queue[str] = asyncio.Queue(size)
        #: True once nothing more is sent (the connection ends, or was cut off).
        self.closed = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the writer task."""
        self._task = asyncio.create_task(self._drain())

    async def stop(self) -> None:
        """Send nothing more and end the writer task."""
        self.closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def put(self, text: str) -> None:
        """Queue the JSON ``text``; cut the client off when the queue is full.
        Does nothing once closed."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closed = True
            metrics.SLOW_CLIENT_DISCONNECTS.inc()
            log.info("slow client cut off", extra={"conn": self.conn_id})
            # The client reads nothing, so a closing handshake would wait in vain.
            self.ws.transport.abort()

    async def _drain(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while len(batch) < WRITE_BATCH:
                try:
                    batch.append(self.queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            try:
                await send_batch(self.ws, batch)
            except ConnectionClosed:
                return
            metrics.MESSAGES_OUT.inc(len(batch))
