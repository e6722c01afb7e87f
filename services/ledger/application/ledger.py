"""The ledger's parts on one database, built together: the unit of work and
the accounts, postings and outbox that run through it."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncEngine

from services.ledger.adapters.outbox import Outbox
from services.ledger.adapters.unit_of_work import UnitOfWork, now_ms
from services.ledger.application.accounts import Accounts
from services.ledger.application.audit import AuditReport, audit
from services.ledger.application.games import Games
from services.ledger.application.postings import Postings


class Ledger:
    """Accounts, postings (grants, settlements, fees), the outbox, history and
    rankings (``games``) and the audit
    on ``engine`` (an async engine whose schema is migrated). ``clock``: unix
    milliseconds (injectable); ``max_attempts``: tries of a retryable failure;
    ``rankings_max_age_ms``: how old materialised rankings may be when read.
    Set ``uow.on_commit`` to hear of every committed change that wrote outbox
    events (services/ledger/adapters/unit_of_work.py); ``uow.close()`` closes the
    PostgreSQL hot path's pool."""

    def __init__(self, engine: AsyncEngine, clock: Callable[[], int] = now_ms,
                 max_attempts: int = 20, rankings_max_age_ms: int = 30_000) -> None:
        self.uow = UnitOfWork(engine, clock, max_attempts)
        self.accounts = Accounts(self.uow)
        self.postings = Postings(self.uow)
        self.outbox = Outbox(self.uow)
        self.games = Games(self.uow, rankings_max_age_ms)

    async def audit(self) -> AuditReport:
        """The audit of the whole journal (services/ledger/application/audit.py)."""
        return await audit(self.uow)
