"""lobby: seats' presence, rooms' and players' last results

Revision ID: lobby_0002
Revises: lobby_0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "lobby_0002"
down_revision: str | None = "lobby_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """lobby_seats.connected / away_ms, lobby_rooms.last_result_json,
    lobby_games.result_json, and lobby_last_games (each player's last game)."""
    with op.batch_alter_table("lobby_seats") as batch:
        batch.add_column(sa.Column("connected", sa.Boolean, nullable=False,
                                   server_default=sa.true()))
        batch.add_column(sa.Column("away_ms", sa.BigInteger, nullable=True))
    with op.batch_alter_table("lobby_rooms") as batch:
        batch.add_column(sa.Column("last_result_json", sa.Text, nullable=False,
                                   server_default=""))
    with op.batch_alter_table("lobby_games") as batch:
        batch.add_column(sa.Column("result_json", sa.Text, nullable=True))
    op.create_table(
        "lobby_last_games",
        sa.Column("player", sa.String(128), primary_key=True),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("ended_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    """Drop what upgrade added."""
    op.drop_table("lobby_last_games")
    with op.batch_alter_table("lobby_games") as batch:
        batch.drop_column("result_json")
    with op.batch_alter_table("lobby_rooms") as batch:
        batch.drop_column("last_result_json")
    with op.batch_alter_table("lobby_seats") as batch:
        batch.drop_column("away_ms")
        batch.drop_column("connected")
