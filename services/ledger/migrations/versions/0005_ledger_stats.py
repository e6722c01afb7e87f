"""A player's stats and the rankings' season and all time: how long each
settled game was played (``ledger_transactions.played_ms``: the table's
record, finished − started, in ms; 0 for other kinds and for settlements
journalled before it), and the materialised rankings of the season and of
all time (``ledger_period_rankings``, ``ledger_period_rankings_meta``;
computed from the daily tally at the first read).

Revision ID: 0005_ledger_stats
Revises: 0004_ledger_relief
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_ledger_stats"
down_revision: str | None = "0004_ledger_relief"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("ledger_transactions",
                  sa.Column("played_ms", sa.BigInteger, nullable=False, server_default="0"))
    op.create_table(
        "ledger_period_rankings",
        sa.Column("server", sa.String(64), primary_key=True),
        sa.Column("period", sa.String(16), primary_key=True),
        sa.Column("account", sa.String(160), primary_key=True),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
    )
    op.create_index("ix_ledger_period_rankings_rank", "ledger_period_rankings",
                    ["server", "period", "rank", "account"])
    op.create_table(
        "ledger_period_rankings_meta",
        sa.Column("server", sa.String(64), primary_key=True),
        sa.Column("period", sa.String(16), primary_key=True),
        sa.Column("last_day", sa.Integer, nullable=False),
        sa.Column("computed_ms", sa.BigInteger, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ledger_period_rankings_meta")
    op.drop_index("ix_ledger_period_rankings_rank", "ledger_period_rankings")
    op.drop_table("ledger_period_rankings")
    with op.batch_alter_table("ledger_transactions") as batch:
        batch.drop_column("played_ms")
