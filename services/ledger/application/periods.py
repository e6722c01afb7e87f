"""The materialised rankings of the season (the UTC calendar month) and of
all time (docs/ledger.md "Rankings"), beside the week's
(services/ledger/application/games.py): each coin server's totals of those
days summed from the daily tally ``ledger_wins_daily`` and ranked into
``ledger_period_rankings`` (one row per server, period and player; index on
(server, period, rank)), computed again when older than the ledger's
``max_age_ms``. A read is then an index range of the top rows and one key
lookup, however many days the period holds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from services.ledger.adapters.models import DAY_MS, period_rankings, period_rankings_meta
from services.ledger.adapters.unit_of_work import UnitOfWork

#: The materialised periods: the current UTC calendar month, all time.
PERIODS = ("season", "all")


def season_first_day(day: int) -> int:
    """The first UTC day (unix ms // DAY_MS) of the calendar month holding
    ``day``: a season is a UTC calendar month."""
    at = datetime.fromtimestamp(day * DAY_MS / 1000, UTC)
    return int(datetime(at.year, at.month, 1, tzinfo=UTC).timestamp() * 1000) // DAY_MS


def first_day(period: str, last: int) -> int:
    """The first UTC day of ``period`` (``season``, ``all``) ending on ``last``."""
    return 0 if period == "all" else season_first_day(last)


#: A server's materialised period: the top rows, the asking player's row,
#: and (part ``n``) the number of players, when computed and the period's
#: last day (one round trip; the columns as the week's RANKED_SQL).
PERIOD_RANKED_SQL = text("""
SELECT 't' AS part, r.rank, r.account, r.coins, r.games, a.name
FROM (SELECT account, rank, coins, games FROM ledger_period_rankings
      WHERE server = :server AND period = :period ORDER BY rank, account LIMIT :n) r
JOIN ledger_accounts a ON a.account = r.account
UNION ALL
SELECT 'm', r.rank, r.account, r.coins, r.games, a.name
FROM ledger_period_rankings r JOIN ledger_accounts a ON a.account = r.account
WHERE r.server = :server AND r.period = :period AND r.account = :me
UNION ALL
SELECT 'n', players, '', computed_ms, last_day, '' FROM ledger_period_rankings_meta
WHERE server = :server AND period = :period
""")

#: The period's totals ranked into ``ledger_period_rankings``.
PERIOD_RANK_SQL = text("""
INSERT INTO ledger_period_rankings (server, period, account, rank, coins, games)
SELECT :server, :period, account, RANK() OVER (ORDER BY coins DESC), coins, games
FROM (SELECT account, SUM(coins) AS coins, SUM(games) AS games FROM ledger_wins_daily
      WHERE server = :server AND day >= :first AND day <= :last GROUP BY account) t
""")


async def refresh_period(uow: UnitOfWork, server: str, period: str, at: int, max_age_ms: int,
                         only_if_stale: bool = False) -> bool:
    """Compute ``server``'s materialised ``period`` ending on the UTC day of
    ``at`` (unix ms) from the tally, in one write transaction; with
    ``only_if_stale``, only where the stored one ends on another day or is
    older than ``max_age_ms``. Concurrent refreshes of one server and period
    wait for each other (PostgreSQL: an advisory lock; SQLite: the one
    writer). Returns whether it computed them."""
    last = at // DAY_MS
    meta = period_rankings_meta
    key = (meta.c.server == server) & (meta.c.period == period)

    def fresh(row: Any) -> bool:
        return (row is not None and int(row.last_day) == last
                and at - int(row.computed_ms) <= max_age_ms)

    async def stored(conn: AsyncConnection) -> Any:
        return (await conn.execute(select(meta.c.last_day, meta.c.computed_ms)
                                   .where(key))).one_or_none()

    if only_if_stale and fresh(await uow.query("rankings", stored)):
        return False

    async def work(conn: AsyncConnection) -> bool:
        if not uow.sqlite:
            await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                               {"key": f"ledger_rankings:{period}:{server}"})
        if only_if_stale and fresh(await stored(conn)):
            return False
        ranked = period_rankings
        await conn.execute(delete(ranked).where(ranked.c.server == server,
                                                ranked.c.period == period))
        await conn.execute(PERIOD_RANK_SQL, {"server": server, "period": period,
                                             "first": first_day(period, last), "last": last})
        players = int((await conn.execute(
            select(func.count()).select_from(ranked)
            .where(ranked.c.server == server, ranked.c.period == period))).scalar_one())
        await conn.execute(delete(meta).where(key))
        await conn.execute(insert(meta).values(server=server, period=period, last_day=last,
                                               computed_ms=at, players=players))
        return True

    return await uow.run("rankings_refresh", work)
