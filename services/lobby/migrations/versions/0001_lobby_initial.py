"""lobby: rooms, seats, games

Revision ID: lobby_0001
Revises:
Create Date: 2025-01-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "lobby_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create lobby_rooms, lobby_seats (a player sits once: UNIQUE player) and lobby_games."""
    op.create_table(
        "lobby_rooms",
        sa.Column("room", sa.String(64), primary_key=True),
        sa.Column("server", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False, server_default=""),
        sa.Column("table_instance", sa.String(256), nullable=False, server_default=""),
        sa.Column("kick_at_ms", sa.BigInteger, nullable=True),
        sa.Column("carry_json", sa.Text, nullable=False, server_default="{}"),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_lobby_rooms_server", "lobby_rooms", ["server"])
    op.create_index("ix_lobby_rooms_kick_at_ms", "lobby_rooms", ["kick_at_ms"])
    op.create_table(
        "lobby_seats",
        sa.Column("room", sa.String(64), sa.ForeignKey("lobby_rooms.room"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player", sa.String(128), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("ready", sa.Boolean, nullable=False),
        sa.UniqueConstraint("player", name="uq_lobby_seats_player"),
    )
    op.create_table(
        "lobby_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("room", sa.String(64), nullable=False),
        sa.Column("table_instance", sa.String(256), nullable=False),
        sa.Column("started_ms", sa.BigInteger, nullable=False),
        sa.Column("ended_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_lobby_games_room", "lobby_games", ["room"])


def downgrade() -> None:
    """Drop the lobby's tables."""
    op.drop_table("lobby_games")
    op.drop_table("lobby_seats")
    op.drop_table("lobby_rooms")
