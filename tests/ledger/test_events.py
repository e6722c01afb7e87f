"""balance_changed on each player's subject after a committed change, through a
real NATS server: never for a refused or rolled-back one; held in the outbox
while NATS is away and delivered when it is back."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import nats
from nats.aio.client import Client as NATS

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from paiju.runtime.natsconn import decode
from tests.fixtures import NatsServer, until, wait_health
from tests.ledger.conftest import GRANT_MD, LedgerUnderTest, run_ledger
from tests.ledger.test_service import refused, settle_request

HUNZHAN = common_pb2.SettlementTerms(base=50, unit=5, fee_rate=0.02)


async def listen(nc: NATS, players: list[str]) -> dict[str, list[dict[str, Any]]]:
    got: dict[str, list[dict[str, Any]]] = {p: [] for p in players}
    for p in players:
        async def handler(msg: Any, p: str = p) -> None:
            got[p].append(decode(msg.data))
        await nc.subscribe(f"paiju.player.{p}.events", cb=handler)
    await nc.flush()
    return got


def names() -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{x}-{tag}" for x in "ABCD"]


def fields(ev: dict[str, Any]) -> tuple[Any, ...]:
    return ev["type"], ev["coins"], ev["delta"], ev["reason"], ev["game_id"]


async def test_balance_changed_after_settlement(ledger: LedgerUnderTest, nats_server: str) -> None:
    a, b, c, d = players = names()
    nc = await nats.connect(nats_server)
    try:
        got = await listen(nc, players)
        for p in players:
            await ledger.account(p, 1000)
        await ledger.stub.Settle(settle_request(
            f"g-{a}", HUNZHAN, [(a, 0), (b, 10), (c, -10), (d, 0)]))
        await until(lambda: all(len(got[p]) == 2 for p in players), "events")
        assert [fields(e) for e in got[b]] == [
            ("balance_changed", 1000, 1000, "test", ""),
            ("balance_changed", 1098, 98, "settlement", f"g-{a}")]
        assert fields(got[c][1]) == ("balance_changed", 900, -100, "settlement", f"g-{a}")
        assert fields(got[a][1]) == ("balance_changed", 1000, 0, "settlement", f"g-{a}")
        assert got[b][1]["fee"] == 2 and got[b][1]["points"] == 10
        # A repeat moves nothing and publishes nothing: the next event is the marker.
        await ledger.stub.Settle(settle_request(
            f"g-{a}", HUNZHAN, [(a, 0), (b, 10), (c, -10), (d, 0)]))
        await ledger.stub.Grant(ledger_pb2.GrantRequest(player=b, coins=1, grant_id=f"m-{b}"),
                                metadata=GRANT_MD)
        await until(lambda: len(got[b]) >= 3, "marker")
        assert [e["reason"] for e in got[b]] == ["test", "settlement", "grant"]
    finally:
        await nc.close()


async def test_no_event_for_refused_settlement(ledger: LedgerUnderTest, nats_server: str) -> None:
    a, b, c, d = players = names()
    nc = await nats.connect(nats_server)
    try:
        got = await listen(nc, players)
        for p in (a, b, c):
            await ledger.account(p, 1000)
        # d has no account: the settlement is rolled back after its row was inserted.
        await refused(ledger.stub.Settle(settle_request(
            "g-x", HUNZHAN, [(a, 0), (b, 10), (c, -5), (d, -5)])))
        await ledger.stub.Settle(settle_request(f"g-{a}", HUNZHAN, [(a, -10), (b, 10)]))
        # Conflicting repeat: refused.
        await refused(ledger.stub.Settle(settle_request(f"g-{a}", HUNZHAN, [(a, 10), (b, -10)])))
        await ledger.stub.Grant(ledger_pb2.GrantRequest(player=b, coins=1, grant_id=f"m-{b}"),
                                metadata=GRANT_MD)
        await until(lambda: len(got[b]) >= 3, "marker")
        assert [(e["reason"], e["game_id"]) for e in got[b]] == [
            ("test", ""), ("settlement", f"g-{a}"), ("grant", "")]
        assert [(e["reason"], e["delta"]) for e in got[c]] == [("test", 1000)]
        assert got[d] == []
    finally:
        await nc.close()


async def test_outbox_holds_events_while_nats_is_down(nats_process: NatsServer,
                                                      tmp_path: Path) -> None:
    a, b, _, _ = names()
    stream = f"LEDGERTEST{uuid.uuid4().hex[:8]}"
    # A JetStream stream (on disk, kept across the restart) records what is published.
    nc = await nats.connect(nats_process.url)
    await nc.jetstream().add_stream(name=stream, subjects=[f"paiju.player.{b}.events"])
    await nc.close()
    async with run_ledger(f"sqlite:///{tmp_path / 'l.db'}", nats_process.url) as ledger:
        await wait_health(ledger.addr, "SERVING")
        for p in (a, b):
            await ledger.account(p, 1000)
        nats_process.stop()
        await wait_health(ledger.addr, "NOT_SERVING")
        # The ledger still settles; the events wait in the outbox.
        reply = await ledger.stub.Settle(settle_request(f"g-{a}", HUNZHAN, [(a, -10), (b, 10)]))
        assert [r.coins for r in reply.rows] == [-100, 98]
        nats_process.start()
        await wait_health(ledger.addr, "SERVING")
        nc = await nats.connect(nats_process.url)
        try:
            js = nc.jetstream()
            count = 0

            async def poll() -> None:
                nonlocal count
                count = (await js.stream_info(stream)).state.messages

            deadline = time.monotonic() + 15
            while count < 2 and time.monotonic() < deadline:
                await poll()
                await asyncio.sleep(0.05)
            events = [decode((await js.get_msg(stream, seq)).data or b"")
                      for seq in range(1, count + 1)]
            assert [fields(e) for e in events] == [
                ("balance_changed", 1000, 1000, "test", ""),
                ("balance_changed", 1098, 98, "settlement", f"g-{a}")]
        finally:
            await nc.close()
