"""The ledger's audit: every balance recomputed from the journal in one snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlalchemy import func, select

from services.ledger.adapters.models import accounts, entries, transactions
from services.ledger.adapters.unit_of_work import UnitOfWork


@dataclass(frozen=True)
class AuditReport:
    """What :func:`audit` found. ``ok`` when every balance equals its
    entries' sum, every transaction sums to zero, the journal sums to zero and
    no player is below zero."""

    accounts: int
    transactions: int
    journal_sum: int
    mismatched_accounts: tuple[str, ...]
    unbalanced_transactions: tuple[int, ...]
    negative_accounts: tuple[str, ...]
    house: Mapping[str, int] = field(default_factory=dict)
    #: Transactions by kind (settle, grant, fee, adjust, relief).
    kinds: Mapping[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return (self.journal_sum == 0 and not self.mismatched_accounts
                and not self.unbalanced_transactions and not self.negative_accounts)


async def audit(uow: UnitOfWork) -> AuditReport:
    """Recompute every balance from the journal in one snapshot: mismatches,
    transactions that do not sum to zero, the journal's sum, negative players,
    the house accounts' balances, the transactions by kind."""
    async with uow.read(snapshot=True) as conn:
        balances = {str(r.account): (str(r.kind), int(r.balance)) for r in
                    await conn.execute(select(accounts.c.account, accounts.c.kind,
                                              accounts.c.balance))}
        sums = {str(r.account): int(r.total) for r in await conn.execute(
            select(entries.c.account, func.sum(entries.c.delta).label("total"))
            .group_by(entries.c.account))}
        unbalanced = tuple(sorted(int(r.transaction_id) for r in await conn.execute(
            select(entries.c.transaction_id).group_by(entries.c.transaction_id)
            .having(func.sum(entries.c.delta) != 0))))
        kinds = {str(r.kind): int(r.n) for r in await conn.execute(
            select(transactions.c.kind, func.count().label("n"))
            .group_by(transactions.c.kind).order_by(transactions.c.kind))}
        count = sum(kinds.values())
        total = int((await conn.execute(select(func.coalesce(func.sum(entries.c.delta), 0)))
                     ).scalar_one())
    mismatched = tuple(sorted(
        a for a in set(balances) | set(sums)
        if balances.get(a, ("", 0))[1] != sums.get(a, 0)))
    negative = tuple(sorted(a for a, (kind, b) in balances.items()
                            if kind == "player" and b < 0))
    house = {a: b for a, (kind, b) in balances.items() if kind == "house"}
    return AuditReport(len(balances), count, total, mismatched, unbalanced, negative, house,
                       kinds)
