"""The PostgreSQL hot path in pipeline mode (services/ledger/adapters/pgpipe.py): a
settlement is two round trips, and the checks that used to run between the
last statement and COMMIT still hold with the COMMIT sent behind it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest

from paiju.runtime import db
from services.ledger.adapters.journal_pg import PgWriter
from services.ledger.adapters.models import HOUSE_FEES
from services.ledger.adapters.pgpipe import Pipe
from services.ledger.application.ledger import Ledger
from services.ledger.domain import settlement as rules
from services.ledger.main import MIGRATIONS

pytestmark = pytest.mark.postgres

TERMS = rules.Terms(base=1, unit=1, fee_rate=0.0)


@pytest.fixture
async def ledger(pg_url: str) -> AsyncIterator[Ledger]:
    """A ledger on a fresh PostgreSQL database with players A (10 coins) and B (10)."""
    await asyncio.to_thread(db.migrate, pg_url, MIGRATIONS)
    engine = db.make_engine(pg_url, pre_ping=False)
    found = Ledger(engine)
    for p in ("A", "B"):
        await found.accounts.open(p, p)
        await found.postings.grant(p, 10, grant_id=f"start-{p}")
    try:
        yield found
    finally:
        await found.uow.close()
        await engine.dispose()


async def test_a_settlement_is_two_round_trips(ledger: Ledger,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[bool] = []
    real = Pipe.results

    async def counted(self: Pipe, sync: bool = False) -> Any:
        batches.append(sync)
        return await real(self, sync)

    monkeypatch.setattr(Pipe, "results", counted)
    outcome = await ledger.postings.settle(
        "g-two", TERMS, [rules.Seat(0, "A", 3), rules.Seat(1, "B", -3)], game="doudizhu")
    # BEGIN + the lock statement, then the postings + COMMIT (ended by a Sync)
    assert batches == [False, True]
    assert [(r.player, r.coins) for r in outcome.rows] == [("A", 3), ("B", -3)]
    batches.clear()
    again = await ledger.postings.settle(
        "g-two", TERMS, [rules.Seat(0, "A", 3), rules.Seat(1, "B", -3)], game="doudizhu")
    # a repeat: the lock statement finds the key taken, the pipe rolls back
    assert again.repeated and batches == [False, True]
    assert ((await ledger.accounts.balance("A")).coins,
            (await ledger.accounts.balance("B")).coins) == (13, 7)


async def test_zero_guard_skips_the_commit_sent_behind_it(ledger: Ledger) -> None:
    async def below_zero(pipe: Pipe) -> None:
        w = PgWriter(pipe)
        txid, balances = await w.open("settle", "g-guard", "digest", 1, ["A", "B"])
        assert balances == {"A": 10, "B": 10}
        # not what the rule would ever do: B pays 11 of its 10 coins
        await w.close(txid, balances, {"A": 11, "B": -11}, {HOUSE_FEES: 0}, "{}",
                      [{"player": "A"}, {"player": "B"}], 1)

    with pytest.raises(AssertionError, match="below zero"):
        await ledger.uow.run_driver("settle", below_zero, events=True)
    # nothing of it was committed: no transaction row, no entry, no event
    assert ((await ledger.accounts.balance("A")).coins,
            (await ledger.accounts.balance("B")).coins) == (10, 10)
    report = await ledger.audit()
    assert report.ok and report.transactions == 2
    pending, _ = await ledger.outbox.backlog()
    assert pending == 2  # the two grants' events
    # the pipe went back to the pool in order: the next settlement works on it
    done = await ledger.postings.settle(
        "g-after", TERMS, [rules.Seat(0, "A", 4), rules.Seat(1, "B", -4)], game="doudizhu")
    assert not done.repeated
    assert (await ledger.accounts.balance("B")).coins == 6


async def test_parameters_arrive_as_sent(pg_url: str) -> None:
    awkward = ['a"b', "back\\slash", "{braces},commas", "", "NULL", "é 中", " spaced "]
    pipe = await Pipe.connect(pg_url)
    try:
        pipe.query("SELECT $1::text[], $2::bigint[], $3::bigint, $4::text, $5::text IS NULL",
                   (awkward, [0, -1, 10**15], -7, "'; DROP TABLE x; --", None))
        found = (await pipe.results(sync=True))[-1]
        pipe.query("SELECT x FROM unnest($1::text[]) WITH ORDINALITY AS t(x, n) ORDER BY n",
                   (awkward,))
        items = (await pipe.results(sync=True))[-1]
    finally:
        pipe.close()
    assert found.get_value(0, 1) == b"{0,-1,1000000000000000}"
    assert (found.get_value(0, 2), found.get_value(0, 3)) == (b"-7", b"'; DROP TABLE x; --")
    assert found.get_value(0, 4) == b"t"
    assert [bytes(items.get_value(i, 0) or b"").decode()
            for i in range(items.ntuples)] == awkward


async def test_after_an_error_the_batch_is_skipped_and_the_pipe_serves_again(
        pg_url: str) -> None:
    pipe = await Pipe.connect(pg_url)
    try:
        pipe.command(b"BEGIN")
        pipe.query("SELECT $1::int", (1,))
        assert (await pipe.results())[-1].get_value(0, 0) == b"1"
        assert pipe.in_transaction() and not pipe.idle()  # BEGIN went out, no Sync yet
        pipe.query("SELECT 1 / $1::int", (0,))
        pipe.query("SELECT $1::int + 1", (1,))  # first use: its prepare is skipped too
        pipe.command(b"COMMIT")
        with pytest.raises(psycopg.errors.DivisionByZero):
            await pipe.results(sync=True)
        assert pipe.in_transaction()  # the COMMIT behind the error never ran
        await pipe.rollback()
        assert pipe.idle()
        pipe.query("SELECT $1::int + 1", (41,))
        found = (await pipe.results(sync=True))[-1]
        assert found.get_value(0, 0) == b"42"
    finally:
        pipe.close()


async def test_work_that_leaves_its_transaction_open_is_rolled_back(ledger: Ledger) -> None:
    async def forgets_commit(pipe: Pipe) -> None:
        w = PgWriter(pipe)
        await w.open("settle", "g-open", "digest", 1, ["A", "B"])  # BEGIN, rows locked

    with pytest.raises(AssertionError, match="transaction open"):
        await ledger.uow.run_driver("settle", forgets_commit)
    # rolled back: the key is free and the locks are gone
    done = await ledger.postings.settle(
        "g-open", TERMS, [rules.Seat(0, "A", 1), rules.Seat(1, "B", -1)], game="doudizhu")
    assert not done.repeated
    assert (await ledger.accounts.balance("A")).coins == 11


async def test_the_outbox_backlog_is_read_on_a_pipe(ledger: Ledger) -> None:
    ledger.uow.clock = lambda: 5_000  # the settlement's events are created at 5 s
    await ledger.postings.settle(
        "g-backlog", TERMS, [rules.Seat(0, "A", 2), rules.Seat(1, "B", -2)], game="doudizhu")
    # the two grants' events (created now) and the settlement's two (at 5,000 ms)
    assert await ledger.outbox.backlog() == (4, 5_000)
    await ledger.outbox.mark_sent([ev.id for ev in await ledger.outbox.unsent()])
    assert await ledger.outbox.backlog() == (0, None)


async def test_the_relay_reads_and_marks_on_a_pipe_of_its_own(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[tuple[str, int]] = []  # (who, the pipe's id) per batch
    who = ["settle"]
    real = Pipe.results

    async def seen(self: Pipe, sync: bool = False) -> Any:
        used.append((who[0], id(self)))
        return await real(self, sync)

    monkeypatch.setattr(Pipe, "results", seen)
    await ledger.postings.settle(
        "g-own-1", TERMS, [rules.Seat(0, "A", 1), rules.Seat(1, "B", -1)], game="doudizhu")
    who[0] = "relay"
    await ledger.outbox.mark_sent([ev.id for ev in await ledger.outbox.unsent()])
    assert await ledger.outbox.backlog() == (0, None)
    who[0] = "settle"
    await ledger.postings.settle(
        "g-own-2", TERMS, [rules.Seat(0, "A", 1), rules.Seat(1, "B", -1)], game="doudizhu")
    settling = {pipe for kind, pipe in used if kind == "settle"}
    relaying = {pipe for kind, pipe in used if kind == "relay"}
    # one after the other, the settlements found the same pipe; the relay's
    # read, mark and backlog went on another
    assert len(settling) == 1 and len(relaying) == 1 and not settling & relaying
