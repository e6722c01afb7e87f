"""Players' replay shares.

Revision ID: table_0002
Revises: table_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "table_0002"
down_revision = "table_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create table_replay_shares."""
    op.create_table(
        "table_replay_shares",
        sa.Column("share", sa.String(32), primary_key=True),
        sa.Column("game_id", sa.String(160), nullable=False),
        sa.Column("player", sa.String(128), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("revoked_ms", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.create_index("ix_table_replay_shares_player", "table_replay_shares",
                    ["player", "revoked_ms"])


def downgrade() -> None:
    """Drop table_replay_shares."""
    op.drop_index("ix_table_replay_shares_player", table_name="table_replay_shares")
    op.drop_table("table_replay_shares")
