"""Player accounts: opening, balance, history.

An account is a ``ledger_accounts`` row (``player:<id>``, services/ledger/adapters/models.py);
its balance is only ever changed by a posting, under its row lock
(services/ledger/application/journal.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, insert, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from services.ledger.adapters.models import accounts, entries, player_account, transactions
from services.ledger.adapters.unit_of_work import UnitOfWork
from services.ledger.domain import settlement as rules
from services.ledger.domain.errors import INVALID_ARGUMENT, NOT_FOUND, LedgerError

MAX_HISTORY = 500
#: FindAccounts: at most this many accounts (and 20 by default).
MAX_FOUND = 100


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


class Accounts:
    """Opening and reading player accounts through ``uow``."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    async def open(self, player: str, name: str) -> AccountView:
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
                        created_ms=self.uow.clock()))
            except IntegrityError:
                pass

        await self.uow.run("open", work)
        return await self.balance(player)

    async def balance(self, player: str) -> AccountView:
        """``player``'s account. Errors: ``unknown_player`` (NOT_FOUND)."""
        rules.check_player(player)

        async def read(conn: AsyncConnection) -> AccountView | None:
            row = (await conn.execute(select(accounts.c.name, accounts.c.balance)
                                      .where(accounts.c.account == player_account(player)))
                   ).one_or_none()
            return None if row is None else AccountView(player, str(row.name), int(row.balance))

        found = await self.uow.query("balance", read)
        if found is None:
            raise LedgerError(NOT_FOUND, "unknown_player", f"no account for {player}")
        return found

    async def history(self, player: str, limit: int = 50) -> list[HistoryEntry]:
        """``player``'s entries, newest first, at most ``limit`` (1–500; 0 means
        50). Errors: ``unknown_player`` (NOT_FOUND), ``bad_limit``."""
        if limit < 0 or limit > MAX_HISTORY:
            raise LedgerError(INVALID_ARGUMENT, "bad_limit", f"limit must be 0-{MAX_HISTORY}")
        await self.balance(player)

        async def read(conn: AsyncConnection) -> list[HistoryEntry]:
            result = await conn.execute(
                select(entries.c.transaction_id, transactions.c.kind, transactions.c.reference,
                       entries.c.delta, entries.c.balance_after, transactions.c.created_ms)
                .join(transactions, transactions.c.id == entries.c.transaction_id)
                .where(entries.c.account == player_account(player))
                .order_by(entries.c.id.desc()).limit(limit or 50))
            return [HistoryEntry(int(r.transaction_id), str(r.kind), str(r.reference),
                                 int(r.delta), int(r.balance_after), int(r.created_ms))
                    for r in result]

        return await self.uow.query("history", read)


def _like(text: str) -> str:
    """``text`` as a literal LIKE pattern (escape character ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


async def find(uow: UnitOfWork, query: str, limit: int = 0) -> list[AccountView]:
    """Player accounts whose id is ``query`` or starts with it, or whose name
    contains it (case-insensitive), by id; at most ``limit`` (0: 20; at most
    :data:`MAX_FOUND`). Errors: ``bad_query`` (empty, or over 128
    characters), ``bad_limit`` (INVALID_ARGUMENT)."""
    query = query.strip()
    if not query or len(query) > 128:
        raise LedgerError(INVALID_ARGUMENT, "bad_query", "query must be 1-128 characters")
    if limit < 0 or limit > MAX_FOUND:
        raise LedgerError(INVALID_ARGUMENT, "bad_limit", f"limit must be 0-{MAX_FOUND}")
    literal = _like(query)

    async def read(conn: AsyncConnection) -> list[AccountView]:
        rows = await conn.execute(
            select(accounts.c.account, accounts.c.name, accounts.c.balance)
            .where(accounts.c.kind == "player",
                   or_(accounts.c.account.like(player_account(literal) + "%", escape="\\"),
                       func.lower(accounts.c.name).like(f"%{literal.lower()}%",
                                                        escape="\\")))
            .order_by(accounts.c.account).limit(limit or 20))
        return [AccountView(str(r.account).removeprefix("player:"), str(r.name),
                            int(r.balance)) for r in rows]

    return await uow.query("find", read)
