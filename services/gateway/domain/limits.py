"""The gateway's limits on what clients may take: open connections
in total and per address, sign-ins per player per minute, and the bytes
waiting in all send queues together. Each refusal is counted by
``paiju_gateway_limit_refusals_total{limit}`` (services.gateway.metrics).

Pure bookkeeping, no I/O: the session and the writer apply the answers.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Protocol

from services.gateway import metrics
from services.gateway.domain.protocol import TokenBucket

#: Close code of a connection refused by a connection limit ("try again later", RFC 6455).
CLOSE_TRY_AGAIN_LATER = 1013
#: Close code of a connection cut off by the queued-memory limit (policy violation).
CLOSE_QUEUED_MEMORY = 1008


def refused(limit: str) -> None:
    """Count one refusal by ``limit`` (``connections``, ``connections_per_address``,
    ``sessions_per_player``, ``queued_bytes``, ``frame_size``)."""
    metrics.LIMIT_REFUSALS.labels(limit).inc()


class Connections:
    """Open connections of one gateway, in total and per client address."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total, self.per_address = total, per_address
        self.open = 0
        self.by_address: dict[str, int] = {}

    def admit(self, address: str) -> str | None:
        """Take one connection from ``address``; ``None`` where it is admitted
        (call :meth:`release` when it ends), else the reason it is refused
        (for the close frame; counted)."""
        if self.open >= self.total:
            refused("connections")
            return "the gateway is full; try again later"
        if self.by_address.get(address, 0) >= self.per_address:
            refused("connections_per_address")
            return "too many connections from your address"
        self.open += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        return None

    def release(self, address: str) -> None:
        """A connection admitted from ``address`` ended."""
        self.open -= 1
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)


class SessionRate:
    """Sign-ins per player in a sliding minute (``per_minute``); ``clock`` is
    monotonic seconds (injectable for tests)."""

    WINDOW = 60.0

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._times: dict[str, deque[float]] = {}

    def allow(self, player: str) -> bool:
        """Count a sign-in of ``player``; False (counted, not kept) where it
        made ``per_minute`` already in the last minute."""
        now = self.clock()
        times = self._times.setdefault(player, deque())
        while times and times[0] <= now - self.WINDOW:
            times.popleft()
        if len(times) >= self.per_minute:
            refused("sessions_per_player")
            return False
        times.append(now)
        if len(self._times) > 4096:  # forget players without a recent sign-in
            self._times = {p: t for p, t in self._times.items()
                           if t and t[-1] > now - self.WINDOW}
        return True


class PlayerBuckets:
    """One :class:`TokenBucket` (``rate`` per second, ``burst``) per player,
    shared by all of the player's connections on this gateway, so signing in
    again does not refill it. At most ``keep`` players are kept, the least
    recently used forgotten first (a bucket unused for ``burst / rate`` seconds
    is full again anyway)."""

    def __init__(self, rate: float, burst: float, keep: int = 4096,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.keep, self.clock = rate, burst, keep, clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, player: str) -> bool:
        """Spend one of ``player``'s tokens; False when it has none left."""
        bucket = self._buckets.get(player)
        if bucket is None:
            bucket = self._buckets[player] = TokenBucket(self.rate, self.burst, self.clock)
            while len(self._buckets) > self.keep:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(player)
        return bucket.take()

    def __len__(self) -> int:
        return len(self._buckets)


class Queue(Protocol):
    """A send queue as the budget sees it (services.gateway.adapters.writer.SendQueue)."""

    queued_bytes: int

    def cut_off(self, why: str) -> None:
        """Drop the queue and abort its connection."""


class QueueBudget:
    """The bytes waiting in every send queue of one gateway, at most ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.queues: set[Queue] = set()
        # read when scraped: a set() per message queued and sent was ≈ 2 % of
        # the gateway's busy time at 500 tables (docs/performance.md)
        metrics.QUEUED_BYTES.set_function(lambda: self.used)

    def make_room(self, size: int, asking: Queue) -> bool:
        """Room for ``size`` more bytes of ``asking``: while the total would
        pass the limit, the queue holding the most bytes is cut off (a client
        that reads least). False where that was ``asking`` itself (or the
        message alone passes the limit)."""
        while self.used + size > self.limit:
            biggest = max(self.queues, key=lambda q: q.queued_bytes, default=None)
            if biggest is None or biggest is asking or biggest.queued_bytes == 0:
                refused("queued_bytes")
                asking.cut_off("queued_bytes")
                return False
            refused("queued_bytes")
            biggest.cut_off("queued_bytes")
        return True

    def add(self, size: int) -> None:
        """``size`` bytes were queued."""
        self.used += size

    def remove(self, size: int) -> None:
        """``size`` bytes left a queue (sent, or dropped)."""
        self.used -= size
