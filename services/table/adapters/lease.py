"""Who owns a sitting: a lease per game in a JetStream key-value bucket.

The instances that share one record database are one pool and take over
each other's games; the names below end in ``_<pool>`` (:func:`pool_name`).

Bucket ``paiju_table_leases`` (TTL ``PAIJU_LEASE_SECONDS``, default 5): key
the sitting's game id, value ``{"instance", "address"}`` of its owner. An
instance takes a free lease with a create (fails while someone holds it),
renews each of its leases every third of the TTL with an update expecting its
own last revision (:meth:`Leases.renew_all`), and releases it with a delete
expecting that revision. A lease nobody renews disappears after the TTL.

Bucket ``paiju_table_games`` (no TTL) lists the live sittings: key the game
id, value ``{"room", "game"}``; an entry goes when its sitting ended.
Instances look there for sittings without a lease (:mod:`services.table.application.takeover`).

The lease decides who may try; the log's fenced append
(:mod:`services.table.adapters.gamelog`) is what makes a stale owner stop.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
import zlib
from typing import Any

import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js import api
from nats.js.kv import KeyValue

from paiju.runtime.natsconn import NATS_ERRORS
from services.table.adapters.jspublish import JetStreamPublisher

LEASES = "paiju_table_leases"
GAMES = "paiju_table_games"

log = logging.getLogger("paiju.table.lease")

#: JetStream's error code for replicas > 1 on a server that is not clustered.
NOT_CLUSTERED = 10074

#: Lease updates :meth:`Leases.renew_all` keeps in flight at once.
RENEW_CONCURRENCY = 64

#: Slices the held leases are renewed in, one after the other over a renewal
#: interval (:meth:`services.table.application.runner.Table.keep_leases`): 500 games' updates
#: at once were a burst that held the instance's loop for tens of milliseconds
#: every 1.7 s (docs/performance.md).
RENEW_SLICES = 10


def renew_slice(game_id: str, slices: int) -> int:
    """The slice (``0 .. slices - 1``) whose turn renews ``game_id``'s lease: a
    hash of the id, so a game keeps its slice for as long as it runs."""
    return zlib.crc32(game_id.encode()) % slices

#: What talking to JetStream can raise when NATS is away or slow.


def pool_name(database_url: str, configured: str = "") -> str:
    """The table pool: ``configured`` (PAIJU_TABLE_POOL) where given, else
    ``p`` and 12 hex digits of the SHA-1 of the record database's URL (the
    instances sharing a database are one deployment). ``ValueError`` for a
    configured name other than letters, digits, ``_`` and ``-``."""
    if configured:
        if not all(c.isascii() and (c.isalnum() or c in "_-") for c in configured):
            raise ValueError(f"PAIJU_TABLE_POOL={configured!r}: letters, digits, _ and - only")
        return configured
    return "p" + hashlib.sha1(database_url.encode()).hexdigest()[:12]


class Leases:
    """The leases of one instance (``instance`` name, gRPC ``address``) in
    ``pool``."""

    def __init__(self, nc: NATS, instance: str, address: str, pool: str,
                 seconds: float = 5.0, replicas: int = 1, timeout: float = 2.0,
                 publisher: JetStreamPublisher | None = None) -> None:
        self.pool = pool
        #: The leases' bucket, ``paiju_table_leases_<pool>``.
        self.lease_bucket = f"{LEASES}_{pool}"
        self.timeout = timeout
        #: Sends the renewals (``$KV.<bucket>.<game id>`` with the expected last revision).
        self.publisher = publisher if publisher is not None else JetStreamPublisher(nc)
        self.js = nc.jetstream(timeout=timeout)
        self.instance = instance
        self.address = address
        self.seconds = seconds
        self.replicas = replicas
        #: The revision of each lease this instance holds, by game id.
        self.held: dict[str, int] = {}
        #: When (monotonic s) the request that last took or renewed each lease
        #: held was sent: nobody else can hold it before that plus the TTL.
        self.confirmed: dict[str, float] = {}
        self._leases: KeyValue | None = None
        self._games: KeyValue | None = None
        self._value = json.dumps({"instance": instance, "address": address}).encode()

    @property
    def value(self) -> bytes:
        """This instance's lease value (``{"instance", "address"}`` as JSON bytes)."""
        return self._value

    async def _bucket(self, name: str, ttl: float | None) -> KeyValue:
        config = api.KeyValueConfig(bucket=name, ttl=ttl, history=1,
                                    storage=api.StorageType.FILE, replicas=self.replicas)
        try:
            return await self.js.create_key_value(config)
        except nats.js.errors.APIError as e:
            if e.err_code == NOT_CLUSTERED and self.replicas != 1:
                log.warning("NATS is not clustered: bucket %s gets 1 replica, not %d",
                            name, self.replicas)
                self.replicas = 1
                return await self._bucket(name, ttl)
            if not isinstance(e, nats.js.errors.BadRequestError):
                raise
            # There already with another configuration: use it as it is.
            log.warning("bucket %s exists with another configuration; using it", name)
            return await self.js.key_value(name)

    async def ensure(self) -> None:
        """Create (or open) both buckets."""
        self._leases = await self._bucket(self.lease_bucket, self.seconds)
        self._games = await self._bucket(f"{GAMES}_{self.pool}", None)

    @property
    def leases(self) -> KeyValue:
        """The lease bucket (after :meth:`ensure`)."""
        assert self._leases is not None
        return self._leases

    @property
    def games(self) -> KeyValue:
        """The live-games bucket (after :meth:`ensure`)."""
        assert self._games is not None
        return self._games

    async def take(self, game_id: str) -> bool:
        """Take the lease of ``game_id`` if nobody holds it (True); True too
        where this instance holds it already (a try whose answer was lost took
        it: a retry is safe). NATS errors propagate."""
        sent = time.monotonic()
        try:
            self.held[game_id] = await self.leases.create(game_id, self.value)
            self.confirmed[game_id] = sent
        except nats.js.errors.KeyWrongLastSequenceError:
            try:
                entry = await self.leases.get(game_id)
            except nats.js.errors.KeyNotFoundError:
                return False
            if entry.value != self.value:
                return False
            self.held[game_id] = int(entry.revision or 0)
        return True

    async def renew(self, game_id: str) -> bool:
        """Renew this instance's lease of ``game_id``; where it expired and
        nobody took it, take it again. False: another instance holds it (the
        lease is lost). NATS errors propagate."""
        for _ in range(2):
            rev = self.held.get(game_id)
            if rev is None:
                break
            sent = time.monotonic()
            try:
                self.held[game_id] = await self.publisher.kv_update(
                    self.lease_bucket, game_id, self.value, last=rev, timeout=self.timeout)
                self.confirmed[game_id] = sent
                return True
            except nats.js.errors.KeyWrongLastSequenceError:
                pass
            # Renewed meanwhile by another task of this instance?
            try:
                entry = await self.leases.get(game_id)
            except nats.js.errors.KeyNotFoundError:
                break
            if entry.value != self.value:
                self.forget(game_id)
                return False
            self.held[game_id] = int(entry.revision or 0)
        if await self.take(game_id):
            log.warning("lease of %s had expired; taken again", game_id)
            return True
        self.forget(game_id)
        return False

    def current(self, game_id: str) -> bool:
        """Whether this instance surely holds the lease of ``game_id`` now: it
        took or renewed it with a request sent less than the TTL ago (a lease
        lives a TTL from its last write, so nobody else can have taken it).
        False once that is past: the instance may have been stopped, or cut
        off from NATS, while another took the game over."""
        sent = self.confirmed.get(game_id)
        return sent is not None and time.monotonic() - sent < self.seconds

    async def renew_all(self, concurrency: int = RENEW_CONCURRENCY,
                        part: tuple[int, int] = (0, 1)) -> list[str]:
        """Renew every lease held (``part = (k, n)``: those of slice ``k`` of
        ``n``, :func:`renew_slice`), up to ``concurrency`` key updates in flight
        at once; returns the game ids whose lease another instance holds now
        (lost). A lease that could not be renewed because NATS did not answer
        is kept (tried again next time). One after the other, 500 games' updates
        took longer than the leases' 5 s under load and the leases expired
        (docs/performance.md)."""
        k, n = part
        lost: list[str] = []
        gate = asyncio.Semaphore(concurrency)

        async def one(game_id: str) -> None:
            async with gate:
                try:
                    if not await self.renew(game_id):
                        lost.append(game_id)
                except NATS_ERRORS as e:
                    log.warning("renewing the lease of %s failed: %s", game_id, e)

        await asyncio.gather(*(one(g) for g in list(self.held)
                               if n == 1 or renew_slice(g, n) == k))
        return lost

    async def release(self, game_id: str) -> None:
        """Give up the lease of ``game_id`` (a delete expecting its revision,
        so another's lease is never deleted). NATS errors are logged."""
        rev = self.held.pop(game_id, None)
        self.confirmed.pop(game_id, None)
        if rev is None:
            return
        try:
            await self.leases.delete(game_id, last=rev)
        except (*NATS_ERRORS, nats.js.errors.APIError) as e:
            log.warning("releasing the lease of %s failed: %s", game_id, e)

    def forget(self, game_id: str) -> None:
        """Stop renewing ``game_id`` (its lease is lost)."""
        self.held.pop(game_id, None)
        self.confirmed.pop(game_id, None)

    async def holder(self, game_id: str) -> dict[str, Any] | None:
        """The owner of ``game_id``'s lease (``{"instance", "address"}``) or None."""
        return await _json_entry(self.leases, game_id)

    async def add_live(self, game_id: str, room: str, game: str) -> None:
        """List ``game_id`` as a live sitting."""
        await self.games.put(game_id, json.dumps({"room": room, "game": game}).encode())

    async def remove_live(self, game_id: str) -> None:
        """The sitting ended: no more listed (NATS errors propagate)."""
        await self.games.delete(game_id)

    async def live(self) -> dict[str, dict[str, Any]]:
        """The live sittings: game id -> ``{"room", "game"}``."""
        out: dict[str, dict[str, Any]] = {}
        for key in await self.live_ids():
            info = await self.live_info(key)
            if info is not None:
                out[key] = info
        return out

    async def live_ids(self) -> list[str]:
        """The game ids of the live sittings (one listing of the bucket's keys)."""
        try:
            return list(await self.games.keys())
        except nats.js.errors.NoKeysError:
            return []

    async def live_info(self, game_id: str) -> dict[str, Any] | None:
        """``{"room", "game"}`` of a live sitting, or None once it is gone."""
        return await _json_entry(self.games, game_id)

    async def leased_ids(self) -> set[str]:
        """The game ids whose lease someone holds now (one listing of the
        lease bucket's keys)."""
        try:
            return set(await self.leases.keys())
        except nats.js.errors.NoKeysError:
            return set()


async def _json_entry(bucket: KeyValue, key: str) -> dict[str, Any] | None:
    """The JSON object stored under ``key`` in ``bucket``, or None where there
    is no such key."""
    try:
        entry = await bucket.get(key)
    except nats.js.errors.KeyNotFoundError:
        return None
    value: dict[str, Any] = json.loads(entry.value or b"{}")
    return value
