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
  (``until_ms`` on another day) sum the tally at each read. The ``season``
  (the UTC calendar month) and ``all`` (every day) windows are materialised
  in the same way (services/ledger/application/periods.py).
- :meth:`Games.stats`: a player's settled games per game type, aggregated
  from its ``ledger_seats`` rows (by the key's prefix, the account) joined to
  their transactions (by the primary key): one statement, as many rows read
  as the player has games.
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
from services.ledger.application.periods import (
    PERIOD_RANKED_SQL,
    PERIODS,
    first_day,
    refresh_period,
)
from services.ledger.domain import settlement as rules
from services.ledger.domain.errors import INVALID_ARGUMENT, NOT_FOUND, LedgerError

log = logging.getLogger("paiju.ledger")

#: Largest page of history and of rankings.
MAX_GAMES, MAX_RANKS = 100, 100
#: Days in the rankings' window (the day of ``until`` and the six before it).
WINDOW_DAYS = 7
_PREFIX = len("player:")
#: The rankings' windows: the 7 UTC days ending today, the UTC calendar
#: month so far, every day so far ("" reads as ``week``).
WINDOWS = ("week", "season", "all")
#: Longest game name a stats read takes.
MAX_GAME_NAME = 64


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
class GameStats:
    """A player's settled games of one game type: how many; wins, losses and
    draws by the sign of the player's points; the best and worst game and the
    net in coins after the fee; games it escaped (a settlement of reason
    ``escape`` where its points are negative: only the escapee pays in an
    escape, rulings.md "Settlement"); first and last settlement (unix ms);
    time played (ms, the sum of the settlements' ``played_ms``)."""

    game: str
    games: int
    wins: int
    losses: int
    draws: int
    best: int
    worst: int
    escapes: int
    coins: int
    first_ms: int
    last_ms: int
    played_ms: int


@dataclass(frozen=True)
class Stats:
    """A player's id, name (its account's) and stats per game, by game name."""

    player: str
    name: str
    games: tuple[GameStats, ...]


#: A player's settled games aggregated per game type (its seats by the
#: primary key's prefix, each joined to its transaction by its key).
STATS_SQL = text("""
SELECT t.game, COUNT(*) AS games,
       SUM(CASE WHEN s.points > 0 THEN 1 ELSE 0 END) AS wins,
       SUM(CASE WHEN s.points < 0 THEN 1 ELSE 0 END) AS losses,
       MAX(s.coins) AS best, MIN(s.coins) AS worst, SUM(s.coins) AS coins,
       SUM(CASE WHEN t.reason = 'escape' AND s.points < 0 THEN 1 ELSE 0 END) AS escapes,
       MIN(t.created_ms) AS first_ms, MAX(t.created_ms) AS last_ms,
       SUM(t.played_ms) AS played_ms
FROM ledger_seats s JOIN ledger_transactions t ON t.id = s.transaction_id
WHERE s.account = :me AND (:game = '' OR t.game = :game)
GROUP BY t.game ORDER BY t.game
""")


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

    def _refresh_later(self, server: str, window: str = "week") -> None:
        """Compute ``server``'s rankings of ``window`` again in the background
        (one task per server and window at a time); a failure is logged, the
        next read tries again."""
        key = f"{window}:{server}"
        if key in self._refreshing:
            return
        task = asyncio.create_task(self._refresh(server, window, None))
        self._refreshing[key] = task

        def done(t: asyncio.Task[bool]) -> None:
            self._refreshing.pop(key, None)
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

    async def stats(self, player: str, game: str = "") -> Stats:
        """``player``'s stats per game type (only ``game`` where given), by
        game name; no games: an empty tuple. Errors: ``bad_player_id``,
        ``bad_game`` (INVALID_ARGUMENT), ``unknown_player`` (NOT_FOUND: no
        account)."""
        rules.check_player(player)
        if len(game) > MAX_GAME_NAME:
            raise LedgerError(INVALID_ARGUMENT, "bad_game",
                              f"a game name has at most {MAX_GAME_NAME} characters")
        me = player_account(player)

        async def read(conn: AsyncConnection) -> Stats:
            name = (await conn.execute(select(accounts.c.name)
                                       .where(accounts.c.account == me))).scalar_one_or_none()
            if name is None:
                raise LedgerError(NOT_FOUND, "unknown_player", f"no account {player!r}")
            rows = await conn.execute(STATS_SQL, {"me": me, "game": game})
            return Stats(player, str(name), tuple(GameStats(
                str(r.game), int(r.games), int(r.wins), int(r.losses),
                int(r.games) - int(r.wins) - int(r.losses), int(r.best), int(r.worst),
                int(r.escapes), int(r.coins), int(r.first_ms), int(r.last_ms),
                int(r.played_ms)) for r in rows))

        return await self.uow.query("stats", read, snapshot=True)

    async def rankings(self, server: str, player: str = "", limit: int = 0,
                       until_ms: int = 0, window: str = "") -> Rankings:
        """Coins won on ``server`` over ``window`` ending with the UTC day of
        ``until_ms`` (0: now): ``week`` (or ""), that day and the six days
        before it; ``season``, its UTC calendar month from the first day;
        ``all``, every day up to it. The top ``limit`` (1–100; 0 means 50),
        ``player``'s own row where it played there, and the number of players.
        Coins won are the net change of settlements after fees (no grants, no
        room fees); equal coins share a rank. Errors: ``bad_limit``,
        ``bad_server``, ``bad_player_id``, ``bad_window`` (INVALID_ARGUMENT)."""
        if window not in ("", *WINDOWS):
            raise LedgerError(INVALID_ARGUMENT, "bad_window",
                              f"window is one of {', '.join(WINDOWS)}")
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
        window = window or "week"
        sql = RANKED_SQL
        if window in PERIODS:
            first = first_day(window, last)
            params["period"] = window
            sql = PERIOD_RANKED_SQL
        if last != now // DAY_MS:
            return await self.summed(server, player, limit or 50, first, last)

        async def ranked(conn: AsyncConnection) -> tuple[Rankings, int, int]:
            rows = list(await conn.execute(sql, params))
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
            await self._refresh(server, window, now)
            found, _, _ = await self.uow.query("rankings", ranked)
        elif now - computed_ms > self.max_age_ms:  # old: computed again meanwhile
            self._refresh_later(server, window)
        return found

    async def _refresh(self, server: str, window: str, now: int | None) -> bool:
        """:meth:`refresh` (``week``) or the period's refresh, where stale."""
        if window in PERIODS:
            at = self.uow.clock() if now is None else now
            return await refresh_period(self.uow, server, window, at, self.max_age_ms,
                                        only_if_stale=True)
        return await self.refresh(server, now, only_if_stale=True)

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
