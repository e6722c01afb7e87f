"""The journal's two steps (services/ledger/application/journal.py) through SQLAlchemy Core,
statement by statement: the SQLite ledger's writer (its write transaction,
``BEGIN IMMEDIATE``, holds the database's write lock, so reading the
players' rows is their lock)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import BigInteger, case, insert, literal, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from services.ledger.adapters.models import (
    accounts,
    entries,
    player_account,
    relief_daily,
    seats,
    transactions,
    wins_daily,
)
from services.ledger.adapters.outbox import write_events
from services.ledger.application.journal import Repeat, Tally, balances_of, postings


class SqlWriter:
    """:class:`services.ledger.application.journal.Writer` on a SQLAlchemy connection in a
    write transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn

    async def open(self, kind: str, reference: str, digest: str, now: int,
                   players: Sequence[str], game: str = "", reason: str = "",
                   server: str = "", room: str = "", played_ms: int = 0,
                   ) -> tuple[int, dict[str, int]]:
        """As :meth:`services.ledger.application.journal.Writer.open`."""
        try:
            result = await self.conn.execute(
                insert(transactions).values(kind=kind, reference=reference,
                                            content_hash=digest, game=game, reason=reason,
                                            created_ms=now, server=server, room=room,
                                            played_ms=played_ms)
                .returning(transactions.c.id))
        except IntegrityError as e:
            raise Repeat() from e
        txid = int(result.scalar_one())
        keys = sorted({player_account(p) for p in players})
        query = (select(accounts.c.account, accounts.c.balance)
                 .where(accounts.c.account.in_(keys)).order_by(accounts.c.account))
        found = {str(r.account): int(r.balance) for r in await self.conn.execute(query)}
        return txid, balances_of(players, found)

    async def claim(self, player: str, day: int, per_day: int) -> int | None:
        """As :meth:`services.ledger.application.journal.Writer.claim`."""
        upsert = sqlite_insert(relief_daily).values(
            account=player_account(player), day=day, claims=1)
        counted = await self.conn.execute(upsert.on_conflict_do_update(
            index_elements=["account", "day"],
            set_={"claims": relief_daily.c.claims + 1},
            where=relief_daily.c.claims < per_day).returning(relief_daily.c.claims))
        found = counted.scalar_one_or_none()
        return None if found is None else int(found)

    async def close(self, txid: int, balances: Mapping[str, int],
                    player_deltas: Mapping[str, int], house_deltas: Mapping[str, int],
                    result_json: str, events: Sequence[dict[str, Any]], now: int,
                    tally: Tally | None = None) -> None:
        """As :meth:`services.ledger.application.journal.Writer.close`."""
        moved, house = postings(txid, player_deltas, house_deltas)
        conn = self.conn
        if tally is not None:
            await self._tally(txid, tally)
        await conn.execute(update(transactions).where(transactions.c.id == txid)
                           .values(result_json=result_json))
        await write_events(conn, events, now)
        rows = []
        if moved:
            # One statement for every player; the guard keeps balances >= 0.
            delta = case(*((accounts.c.account == key, literal(d, BigInteger()))
                           for key, d in moved.items()), else_=literal(0, BigInteger()))
            res = await conn.execute(
                update(accounts).where(accounts.c.account.in_(list(moved)),
                                       accounts.c.balance + delta >= 0)
                .values(balance=accounts.c.balance + delta))
            if res.rowcount != len(moved):
                raise AssertionError(f"transaction {txid} would take a player below zero")
            rows = [{"transaction_id": txid, "account": player_account(p), "delta": d,
                     "balance_after": balances[p] + d}
                    for p, d in sorted(player_deltas.items()) if d]
        for key, d in house:
            new = (await conn.execute(
                update(accounts).where(accounts.c.account == key)
                .values(balance=accounts.c.balance + d).returning(accounts.c.balance)
            )).scalar_one()
            rows.append({"transaction_id": txid, "account": key, "delta": d,
                         "balance_after": int(new)})
        if rows:
            await conn.execute(insert(entries), rows)

    async def _tally(self, txid: int, tally: Tally) -> None:
        """A settlement's seats and its coins won added to the day's tally."""
        keys, seat_nos, points, coins, fees = tally.columns()
        await self.conn.execute(insert(seats), [
            {"account": a, "transaction_id": txid, "seat": s, "points": p, "coins": c, "fee": f}
            for a, s, p, c, f in zip(keys, seat_nos, points, coins, fees, strict=True)])
        for key, won in zip(keys, coins, strict=True):
            upsert = sqlite_insert(wins_daily).values(
                server=tally.server, day=tally.day, account=key, coins=won, games=1)
            await self.conn.execute(upsert.on_conflict_do_update(
                index_elements=["server", "day", "account"],
                set_={"coins": wins_daily.c.coins + won, "games": wins_daily.c.games + 1}))
