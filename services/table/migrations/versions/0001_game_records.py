"""Game records.

Revision ID: table_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "table_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create table_game_records."""
    op.create_table(
        "table_game_records",
        sa.Column("game_id", sa.String(128), primary_key=True),
        sa.Column("room", sa.String(128), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("finished_at", sa.BigInteger(), nullable=False),
        sa.Column("record_json", sa.Text(), nullable=False),
    )
    op.create_index("ix_table_game_records_room", "table_game_records",
                    ["room", "finished_at"])


def downgrade() -> None:
    """Drop table_game_records."""
    op.drop_index("ix_table_game_records_room", table_name="table_game_records")
    op.drop_table("table_game_records")
