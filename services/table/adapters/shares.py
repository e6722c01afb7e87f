"""Players' replay shares in the table service's database
(``table_replay_shares``, beside the game records).

A player's creations take turns (:meth:`ShareStore.create`): each first
makes the player's row of ``table_replay_share_owners`` if missing and locks
it (PostgreSQL: ``SELECT … FOR UPDATE``, held to the commit; SQLite: the
insert takes the file's write lock, held to the commit, across the table
instances sharing the file), and only then counts the active shares and adds
one; two creations at one below the limit cannot both pass it.
"""

from __future__ import annotations

import secrets
import time

from sqlalchemy import Insert, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.table.adapters.models import ReplayShare, ShareOwner


class ShareError(Exception):
    """A refused share operation: ``code`` (``too_many_shares``, ``no_share``,
    ``not_your_share``) and ``status`` (a gRPC status name)."""

    def __init__(self, code: str, status: str, message: str) -> None:
        super().__init__(message)
        self.code, self.status, self.message = code, status, message


def _now_ms() -> int:
    return int(time.time() * 1000)


def _owner_insert(dialect: str, player: str) -> Insert:
    """``INSERT … ON CONFLICT DO NOTHING`` of ``player``'s owner row."""
    if dialect == "postgresql":
        return postgresql.insert(ShareOwner).values(player=player).on_conflict_do_nothing()
    return sqlite.insert(ShareOwner).values(player=player).on_conflict_do_nothing()


async def _lock_owner(session: AsyncSession, player: str) -> None:
    """Make ``player``'s owner row if missing and lock it until the
    transaction ends (the insert statement comes first: on SQLite it takes
    the write lock before anything is read)."""
    await session.execute(_owner_insert(session.get_bind().dialect.name, player))
    await session.execute(select(ShareOwner.player).where(ShareOwner.player == player)
                          .with_for_update())


class ShareStore:
    """Create, list, revoke and read replay shares (one session each)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions

    async def create(self, game_id: str, player: str, max_active: int) -> ReplayShare:
        """A new active share of ``game_id`` for ``player``; ``too_many_shares``
        where the player holds ``max_active`` active ones already (counted
        under the player's lock: see the module docstring)."""
        async with self.sessions() as session, session.begin():
            await _lock_owner(session, player)
            active = await session.scalar(select(func.count()).select_from(ReplayShare).where(
                ReplayShare.player == player, ReplayShare.revoked_ms == 0))
            if (active or 0) >= max_active:
                raise ShareError("too_many_shares", "RESOURCE_EXHAUSTED",
                                 f"at most {max_active} active shares; revoke one first")
            row = ReplayShare(share=secrets.token_urlsafe(12), game_id=game_id, player=player,
                              created_ms=_now_ms(), revoked_ms=0)
            session.add(row)
        return row

    async def active(self, player: str) -> list[ReplayShare]:
        """``player``'s active shares, newest first."""
        async with self.sessions() as session:
            rows = await session.scalars(select(ReplayShare).where(
                ReplayShare.player == player, ReplayShare.revoked_ms == 0)
                .order_by(ReplayShare.created_ms.desc(), ReplayShare.share))
            return list(rows)

    async def get(self, share: str) -> ReplayShare:
        """The share ``share`` (revoked ones too); ``no_share`` where none."""
        async with self.sessions() as session:
            row = await session.get(ReplayShare, share)
        if row is None:
            raise ShareError("no_share", "NOT_FOUND", "no such share")
        return row

    async def revoke(self, share: str, player: str) -> ReplayShare:
        """Revoke ``player``'s share (idempotent: a revoked one stays as it
        was); ``no_share``, ``not_your_share``."""
        async with self.sessions() as session, session.begin():
            row = await session.get(ReplayShare, share, with_for_update=True)
            if row is None:
                raise ShareError("no_share", "NOT_FOUND", "no such share")
            if row.player != player:
                raise ShareError("not_your_share", "PERMISSION_DENIED",
                                 "the share is another player's")
            if row.revoked_ms == 0:
                row.revoked_ms = _now_ms()
        return row
