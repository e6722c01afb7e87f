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
