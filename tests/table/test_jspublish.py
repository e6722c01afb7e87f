"""JetStreamPublisher against a real nats-server -js: the ack's sequence, a
wrong expected sequence, no stream, a stopped server (timeout, no leaked
futures), many in flight, KV updates."""

from __future__ import annotations

import asyncio
import os
import signal

import nats
import nats.errors
import nats.js.errors
import pytest

from services.table.adapters.jspublish import JetStreamPublisher
from tests.fixtures import NatsServer, sigstop

pytestmark = pytest.mark.timeout(60)


async def test_publish_acks_fences_and_times_out(nats_process: NatsServer) -> None:
    nc = await nats.connect(nats_process.url)
    try:
        js = nc.jetstream()
        await js.add_stream(name="T", subjects=["t.>"])
        pub = JetStreamPublisher(nc)
        assert await pub.publish("t.a", b"1", timeout=2) == 1
        assert await pub.publish("t.a", b"2", timeout=2,
                                 headers={"Nats-Expected-Last-Subject-Sequence": "1"}) == 2
        with pytest.raises(nats.js.errors.APIError) as e:
            await pub.publish("t.a", b"3", timeout=2,
                              headers={"Nats-Expected-Last-Subject-Sequence": "1"})
        assert e.value.err_code == 10071
        with pytest.raises(nats.js.errors.NoStreamResponseError):
            await pub.publish("nostream.a", b"x", timeout=2)
        seqs = await asyncio.gather(*(pub.publish("t.b", b"x", timeout=5)
                                      for _ in range(200)))
        assert sorted(seqs) == list(range(3, 203))
        assert pub.pending == 0

        kv = await js.create_key_value(bucket="L")
        rev = await kv.put("k", b"v")
        rev2 = await pub.kv_update("L", "k", b"w", last=rev, timeout=2)
        assert (await kv.get("k")).value == b"w" and rev2 > rev
        with pytest.raises(nats.js.errors.KeyWrongLastSequenceError):
            await pub.kv_update("L", "k", b"z", last=rev, timeout=2)

        assert nats_process.proc is not None
        sigstop(nats_process.proc.pid)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(nats.errors.TimeoutError):
            await pub.publish("t.a", b"late", timeout=0.5)
        assert loop.time() - t0 < 1.5
        assert pub.pending == 0
        os.kill(nats_process.proc.pid, signal.SIGCONT)
    finally:
        await nc.close()
