"""Storing and reading game records (SQLAlchemy async)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from paiju.runtime import db
from services.table.adapters.models import GameRecord

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


class RecordStore:
    """The table service's game records in its database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)

    @classmethod
    async def open(cls, url: str) -> RecordStore:
        """Migrate the database at ``url`` (Alembic, in a thread) and open it."""
        import asyncio

        await asyncio.to_thread(db.migrate, url, MIGRATIONS)
        return cls(db.make_engine(url))

    async def save(self, record: dict[str, Any]) -> bool:
        """Store a finished game's record; idempotent by ``game_id`` (False when it
        was there already)."""
        async with self.sessions() as session, session.begin():
            if await session.get(GameRecord, record["game_id"]) is not None:
                return False
            session.add(GameRecord(
                game_id=record["game_id"], room=record["room"], game=record["game"],
                reason=record.get("reason") or "", finished_at=int(record.get("finished_at", 0)),
                record_json=json.dumps(record, ensure_ascii=False, separators=(",", ":")),
            ))
        return True

    async def get(self, game_id: str) -> dict[str, Any] | None:
        """The stored record of ``game_id``, or None."""
        async with self.sessions() as session:
            row = await session.get(GameRecord, game_id)
            return None if row is None else dict(json.loads(row.record_json))

    async def by_room(self, room: str, limit: int = 100) -> list[dict[str, Any]]:
        """The newest records of ``room``, newest first."""
        async with self.sessions() as session:
            rows = await session.scalars(
                select(GameRecord).where(GameRecord.room == room)
                .order_by(GameRecord.finished_at.desc()).limit(limit))
            return [dict(json.loads(r.record_json)) for r in rows]

    async def close(self) -> None:
        """Dispose of the engine."""
        await self.engine.dispose()
