"""The journal's writes: the idempotent transaction row and the postings.

Every change is one unit of work that

1. inserts its ``ledger_transactions`` row first (:func:`begin`): the unique
   key (kind, reference) makes a repeat fail right there (``IntegrityError``),
   and :func:`once` returns the stored answer when the content hash matches
   (else ``game_id_conflict`` / ``grant_id_conflict`` / ``charge_id_conflict``);
2. locks the accounts it touches (services/ledger/accounts.py ``lock_players``:
   players in account order; the house accounts are locked last, by their
   update, in a fixed order — a global order, so no deadlock);
3. posts (:func:`post`): balances updated with ``balance = balance + delta``,
   guarded by ``balance + delta >= 0`` for players, and the entries written
   (they sum to zero); the outbox events go in the same transaction.

A retry after an unknown commit outcome is safe: the transaction row makes
it a repeat.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from sqlalchemy import BigInteger, case, insert, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from services.ledger.errors import ALREADY_EXISTS, LedgerError
from services.ledger.models import accounts, entries, player_account, transactions
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


async def begin(conn: AsyncConnection, kind: str, reference: str, digest: str, now: int,
                game: str = "", reason: str = "") -> int:
    """Insert the transaction row of ``kind``/``reference`` (content hash
    ``digest``, created at ``now`` ms); its id. Raises :class:`Repeat` if the
    key exists (a concurrent insert of the same key waits for the other
    transaction's outcome inside the database)."""
    try:
        result = await conn.execute(
            insert(transactions).values(kind=kind, reference=reference, content_hash=digest,
                                        game=game, reason=reason, created_ms=now)
            .returning(transactions.c.id))
    except IntegrityError as e:
        raise Repeat() from e
    return int(result.scalar_one())


async def _stored(uow: UnitOfWork, kind: str, reference: str) -> tuple[str, str]:
    async with uow.read() as conn:
        row = (await conn.execute(
            select(transactions.c.content_hash, transactions.c.result_json)
            .where(transactions.c.kind == kind, transactions.c.reference == reference)
        )).one()
    return str(row.content_hash), str(row.result_json)


async def once(uow: UnitOfWork, kind: str, reference: str, digest: str,
               work: Callable[[AsyncConnection], Awaitable[T]],
               repeat: Callable[[str], T]) -> T:
    """Run the unit of work ``work`` (whose first step is :func:`begin` of
    ``kind``/``reference``) once. A repeat of the same content (``digest``)
    answers ``repeat(stored result_json)`` and moves nothing; other content
    under the same key raises ``<kind>_id_conflict`` (ALREADY_EXISTS):
    ``grant_id_conflict``, ``game_id_conflict`` (settle), ``charge_id_conflict`` (fee)."""
    try:
        return await uow.run(kind, work)
    except Repeat:
        stored, result_json = await _stored(uow, kind, reference)
        if stored != digest:
            reason, message = CONFLICTS[kind]
            raise LedgerError(ALREADY_EXISTS, reason, message.format(reference)) from None
        return repeat(result_json)


async def post(conn: AsyncConnection, txid: int, balances: Mapping[str, int],
               player_deltas: Mapping[str, int], house_deltas: Mapping[str, int],
               ) -> dict[str, int]:
    """Apply the deltas (players, then house accounts in key order) and write
    the entries of transaction ``txid``; ``balances`` are the players' locked
    balances before. Returns each player's balance after. Called last in a
    unit of work: the hot house rows stay locked only until the commit.
    Raises AssertionError if the deltas do not sum to zero or would take a
    player below zero (the settlement rules never do)."""
    deltas = {player_account(p): d for p, d in player_deltas.items() if d}
    deltas.update({a: d for a, d in house_deltas.items() if d})
    if sum(deltas.values()) != 0:
        raise AssertionError(f"transaction {txid} does not sum to zero: {deltas}")
    after = {p: balances[p] + player_deltas.get(p, 0) for p in balances}
    moved = {player_account(p): d for p, d in player_deltas.items() if d}
    rows = [{"transaction_id": txid, "account": key, "delta": d, "balance_after": after[p]}
            for key, p, d in sorted((player_account(p), p, d)
                                    for p, d in player_deltas.items() if d)]
    if moved:
        # One statement for every player; the guard keeps balances >= 0
        # (the rows are locked already, so the order of this update is free).
        delta = case(*((accounts.c.account == key, literal(d, BigInteger()))
                       for key, d in moved.items()), else_=literal(0, BigInteger()))
        res = await conn.execute(
            update(accounts).where(accounts.c.account.in_(list(moved)),
                                   accounts.c.balance + delta >= 0)
            .values(balance=accounts.c.balance + delta))
        if res.rowcount != len(moved):
            raise AssertionError(f"transaction {txid} would take a player below zero")
    for key in sorted(house_deltas):
        d = house_deltas[key]
        if not d:
            continue
        new = (await conn.execute(
            update(accounts).where(accounts.c.account == key)
            .values(balance=accounts.c.balance + d).returning(accounts.c.balance)
        )).scalar_one()
        rows.append({"transaction_id": txid, "account": key, "delta": d,
                     "balance_after": int(new)})
    if rows:
        await conn.execute(insert(entries), rows)
    return after
