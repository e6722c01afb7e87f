"""History (战绩) and rankings read from the journal (docs/ledger.md "History",
"Rankings").

- :meth:`Games.history`: a player's settled games, newest first, from
  ``ledger_seats`` (one row per seat of each settlement, by account and
  transaction id), with every seat's name from its account.
- :meth:`Games.rankings`: a coin server's coins won over 7 UTC days. Two
  materialisations keep it fast however long the journal is: the daily tally
  ``ledger_wins_daily`` (per server, day and player, kept in each
  settlement's own transaction: a window sums at most 7 rows per player that
  played there) and, for the current window, the ranked table
  ``ledger_rankings`` computed from the tally (:meth:`Games.refresh`): a read
  is an index range of ``limit`` rows and one key lookup, one round trip.
  Where none are there yet, or yesterday's window, the read computes them
  first; where they are older than ``max_age_ms``, the read answers with
  them and they are computed again in the background. Other windows
  (``until_ms`` on another day) sum the tally at each read.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from services.ledger.adapters.models import (
    DAY_MS,
    accounts,
    player_account,
    rankings_meta,
    seats,
    transactions,
)
from services.ledger.adapters.models import rankings as ranked_table
from services.ledger.adapters.unit_of_work import UnitOfWork
from services.ledger.domain import settlement as rules
from services.ledger.domain.errors import INVALID_ARGUMENT, LedgerError

log = logging.getLogger("paiju.ledger")

#: Largest page of history and of rankings.
MAX_GAMES, MAX_RANKS = 100, 100
#: Days in the rankings' window (the day of ``until`` and the six before it).
WINDOW_DAYS = 7
_PREFIX = len("player:")


@dataclass(frozen=True)
class SeatRow:
    """One seat of a settled game: number, player, name, points, coins after
    the fee, fee."""

    seat: int
    player: str
    name: str
    points: int
    coins: int
    fee: int


@dataclass(frozen=True)
class GameRow:
    """One settled game of a player: its transaction (the paging cursor), the
    record's game id, when (unix ms), where, which game and why it ended, the
    player's own seat row and every seat."""

    transaction_id: int
    game_id: str
    ts_ms: int
    server: str
    room: str
    game: str
    reason: str
    mine: SeatRow
    players: tuple[SeatRow, ...]


@dataclass(frozen=True)
class RankRow:
    """A ranked player: rank (ties share one), id, name, coins won, games."""

    rank: int
    player: str
    name: str
    coins: int
    games: int


@dataclass(frozen=True)
class Rankings:
    """A server's rankings over ``[from_ms, to_ms)``: the top rows, the asking
    player's row (None without a game there) and how many players ranked."""

    server: str
    from_ms: int
    to_ms: int
    rows: tuple[RankRow, ...]
    me: RankRow | None
    players: int


#: The window's totals once (a CTE read three times is materialised once):
#: the top rows with their names, the asking player's totals and how many
#: have more, and how many players there are.
RANKINGS_SQL = text("""
WITH totals AS (
    SELECT account, SUM(coins) AS coins, SUM(games) AS games FROM ledger_wins_daily
    WHERE server = :server AND day >= :first AND day <= :last
    GROUP BY account),
top AS (
    SELECT account, coins, games FROM totals ORDER BY coins DESC, account LIMIT :n)
SELECT 't' AS part, top.account, top.coins, top.games, a.name, 0 AS above
FROM top JOIN ledger_accounts a ON a.account = top.account
UNION ALL
SELECT 'm', m.account, m.coins, m.games, a.name,
       (SELECT COUNT(*) FROM totals o WHERE o.coins > m.coins)
FROM totals m JOIN ledger_accounts a ON a.account = m.account
WHERE m.account = :me
UNION ALL
SELECT 'n', '', 0, 0, '', COUNT(*) FROM totals
""")


#: A server's materialised rankings: the top rows, the asking player's row,
#: and (part ``n``) the number of players, when they were computed and the
#: window's last day (one round trip).
RANKED_SQL = text("""
SELECT 't' AS part, r.rank, r.account, r.coins, r.games, a.name
FROM (SELECT account, rank, coins, games FROM ledger_rankings WHERE server = :server
      ORDER BY rank, account LIMIT :n) r
JOIN ledger_accounts a ON a.account = r.account
UNION ALL
SELECT 'm', r.rank, r.account, r.coins, r.games, a.name
FROM ledger_rankings r JOIN ledger_accounts a ON a.account = r.account
WHERE r.server = :server AND r.account = :me
UNION ALL
SELECT 'n', players, '', computed_ms, last_day, '' FROM ledger_rankings_meta
WHERE server = :server
""")

#: The window's totals ranked into ``ledger_rankings`` (equal coins, equal rank).
RANK_SQL = text("""
INSERT INTO ledger_rankings (server, account, rank, coins, games)
SELECT :server, account, RANK() OVER (ORDER BY coins DESC), coins, games
FROM (SELECT account, SUM(coins) AS coins, SUM(games) AS games FROM ledger_wins_daily
      WHERE server = :server AND day >= :first AND day <= :last GROUP BY account) t
""")


class Games:
    """History and rankings through ``uow``. ``max_age_ms``: how old the
    materialised rankings of the current window may be when read (0: computed
    at every read). ``rankings_sql`` sums a window's totals (:data:`RANKINGS_SQL`;
    bench/rankings.py sums the journal itself instead, as its baseline)."""

    rankings_sql = RANKINGS_SQL

    def __init__(self, uow: UnitOfWork, max_age_ms: int = 30_000) -> None:
        self.uow = uow
        self.max_age_ms = max_age_ms
        self._refreshing: dict[str, asyncio.Task[bool]] = {}

    def _refresh_later(self, server: str) -> None:
        """Compute ``server``'s rankings again in the background (one task per
        server at a time); a failure is logged, the next read tries again."""
        if server in self._refreshing:
            return
        task = asyncio.create_task(self.refresh(server, only_if_stale=True))
        self._refreshing[server] = task

        def done(t: asyncio.Task[bool]) -> None:
            self._refreshing.pop(server, None)
            if not t.cancelled() and t.exception() is not None:
                log.warning("rankings of %s not computed: %s", server, t.exception())
        task.add_done_callback(done)

    async def refreshed(self) -> None:
        """Wait for the background computations running now (tests, shutdown)."""
        await asyncio.gather(*self._refreshing.values(), return_exceptions=True)

    async def history(self, player: str, limit: int = 0, before: int = 0,
                      ) -> tuple[list[GameRow], int]:
        """``player``'s settled games older than transaction ``before`` (0:
        the newest), newest first, at most ``limit`` (1–100; 0 means 20); and
        the ``before`` of the next page (0 when none). Errors: ``bad_player_id``,
        ``bad_limit`` (INVALID_ARGUMENT). A player without games (or account)
        has an empty history."""
        rules.check_player(player)
        if not 0 <= limit <= MAX_GAMES or before < 0:
            raise LedgerError(INVALID_ARGUMENT, "bad_limit",
                              f"limit must be 0-{MAX_GAMES} and before >= 0")
        want = limit or 20
        key = player_account(player)

        async def read(conn: AsyncConnection) -> tuple[list[GameRow], int]:
            query = (select(seats.c.transaction_id, transactions.c.reference,
                            transactions.c.created_ms, transactions.c.server,
                            transactions.c.room, transactions.c.game, transactions.c.reason)
                     .join(transactions, transactions.c.id == seats.c.transaction_id)
                     .where(seats.c.account == key)
                     .order_by(seats.c.transaction_id.desc()).limit(want + 1))
            if before:
                query = query.where(seats.c.transaction_id < before)
            found = list(await conn.execute(query))
            page, more = found[:want], len(found) > want
            ids = [int(r.transaction_id) for r in page]
            by_tx: dict[int, list[SeatRow]] = {i: [] for i in ids}
            if ids:
                rows = await conn.execute(
                    select(seats.c.transaction_id, seats.c.account, seats.c.seat,
                           seats.c.points, seats.c.coins, seats.c.fee, accounts.c.name)
                    .join(accounts, accounts.c.account == seats.c.account)
                    .where(seats.c.transaction_id.in_(bindparam("ids", expanding=True)))
                    .order_by(seats.c.transaction_id, seats.c.seat), {"ids": ids})
                for r in rows:
                    by_tx[int(r.transaction_id)].append(SeatRow(
                        int(r.seat), str(r.account)[_PREFIX:], str(r.name), int(r.points),
                        int(r.coins), int(r.fee)))
            games = []
            for r in page:
                players = tuple(by_tx[int(r.transaction_id)])
                mine = next(s for s in players if s.player == player)
                games.append(GameRow(int(r.transaction_id), str(r.reference),
                                     int(r.created_ms), str(r.server), str(r.room),
                                     str(r.game), str(r.reason), mine, players))
            return games, (ids[-1] if more else 0)

        return await self.uow.query("games", read, snapshot=True)

    async def rankings(self, server: str, player: str = "", limit: int = 0,
                       until_ms: int = 0) -> Rankings:
        """Coins won on ``server`` over the UTC day of ``until_ms`` (0: now)
        and the six days before it: the top ``limit`` (1–100; 0 means 50),
        ``player``'s own row where it played there, and the number of players.
        Coins won are the net change of settlements after fees (no grants, no
        room fees); equal coins share a rank. Errors: ``bad_limit``,
        ``bad_server``, ``bad_player_id`` (INVALID_ARGUMENT)."""
        if not 0 <= limit <= MAX_RANKS or until_ms < 0:
            raise LedgerError(INVALID_ARGUMENT, "bad_limit",
                              f"limit must be 0-{MAX_RANKS} and until_ms >= 0")
        if not 0 < len(server) <= 64:
            raise LedgerError(INVALID_ARGUMENT, "bad_server", "a server id has 1-64 characters")
        if player:
            rules.check_player(player)
        now = self.uow.clock()
        last = (until_ms or now) // DAY_MS
        first = last - WINDOW_DAYS + 1
        params = {"server": server, "first": first, "last": last, "n": limit or 50,
                  "me": player_account(player) if player else ""}
        if last != now // DAY_MS:
            return await self.summed(server, player, limit or 50, first, last)

        async def ranked(conn: AsyncConnection) -> tuple[Rankings, int, int]:
            rows = list(await conn.execute(RANKED_SQL, params))
            top = sorted((r for r in rows if r.part == "t"),
                         key=lambda r: (int(r.rank), str(r.account)))
            me = next((self._row(r, int(r.rank)) for r in rows if r.part == "m"), None)
            meta = next((r for r in rows if r.part == "n"), None)
            found = Rankings(server, first * DAY_MS, (last + 1) * DAY_MS,
                             tuple(self._row(r, int(r.rank)) for r in top), me,
                             int(meta.rank) if meta else 0)
            return (found, int(meta.games) if meta else -1, int(meta.coins) if meta else 0)

        found, window_day, computed_ms = await self.uow.query("rankings", ranked)
        if window_day != last:  # none yet, or yesterday's window: computed now
            await self.refresh(server, now, only_if_stale=True)
            found, _, _ = await self.uow.query("rankings", ranked)
        elif now - computed_ms > self.max_age_ms:  # old: computed again meanwhile
            self._refresh_later(server)
        return found

    async def summed(self, server: str, player: str, limit: int, first: int, last: int,
                     ) -> Rankings:
        """The rankings of days ``first``..``last`` (UTC day numbers) summed at
        this read with :attr:`rankings_sql` (no materialisation): the top
        ``limit``, ``player``'s row (or None), the number of players."""
        params = {"server": server, "first": first, "last": last, "n": limit,
                  "me": player_account(player) if player else ""}

        async def read(conn: AsyncConnection) -> Rankings:
            rows = list(await conn.execute(self.rankings_sql, params))
            top = sorted((r for r in rows if r.part == "t"),
                         key=lambda r: (-int(r.coins), str(r.account)))
            ranked: list[RankRow] = []
            for i, r in enumerate(top):
                tied = bool(ranked) and ranked[-1].coins == int(r.coins)
                ranked.append(self._row(r, ranked[-1].rank if tied else i + 1))
            me = next((self._row(r, int(r.above) + 1) for r in rows if r.part == "m"), None)
            count = next(int(r.above) for r in rows if r.part == "n")
            return Rankings(server, first * DAY_MS, (last + 1) * DAY_MS, tuple(ranked), me,
                            count)

        return await self.uow.query("rankings", read)

    @staticmethod
    def _row(r: Any, rank: int) -> RankRow:
        return RankRow(rank, str(r.account)[_PREFIX:], str(r.name), int(r.coins), int(r.games))

    async def refresh(self, server: str, now: int | None = None,
                      only_if_stale: bool = False) -> bool:
        """Compute ``server``'s materialised rankings of the window ending on
        the UTC day of ``now`` (unix ms; default the clock) from the tally, in
        one write transaction; with ``only_if_stale``, only where the stored
        ones are of another window or older than ``max_age_ms``. Concurrent
        refreshes of one server wait for each other (PostgreSQL: an advisory
        lock; SQLite: the one writer) and the later one finds them fresh.
        Returns whether it computed them."""
        at = self.uow.clock() if now is None else now
        last = at // DAY_MS

        def fresh(row: Any) -> bool:
            return (row is not None and int(row.last_day) == last
                    and at - int(row.computed_ms) <= self.max_age_ms)

        async def stored(conn: AsyncConnection) -> Any:
            return (await conn.execute(select(rankings_meta.c.last_day, rankings_meta.c.computed_ms)
                                       .where(rankings_meta.c.server == server))).one_or_none()

        if only_if_stale and fresh(await self.uow.query("rankings", stored)):
            return False

        async def work(conn: AsyncConnection) -> bool:
            if not self.uow.sqlite:
                await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                                   {"key": f"ledger_rankings:{server}"})
            if only_if_stale and fresh(await stored(conn)):
                return False
            await conn.execute(delete(ranked_table).where(ranked_table.c.server == server))
            await conn.execute(RANK_SQL, {"server": server, "first": last - WINDOW_DAYS + 1,
                                          "last": last})
            players = int((await conn.execute(
                select(func.count()).select_from(ranked_table)
                .where(ranked_table.c.server == server))).scalar_one())
            await conn.execute(delete(rankings_meta).where(rankings_meta.c.server == server))
            await conn.execute(insert(rankings_meta).values(
                server=server, last_day=last, computed_ms=at, players=players))
            return True

        return await self.uow.run("rankings_refresh", work)
