"""The outbox relay: publishes committed ``balance_changed`` events to NATS.

Events are written into ``ledger_outbox`` by the transaction that moved the
coins, so a rolled-back change never produces one. The relay publishes them
oldest first, flushes, then marks them sent: delivery is at least once (a
crash between publish and mark repeats an event; each carries its
``event_id`` so that a client can drop a repeat). With tracing on, an event
is published in the trace of the change that wrote it (paiju.runtime.tracing).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from nats.aio.client import Client as NATS
from opentelemetry.trace import SpanKind

from paiju.runtime import retries, tracing
from paiju.runtime.natsconn import encode
from services.ledger.adapters.outbox import TRACE_KEY, Outbox
from services.ledger.metrics import OUTBOX_LAG, OUTBOX_PENDING, OUTBOX_PUBLISHED

log = logging.getLogger("paiju.ledger.outbox")


class Relay:
    """Moves outbox events to NATS. ``nats()`` returns the connection (or None
    while there is none yet); ``poll`` is the idle re-check period in seconds
    (events written by another replica, NATS back after an outage). A wake-up
    waits ``gather`` seconds, and at least until ``spacing`` seconds after the
    previous drain began, so that the events of commits close together go out
    in one batch (one read, one flush, one mark) of at most ``batch``: an event
    of a quiet ledger leaves after ``gather``, a busy ledger drains at most
    1 / ``spacing`` times a second."""

    def __init__(self, outbox: Outbox, nats: Callable[[], NATS | None], poll: float = 1.0,
                 batch: int = 200, gather: float = 0.005, spacing: float = 0.05) -> None:
        self.outbox = outbox
        self.nats = nats
        self.poll = poll
        self.batch = batch
        self.gather = gather
        self.spacing = spacing
        self.wake = asyncio.Event()

    def notify(self) -> None:
        """Ask the relay to look at the outbox now (called after each commit
        that wrote events)."""
        self.wake.set()

    async def drain(self) -> int:
        """Publish every pending event if NATS is connected; returns how many
        were published. Publishing errors leave the events pending."""
        sent = 0
        nc = self.nats()
        while nc is not None and nc.is_connected:
            batch = await self.outbox.unsent(self.batch)
            if not batch:
                break
            for ev in batch:
                data = dict(ev.data, event_id=ev.id)
                trace = data.pop(TRACE_KEY, None)
                payload = encode(ev.type, data, game_id=ev.game_id)
                if not (trace and tracing.enabled()):
                    await nc.publish(ev.subject, payload)
                    continue
                # published in the trace of the change that wrote it (a Settle…)
                with tracing.span(f"publish {ev.type}", SpanKind.PRODUCER, {
                        "messaging.system": "nats", "messaging.destination.name": ev.subject,
                        "paiju.game_id": ev.game_id},
                        parent=tracing.context_of({"traceparent": str(trace)})):
                    await nc.publish(ev.subject, payload, headers=tracing.headers())
            await nc.flush(timeout=5)
            await self.outbox.mark_sent([ev.id for ev in batch])
            OUTBOX_PUBLISHED.inc(len(batch))
            sent += len(batch)
            if len(batch) < self.batch:
                break
        return sent

    async def measure(self) -> None:
        """Update the outbox gauges (pending events, age of the oldest)."""
        pending, oldest = await self.outbox.backlog()
        OUTBOX_PENDING.set(pending)
        OUTBOX_LAG.set(0 if oldest is None else max(0, self.outbox.uow.clock() - oldest) / 1000)

    async def run(self) -> None:
        """Drain on every wake-up (after ``gather`` seconds and ``spacing``
        after the previous drain) and every ``poll`` seconds, a failed drain
        retried (:mod:`paiju.runtime.retries`) until it works; update the gauges at
        most every ``poll`` seconds. Runs until cancelled."""
        measured = 0.0
        drained = 0.0
        while True:
            woken = False
            with contextlib.suppress(TimeoutError):
                # Not wait_for: on Python 3.11 it swallows a cancel that lands as
                # the event is set, and the relay would never stop (gh-86296).
                async with asyncio.timeout(self.poll):
                    woken = await self.wake.wait()
            if woken:
                await asyncio.sleep(max(self.gather, drained + self.spacing - time.monotonic()))
            self.wake.clear()
            drained = time.monotonic()
            try:
                # a failing database or NATS: tried again after a jittered wait
                # up to 5 s (paiju_retries_total{operation="outbox_drain"})
                await retries.call("outbox_drain", self.drain,
                                   lambda e: isinstance(e, Exception))
                if time.monotonic() - measured >= self.poll:
                    measured = time.monotonic()
                    await self.measure()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("outbox relay failed: %s", e)
