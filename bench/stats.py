"""Read times of the rankings' three windows and of a player's stats over a
generated journal on PostgreSQL.

usage: python bench/stats.py [--calls C] [--url URL]

Makes a fresh PostgreSQL database (on the server of ``--url`` /
``PAIJU_TEST_POSTGRES_URL``, dropped afterwards) with the ledger's own
migrations and bench/rankings.py's journal (1 000 000 entry rows, 20 000
players, 4 coin servers, 30 days), computes every server's materialised
rankings of each window once and has PostgreSQL analyse their tables (as
autovacuum does within a minute of their first computation: until then the
planner, without statistics, may take the rank index for the asking
player's row, about 10 ms instead of 2 ms), then times ``--calls`` reads
(default 60, the first 10 of each not counted) of each: ``Games.rankings`` of the windows ``week``,
``season`` and ``all`` (top 50 and a random player's rank on a random
server), and ``Games.stats`` of a random player. Prints the median and 95th
percentile milliseconds of each as one JSON line.
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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import text
from sqlalchemy.engine import make_url

from bench.rankings import _admin, generate
from paiju.runtime import db
from services.ledger.adapters.unit_of_work import UnitOfWork
from services.ledger.application.games import Games
from services.ledger.main import MIGRATIONS

PLAYERS, SERVERS, SKIPPED = 20_000, 4, 10


async def timed(calls: int, read: Callable[[str, str], Awaitable[Any]]) -> dict[str, float]:
    """Median and 95th percentile ms of ``calls`` reads (random server and
    player), the first :data:`SKIPPED` not counted."""
    rng = random.Random(1)
    took = []
    for _ in range(calls):
        server, player = f"s{rng.randrange(SERVERS)}", f"p{rng.randrange(PLAYERS)}"
        start = time.perf_counter()
        await read(server, player)
        took.append((time.perf_counter() - start) * 1000)
    kept = sorted(took[SKIPPED:])
    return {"median_ms": round(statistics.median(kept), 2),
            "p95_ms": round(kept[int(len(kept) * 0.95)], 2)}


async def main_async(url: str, calls: int) -> dict[str, Any]:
    name = f"paiju_bench_stats_{uuid.uuid4().hex[:8]}"
    await _admin(url, f'CREATE DATABASE "{name}"')
    fresh = make_url(url).set(database=name).render_as_string(hide_password=False)
    try:
        await asyncio.to_thread(db.migrate, fresh, MIGRATIONS)
        await generate(fresh, 1_000_000, PLAYERS, SERVERS, 30, int(time.time() * 1000))
        engine = db.make_engine(fresh)
        uow = UnitOfWork(engine)
        games = Games(uow)
        try:
            for server in range(SERVERS):
                for window in ("week", "season", "all"):
                    await games.rankings(f"s{server}", window=window)
            async with engine.begin() as conn:
                await conn.execute(text("ANALYZE ledger_rankings"))
                await conn.execute(text("ANALYZE ledger_period_rankings"))
            out = {}
            for window in ("week", "season", "all"):

                def ranked(server: str, player: str, window: str = window) -> Awaitable[Any]:
                    return games.rankings(server, player, 50, window=window)
                out[window] = await timed(calls, ranked)

            def stats(server: str, player: str) -> Awaitable[Any]:
                return games.stats(player)
            out["stats"] = await timed(calls, stats)
            return out
        finally:
            await uow.close()
            await engine.dispose()
    finally:
        await _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=60, help="timed calls of each kind")
    parser.add_argument("--url", default=os.environ.get(
        "PAIJU_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"))
    args = parser.parse_args()
    if args.calls <= SKIPPED:
        parser.error(f"needs more than {SKIPPED} calls")
    print(json.dumps(asyncio.run(main_async(args.url, args.calls))))


if __name__ == "__main__":
    main()
