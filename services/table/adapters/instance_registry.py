"""Table instances announce themselves: a JetStream key-value bucket with a TTL.

Bucket ``paiju_table_instances`` (one for every pool; TTL
:data:`TTL_FACTOR` times the heartbeat, which is a third of
``PAIJU_LEASE_SECONDS``): key the instance's name (characters a KV key may
not hold become ``_``), value ``{"instance", "address", "pool", "games",
"accepting", "at"}`` (``games`` how many rooms it runs, ``at`` unix ms). An
instance puts its entry at start and at every heartbeat, with
``accepting`` false once it drains, and deletes it when it stops; a dead
instance's entry is gone after the TTL. The lobby places new games on the
instances listed there (paiju/runtime/table_instances.py), so scaling the table
StatefulSet needs no configuration edit (``PAIJU_TABLE_ADDRS`` is an optional
list of instances the lobby always considers).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from typing import Any

import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js import api
from nats.js.kv import KeyValue

from paiju.runtime.natsconn import NATS_ERRORS
from services.table.adapters.lease import NOT_CLUSTERED

log = logging.getLogger("paiju.table.registry")

BUCKET = "paiju_table_instances"
#: The bucket's TTL in heartbeats: an entry outlives two missed heartbeats.
TTL_FACTOR = 3.0


def key_of(instance: str) -> str:
    """``instance`` as a KV key (letters, digits, ``-`` ``_`` ``=`` only)."""
    return re.sub(r"[^A-Za-z0-9_=-]", "_", instance)


class Registration:
    """The entry of one table instance (``instance``, gRPC ``address``,
    ``pool``); ``load()`` gives ``(games, accepting)`` at each heartbeat of
    ``interval`` seconds."""

    def __init__(self, nc: NATS, instance: str, address: str, pool: str, interval: float,
                 replicas: int = 1, timeout: float = 2.0) -> None:
        self.js = nc.jetstream(timeout=timeout)
        self.instance = instance
        self.key = key_of(instance)
        self.address = address
        self.pool = pool
        self.interval = interval
        self.replicas = replicas
        self._kv: KeyValue | None = None

    async def ensure(self) -> KeyValue:
        """Create (or open) the bucket."""
        if self._kv is None:
            config = api.KeyValueConfig(bucket=BUCKET, ttl=self.interval * TTL_FACTOR,
                                        history=1, storage=api.StorageType.MEMORY,
                                        replicas=self.replicas)
            try:
                self._kv = await self.js.create_key_value(config)
            except nats.js.errors.APIError as e:
                if e.err_code == NOT_CLUSTERED and self.replicas != 1:
                    self.replicas = 1
                    return await self.ensure()
                if not isinstance(e, nats.js.errors.BadRequestError):
                    raise
                self._kv = await self.js.key_value(BUCKET)
        return self._kv

    def value(self, games: int, accepting: bool) -> bytes:
        """The entry's value."""
        return json.dumps({"instance": self.instance, "address": self.address,
                           "pool": self.pool, "games": games, "accepting": accepting,
                           "at": int(time.time() * 1000)}).encode()

    async def put(self, games: int, accepting: bool) -> None:
        """Announce this instance now (NATS errors propagate)."""
        kv = await self.ensure()
        await kv.put(self.key, self.value(games, accepting))

    def forget(self) -> None:
        """Drop the bucket's handle: the next :meth:`put` creates (or opens)
        the bucket again. The bucket is in memory storage, so a NATS server
        that restarts comes back without it."""
        self._kv = None

    async def run(self, load: Any) -> None:
        """Announce every ``interval`` seconds, for ever; ``load()`` gives
        ``(games, accepting)``. Failures are logged and tried again at the
        next heartbeat, with the bucket made again (:meth:`forget`)."""
        while True:
            try:
                await self.put(*load())
            except (*NATS_ERRORS, nats.js.errors.APIError) as e:
                log.warning("announcing table instance %s failed: %s", self.instance, e)
                self.forget()
            await asyncio.sleep(self.interval)

    async def remove(self) -> None:
        """This instance stops: its entry goes (NATS errors logged)."""
        try:
            kv = await self.ensure()
            await kv.delete(self.key)
        except (*NATS_ERRORS, nats.js.errors.APIError) as e:
            log.warning("removing the entry of table instance %s failed: %s", self.instance, e)
