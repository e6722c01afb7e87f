"""No lost update: 200 settlements at once over 10 shared players, through the
real ledger server (PostgreSQL: row locks; SQLite: one writer at a time)."""

from __future__ import annotations

import asyncio
import random

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from tests.ledger.conftest import LedgerUnderTest

PLAYERS = [f"p{i}" for i in range(10)]
TERMS = common_pb2.SettlementTerms(base=10, unit=5, fee_rate=0.02)


def games(n: int, seed: int) -> list[ledger_pb2.SettleRequest]:
    """``n`` settlements of 2–4 of the players: points in units of 5 summing to
    zero, and every fifth an escape whose penalty exceeds the claims."""
    rng = random.Random(seed)
    out = []
    for g in range(n):
        seated = rng.sample(PLAYERS, rng.randint(2, 4))
        points = [5 * rng.randint(-6, 6) for _ in seated[1:]]
        points.insert(0, -sum(points))
        if g % 5 == 0:
            points[0] = -abs(points[0]) - 30
        out.append(ledger_pb2.SettleRequest(
            game_id=f"race-{g}", terms=TERMS, game="hunzhan",
            seats=[ledger_pb2.SettleSeat(seat=i, player=p, points=pts)
                   for i, (p, pts) in enumerate(zip(seated, points, strict=True))]))
    return out


async def test_200_concurrent_settlements_over_10_players(ledger: LedgerUnderTest) -> None:
    start = {p: 300 + 150 * i for i, p in enumerate(PLAYERS)}  # p0 is soon short of coins
    for p, coins in start.items():
        await ledger.account(p, coins)
    requests = games(200, seed=7)
    replies = await asyncio.gather(*(ledger.stub.Settle(r) for r in requests))
    assert not any(r.repeated for r in replies)

    changes = dict.fromkeys(PLAYERS, 0)
    for reply in replies:
        for row in reply.rows:
            changes[row.player] += row.coins
    for p in PLAYERS:
        assert await ledger.coins(p) == start[p] + changes[p], p
        # The player's journal is a chain: each balance is the previous one plus the delta.
        history = await ledger.stub.GetHistory(ledger_pb2.GetHistoryRequest(player=p,
                                                                            limit=500))
        balance = 0
        for entry in reversed(history.entries):
            balance += entry.delta
            assert entry.balance_after == balance >= 0
        assert balance == start[p] + changes[p]

    audit = await ledger.audit()
    assert audit.ok, audit
    assert audit.journal_sum == 0
    assert audit.house["house:fees"] == sum(r.fees for r in replies)
    assert audit.house["house:penalties"] == sum(r.remainder for r in replies)
    assert audit.house["house:grants"] == -sum(start.values())

    # All 200 again, at once: every one a repeat with the same table, nothing moves.
    again = await asyncio.gather(*(ledger.stub.Settle(r) for r in requests))
    assert all(r.repeated for r in again)
    assert [list(r.rows) for r in again] == [list(r.rows) for r in replies]
    assert [await ledger.coins(p) for p in PLAYERS] == [start[p] + changes[p] for p in PLAYERS]
    assert (await ledger.audit()).transactions == audit.transactions
