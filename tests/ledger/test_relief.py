"""Relief coins (救济金) on a real ledger (gRPC, SQLite and PostgreSQL): a
player below the threshold is granted the relief once per claim id, at most
``per_day`` times per relief day, from house:relief; a refusal moves nothing;
concurrent claims never pay more than the cap; the audit counts them and
still sums to zero. Expected numbers are written by hand."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from paiju.ledger.v1 import ledger_pb2
from paiju.runtime import db
from services.ledger.adapters.models import DAY_MS
from services.ledger.application.ledger import Ledger
from services.ledger.application.relief import grant_relief
from services.ledger.domain.errors import LedgerError
from services.ledger.domain.relief import Policy
from services.ledger.main import MIGRATIONS
from tests.ledger.conftest import LedgerUnderTest, journalled, run_ledger
from tests.ledger.test_service import reason_of, refused

HOUR_MS = 3_600_000


def claim(player: str, claim_id: str, coins: int = 2000, below: int = 1000,
          per_day: int = 3, hour: int = 16) -> ledger_pb2.GrantReliefRequest:
    return ledger_pb2.GrantReliefRequest(player=player, claim_id=claim_id, coins=coins,
                                         below=below, per_day=per_day, day_starts_utc_hour=hour)


async def test_a_broke_player_is_granted_once_per_claim_up_to_the_day_s_cap(
        ledger: LedgerUnderTest, db_url: str) -> None:
    await ledger.account("P", 300)
    first = await ledger.stub.GrantRelief(claim("P", "c1", coins=500))
    assert (first.account.coins, first.coins, first.claims_left, first.repeated) == (
        800, 500, 2, False)
    # a double click or a retry with the same claim id: the stored answer, nothing paid
    again = await ledger.stub.GrantRelief(claim("P", "c1", coins=500))
    assert (again.account.coins, again.coins, again.claims_left, again.repeated) == (
        800, 500, 2, True)
    assert await ledger.coins("P") == 800
    second = await ledger.stub.GrantRelief(claim("P", "c2", coins=100))
    assert (second.account.coins, second.claims_left) == (900, 1)
    third = await ledger.stub.GrantRelief(claim("P", "c3", coins=50))
    assert (third.account.coins, third.claims_left) == (950, 0)
    spent = await refused(ledger.stub.GrantRelief(claim("P", "c4", coins=50)))
    assert (spent.code(), reason_of(spent)) == (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                                "relief_spent")
    assert await ledger.coins("P") == 950
    history = await ledger.stub.GetHistory(ledger_pb2.GetHistoryRequest(player="P", limit=1))
    assert [(e.kind, e.reference, e.delta) for e in history.entries] == [
        ("relief", "P/c3", 50)]
    audit = await ledger.audit()
    assert audit.ok and audit.journal_sum == 0
    assert audit.house["house:relief"] == -650 and audit.house["house:grants"] == -300
    assert audit.kinds["relief"] == 3 and audit.kinds["grant"] == 1
    _, posted = await journalled(db_url, "relief", "P/c1")
    assert posted == [("house:relief", -500), ("player:P", 500)]


async def test_refused_claims_move_nothing(ledger: LedgerUnderTest) -> None:
    await ledger.account("R", 1000)
    await ledger.account("S", 0)
    before = await ledger.audit()
    cases = [
        (claim("R", "k1", below=1000), grpc.StatusCode.FAILED_PRECONDITION, "not_eligible"),
        (claim("R", "k2", below=999), grpc.StatusCode.FAILED_PRECONDITION, "not_eligible"),
        (claim("nobody", "k3"), grpc.StatusCode.NOT_FOUND, "unknown_player"),
        (claim("S", ""), grpc.StatusCode.INVALID_ARGUMENT, "bad_claim_id"),
        (claim("S", "x" * 32), grpc.StatusCode.INVALID_ARGUMENT, "bad_claim_id"),
        (claim("S", "a.b"), grpc.StatusCode.INVALID_ARGUMENT, "bad_claim_id"),
        (claim("S", "k4", coins=0), grpc.StatusCode.INVALID_ARGUMENT, "bad_amount"),
        (claim("S", "k5", below=0), grpc.StatusCode.INVALID_ARGUMENT, "bad_amount"),
        (claim("S", "k6", per_day=0), grpc.StatusCode.INVALID_ARGUMENT, "bad_policy"),
        (claim("S", "k7", hour=24), grpc.StatusCode.INVALID_ARGUMENT, "bad_policy"),
        (claim("S", "k8", per_day=1, hour=-1), grpc.StatusCode.INVALID_ARGUMENT, "bad_policy"),
    ]
    for request, code, reason in cases:
        e = await refused(ledger.stub.GrantRelief(request))
        assert (e.code(), reason_of(e)) == (code, reason), request
    assert (await ledger.coins("R"), await ledger.coins("S")) == (1000, 0)
    after = await ledger.audit()
    assert after.ok and after.transactions == before.transactions
    assert after.house["house:relief"] == 0 and "relief" not in after.kinds
    # a refused claim's id is not used up: S may claim with k1's id later
    ok = await ledger.stub.GrantRelief(claim("S", "k1"))
    assert (ok.account.coins, ok.repeated) == (2000, False)
    # the same claim id with another amount is a conflict, and moves nothing
    e = await refused(ledger.stub.GrantRelief(claim("S", "k1", coins=10)))
    assert (e.code(), reason_of(e)) == (grpc.StatusCode.ALREADY_EXISTS, "claim_id_conflict")
    # another player's claim of the same id is its own claim
    await ledger.account("T", 0)
    other = await ledger.stub.GrantRelief(claim("T", "k1"))
    assert (other.account.coins, other.repeated) == (2000, False)
    assert await ledger.coins("S") == 2000


@pytest.fixture
async def clocked(db_url: str) -> AsyncIterator[tuple[Ledger, list[int]]]:
    """A ledger on a fresh database whose clock is the list's first item;
    player B with no coins."""
    await asyncio.to_thread(db.migrate, db_url, MIGRATIONS)
    engine = db.make_engine(db_url)
    clock = [0]
    found = Ledger(engine, clock=lambda: clock[0])
    await found.accounts.open("B", "B")
    try:
        yield found, clock
    finally:
        await found.uow.close()
        await engine.dispose()


async def test_the_relief_day_starts_at_the_configured_utc_hour(
        clocked: tuple[Ledger, list[int]]) -> None:
    """Relief days start at 16:00 UTC (midnight in China): one claim a day, a
    claim 1 ms before 16:00 and one at 16:00 are on two days."""
    led, clock = clocked
    policy = Policy(coins=100, below=10_000, per_day=1, day_starts_utc_hour=16)
    day = 20_000 * DAY_MS  # 2024-10-04 00:00 UTC
    clock[0] = day + 16 * HOUR_MS - 1
    first = await grant_relief(led.postings, "B", "a", policy)
    assert (first.balance, first.claims_left, first.day_ends_ms) == (100, 0, day + 16 * HOUR_MS)
    clock[0] = day + 2 * HOUR_MS  # the same relief day (it started yesterday at 16:00)
    with pytest.raises(LedgerError) as spent:
        await grant_relief(led.postings, "B", "b", policy)
    assert spent.value.reason == "relief_spent"
    clock[0] = day + 16 * HOUR_MS
    second = await grant_relief(led.postings, "B", "b", policy)
    assert (second.balance, second.claims_left, second.day_ends_ms) == (
        200, 0, day + DAY_MS + 16 * HOUR_MS)
    clock[0] = day + DAY_MS + 16 * HOUR_MS - 1
    with pytest.raises(LedgerError) as again:
        await grant_relief(led.postings, "B", "c", policy)
    assert again.value.reason == "relief_spent"
    # a boundary at 00:00 UTC (hour 0): the next claim at the UTC midnight
    midnight = Policy(coins=100, below=10_000, per_day=1, day_starts_utc_hour=0)
    clock[0] = day + 2 * DAY_MS
    third = await grant_relief(led.postings, "B", "d", midnight)
    assert (third.balance, third.day_ends_ms) == (300, day + 3 * DAY_MS)
    assert (await led.audit()).kinds["relief"] == 3


async def test_concurrent_claims_never_pay_more_than_the_cap(db_url: str,
                                                             nats_server: str) -> None:
    """20 claims at once with 20 ids pay per_day times; 20 copies of one claim
    pay once; the balance is checked under the player's lock (200 coins while
    below 250: 0 → 200 → 400, then not eligible). PostgreSQL's row locks and
    SQLite's single writer alike."""
    async with run_ledger(db_url, nats_server) as ledger:
        for p in ("C", "D", "E"):
            await ledger.account(p, 0)

        async def many(requests: list[ledger_pb2.GrantReliefRequest]) -> list[str]:
            async def one(r: ledger_pb2.GrantReliefRequest) -> str:
                try:
                    reply = await ledger.stub.GrantRelief(r)
                except grpc.aio.AioRpcError as e:
                    return reason_of(e)
                return "repeated" if reply.repeated else "granted"
            return list(await asyncio.gather(*(one(r) for r in requests)))

        ids = await many([claim("C", f"c{i}", coins=100, per_day=3) for i in range(20)])
        assert sorted(ids).count("granted") == 3 and ids.count("relief_spent") == 17
        assert await ledger.coins("C") == 300
        same = await many([claim("D", "once", coins=100) for _ in range(20)])
        assert same.count("granted") == 1 and same.count("repeated") == 19
        assert await ledger.coins("D") == 100
        rising = await many([claim("E", f"e{i}", coins=200, below=250, per_day=5)
                             for i in range(20)])
        assert rising.count("granted") == 2 and rising.count("not_eligible") == 18
        assert await ledger.coins("E") == 400
        audit = await ledger.audit()
        assert audit.ok and audit.journal_sum == 0
        assert audit.kinds["relief"] == 6 and audit.house["house:relief"] == -800


def test_only_the_lobby_may_grant_relief() -> None:
    from paiju.security.authz import RULES, allowed

    method = "/paiju.ledger.v1.LedgerService/GrantRelief"
    assert [c for c in ("lobby", "table", "ledger", "gateway", "operator")
            if allowed(RULES, method, c, dev_mode=True)] == ["lobby"]
    claim_method = "/paiju.lobby.v1.LobbyService/ClaimRelief"
    assert [c for c in ("lobby", "table", "ledger", "gateway", "operator")
            if allowed(RULES, claim_method, c, dev_mode=True)] == ["gateway"]
