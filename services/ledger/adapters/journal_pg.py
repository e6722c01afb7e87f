"""The journal's two steps (services/ledger/application/journal.py) on PostgreSQL: one
statement each, on a pipe of the hot path (services/ledger/adapters/pgpipe.py; no
SQLAlchemy statement layer). The first goes out with BEGIN, the second with
COMMIT: a change is two round trips. Nothing is checked between the second
statement and its COMMIT, so the zero guard is in the statement itself: a
player's update that would go below zero updates nothing, and then the
statement fails (:data:`GUARD`), which skips the COMMIT."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psycopg

from services.ledger.adapters.models import player_account
from services.ledger.adapters.outbox import event_rows
from services.ledger.adapters.pgpipe import Pipe
from services.ledger.application.journal import Repeat, Tally, balances_of, postings

#: The transaction row, then the players' rows locked in account order (only
#: if the row was inserted: a repeat locks nothing). One row per locked
#: account, or one (id, NULL, NULL) row if no account exists; none for a repeat.
OPEN = """
WITH tx AS (
    INSERT INTO ledger_transactions (kind, reference, content_hash, game, reason, created_ms,
                                     server, room, played_ms)
    VALUES ($1, $2, $3, $4, $5, $6, $8, $9, $10)
    ON CONFLICT (kind, reference) DO NOTHING
    RETURNING id),
locked AS (
    SELECT account, balance FROM ledger_accounts
    WHERE account = ANY($7::text[]) AND EXISTS (SELECT FROM tx)
    ORDER BY account
    FOR UPDATE)
SELECT tx.id, locked.account, locked.balance FROM tx LEFT JOIN locked ON true
"""

def moving(prefix: str) -> str:
    """The first two steps of a change's writes, for the tables named
    ``<prefix>_accounts`` and ``<prefix>_entries``: ``moved`` updates the
    balances of the accounts in ``$1`` by the deltas in ``$2`` (a player's
    balance never below zero; house accounts may go negative) and ``posted``
    writes an entry of transaction ``$3`` from each new balance. Ends with a
    comma: the caller's steps follow."""
    return f"""
WITH moved AS (
    UPDATE {prefix}_accounts AS a SET balance = a.balance + v.delta
    FROM unnest($1::text[], $2::bigint[]) AS v(account, delta)
    WHERE a.account = v.account AND (a.kind = 'house' OR a.balance + v.delta >= 0)
    RETURNING a.account, v.delta, a.balance),
posted AS (
    INSERT INTO {prefix}_entries (transaction_id, account, delta, balance_after)
    SELECT $3, account, delta, balance FROM moved ORDER BY account),"""


#: Every write of a change but the second and later house accounts: the
#: balance updates (players locked already, at most one house account), the
#: entries from their new balances, the outbox events, the stored result, and
#: a settlement's seats and daily tally (empty arrays for other changes).
#: Returns the number of accounts updated, and fails (invalid input for an
#: integer, naming :data:`GUARD`) if that is fewer than asked ($17): a
#: player's guard, or an account that is not there.
GUARD = "zero guard"
CLOSE = moving("ledger") + f"""
events AS (
    INSERT INTO ledger_outbox (subject, type, game_id, data_json, created_ms)
    SELECT e.subject, e.type, e.game_id, e.data_json, $4
    FROM unnest($5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY
        AS e(subject, type, game_id, data_json, n)
    ORDER BY e.n),
stored AS (
    UPDATE ledger_transactions SET result_json = $9 WHERE id = $3),
seated AS (
    INSERT INTO ledger_seats (account, transaction_id, seat, points, coins, fee)
    SELECT s.account, $3, s.seat, s.points, s.coins, s.fee
    FROM unnest($10::text[], $11::int[], $12::bigint[], $13::bigint[], $14::bigint[])
        AS s(account, seat, points, coins, fee)),
tallied AS (
    INSERT INTO ledger_wins_daily (server, day, account, coins, games)
    SELECT $15, $16, s.account, s.coins, 1
    FROM unnest($10::text[], $13::bigint[]) AS s(account, coins)
    ON CONFLICT (server, day, account) DO UPDATE
    SET coins = ledger_wins_daily.coins + EXCLUDED.coins,
        games = ledger_wins_daily.games + 1)
SELECT CASE WHEN count(*) = $17 THEN count(*)
    ELSE ('{GUARD}: ' || count(*) || ' of ' || $17 || ' accounts updated')::bigint END
FROM moved
"""

#: One relief claim counted for ($1 account, $2 day) unless $3 are counted
#: already; the day's count after it, or no row when the day's claims are spent.
CLAIM = """
INSERT INTO ledger_relief_daily (account, day, claims) VALUES ($1, $2, 1)
ON CONFLICT (account, day) DO UPDATE SET claims = ledger_relief_daily.claims + 1
WHERE ledger_relief_daily.claims < $3
RETURNING claims
"""

#: A further house account (key order) and its entry.
HOUSE = """
WITH moved AS (
    UPDATE ledger_accounts SET balance = balance + $2 WHERE account = $1
    RETURNING account, balance)
INSERT INTO ledger_entries (transaction_id, account, delta, balance_after)
SELECT $3, account, $2, balance FROM moved
"""


class PgWriter:
    """:class:`services.ledger.application.journal.Writer` on a pipe
    (services/ledger/adapters/pgpipe.py) that has no transaction open: ``open``
    begins it, ``close`` commits it (if ``close`` is not reached, the unit
    of work rolls it back)."""

    def __init__(self, pipe: Pipe) -> None:
        self.pipe = pipe

    async def open(self, kind: str, reference: str, digest: str, now: int,
                   players: Sequence[str], game: str = "", reason: str = "",
                   server: str = "", room: str = "", played_ms: int = 0,
                   ) -> tuple[int, dict[str, int]]:
        """As :meth:`services.ledger.application.journal.Writer.open`: BEGIN and one
        statement, one round trip."""
        self.pipe.command(b"BEGIN")
        self.pipe.query(OPEN, (kind, reference, digest, game, reason, now,
                               sorted({player_account(p) for p in players}), server, room,
                               played_ms))
        rows = (await self.pipe.results())[-1]
        if not rows.ntuples:
            raise Repeat()
        found = {}
        for i in range(rows.ntuples):
            account = rows.get_value(i, 1)
            if account is not None:
                found[bytes(account).decode()] = int(bytes(rows.get_value(i, 2) or b""))
        return int(bytes(rows.get_value(0, 0) or b"")), balances_of(players, found)

    async def claim(self, player: str, day: int, per_day: int) -> int | None:
        """As :meth:`services.ledger.application.journal.Writer.claim`: one
        statement inside the open transaction, one round trip."""
        self.pipe.query(CLAIM, (player_account(player), day, per_day))
        rows = (await self.pipe.results())[-1]
        return int(bytes(rows.get_value(0, 0) or b"")) if rows.ntuples else None

    async def close(self, txid: int, balances: Mapping[str, int],
                    player_deltas: Mapping[str, int], house_deltas: Mapping[str, int],
                    result_json: str, events: Sequence[dict[str, Any]], now: int,
                    tally: Tally | None = None) -> None:
        """As :meth:`services.ledger.application.journal.Writer.close`: one statement, one
        more for each house account after the first (a settlement whose losers
        could not pay: fees and remainder), and COMMIT, in one round trip."""
        moved, house = postings(txid, player_deltas, house_deltas)
        keys = [*moved, *(a for a, _ in house[:1])]
        deltas = [*moved.values(), *(d for _, d in house[:1])]
        seated = tally.columns() if tally is not None else ([], [], [], [], [])
        self.pipe.query(CLOSE, (
            keys, deltas, txid, now, *event_rows(events), result_json, *seated,
            tally.server if tally is not None else "", tally.day if tally is not None else 0,
            len(keys)))
        for key, d in house[1:]:
            self.pipe.query(HOUSE, (key, d, txid))
        self.pipe.command(b"COMMIT")
        try:
            await self.pipe.results(sync=True)
        except psycopg.errors.InvalidTextRepresentation as e:
            if GUARD not in str(e):
                raise
            raise AssertionError(f"transaction {txid} would take a player below zero "
                                 f"({e})") from None
