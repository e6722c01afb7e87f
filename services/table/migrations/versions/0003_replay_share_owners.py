"""The replay shares' per-player lock rows.

Revision ID: table_0003
Revises: table_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "table_0003"
down_revision = "table_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create table_replay_share_owners (a player's row is made by their
    first share creation after it, services/table/adapters/shares.py)."""
    op.create_table(
        "table_replay_share_owners",
        sa.Column("player", sa.String(128), primary_key=True),
    )


def downgrade() -> None:
    """Drop table_replay_share_owners."""
    op.drop_table("table_replay_share_owners")
