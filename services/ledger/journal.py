"""The journal's writes: the idempotent transaction row, the account locks and
the postings of one change.

Every change is one unit of work of two steps around the settlement rule:

1. :func:`open_transaction` inserts its ``ledger_transactions`` row first —
   ``INSERT … ON CONFLICT (kind, reference) DO NOTHING``: the unique key makes
   a repeat insert nothing, inside the database (a concurrent insert of the
   same key waits for the other transaction's outcome), never by
   check-then-insert — then locks the players' accounts in account order
   (``SELECT … FOR UPDATE … ORDER BY account``). A repeat raises
   :class:`Repeat` and locks nothing; :func:`once` then answers with the
   stored result when the content hash matches (else ``game_id_conflict`` /
   ``grant_id_conflict`` / ``charge_id_conflict``).
2. :func:`close_transaction` updates the balances (``balance = balance +
   delta``, guarded by ``balance + delta >= 0`` for players), writes the
   entries (they sum to zero), the ``balance_changed`` events into the outbox
   and the stored result. The house accounts are locked here, last, one at a
   time in key order, so that the hot house rows stay locked only until the
   commit and every change takes its locks in one global order (players by
   account, then house accounts by key): no deadlock between changes.

On PostgreSQL each step is one statement (the first a CTE of the insert and
the locking select, the second a CTE of every write), so a settlement is
four round trips: BEGIN, the two steps, COMMIT. On SQLite the same rows are
written statement by statement (writers are serialised anyway). A retry after
an unknown commit outcome is safe: the transaction row makes it a repeat.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import BigInteger, bindparam, case, insert, literal, select, text, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.types import Text

from services.ledger.errors import ALREADY_EXISTS, NOT_FOUND, LedgerError
from services.ledger.models import accounts, entries, player_account, transactions
from services.ledger.outbox import event_rows, write_events
from services.ledger.unit_of_work import UnitOfWork

T = TypeVar("T")

#: Transaction kind → the refusal of a repeated key with other content.
CONFLICTS = {"grant": ("grant_id_conflict", "grant {} was made with other content"),
             "settle": ("game_id_conflict", "game {} was settled with other content"),
             "fee": ("charge_id_conflict", "charge {} was made with other content")}


class Repeat(Exception):
    """The transaction row exists already (raised inside the unit of work)."""


def content_hash(content: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``content`` as canonical JSON: what makes two requests
    with one idempotency key "the same"."""
    blob = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


# -- step 1: the transaction row and the players' locks ----------------------

#: The transaction row, then the players' rows locked in account order (only
#: if the row was inserted: a repeat locks nothing). One row per locked
#: account, or one (id, NULL, NULL) row if no account exists; none for a repeat.
_OPEN_PG = text("""
WITH tx AS (
    INSERT INTO ledger_transactions (kind, reference, content_hash, game, reason, created_ms)
    VALUES (:kind, :reference, :digest, :game, :reason, :now)
    ON CONFLICT (kind, reference) DO NOTHING
    RETURNING id),
locked AS (
    SELECT account, balance FROM ledger_accounts
    WHERE account = ANY(:keys) AND EXISTS (SELECT FROM tx)
    ORDER BY account
    FOR UPDATE)
SELECT tx.id, locked.account, locked.balance FROM tx LEFT JOIN locked ON true
""").bindparams(bindparam("keys", type_=ARRAY(Text())))


async def open_transaction(conn: AsyncConnection, sqlite: bool, kind: str, reference: str,
                           digest: str, now: int, players: Sequence[str], game: str = "",
                           reason: str = "") -> tuple[int, dict[str, int]]:
    """Insert the transaction row of ``kind``/``reference`` (content hash
    ``digest``, created at ``now`` ms) and lock ``players``' accounts in
    account order; (transaction id, player → balance). Raises :class:`Repeat`
    if the key exists, ``unknown_player`` (NOT_FOUND) if a player has no account."""
    if sqlite:
        txid = await _begin(conn, kind, reference, digest, now, game, reason)
        found = await _lock(conn, sorted(player_account(p) for p in players))
    else:
        rows = (await conn.execute(_OPEN_PG, {
            "kind": kind, "reference": reference, "digest": digest, "game": game,
            "reason": reason, "now": now,
            "keys": sorted(player_account(p) for p in players)})).all()
        if not rows:
            raise Repeat()
        txid = int(rows[0].id)
        found = {str(r.account): int(r.balance) for r in rows if r.account is not None}
    missing = sorted(p for p in players if player_account(p) not in found)
    if missing:
        raise LedgerError(NOT_FOUND, "unknown_player", f"no account for {', '.join(missing)}")
    return txid, {p: found[player_account(p)] for p in players}


async def _begin(conn: AsyncConnection, kind: str, reference: str, digest: str, now: int,
                 game: str, reason: str) -> int:
    try:
        result = await conn.execute(
            insert(transactions).values(kind=kind, reference=reference, content_hash=digest,
                                        game=game, reason=reason, created_ms=now)
            .returning(transactions.c.id))
    except IntegrityError as e:
        raise Repeat() from e
    return int(result.scalar_one())


async def _lock(conn: AsyncConnection, keys: Sequence[str]) -> dict[str, int]:
    # SQLite: the write transaction (BEGIN IMMEDIATE) holds the database's
    # write lock already, so a plain read is the lock.
    query = (select(accounts.c.account, accounts.c.balance)
             .where(accounts.c.account.in_(keys)).order_by(accounts.c.account))
    return {str(r.account): int(r.balance) for r in await conn.execute(query)}


async def _stored(uow: UnitOfWork, kind: str, reference: str) -> tuple[str, str]:
    async def read(conn: AsyncConnection) -> tuple[str, str]:
        row = (await conn.execute(
            select(transactions.c.content_hash, transactions.c.result_json)
            .where(transactions.c.kind == kind, transactions.c.reference == reference)
        )).one()
        return str(row.content_hash), str(row.result_json)

    return await uow.query(kind, read)


async def once(uow: UnitOfWork, kind: str, reference: str, digest: str,
               work: Callable[[AsyncConnection], Awaitable[T]],
               repeat: Callable[[str], T]) -> T:
    """Run the unit of work ``work`` (whose first step is :func:`open_transaction`
    of ``kind``/``reference``) once. A repeat of the same content (``digest``)
    answers ``repeat(stored result_json)`` and moves nothing; other content
    under the same key raises ``<kind>_id_conflict`` (ALREADY_EXISTS):
    ``grant_id_conflict``, ``game_id_conflict`` (settle), ``charge_id_conflict`` (fee)."""
    try:
        return await uow.run(kind, work, events=True)
    except Repeat:
        stored, result_json = await _stored(uow, kind, reference)
        if stored != digest:
            reason, message = CONFLICTS[kind]
            raise LedgerError(ALREADY_EXISTS, reason, message.format(reference)) from None
        return repeat(result_json)


# -- step 2: balances, entries, events, the stored result --------------------

#: Every write of a change but the second and later house accounts: the
#: balance updates (players locked already, at most one house account), the
#: entries from their new balances, the outbox events, the stored result.
#: Returns the number of accounts updated (fewer than asked: a player's guard).
_CLOSE_PG = text("""
WITH moved AS (
    UPDATE ledger_accounts AS a SET balance = a.balance + v.delta
    FROM unnest(:keys, :deltas) AS v(account, delta)
    WHERE a.account = v.account AND (a.kind = 'house' OR a.balance + v.delta >= 0)
    RETURNING a.account, v.delta, a.balance),
posted AS (
    INSERT INTO ledger_entries (transaction_id, account, delta, balance_after)
    SELECT :txid, account, delta, balance FROM moved ORDER BY account),
events AS (
    INSERT INTO ledger_outbox (subject, type, game_id, data_json, created_ms)
    SELECT e.subject, e.type, e.game_id, e.data_json, :now
    FROM unnest(:subjects, :types, :game_ids, :datas) WITH ORDINALITY
        AS e(subject, type, game_id, data_json, n)
    ORDER BY e.n),
stored AS (
    UPDATE ledger_transactions SET result_json = :result WHERE id = :txid)
SELECT count(*) FROM moved
""").bindparams(*(bindparam(name, type_=ARRAY(Text()))
                  for name in ("keys", "subjects", "types", "game_ids", "datas")),
                bindparam("deltas", type_=ARRAY(BigInteger())))


async def close_transaction(conn: AsyncConnection, sqlite: bool, txid: int,
                            balances: Mapping[str, int], player_deltas: Mapping[str, int],
                            house_deltas: Mapping[str, int], result_json: str,
                            events: Sequence[dict[str, Any]], now: int) -> None:
    """Post transaction ``txid``: apply the deltas (``balances``: the players'
    locked balances before), write the entries, the ``events`` (outbox, at
    ``now`` ms) and ``result_json`` (the answer to repeats). Called last in a
    unit of work. Raises AssertionError if the deltas do not sum to zero or
    would take a player below zero (the settlement rules never do)."""
    moved = {player_account(p): d for p, d in player_deltas.items() if d}
    house = sorted((a, d) for a, d in house_deltas.items() if d)
    if sum(moved.values()) + sum(d for _, d in house) != 0:
        raise AssertionError(f"transaction {txid} does not sum to zero: {moved} {house}")
    if sqlite:
        await conn.execute(update(transactions).where(transactions.c.id == txid)
                           .values(result_json=result_json))
        await write_events(conn, events, now)
        await _post_players(conn, txid, balances, player_deltas, moved)
        await _post_house(conn, txid, house)
        return
    first = house[:1]
    keys = [*moved, *(a for a, _ in first)]
    subjects, types, game_ids, datas = event_rows(events)
    updated = (await conn.execute(_CLOSE_PG, {
        "keys": keys, "deltas": [*moved.values(), *(d for _, d in first)], "txid": txid,
        "subjects": subjects, "types": types, "game_ids": game_ids, "datas": datas,
        "now": now, "result": result_json})).scalar_one()
    if updated != len(keys):
        raise AssertionError(f"transaction {txid} would take a player below zero")
    await _post_house(conn, txid, house[1:])


async def _post_players(conn: AsyncConnection, txid: int, balances: Mapping[str, int],
                        player_deltas: Mapping[str, int], moved: Mapping[str, int]) -> None:
    if not moved:
        return
    # One statement for every player; the guard keeps balances >= 0 (the rows
    # are locked already, so the order of this update is free).
    delta = case(*((accounts.c.account == key, literal(d, BigInteger()))
                   for key, d in moved.items()), else_=literal(0, BigInteger()))
    res = await conn.execute(
        update(accounts).where(accounts.c.account.in_(list(moved)),
                               accounts.c.balance + delta >= 0)
        .values(balance=accounts.c.balance + delta))
    if res.rowcount != len(moved):
        raise AssertionError(f"transaction {txid} would take a player below zero")
    await conn.execute(insert(entries), [
        {"transaction_id": txid, "account": key, "delta": d, "balance_after": balances[p] + d}
        for key, p, d in sorted((player_account(p), p, d)
                                for p, d in player_deltas.items() if d)])


async def _post_house(conn: AsyncConnection, txid: int,
                      house: Sequence[tuple[str, int]]) -> None:
    """Update the house accounts ``house`` ((key, delta) in key order) one by
    one and write their entries."""
    for key, d in house:
        new = (await conn.execute(
            update(accounts).where(accounts.c.account == key)
            .values(balance=accounts.c.balance + d).returning(accounts.c.balance)
        )).scalar_one()
        await conn.execute(insert(entries).values(transaction_id=txid, account=key, delta=d,
                                                  balance_after=int(new)))
