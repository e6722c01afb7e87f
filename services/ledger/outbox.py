"""The outbox: ``balance_changed`` events stored in the transaction that caused
them (``ledger_outbox``), read and marked sent by the relay (services/ledger/relay.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from paiju import subjects
from services.ledger.models import outbox
from services.ledger.unit_of_work import UnitOfWork

BALANCE_CHANGED = "balance_changed"


@dataclass(frozen=True)
class OutboxEvent:
    """One unpublished event: its id, subject, type, game id and JSON data."""

    id: int
    subject: str
    type: str
    game_id: str
    data: dict[str, Any]
    created_ms: int


async def write_events(conn: AsyncConnection, events: Sequence[dict[str, Any]],
                       now: int) -> None:
    """Write ``balance_changed`` events (each a dict with ``player``, optional
    ``game_id``) into the outbox inside the caller's transaction, created at
    ``now`` (unix ms), to ``paiju.player.<player>.events``."""
    if not events:
        return
    await conn.execute(insert(outbox), [
        {"subject": subjects.player_events(e["player"]), "type": BALANCE_CHANGED,
         "game_id": e.get("game_id", ""), "created_ms": now,
         "data_json": json.dumps(e, ensure_ascii=False, separators=(",", ":"))}
        for e in events])


class Outbox:
    """The relay's side of the outbox, through ``uow``."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    async def unsent(self, limit: int = 200) -> list[OutboxEvent]:
        """Up to ``limit`` unpublished events, oldest first."""
        async with self.uow.engine.connect() as conn:
            result = await conn.execute(
                select(outbox).where(outbox.c.sent_ms.is_(None)).order_by(outbox.c.id)
                .limit(limit))
            return [OutboxEvent(int(r.id), str(r.subject), str(r.type), str(r.game_id),
                                json.loads(r.data_json), int(r.created_ms)) for r in result]

    async def mark_sent(self, ids: Sequence[int]) -> None:
        """Record that the events ``ids`` were published."""
        if not ids:
            return
        now = self.uow.clock()

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(update(outbox).where(and_(outbox.c.id.in_(list(ids)),
                                                         outbox.c.sent_ms.is_(None)))
                               .values(sent_ms=now))

        await self.uow.run("outbox", work)

    async def backlog(self) -> tuple[int, int | None]:
        """(number of unpublished events, creation time of the oldest in ms or None)."""
        async with self.uow.engine.connect() as conn:
            row = (await conn.execute(select(func.count(), func.min(outbox.c.created_ms))
                                      .where(outbox.c.sent_ms.is_(None)))).one()
        return int(row[0]), (None if row[1] is None else int(row[1]))
