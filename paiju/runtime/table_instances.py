"""The table instances that announced themselves (services/table/adapters/instance_registry.py).

A reader of the ``paiju_table_instances`` key-value bucket (one stream-info
request for its keys, then a get per key: read-only, the lobby's and the
gateway's NATS users may do nothing else in JetStream) that keeps the live
entries: ``{address: entry}``. An entry nobody renewed is gone after the
bucket's TTL, so a dead instance drops out within seconds; one that drains
says ``accepting: false``. The lobby reads it every second and places games
on these and on ``PAIJU_TABLE_ADDRS`` (:class:`~services.lobby.adapters.placement.Tables`);
the gateway reads it when it looks for a finished game's record, which any
instance serves from the record store they share.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import nats.js.errors
from nats.aio.client import Client as NATS

from paiju.runtime.natsconn import logged_step

log = logging.getLogger("paiju.table_instances")

BUCKET = "paiju_table_instances"
STREAM = f"KV_{BUCKET}"
PREFIX = f"$KV.{BUCKET}."
#: What reading the registry can raise when NATS is away or slow.


class TableInstances:
    """The registered table instances as last read (:attr:`instances`)."""

    def __init__(self, nc: NATS, interval: float = 1.0, timeout: float = 2.0) -> None:
        self.js = nc.jetstream(timeout=timeout)
        self.interval = interval
        #: gRPC address -> the instance's entry (``instance``, ``pool``,
        #: ``games``, ``accepting``, ``at``).
        self.instances: dict[str, dict[str, Any]] = {}
        self.read_once = asyncio.Event()

    def addresses(self) -> list[str]:
        """Addresses of the registered instances that accept games, fewest
        games first (ties by address)."""
        live = [(int(e.get("games", 0)), a) for a, e in self.instances.items()
                if e.get("accepting", True)]
        return [a for _, a in sorted(live)]

    async def refresh(self) -> dict[str, dict[str, Any]]:
        """Read the bucket now; returns (and keeps) the live entries. A bucket
        not made yet (no instance ever started) reads as empty; other NATS
        errors propagate and leave the last reading."""
        try:
            info = await self.js.stream_info(STREAM, subjects_filter=PREFIX + ">")
        except nats.js.errors.NotFoundError:
            self.instances = {}
            self.read_once.set()
            return {}
        found: dict[str, dict[str, Any]] = {}
        for subject in (info.state.subjects or {}):
            try:
                msg = await self.js.get_last_msg(STREAM, subject)
            except nats.js.errors.NotFoundError:
                continue
            if not msg.data or (msg.headers or {}).get("KV-Operation") in ("DEL", "PURGE"):
                continue
            try:
                entry = json.loads(msg.data)
            except ValueError:
                log.warning("registry entry %s is not JSON; ignored", subject)
                continue
            if isinstance(entry, dict) and isinstance(entry.get("address"), str):
                found[entry["address"]] = entry
        self.instances = found
        self.read_once.set()
        return found

    async def run(self) -> None:
        """Read the bucket every ``interval`` seconds until cancelled."""
        while True:
            await logged_step(self.refresh, "reading the table registry", log)
            await asyncio.sleep(self.interval)
