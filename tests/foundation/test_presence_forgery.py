"""No gateway can speak for another (docs/operations.md "NATS credentials"):
against a real NATS server with each gateway replica its own NKey user,
gateway B cannot publish on gateway A's presence subjects, and a heartbeat or
``gateway_down`` naming A that B sends on its own subject is ignored by the
watcher the lobby and the table run, while A's own ``gateway_down`` counts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import nats
import pytest
from nats.aio.client import Client as NATS

from paiju.presence.book import Change, PresenceWatcher, wall_ms
from paiju.presence.publisher import PresencePublisher, new_gateway_id
from paiju.runtime import subjects
from paiju.security import natsauth, nkey_seeds
from tests.fixtures import NatsServer, until


@pytest.fixture(scope="module")
def server() -> Iterator[NatsServer]:
    s = NatsServer(auth=True, gateways=("gateway-a", "gateway-b"))
    s.start()
    try:
        yield s
    finally:
        s.close()


async def as_user(server: NatsServer, user: str, errors: list[str] | None = None) -> NATS:
    """A connection with NATS user ``user``'s seed and inbox, as its service makes it."""
    async def on_error(e: Exception) -> None:
        if errors is not None:
            errors.append(str(e))

    return await nats.connect(
        server.address, allow_reconnect=False, connect_timeout=3, error_cb=on_error,
        nkeys_seed_str=nkey_seeds.read_seed(server.seed_file(user)),
        inbox_prefix=natsauth.inbox_prefix(user))


async def test_gateway_b_cannot_forge_gateway_a_heartbeats_or_its_end(
        server: NatsServer) -> None:
    changes: list[Change] = []

    async def on_change(change: Change) -> None:
        changes.append(change)

    lobby = await as_user(server, "lobby")
    a_nc = await as_user(server, "gateway-a")
    errors: list[str] = []
    b_nc = await as_user(server, "gateway-b", errors)
    watcher = PresenceWatcher(lobby, on_change, timeout_ms=3000, tick_seconds=0.1)
    a = PresencePublisher(a_nc, new_gateway_id("gateway-a"), heartbeat_seconds=0.3)
    b = PresencePublisher(b_nc, new_gateway_id("gateway-b"), heartbeat_seconds=0.3)
    try:
        await watcher.start()
        await lobby.flush()
        await a.start()
        await a.connect("p1", "s1")
        await until(lambda: watcher.book.present("p1"), timeout=10)
        heard_a = watcher.book.gateways()

        def forged(kind: str) -> bytes:
            body = {"kind": kind, "gateway": a.gateway_id, "at": wall_ms()}
            return json.dumps({**body, "sessions": []} if kind == "heartbeat" else body).encode()

        # on A's own subject: the server refuses B
        for kind in ("heartbeat", "gateway_down"):
            await b_nc.publish(a.subject, forged(kind))
        await b_nc.flush()
        await until(lambda: sum("permissions violation for publish" in e.lower()
                                for e in errors) >= 2, timeout=10)
        # on B's own subject, naming A: delivered, and ignored
        for kind in ("heartbeat", "gateway_down"):
            await b_nc.publish(b.subject, forged(kind))
        await b.start()  # B's own heartbeat after them: once heard, so were they
        await until(lambda: b.gateway_id in watcher.book.gateways(), timeout=10)
        await asyncio.sleep(0.5)
        assert watcher.book.present("p1") and watcher.book.sessions("p1") == {
            (a.gateway_id, "s1")}
        assert a.gateway_id in watcher.book.gateways() and heard_a <= watcher.book.gateways()
        assert [c for c in changes if c.player == "p1" and not c.present] == []
        # A's own end counts
        await a.stop()
        await until(lambda: not watcher.book.present("p1"), timeout=10)
    finally:
        await watcher.stop()
        await b.stop()
        for nc in (lobby, a_nc, b_nc):
            await nc.close()


async def test_a_gateway_user_publishes_presence_only_under_its_own_name(
        server: NatsServer) -> None:
    errors: list[str] = []
    nc = await as_user(server, "gateway-b", errors)
    try:
        for subject in (subjects.presence("gateway-a.p1"), subjects.presence("gateway.p1"),
                        "paiju.presence.gateway-b", subjects.presence("gateway-b.p1")):
            await nc.publish(subject, b"{}")
        await nc.flush()
        await until(lambda: len(errors) >= 3, timeout=10)
        await asyncio.sleep(0.3)
        assert sorted(e.split('"')[1] for e in errors) == [
            "paiju.presence.gateway-a.p1", "paiju.presence.gateway-b", "paiju.presence.gateway.p1"]
    finally:
        await nc.close()
