"""No ``seq`` gap or repeat reaches a client, against the whole platform (real
processes): an event NATS delivers again is dropped at the gateway, and one
after a gap comes only after the gateway sent each client its own view
(services/gateway/application/sequencing.py). The events are published on
the table's subject by the test itself, as NATS would deliver a repeat or
lose one."""

from __future__ import annotations

from typing import Any

import nats
import pytest

from paiju.runtime import natsconn, subjects
from paiju.tools.bots import PRIVATE_EVENTS
from tests.fixtures import until
from tests.gateway.test_guarantees import Capture, a_turn, seat_three
from tests.gateway.test_overload import metric
from tests.platform_procs import Platform

pytestmark = pytest.mark.timeout(300)


def public_events(c: Capture, game_id: str) -> list[dict[str, Any]]:
    """The public numbered events of ``game_id`` that ``c`` received."""
    return [e for e in c.events if e.get("game_id") == game_id
            and isinstance(e.get("seq"), int) and e["type"] not in PRIVATE_EVENTS]


async def publish(room: str, url: str, event: dict[str, Any], seq: int) -> None:
    """Publish ``event`` with ``seq`` on ``room``'s table subject, then an
    unnumbered ``marker`` event after it (a repeat is dropped by then)."""
    nc = await nats.connect(url)
    try:
        data = {k: v for k, v in event.items() if k not in ("type", "seq", "ts", "game_id")}
        await natsconn.publish(nc, subjects.table_events(room), event["type"], data,
                               seq=seq, game_id=event["game_id"], room=room)
        await natsconn.publish(nc, subjects.table_events(room), "marker", {"room": room})
        await nc.flush()
    finally:
        await nc.close()


def repairs(p: Platform, kind: str) -> float:
    return metric(p, "gateway", "paiju_gateway_seq_repairs_total", kind=kind)


async def marked(clients: list[Capture]) -> None:
    """Until every client got the ``marker`` (unnumbered: never held)."""
    await until(lambda: all(any(e["type"] == "marker" for e in c.events)
                            for c in clients), "the marker", timeout=20)


async def test_a_repeat_is_dropped_and_a_gap_repaired_with_each_seats_view(
        platform: Platform) -> None:
    clients, room = await seat_three(platform, ["seq-a", "seq-b", "seq-c"])
    try:
        await a_turn(clients)
        game_id = next(e["game_id"] for e in clients[0].events if e["type"] == "game_started")
        event = public_events(clients[0], game_id)[-1]
        seen = [len(public_events(c, game_id)) for c in clients]
        dropped = repairs(platform, "repeat")
        await publish(room, platform.nats.url, event, event["seq"])  # a repeat
        await marked(clients)
        assert [len(public_events(c, game_id)) for c in clients] == seen
        assert repairs(platform, "repeat") == dropped + len(clients)

        ahead = max(e["seq"] for c in clients for e in public_events(c, game_id)) + 5
        await publish(room, platform.nats.url, event, ahead)  # a gap before it
        await until(lambda: all(any(e.get("seq") == ahead for e in public_events(c, game_id))
                                for c in clients), "the event after the gap", timeout=30)
        for seat, c in enumerate(clients):
            got = [e for e in c.events if e.get("game_id") == game_id]
            i = next(i for i, e in enumerate(got) if e.get("seq") == ahead)
            views = [e for e in got[:i] if e["type"] == "view"]
            assert views, f"no view before the event after the gap: {got[-8:]}"
            assert all(v["seat"] == seat and v["public_seq"] < ahead for v in views)
        assert repairs(platform, "gap") >= len(clients)
    finally:
        for c in clients:
            await c.__aexit__()
