"""The house account of operators' adjustments (``paiju admin adjust``).

Revision ID: 0002_ledger_adjustments
Revises: 0001_ledger_initial
Create Date: 2026-12-01
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_ledger_adjustments"
down_revision: str | None = "0001_ledger_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACCOUNT = "house:adjustments"


def upgrade() -> None:
    accounts = sa.table("ledger_accounts", sa.column("account", sa.String),
                        sa.column("kind", sa.String), sa.column("name", sa.String),
                        sa.column("balance", sa.BigInteger),
                        sa.column("created_ms", sa.BigInteger))
    op.bulk_insert(accounts, [{"account": ACCOUNT, "kind": "house", "name": ACCOUNT,
                               "balance": 0, "created_ms": int(time.time() * 1000)}])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM ledger_accounts WHERE account = :a").bindparams(a=ACCOUNT))
