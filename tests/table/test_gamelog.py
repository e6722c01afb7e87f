"""The game log's appends against a real JetStream (nats-server -js): an
append JetStream did not answer in time is sent again and written once; a
stale append is still fenced off."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import nats
import pytest
from prometheus_client import REGISTRY

from services.table.adapters.gamelog import Fenced, GameLog
from tests.fixtures import NatsServer, sigstop

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server() -> Iterator[NatsServer]:
    s = NatsServer()
    s.start()
    try:
        yield s
    finally:
        if s.proc is not None:
            os.kill(s.proc.pid, signal.SIGCONT)
        s.stop()


def retries() -> float:
    return REGISTRY.get_sample_value("paiju_table_log_append_retries_total") or 0.0


async def test_an_append_sent_again_is_written_once(server: NatsServer) -> None:
    """JetStream stands still (SIGSTOP) while an append is on its way: each
    try times out and is sent again; once it goes on, the log holds the
    entry once, at the sequence the append returns, and no try was taken for
    another instance's append (no Fenced)."""
    nc = await nats.connect(server.url)
    try:
        log = GameLog(nc, "ptest", timeout=0.3, retry_seconds=15)
        await log.ensure()
        created = {"type": "created", "at": 1}
        first = await log.append("g1", created, 0)
        before = retries()
        assert server.proc is not None
        sigstop(server.proc.pid)
        act = {"type": "act", "at": 2, "player": "p1"}
        pending = asyncio.create_task(log.append("g1", act, first))
        await asyncio.sleep(1.5)  # several tries of 0.3 s went unanswered
        assert not pending.done()
        os.kill(server.proc.pid, signal.SIGCONT)
        seq = await asyncio.wait_for(pending, 15)
        assert retries() - before >= 2
        logged = await log.read("g1")
        assert [entry for _, entry in logged] == [created, act]
        assert [s for s, _ in logged] == [first, seq]
        # Another entry after the same last entry is still fenced off.
        with pytest.raises(Fenced):
            await log.append("g1", {"type": "act", "at": 3, "player": "p2"}, first)
    finally:
        await nc.close()
