"""The ledger's storage: accounts, the double-entry journal and the outbox.

Every change is one database transaction (a unit of work) that

1. inserts its ``ledger_transactions`` row first: the unique key (kind,
   reference) makes a repeat fail right there (``IntegrityError``), and the
   stored answer is returned when the content hash matches (else
   ``game_id_conflict`` / ``grant_id_conflict`` / ``charge_id_conflict``);
2. locks the accounts it touches — ``SELECT … FOR UPDATE`` in account order on
   PostgreSQL (players first, house accounts last: a global order, so no
   deadlock); on SQLite writers are serialised by an in-process lock and
   ``BEGIN IMMEDIATE`` (across processes by SQLite's write lock and busy timeout);
3. updates balances with ``balance = balance + delta`` guarded by
   ``balance + delta >= 0`` for players, writes the entries (they sum to zero)
   and the ``balance_changed`` events into the outbox, and commits.

Deadlocks, serialization failures, a busy SQLite and dropped connections are
retried (``paiju_ledger_retries_total``); a retry after an unknown commit
outcome is safe because the transaction row makes it a repeat.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import (
    BigInteger,
    Connection,
    and_,
    case,
    event,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from paiju import subjects
from paiju.db import retryable
from services.ledger import settlement as rules
from services.ledger.errors import (
    ALREADY_EXISTS,
    INVALID_ARGUMENT,
    NOT_FOUND,
    LedgerError,
)
from services.ledger.metrics import RETRIES
from services.ledger.models import (
    HOUSE_FEES,
    HOUSE_GRANTS,
    HOUSE_PENALTIES,
    HOUSE_ROOM_FEES,
    accounts,
    entries,
    outbox,
    player_account,
    transactions,
)

T = TypeVar("T")

BALANCE_CHANGED = "balance_changed"
MAX_HISTORY = 500
#: Transaction kind → the refusal of a repeated key with other content.
_CONFLICTS = {"grant": ("grant_id_conflict", "grant {} was made with other content"),
              "settle": ("game_id_conflict", "game {} was settled with other content"),
              "fee": ("charge_id_conflict", "charge {} was made with other content")}


def now_ms() -> int:
    """The wall clock in unix milliseconds (the default clock)."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class AccountView:
    """A player's account: id, display name, coins."""

    player: str
    name: str
    coins: int


@dataclass(frozen=True)
class HistoryEntry:
    """One journal entry of a player: its transaction, kind (settle, grant, fee),
    reference (game id, grant id, charge id), delta, balance after it, time."""

    transaction_id: int
    kind: str
    reference: str
    delta: int
    balance_after: int
    ts_ms: int


@dataclass(frozen=True)
class SettleOutcome:
    """The answer to a settlement (or a fee charge): the rows, the house's take
    split into fees and remainder, and whether it was a repeat."""

    reference: str
    rows: tuple[rules.Row, ...]
    fees: int
    remainder: int
    repeated: bool

    @property
    def house(self) -> int:
        """Everything the house took."""
        return self.fees + self.remainder


@dataclass(frozen=True)
class AuditReport:
    """What :meth:`Ledger.audit` found. ``ok`` when every balance equals its
    entries' sum, every transaction sums to zero, the journal sums to zero and
    no player is below zero."""

    accounts: int
    transactions: int
    journal_sum: int
    mismatched_accounts: tuple[str, ...]
    unbalanced_transactions: tuple[int, ...]
    negative_accounts: tuple[str, ...]
    house: Mapping[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return (self.journal_sum == 0 and not self.mismatched_accounts
                and not self.unbalanced_transactions and not self.negative_accounts)


@dataclass(frozen=True)
class OutboxEvent:
    """One unpublished event: its id, subject, type, game id and JSON data."""

    id: int
    subject: str
    type: str
    game_id: str
    data: dict[str, Any]
    created_ms: int


class _Repeat(Exception):
    """The transaction row exists already (raised inside the unit of work)."""


def content_hash(content: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``content`` as canonical JSON: what makes two requests
    with one idempotency key "the same"."""
    blob = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _sqlite_transactions(engine: AsyncEngine) -> None:
    """Let the ledger, not the driver, begin SQLite transactions: ``BEGIN
    IMMEDIATE`` for writers (execution option ``ledger_write``), ``BEGIN``
    for readers (one snapshot for the whole read)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _no_implicit_begin(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("ledger_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _rows_json(rows: Sequence[rules.Row], fees: int, remainder: int) -> str:
    return json.dumps({"rows": [[r.player, r.seat, r.points, r.coins, r.fee] for r in rows],
                       "fees": fees, "remainder": remainder}, separators=(",", ":"))


def _outcome(reference: str, result_json: str, repeated: bool) -> SettleOutcome:
    data = json.loads(result_json)
    rows = tuple(rules.Row(str(p), int(s), int(pt), int(c), int(f))
                 for p, s, pt, c, f in data["rows"])
    return SettleOutcome(reference, rows, int(data["fees"]), int(data["remainder"]), repeated)


class Ledger:
    """Accounts, settlements, grants, fees and audits on one database.

    ``engine``: an async engine (``paiju.db.make_engine``) whose schema is
    migrated. ``clock``: unix milliseconds (injectable). ``on_commit`` is called
    after every commit that wrote outbox events (wakes the relay).
    """

    def __init__(self, engine: AsyncEngine, clock: Callable[[], int] = now_ms,
                 max_attempts: int = 20) -> None:
        self.engine = engine
        self.clock = clock
        self.max_attempts = max_attempts
        self.sqlite = engine.dialect.name == "sqlite"
        self.on_commit: Callable[[], None] | None = None
        self._writer_lock = asyncio.Lock() if self.sqlite else None
        if self.sqlite:
            _sqlite_transactions(engine)
        self._write_engine = engine.execution_options(ledger_write=True)

    # -- units of work ------------------------------------------------------

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        if self._writer_lock is None:
            async with self._write_engine.begin() as conn:
                yield conn
            return
        async with self._writer_lock, self._write_engine.begin() as conn:
            yield conn

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.connect() as conn:
            if not self.sqlite:
                await conn.execution_options(isolation_level="REPEATABLE READ")
            async with conn.begin():
                yield conn

    async def _unit(self, operation: str,
                    work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run ``work`` in a write transaction, retrying retryable failures."""
        for attempt in range(self.max_attempts):
            try:
                async with self._write() as conn:
                    result = await work(conn)
            except DBAPIError as e:
                if not retryable(e) or attempt == self.max_attempts - 1:
                    raise
                RETRIES.labels(operation).inc()
                await asyncio.sleep(random.uniform(0, min(0.2, 0.002 * 2 ** attempt)))
                continue
            if self.on_commit is not None:
                self.on_commit()
            return result
        raise AssertionError("unreachable")

    async def _begin_transaction(self, conn: AsyncConnection, kind: str, reference: str,
                                 digest: str, game: str = "", reason: str = "") -> int:
        try:
            result = await conn.execute(
                insert(transactions).values(kind=kind, reference=reference, content_hash=digest,
                                            game=game, reason=reason,
                                            created_ms=self.clock())
                .returning(transactions.c.id))
        except IntegrityError as e:
            raise _Repeat() from e
        return int(result.scalar_one())

    async def _stored(self, kind: str, reference: str) -> tuple[str, str]:
        async with self._read() as conn:
            row = (await conn.execute(
                select(transactions.c.content_hash, transactions.c.result_json)
                .where(transactions.c.kind == kind, transactions.c.reference == reference)
            )).one()
        return str(row.content_hash), str(row.result_json)

    async def _once(self, kind: str, reference: str, digest: str,
                    work: Callable[[AsyncConnection], Awaitable[T]],
                    repeat: Callable[[str], T]) -> T:
        """Run the unit of work ``work`` (whose first step is
        :meth:`_begin_transaction` of ``kind``/``reference``) once. A repeat of
        the same content (``digest``) answers ``repeat(stored result_json)`` and
        moves nothing; other content under the same key raises
        ``<kind>_id_conflict`` (ALREADY_EXISTS): ``grant_id_conflict``,
        ``game_id_conflict`` (settle), ``charge_id_conflict`` (fee)."""
        try:
            return await self._unit(kind, work)
        except _Repeat:
            stored, result_json = await self._stored(kind, reference)
            if stored != digest:
                reason, message = _CONFLICTS[kind]
                raise LedgerError(ALREADY_EXISTS, reason, message.format(reference)) from None
            return repeat(result_json)

    async def _lock_players(self, conn: AsyncConnection, players: Sequence[str]) -> dict[str, int]:
        """Lock the players' accounts in account order; their balances. Raises
        ``unknown_player`` (NOT_FOUND) if any has no account."""
        keys = sorted(player_account(p) for p in players)
        query = (select(accounts.c.account, accounts.c.balance)
                 .where(accounts.c.account.in_(keys)).order_by(accounts.c.account))
        if not self.sqlite:
            query = query.with_for_update()
        found = {str(r.account): int(r.balance) for r in await conn.execute(query)}
        missing = sorted(p for p in players if player_account(p) not in found)
        if missing:
            raise LedgerError(NOT_FOUND, "unknown_player", f"no account for {', '.join(missing)}")
        return {p: found[player_account(p)] for p in players}

    async def _post(self, conn: AsyncConnection, txid: int, balances: Mapping[str, int],
                    player_deltas: Mapping[str, int], house_deltas: Mapping[str, int],
                    ) -> dict[str, int]:
        """Apply the deltas (players in account order, then house accounts) and
        write the entries; returns each player's balance after. Called last in
        a unit of work: the hot house rows stay locked only until the commit."""
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

    async def _events(self, conn: AsyncConnection, events: Sequence[dict[str, Any]]) -> None:
        """Write ``balance_changed`` events (each with ``player``) into the outbox."""
        if not events:
            return
        now = self.clock()
        await conn.execute(insert(outbox), [
            {"subject": subjects.player_events(e["player"]), "type": BALANCE_CHANGED,
             "game_id": e.get("game_id", ""), "created_ms": now,
             "data_json": json.dumps(e, ensure_ascii=False, separators=(",", ":"))}
            for e in events])

    # -- accounts -----------------------------------------------------------

    async def open_account(self, player: str, name: str) -> AccountView:
        """Open ``player``'s account with 0 coins; an existing one is returned as
        is. Errors: ``bad_player_id``, ``bad_name`` (INVALID_ARGUMENT)."""
        rules.check_player(player)
        if len(name) > 128:
            raise LedgerError(INVALID_ARGUMENT, "bad_name", "name longer than 128 characters")

        async def work(conn: AsyncConnection) -> None:
            try:
                async with conn.begin_nested():
                    await conn.execute(insert(accounts).values(
                        account=player_account(player), kind="player", name=name, balance=0,
                        created_ms=self.clock()))
            except IntegrityError:
                pass

        await self._unit("open", work)
        return await self.balance(player)

    async def balance(self, player: str) -> AccountView:
        """``player``'s account. Errors: ``unknown_player`` (NOT_FOUND)."""
        rules.check_player(player)
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(accounts.c.name, accounts.c.balance)
                                      .where(accounts.c.account == player_account(player)))
                   ).one_or_none()
        if row is None:
            raise LedgerError(NOT_FOUND, "unknown_player", f"no account for {player}")
        return AccountView(player, str(row.name), int(row.balance))

    async def history(self, player: str, limit: int = 50) -> list[HistoryEntry]:
        """``player``'s entries, newest first, at most ``limit`` (1–500; 0 means
        50). Errors: ``unknown_player`` (NOT_FOUND), ``bad_limit``."""
        if limit < 0 or limit > MAX_HISTORY:
            raise LedgerError(INVALID_ARGUMENT, "bad_limit", f"limit must be 0-{MAX_HISTORY}")
        await self.balance(player)
        async with self.engine.connect() as conn:
            result = await conn.execute(
                select(entries.c.transaction_id, transactions.c.kind, transactions.c.reference,
                       entries.c.delta, entries.c.balance_after, transactions.c.created_ms)
                .join(transactions, transactions.c.id == entries.c.transaction_id)
                .where(entries.c.account == player_account(player))
                .order_by(entries.c.id.desc()).limit(limit or 50))
            return [HistoryEntry(int(r.transaction_id), str(r.kind), str(r.reference),
                                 int(r.delta), int(r.balance_after), int(r.created_ms))
                    for r in result]

    # -- money --------------------------------------------------------------

    async def grant(self, player: str, coins: int, reason: str = "", grant_id: str = "",
                    ) -> tuple[AccountView, bool]:
        """Give ``player`` ``coins`` (> 0) from ``house:grants``; idempotent by
        ``grant_id`` (empty: a fresh one). Returns the account and whether it
        was a repeat. Errors: ``bad_amount``, ``bad_reference`` (INVALID_ARGUMENT),
        ``unknown_player`` (NOT_FOUND), ``grant_id_conflict`` (ALREADY_EXISTS)."""
        rules.check_player(player)
        _check_amount(coins)
        reason = reason or "grant"
        grant_id = grant_id or f"auto:{uuid.uuid4()}"
        _check_reference(grant_id, reason)
        digest = content_hash({"player": player, "coins": coins, "reason": reason})

        async def work(conn: AsyncConnection) -> bool:
            txid = await self._begin_transaction(conn, "grant", grant_id, digest, reason=reason)
            balances = await self._lock_players(conn, [player])
            await conn.execute(update(transactions).where(transactions.c.id == txid)
                               .values(result_json=json.dumps({"coins": coins})))
            await self._events(conn, [{"player": player, "coins": balances[player] + coins,
                                       "delta": coins, "reason": reason, "game_id": ""}])
            await self._post(conn, txid, balances, {player: coins}, {HOUSE_GRANTS: -coins})
            return False  # applied now, not a repeat

        repeated = await self._once("grant", grant_id, digest, work, lambda _: True)
        return await self.balance(player), repeated

    async def settle(self, game_id: str, terms: rules.Terms, seats: Sequence[rules.Seat],
                     game: str = "", reason: str = "") -> SettleOutcome:
        """Apply the settlement of ``game_id`` (rulings.md "Settlement") once.

        A repeat with the same content returns the stored outcome with
        ``repeated`` true and moves nothing. Errors: INVALID_ARGUMENT (``bad_terms``,
        ``no_seats``, ``duplicate_seat``, ``duplicate_player``, ``bad_player_id``,
        ``points_not_multiple_of_unit``, ``amount_out_of_range``, ``bad_reference``),
        NOT_FOUND ``unknown_player``, ALREADY_EXISTS ``game_id_conflict``.
        """
        _check_reference(game_id, reason, game)
        rules.check_terms(terms)
        rules.check_seats(terms, seats)
        digest = content_hash({
            "terms": [terms.base, terms.unit, repr(float(terms.fee_rate))],
            "seats": sorted([s.seat, s.player, s.points] for s in seats),
            "game": game, "reason": reason})

        async def work(conn: AsyncConnection) -> SettleOutcome:
            txid = await self._begin_transaction(conn, "settle", game_id, digest, game, reason)
            balances = await self._lock_players(conn, [s.player for s in seats])
            result = rules.settle(terms, seats, balances)
            await conn.execute(update(transactions).where(transactions.c.id == txid).values(
                result_json=_rows_json(result.rows, result.fees, result.remainder)))
            await self._events(conn, [
                {"player": r.player, "coins": balances[r.player] + r.coins, "delta": r.coins,
                 "reason": "settlement", "game_id": game_id, "points": r.points, "fee": r.fee}
                for r in result.rows])
            await self._post(conn, txid, balances, {r.player: r.coins for r in result.rows},
                             {HOUSE_FEES: result.fees, HOUSE_PENALTIES: result.remainder})
            return SettleOutcome(game_id, result.rows, result.fees, result.remainder, False)

        return await self._once("settle", game_id, digest, work,
                                lambda stored: _outcome(game_id, stored, True))

    async def charge_fee(self, charge_id: str, players: Sequence[str], coins: int,
                         reason: str = "", game_id: str = "") -> SettleOutcome:
        """Charge each of ``players`` a room fee of ``coins``, capped at its
        balance (rulings.md: the doudizhu no-call fee), into ``house:room_fees``;
        idempotent by ``charge_id``. Rows: ``coins`` the (negative) change, ``fee``
        what was taken, ``seat`` the player's index in ``players``. Errors:
        ``bad_amount``, ``no_players``, ``duplicate_player``, ``bad_player_id``,
        ``bad_reference`` (INVALID_ARGUMENT), ``unknown_player`` (NOT_FOUND),
        ``charge_id_conflict`` (ALREADY_EXISTS)."""
        _check_reference(charge_id, reason, game_id)
        _check_amount(coins)
        if not players:
            raise LedgerError(INVALID_ARGUMENT, "no_players", "a fee needs at least one player")
        if len(set(players)) != len(players):
            raise LedgerError(INVALID_ARGUMENT, "duplicate_player", "a player appears twice")
        for p in players:
            rules.check_player(p)
        reason = reason or "room_fee"
        digest = content_hash({"players": list(players), "coins": coins, "reason": reason,
                               "game_id": game_id})

        async def work(conn: AsyncConnection) -> SettleOutcome:
            txid = await self._begin_transaction(conn, "fee", charge_id, digest, reason=reason)
            balances = await self._lock_players(conn, players)
            taken = {p: rules.charge(coins, balances[p]) for p in players}
            rows = tuple(rules.Row(p, i, 0, -taken[p], taken[p]) for i, p in enumerate(players))
            await conn.execute(update(transactions).where(transactions.c.id == txid)
                               .values(result_json=_rows_json(rows, sum(taken.values()), 0)))
            await self._events(conn, [
                {"player": p, "coins": balances[p] - taken[p], "delta": -taken[p],
                 "reason": reason, "game_id": game_id} for p in players])
            await self._post(conn, txid, balances, {p: -t for p, t in taken.items()},
                             {HOUSE_ROOM_FEES: sum(taken.values())})
            return SettleOutcome(charge_id, rows, sum(taken.values()), 0, False)

        return await self._once("fee", charge_id, digest, work,
                                lambda stored: _outcome(charge_id, stored, True))

    # -- audit --------------------------------------------------------------

    async def audit(self) -> AuditReport:
        """Recompute every balance from the journal in one snapshot: mismatches,
        transactions that do not sum to zero, the journal's sum, negative players."""
        async with self._read() as conn:
            balances = {str(r.account): (str(r.kind), int(r.balance)) for r in
                        await conn.execute(select(accounts.c.account, accounts.c.kind,
                                                  accounts.c.balance))}
            sums = {str(r.account): int(r.total) for r in await conn.execute(
                select(entries.c.account, func.sum(entries.c.delta).label("total"))
                .group_by(entries.c.account))}
            unbalanced = tuple(sorted(int(r.transaction_id) for r in await conn.execute(
                select(entries.c.transaction_id).group_by(entries.c.transaction_id)
                .having(func.sum(entries.c.delta) != 0))))
            count = int((await conn.execute(select(func.count()).select_from(transactions))
                         ).scalar_one())
            total = int((await conn.execute(select(func.coalesce(func.sum(entries.c.delta), 0)))
                         ).scalar_one())
        mismatched = tuple(sorted(
            a for a in set(balances) | set(sums)
            if balances.get(a, ("", 0))[1] != sums.get(a, 0)))
        negative = tuple(sorted(a for a, (kind, b) in balances.items()
                                if kind == "player" and b < 0))
        house = {a: b for a, (kind, b) in balances.items() if kind == "house"}
        return AuditReport(len(balances), count, total, mismatched, unbalanced, negative, house)

    # -- outbox -------------------------------------------------------------

    async def unsent(self, limit: int = 200) -> list[OutboxEvent]:
        """Up to ``limit`` unpublished events, oldest first."""
        async with self.engine.connect() as conn:
            result = await conn.execute(
                select(outbox).where(outbox.c.sent_ms.is_(None)).order_by(outbox.c.id)
                .limit(limit))
            return [OutboxEvent(int(r.id), str(r.subject), str(r.type), str(r.game_id),
                                json.loads(r.data_json), int(r.created_ms)) for r in result]

    async def mark_sent(self, ids: Sequence[int]) -> None:
        """Record that the events ``ids`` were published."""
        if not ids:
            return
        now = self.clock()

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(update(outbox).where(and_(outbox.c.id.in_(list(ids)),
                                                         outbox.c.sent_ms.is_(None)))
                               .values(sent_ms=now))

        await self._unit("outbox", work)

    async def outbox_backlog(self) -> tuple[int, int | None]:
        """(number of unpublished events, creation time of the oldest in ms or None)."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(func.count(), func.min(outbox.c.created_ms))
                                      .where(outbox.c.sent_ms.is_(None)))).one()
        return int(row[0]), (None if row[1] is None else int(row[1]))


def _check_amount(coins: int) -> None:
    if not isinstance(coins, int) or isinstance(coins, bool) or not 0 < coins <= rules.MAX_AMOUNT:
        raise LedgerError(INVALID_ARGUMENT, "bad_amount",
                          f"coins must be a positive whole number, got {coins!r}")


def _check_reference(reference: str, *labels: str) -> None:
    if not reference or len(reference) > 160:
        raise LedgerError(INVALID_ARGUMENT, "bad_reference",
                          "the idempotency key (game_id, grant_id, charge_id) must be "
                          "1-160 characters")
    for label in labels:
        if len(label) > 64:
            raise LedgerError(INVALID_ARGUMENT, "bad_reference",
                              f"{label[:20]!r}… is longer than 64 characters")
