"""The outbox: ``balance_changed`` events stored in the transaction that caused
them (``ledger_outbox``), read and marked sent by the relay (services/ledger/adapters/relay.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from paiju.runtime import jsontext, subjects, tracing
from services.ledger.adapters.models import outbox
from services.ledger.adapters.pgpipe import Pipe
from services.ledger.adapters.unit_of_work import UnitOfWork

BALANCE_CHANGED = "balance_changed"


#: The key of an outbox event's data holding the trace it was written in.
TRACE_KEY = "_traceparent"


@dataclass(frozen=True)
class OutboxEvent:
    """One unpublished event: its id, subject, type, game id and JSON data."""

    id: int
    subject: str
    type: str
    game_id: str
    data: dict[str, Any]
    created_ms: int


def event_rows(events: Sequence[dict[str, Any]],
               ) -> tuple[list[str], list[str], list[str], list[str]]:
    """The outbox columns of ``balance_changed`` events (each a dict with
    ``player``, optional ``game_id``): subjects (``paiju.player.<player>.events``),
    types, game ids and the JSON data (paiju/runtime/jsontext.py), in the events'
    order. With tracing on,
    the data carries the current span's ``traceparent`` under :data:`TRACE_KEY`
    (the relay publishes the event in that trace and leaves the key out)."""
    trace = (tracing.headers() or {}).get("traceparent")
    extra = {TRACE_KEY: trace} if trace else {}
    return ([subjects.player_events(e["player"]) for e in events],
            [BALANCE_CHANGED] * len(events),
            [e.get("game_id", "") for e in events],
            [jsontext.dumps({**e, **extra}) for e in events])


async def write_events(conn: AsyncConnection, events: Sequence[dict[str, Any]],
                       now: int) -> None:
    """Write ``balance_changed`` events (as :func:`event_rows`) into the outbox
    inside the caller's transaction, created at ``now`` (unix ms)."""
    if not events:
        return
    await conn.execute(insert(outbox), [
        {"subject": s, "type": t, "game_id": g, "data_json": d, "created_ms": now}
        for s, t, g, d in zip(*event_rows(events), strict=True)])


#: The relay's read, mark and backlog on PostgreSQL, each a statement of its
#: own on the hot path's pipes (no SQLAlchemy statement layer: it cost the relay
#: about as much as the round trips; docs/performance.md).
PG_UNSENT = """
SELECT id, subject, type, game_id, data_json, created_ms FROM ledger_outbox
WHERE sent_ms IS NULL ORDER BY id LIMIT $1
"""
PG_MARK_SENT = """
UPDATE ledger_outbox SET sent_ms = $2 WHERE id = ANY($1::bigint[]) AND sent_ms IS NULL
"""
PG_BACKLOG = """
SELECT count(*), min(created_ms) FROM ledger_outbox WHERE sent_ms IS NULL
"""


class Outbox:
    """The relay's side of the outbox, through ``uow``."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    async def unsent(self, limit: int = 200) -> list[OutboxEvent]:
        """Up to ``limit`` unpublished events, oldest first."""
        if not self.uow.sqlite:
            found = await self.uow.run_outbox(
                "outbox", lambda pipe: pipe.statement(PG_UNSENT, (limit,)))

            def cell(row: int, column: int) -> bytes:
                return bytes(found.get_value(row, column) or b"")

            return [OutboxEvent(int(cell(i, 0)), cell(i, 1).decode(), cell(i, 2).decode(),
                                cell(i, 3).decode(), jsontext.loads(cell(i, 4)),
                                int(cell(i, 5))) for i in range(found.ntuples)]

        async def read(conn: AsyncConnection) -> list[OutboxEvent]:
            result = await conn.execute(
                select(outbox).where(outbox.c.sent_ms.is_(None)).order_by(outbox.c.id)
                .limit(limit))
            return [OutboxEvent(int(r.id), str(r.subject), str(r.type), str(r.game_id),
                                jsontext.loads(r.data_json), int(r.created_ms)) for r in result]

        return await self.uow.query("outbox", read)

    async def mark_sent(self, ids: Sequence[int]) -> None:
        """Record that the events ``ids`` were published (one statement)."""
        if not ids:
            return
        now = self.uow.clock()
        if not self.uow.sqlite:
            async def mark(pipe: Pipe) -> None:
                # without waiting for the WAL flush: a mark lost in a crash
                # publishes its events again (at least once, ``event_id``),
                # and the settlements' commits do not queue behind its flush
                pipe.command(b"BEGIN")
                pipe.command(b"SET LOCAL synchronous_commit TO off")
                pipe.query(PG_MARK_SENT, (list(ids), now))
                pipe.command(b"COMMIT")
                await pipe.results(sync=True)

            await self.uow.run_outbox("outbox", mark)
            return

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(update(outbox).where(and_(outbox.c.id.in_(list(ids)),
                                                         outbox.c.sent_ms.is_(None)))
                               .values(sent_ms=now))

        await self.uow.statement("outbox", work)

    async def backlog(self) -> tuple[int, int | None]:
        """(number of unpublished events, creation time of the oldest in ms or None)."""
        if not self.uow.sqlite:
            found = await self.uow.run_outbox(
                "outbox", lambda pipe: pipe.statement(PG_BACKLOG, ()))
            oldest = found.get_value(0, 1)
            return (int(bytes(found.get_value(0, 0) or b"0")),
                    None if oldest is None else int(bytes(oldest)))

        async def read(conn: AsyncConnection) -> tuple[int, int | None]:
            row = (await conn.execute(select(func.count(), func.min(outbox.c.created_ms))
                                      .where(outbox.c.sent_ms.is_(None)))).one()
            return int(row[0]), (None if row[1] is None else int(row[1]))

        return await self.uow.query("outbox", read)
