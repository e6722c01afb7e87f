"""Relief coins (救济金): the house account that issues them
(``house:relief``) and the count of claims per player and relief day
(``ledger_relief_daily``).

Revision ID: 0004_ledger_relief
Revises: 0003_ledger_games
Create Date: 2026-12-04
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_ledger_relief"
down_revision: str | None = "0003_ledger_games"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACCOUNT = "house:relief"


def upgrade() -> None:
    op.create_table(
        "ledger_relief_daily",
        sa.Column("account", sa.String(160), primary_key=True),
        sa.Column("day", sa.BigInteger, primary_key=True),
        sa.Column("claims", sa.Integer, nullable=False),
    )
    accounts = sa.table("ledger_accounts", sa.column("account", sa.String),
                        sa.column("kind", sa.String), sa.column("name", sa.String),
                        sa.column("balance", sa.BigInteger),
                        sa.column("created_ms", sa.BigInteger))
    op.bulk_insert(accounts, [{"account": ACCOUNT, "kind": "house", "name": ACCOUNT,
                               "balance": 0, "created_ms": int(time.time() * 1000)}])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM ledger_accounts WHERE account = :a").bindparams(a=ACCOUNT))
    op.drop_table("ledger_relief_daily")
