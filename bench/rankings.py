"""Rankings' read time over a generated journal on PostgreSQL, beside the same
ranking computed straight from the journal.

usage: python bench/rankings.py [--entries N] [--players P] [--servers S] [--days D]
                               [--calls C] [--url URL]

Makes a fresh PostgreSQL database (on the server of ``--url`` /
``PAIJU_TEST_POSTGRES_URL``, default postgresql://postgres@127.0.0.1:5432/test,
dropped afterwards) with the ledger's own migrations, and generates a journal
of ``--entries`` journal rows (default 1 000 000): settlements of 4 seats
among ``--players`` players (default 20 000) on ``--servers`` coin servers
(default 4), spread evenly over the last ``--days`` days (default 30): the
transactions, their seats and entries, and the daily tally the settlements
keep (``ledger_wins_daily``, here summed from the generated seats as the
settlement's own transaction adds them).

It computes every server's materialised rankings once (``Games.refresh``,
timed: what a read pays every ``PAIJU_LEDGER_RANKINGS_MAX_AGE_SECONDS``), then
times, alternating call by call over random servers and players:

- ledger: ``services.ledger.application.games.Games.rankings`` (the GetRankings read of
  the current window: top 50 and the asking player's rank from the
  materialised rankings, through the ledger's unit of work);
- tally: the same window summed from the daily tally at the read;
- baseline: the same answer summed from the journal itself (entries joined
  to their transactions, filtered by kind, server and time on an index of
  ``(kind, server, created_ms)``), the same SQL shape otherwise;

checks that all three give the same rows, and prints the median and 95th
percentile milliseconds of each, the ratio (baseline / ledger), the
database's own execution time of each statement (EXPLAIN ANALYZE, which a
loaded machine's client scheduling does not inflate), then one JSON line.
The goal: the ledger's read under 50 ms over 1 million rows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import text
from sqlalchemy.engine import make_url

from paiju.runtime import db
from services.ledger.adapters.models import DAY_MS
from services.ledger.adapters.unit_of_work import UnitOfWork
from services.ledger.application.games import RANKED_SQL, RANKINGS_SQL, WINDOW_DAYS, Games, Rankings
from services.ledger.main import MIGRATIONS

SEATS = 4

#: The baseline: the same query with the window's totals summed from the journal.
BASELINE_SQL = text(str(RANKINGS_SQL).replace(
    """    SELECT account, SUM(coins) AS coins, SUM(games) AS games FROM ledger_wins_daily
    WHERE server = :server AND day >= :first AND day <= :last
    GROUP BY account),""",
    """    SELECT e.account, SUM(e.delta) AS coins, COUNT(*) AS games
    FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
    WHERE t.kind = 'settle' AND t.server = :server
      AND t.created_ms >= CAST(:first AS BIGINT) * 86400000
      AND t.created_ms < (CAST(:last AS BIGINT) + 1) * 86400000
      AND e.account LIKE 'player:%'
    GROUP BY e.account),"""))
assert str(BASELINE_SQL) != str(RANKINGS_SQL), "the baseline's CTE was not replaced"


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


async def _admin(url: str, sql: str) -> None:
    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host,
                                 port=u.port or 5432, database=u.database)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def generate(url: str, entries: int, players: int, servers: int, days: int,
                   now_ms: int) -> None:
    """The journal: accounts, settlements (4 seats, distinct players), their
    seats and entries, the daily tally; analysed."""
    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host,
                                 port=u.port or 5432, database=u.database)
    games = entries // SEATS
    span = days * DAY_MS
    steps = [
        ("accounts", f"""INSERT INTO ledger_accounts (account, kind, name, balance, created_ms)
            SELECT 'player:p' || i, 'player', 'p' || i, 1000000, 0
            FROM generate_series(0, {players - 1}) i"""),
        ("transactions", f"""INSERT INTO ledger_transactions
            (id, kind, reference, content_hash, game, reason, result_json, created_ms,
             server, room)
            SELECT i, 'settle', 'g' || i, '', 'hunzhan', 'normal', '',
                   {now_ms - span} + (i::bigint * {span} / {games}), 's' || (i % {servers}),
                   's' || (i % {servers}) || '-' || (i % 50)
            FROM generate_series(1, {games}) i"""),
        ("seats", f"""INSERT INTO ledger_seats (account, transaction_id, seat, points, coins, fee)
            SELECT 'player:p' || ((b + k * {players // SEATS}) % {players}), i, k,
                   5 * (k - 1), (random() * 400 - 200)::int, 0
            FROM (SELECT i, floor(random() * {players})::int AS b
                  FROM generate_series(1, {games}) i) g,
                 generate_series(0, {SEATS - 1}) k"""),
        ("entries", """INSERT INTO ledger_entries (transaction_id, account, delta, balance_after)
            SELECT transaction_id, account, coins, 0 FROM ledger_seats
            ORDER BY transaction_id, account"""),
        ("tally", f"""INSERT INTO ledger_wins_daily (server, day, account, coins, games)
            SELECT t.server, (t.created_ms / {DAY_MS})::int, s.account, SUM(s.coins), COUNT(*)
            FROM ledger_seats s JOIN ledger_transactions t ON t.id = s.transaction_id
            GROUP BY 1, 2, 3"""),
        ("baseline index", """CREATE INDEX ix_bench_transactions_kind_server_time
            ON ledger_transactions (kind, server, created_ms)"""),
        ("analyse", "VACUUM ANALYZE"),
    ]
    try:
        for label, sql in steps:
            t0 = time.perf_counter()
            await conn.execute(sql)
            _log(f"  {label}: {time.perf_counter() - t0:.1f} s")
        counts = {t: await conn.fetchval(f"SELECT count(*) FROM {t}")
                  for t in ("ledger_entries", "ledger_transactions", "ledger_wins_daily")}
        _log(f"  rows: {counts}")
    finally:
        await conn.close()


def _rows(r: Rankings) -> list[tuple[Any, ...]]:
    return [(x.rank, x.player, x.coins, x.games) for x in r.rows] + [
        ("me", r.me.rank, r.me.coins, r.me.games) if r.me else ("me", None), ("n", r.players)]


async def measure(url: str, calls: int, players: int, servers: int, now_ms: int,
                  ) -> dict[str, Any]:
    """Compute every server's materialised rankings (timed), then time the
    reads, alternating: the ledger's (materialised), the tally summed at each
    read, the journal summed at each read; check that all three agree."""
    engine = db.make_engine(url)
    uow = UnitOfWork(engine, clock=lambda: now_ms)
    games = Games(uow, max_age_ms=10**12)  # computed once below, fresh for the run
    journal = JournalGames(uow)
    last = now_ms // DAY_MS
    first = last - WINDOW_DAYS + 1
    rng = random.Random(7)
    times: dict[str, list[float]] = {"ledger": [], "tally": [], "journal": []}
    refresh_ms = []
    try:
        for s in range(servers):
            t0 = time.perf_counter()
            await games.refresh(f"s{s}", now_ms)
            refresh_ms.append((time.perf_counter() - t0) * 1000)
        _log(f"  materialised {servers} servers: {[round(x) for x in refresh_ms]} ms")
        async with engine.connect() as conn:  # as autovacuum would after such a change
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("ANALYZE ledger_rankings"))
        for i in range(calls + 2):
            server, player = f"s{rng.randrange(servers)}", f"p{rng.randrange(players)}"
            t0 = time.perf_counter()
            mine = await games.rankings(server, player, 50)
            t1 = time.perf_counter()
            tally = await games.summed(server, player, 50, first, last)
            t2 = time.perf_counter()
            theirs = await journal.summed(server, player, 50, first, last)
            t3 = time.perf_counter()
            if not _rows(mine) == _rows(tally) == _rows(theirs):
                raise AssertionError(f"the rankings disagree on {server}: {_rows(mine)[:3]}, "
                                     f"{_rows(tally)[:3]}, {_rows(theirs)[:3]}")
            if i >= 2:  # two warm-up calls
                times["ledger"].append((t1 - t0) * 1000)
                times["tally"].append((t2 - t1) * 1000)
                times["journal"].append((t3 - t2) * 1000)
            if (i + 1) % 10 == 0:
                _log(f"  {i + 1}/{calls + 2} calls")
    finally:
        await uow.close()
        await engine.dispose()
    out: dict[str, Any] = {"refresh_ms": [round(x, 1) for x in refresh_ms]}
    for kind, ms in times.items():
        ms.sort()
        out[kind] = {"median_ms": round(statistics.median(ms), 2),
                     "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2)}
    out["ratio"] = round(out["journal"]["median_ms"] / out["ledger"]["median_ms"], 1)
    out["database_ms"] = await explained(url, now_ms, first, last)
    return out


async def explained(url: str, now_ms: int, first: int, last: int) -> dict[str, float]:
    """The database's own execution time (EXPLAIN ANALYZE) of each kind's
    statement for server s0 and player p1, median of 5: the work of the query
    itself, without the client's scheduling on a loaded machine."""
    engine = db.make_engine(url)
    params = {"server": "s0", "first": first, "last": last, "n": 50, "me": "player:p1"}
    out: dict[str, float] = {}
    try:
        async with engine.connect() as conn:
            for kind, sql in (("ledger", RANKED_SQL), ("tally", RANKINGS_SQL),
                              ("journal", BASELINE_SQL)):
                runs = []
                for _ in range(5):
                    plan = (await conn.execute(text("EXPLAIN (ANALYZE, FORMAT JSON) " + str(sql)),
                                               params)).scalar_one()
                    plan = json.loads(plan) if isinstance(plan, str) else plan
                    runs.append(float(plan[0]["Execution Time"]))
                out[kind] = round(statistics.median(runs), 2)
    finally:
        await engine.dispose()
    return out


class JournalGames(Games):
    """The baseline: :class:`Games` whose rankings sum the journal itself."""

    rankings_sql = BASELINE_SQL


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    name = f"paiju_bench_rankings_{uuid.uuid4().hex[:8]}"
    await _admin(args.url, f'CREATE DATABASE "{name}"')
    url = make_url(args.url).set(database=name).render_as_string(hide_password=False)
    try:
        await asyncio.to_thread(db.migrate, url, MIGRATIONS)
        now_ms = int(time.time() * 1000)
        _log(f"generating {args.entries} journal rows ({args.players} players, "
             f"{args.servers} servers, {args.days} days)")
        await generate(url, args.entries, args.players, args.servers, args.days, now_ms)
        _log(f"timing {args.calls} calls of each")
        result = await measure(url, args.calls, args.players, args.servers, now_ms)
    finally:
        await _admin(args.url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return {"entries": args.entries, "players": args.players, "servers": args.servers,
            "days": args.days, "calls": args.calls, **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000, help="journal rows")
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--days", type=int, default=30, help="days the journal spans")
    parser.add_argument("--calls", type=int, default=40, help="timed calls of each kind")
    parser.add_argument("--url", default=os.environ.get(
        "PAIJU_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    args = parser.parse_args()
    if args.players < 2 * SEATS or args.entries < SEATS or args.calls < 1:
        parser.error("needs at least 8 players, 4 entries and 1 call")
    r = asyncio.run(main_async(args))
    led, tally, base = r["ledger"], r["tally"], r["journal"]
    print(f"rankings over {r['entries']} journal rows: ledger (materialised) "
          f"{led['median_ms']} ms median ({led['p95_ms']} ms p95); tally summed at each read "
          f"{tally['median_ms']} ms; baseline, the journal summed at each read "
          f"{base['median_ms']} ms ({base['p95_ms']} ms p95); ratio baseline/ledger "
          f"{r['ratio']}x; computing a server's materialised rankings "
          f"{min(r['refresh_ms'])}-{max(r['refresh_ms'])} ms")
    d = r["database_ms"]
    print(f"database execution time (EXPLAIN ANALYZE): ledger {d['ledger']} ms, tally "
          f"{d['tally']} ms, journal {d['journal']} ms")
    print(json.dumps(r))


if __name__ == "__main__":
    main()
