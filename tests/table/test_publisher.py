"""The table's NATS publisher shares its flushes (services/table/adapters/publisher.py):
many rooms flushing at once send one PING in flight at a time, and each
flush still returns only after the events published before it reached the
server. On a real NATS server."""

from __future__ import annotations

import asyncio
from typing import Any

import nats

from paiju.runtime.natsconn import decode
from services.table.adapters.publisher import NatsPublisher, ping


async def test_concurrent_flushes_share_pings(nats_server: str) -> None:
    pub_nc = await nats.connect(nats_server)
    sub_nc = await nats.connect(nats_server)
    got: list[dict[str, Any]] = []

    async def handler(msg: Any) -> None:
        got.append(decode(msg.data))

    sub = await sub_nc.subscribe("paiju.table.pubtest.events", cb=handler)
    # Not sub_nc.flush(): nats-py writes its PING at once, ahead of the SUB
    # still waiting for its flusher task, so the PONG can come back before
    # the server has the subscription (the first events were then lost).
    # ping() writes the PING behind what is pending.
    await ping(sub_nc, timeout=5)
    publisher = NatsPublisher(pub_nc)
    try:
        async def room(i: int) -> None:
            for k in range(3):
                await publisher.publish("paiju.table.pubtest.events", "played",
                                        {"room": i, "k": k}, seq=k + 1, game_id=f"g{i}",
                                        room="pubtest")
                await publisher.flush()

        await asyncio.gather(*(room(i) for i in range(100)))
        # 300 flushes asked, by 100 rooms at once: shared PINGs, far fewer
        # than one each (at most one in flight, the rest joined the next).
        assert publisher.pings <= 30
        # Every flush returned after its events reached the server: a PING of
        # the subscriber's connection, answered after the server delivered
        # them, finds all 300 received (handed to the callback, or queued
        # for it: the queue is run down without waiting on the clock).
        await ping(sub_nc, timeout=5)
        assert len(got) + sub.pending_msgs == 300
        while sub.pending_msgs:
            await asyncio.sleep(0)
        assert len(got) == 300
        assert sorted((e["room"], e["k"]) for e in got) == [(i, k) for i in range(100)
                                                            for k in range(3)]
        # A lone flush still flushes.
        before = publisher.pings
        await publisher.flush()
        assert publisher.pings == before + 1
    finally:
        await pub_nc.close()
        await sub_nc.close()
