"""A connection's outgoing side: one bounded queue of JSON texts drained by a
writer task that sends them in batches.

Everything a client is sent (replies and events) goes through the queue, so
the order is the order of :meth:`SendQueue.put`. A client that lets
``SEND_QUEUE`` messages pile up is cut off (``slow_client``): its socket is
aborted at once and nobody else waits for it. The bytes waiting in all queues
of the gateway together are bounded too (:class:`~services.gateway.domain.limits.QueueBudget`,
``PAIJU_GATEWAY_MAX_QUEUED_BYTES``): past it, the queue holding the most is
cut off the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from services.gateway import metrics
from services.gateway.domain.limits import QueueBudget
from services.gateway.domain.protocol import SEND_QUEUE

log = logging.getLogger("paiju.gateway")

#: The writer sends at most this many queued messages in one socket write.
WRITE_BATCH = 64


async def send_batch(ws: ServerConnection, batch: list[bytes]) -> None:
    """Send the messages of ``batch`` (UTF-8 JSON, each its own text frame) with one socket
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
        await ws.send(batch[0], text=True)
        return
    async with ws.send_context():
        for data in batch:
            ws.protocol.send_text(data)
        chunks = ws.protocol.data_to_send()
        joined = b"".join(chunks)
        if joined:
            ws.transport.write(joined)
        if any(not c for c in chunks):  # end of stream: as send_data() does
            if ws.transport.can_write_eof():
                ws.transport.write_eof()
            else:
                ws.transport.close()


class SendQueue:
    """The bounded send queue of one connection and its writer task; ``budget``
    bounds the bytes of all queues of the gateway (a budget of its own where
    none is given)."""

    def __init__(self, ws: ServerConnection, conn_id: str, size: int = SEND_QUEUE,
                 budget: QueueBudget | None = None) -> None:
        self.ws = ws
        self.conn_id = conn_id
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(size)
        self.budget = budget or QueueBudget(size * 64 * 1024)
        #: Bytes waiting in :attr:`queue`.
        self.queued_bytes = 0
        #: True once nothing more is sent (the connection ends, or was cut off).
        self.closed = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the writer task."""
        self.budget.queues.add(self)
        self._task = asyncio.create_task(self._drain())

    async def stop(self) -> None:
        """Send nothing more and end the writer task."""
        self._close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _close(self) -> None:
        """Nothing more is sent: give the queued bytes back to the budget."""
        self.closed = True
        self.budget.queues.discard(self)
        while not self.queue.empty():
            self.queue.get_nowait()
        self.budget.remove(self.queued_bytes)
        self.queued_bytes = 0

    def put(self, text: str) -> None:
        """Queue the JSON ``text``; cut the client off when its queue is full
        or the gateway's queued bytes would pass the budget (and this queue
        holds the most). Does nothing once closed."""
        if self.closed:
            return
        data = text.encode()
        if not self.budget.make_room(len(data), self) or self.closed:
            return
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:
            metrics.SLOW_CLIENT_DISCONNECTS.inc()
            self.cut_off("send_queue")
            return
        self.queued_bytes += len(data)
        self.budget.add(len(data))

    def cut_off(self, why: str) -> None:
        """Drop the queue and abort the connection at once (``why``: the limit
        it passed, for the log): the client reads nothing, so a closing
        handshake would wait in vain."""
        if self.closed:
            return
        self._close()
        log.info("slow client cut off", extra={"conn": self.conn_id, "limit": why})
        self.ws.transport.abort()

    async def _drain(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while len(batch) < WRITE_BATCH:
                try:
                    batch.append(self.queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            size = sum(len(b) for b in batch)
            if not self.closed:
                self.queued_bytes -= size
                self.budget.remove(size)
            try:
                await send_batch(self.ws, batch)
            except ConnectionClosed:
                return
            metrics.MESSAGES_OUT.inc(len(batch))
