"""lobby: AI players' seats (机器人)

Revision ID: lobby_0004
Revises: lobby_0003
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "lobby_0004"
down_revision: str | None = "lobby_0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """lobby_seats.ai: the seat is an AI player's (default false)."""
    with op.batch_alter_table("lobby_seats") as batch:
        batch.add_column(sa.Column("ai", sa.Boolean, nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    """Drop lobby_seats.ai."""
    with op.batch_alter_table("lobby_seats") as batch:
        batch.drop_column("ai")
