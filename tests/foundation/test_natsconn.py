"""paiju.runtime.natsconn: events on the wire, connecting while NATS is not there yet."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from paiju.events.v1.events_pb2 import Event
from paiju.runtime.health import Health
from paiju.runtime.natsconn import (
    MAX_OUTSTANDING_PINGS,
    PING_INTERVAL,
    connect,
    decode,
    encode,
    publish,
)
from tests.fixtures import NatsServer, free_port, sigstop


def test_encode_puts_data_as_json_in_the_event() -> None:
    ev = Event.FromString(encode("card_played", {"seat": 2, "cards": ["♠A", "🃏"]},
                                 seq=7, game_id="g-1", room="r-1"))
    assert (ev.type, ev.seq, ev.game_id, ev.room) == ("card_played", 7, "g-1", "r-1")
    assert ev.data_json == '{"seat":2,"cards":["♠A","🃏"]}'
    assert ev.ts_ms > 1_700_000_000_000


def test_decode_gives_the_client_json() -> None:
    out = decode(Event(type="room_changed", seq=0, room="r-9", ts_ms=1234,
                       data_json='{"seats":[null,"p1"]}').SerializeToString())
    assert out == {"type": "room_changed", "room": "r-9", "ts": 1234, "seats": [None, "p1"]}


async def test_publish_reaches_a_subscriber(nats_server: str) -> None:
    nc = await connect(nats_server, None, "test-publisher")
    try:
        sub = await nc.subscribe("paiju.test.foundation")
        await publish(nc, "paiju.test.foundation", "turn", {"seat": 1}, seq=3, game_id="g-2")
        msg = await sub.next_msg(timeout=5)
    finally:
        await nc.drain()
    out = decode(msg.data)
    assert {k: v for k, v in out.items() if k != "ts"} == {
        "type": "turn", "seat": 1, "seq": 3, "game_id": "g-2"}


async def test_connect_waits_for_nats_to_come_up() -> None:
    server, health = NatsServer(), Health([])
    try:
        task = asyncio.create_task(connect(server.url, health, "late"))
        while "nats" not in health.deps:
            await asyncio.sleep(0.01)
        assert health.deps["nats"] is False and not health.ready
        server.start()
        nc = await asyncio.wait_for(task, timeout=30)
        assert health.deps["nats"] is True and health.ready
        await nc.close()
    finally:
        server.close()


async def test_connect_gives_up_after_the_first_attempt_timeout() -> None:
    with pytest.raises(TimeoutError, match="did not answer"):
        await connect(f"nats://127.0.0.1:{free_port()}", None, "nobody",
                      first_attempt_timeout=0.5)


async def test_a_silent_server_is_left_within_a_few_seconds(
        nats_process: NatsServer) -> None:
    """A server that stops answering without closing the connection (SIGSTOP:
    as a lost host) is taken for dead after PINGs go unanswered, within
    ``PING_INTERVAL · (MAX_OUTSTANDING_PINGS + 1)`` seconds: a few, not the
    minutes of nats-py's defaults."""
    assert PING_INTERVAL * (MAX_OUTSTANDING_PINGS + 1) <= 6
    nc = await connect(nats_process.url, None, "test-ping")
    assert nats_process.proc is not None
    pid = nats_process.proc.pid
    sigstop(pid)
    started = time.monotonic()
    try:
        while nc.is_connected and time.monotonic() - started < 30:
            await asyncio.sleep(0.1)
        waited = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
        await nc.close()
    assert waited <= PING_INTERVAL * (MAX_OUTSTANDING_PINGS + 1) + 1.0, waited
