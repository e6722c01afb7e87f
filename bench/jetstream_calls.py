"""CPU per JetStream call, new (:class:`JetStreamPublisher`) over old
(nats-py ``js.publish``; KeyValue ``update`` for the lease renewals),
serial and with 64 in flight, against a nats-server -js it starts itself
(``tests.fixtures.NatsServer``). Prints
the ratios new/old of process time per call, measured in the same run.

    PYTHONPATH=. python -m bench.jetstream_calls [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable

import nats

from services.table.adapters.jspublish import JetStreamPublisher
from tests.fixtures import NatsServer


async def _cpu(call: Callable[[], Awaitable[object]], n: int, inflight: int) -> float:
    """Process seconds per call for ``n`` calls, ``inflight`` at a time."""
    t0 = time.process_time()
    for _ in range(n // inflight):
        await asyncio.gather(*(call() for _ in range(inflight)))
    return (time.process_time() - t0) / n


async def _compare(label: str, old: Callable[[], Awaitable[object]],
                   new: Callable[[], Awaitable[object]], n: int, warm: int) -> None:
    """Print process time per call of ``old`` and ``new`` and their ratio,
    serial and with 64 in flight, each after ``warm`` calls to warm up."""
    for inflight in (1, 64):
        await _cpu(old, warm, inflight)
        await _cpu(new, warm, inflight)
        o = await _cpu(old, n, inflight)
        w = await _cpu(new, n, inflight)
        print(f"{label} {inflight:>2} in flight: old {o * 1e6:.0f} us/call, "
              f"new {w * 1e6:.0f} us/call, new/old {w / o:.2f}")


async def main(n: int) -> None:
    server = NatsServer()
    server.start()
    try:
        nc = await nats.connect(server.url)
        js = nc.jetstream(timeout=5)
        await js.add_stream(name="B", subjects=["b.>"])
        pub = JetStreamPublisher(nc)

        def old() -> Awaitable[object]:
            return js.publish("b.x", b"payload", timeout=5)

        def new() -> Awaitable[object]:
            return pub.publish("b.x", b"payload", timeout=5)

        await _compare("append", old, new, n, 200)
        kv = await js.create_key_value(bucket="BL")
        revs = {f"k{i}": await kv.put(f"k{i}", b"v") for i in range(64)}
        keys = iter(range(10**9))

        async def kv_old() -> None:
            k = f"k{next(keys) % 64}"
            revs[k] = await kv.update(k, b"v", last=revs[k])

        async def kv_new() -> None:
            k = f"k{next(keys) % 64}"
            revs[k] = await pub.kv_update("BL", k, b"v", last=revs[k], timeout=5)

        await _compare("lease update", kv_old, kv_new, n, 128)
        await nc.close()
    finally:
        server.stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=3200)
    asyncio.run(main(ap.parse_args().calls))
