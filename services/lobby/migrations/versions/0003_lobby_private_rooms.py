"""lobby: private rooms (好友房)

Revision ID: lobby_0003
Revises: lobby_0002
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "lobby_0003"
down_revision: str | None = "lobby_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """lobby_rooms.private / owner (indexed) / code (unique invite code) /
    options_json (the options its opener chose)."""
    with op.batch_alter_table("lobby_rooms") as batch:
        batch.add_column(sa.Column("private", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("owner", sa.String(128), nullable=False,
                                   server_default=""))
        batch.add_column(sa.Column("code", sa.String(16), nullable=True))
        batch.add_column(sa.Column("options_json", sa.Text, nullable=False,
                                   server_default="{}"))
        batch.create_index("ix_lobby_rooms_owner", ["owner"])
        batch.create_unique_constraint("uq_lobby_rooms_code", ["code"])


def downgrade() -> None:
    """Drop what upgrade added (private rooms' rows first)."""
    op.execute("DELETE FROM lobby_seats WHERE room IN "
               "(SELECT room FROM lobby_rooms WHERE private)")
    op.execute("DELETE FROM lobby_rooms WHERE private")
    with op.batch_alter_table("lobby_rooms") as batch:
        batch.drop_constraint("uq_lobby_rooms_code", type_="unique")
        batch.drop_index("ix_lobby_rooms_owner")
        batch.drop_column("options_json")
        batch.drop_column("code")
        batch.drop_column("owner")
        batch.drop_column("private")
