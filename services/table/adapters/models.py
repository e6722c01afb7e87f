"""Storage models of the table service: the game records (records.md)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, MetaData, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: Alembic's version table of this service (services share one PostgreSQL).
VERSION_TABLE = "alembic_version_table"


class Base(DeclarativeBase):
    """Declarative base of the table service's tables (prefix ``table_``)."""

    metadata = MetaData()


class GameRecord(Base):
    """One finished game (a redeal too): its record as JSON text.

    ``game_id`` the game's id (idempotency key); ``room``, ``game``, ``reason``
    (normal, escape, redeal); ``record_json`` the record of records.md plus
    the table's fields; ``finished_at`` unix ms.
    """

    __tablename__ = "table_game_records"

    game_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    room: Mapped[str] = mapped_column(String(128))
    game: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(32))
    finished_at: Mapped[int] = mapped_column(BigInteger)
    record_json: Mapped[str] = mapped_column(Text)

    __table_args__ = (Index("ix_table_game_records_room", "room", "finished_at"),)


class ReplayShare(Base):
    """A player's shared replay link: ``share`` its id (random, url-safe),
    ``game_id`` the finished game, ``player`` its owner, ``created_ms`` and
    ``revoked_ms`` unix ms (0 while it is active)."""

    __tablename__ = "table_replay_shares"

    share: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(160))
    player: Mapped[str] = mapped_column(String(128))
    created_ms: Mapped[int] = mapped_column(BigInteger)
    revoked_ms: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")

    __table_args__ = (Index("ix_table_replay_shares_player", "player", "revoked_ms"),)


class ShareOwner(Base):
    """A player who made a replay share: the row each of their creations
    locks first (PostgreSQL ``SELECT … FOR UPDATE``; on SQLite its insert
    takes the file's write lock), so that one player's creations count their
    active shares and add one each in turn and the limit holds."""

    __tablename__ = "table_replay_share_owners"

    player: Mapped[str] = mapped_column(String(128), primary_key=True)
