"""The ledger's first schema: accounts, journal, outbox, house accounts.

Revision ID: 0001_ledger_initial
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_ledger_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HOUSE = ("house:fees", "house:grants", "house:penalties", "house:room_fees")


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    accounts = op.create_table(
        "ledger_accounts",
        sa.Column("account", sa.String(160), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(128), nullable=False, server_default=""),
        sa.Column("balance", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.CheckConstraint("kind = 'house' OR balance >= 0",
                           name="ck_ledger_accounts_player_not_negative"),
    )
    op.create_table(
        "ledger_transactions",
        sa.Column("id", _id(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reference", sa.String(160), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("game", sa.String(64), nullable=False, server_default=""),
        sa.Column("reason", sa.String(64), nullable=False, server_default=""),
        sa.Column("result_json", sa.Text, nullable=False, server_default=""),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("kind", "reference", name="uq_ledger_transactions_kind_reference"),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", _id(), primary_key=True, autoincrement=True),
        sa.Column("transaction_id", _id(), sa.ForeignKey("ledger_transactions.id"),
                  nullable=False),
        sa.Column("account", sa.String(160), sa.ForeignKey("ledger_accounts.account"),
                  nullable=False),
        sa.Column("delta", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ledger_entries_account_id", "ledger_entries", ["account", "id"])
    op.create_index("ix_ledger_entries_transaction_id", "ledger_entries", ["transaction_id"])
    op.create_table(
        "ledger_outbox",
        sa.Column("id", _id(), primary_key=True, autoincrement=True),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(160), nullable=False, server_default=""),
        sa.Column("data_json", sa.Text, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("sent_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_ledger_outbox_unsent", "ledger_outbox", ["sent_ms", "id"])
    now = int(time.time() * 1000)
    op.bulk_insert(accounts, [{"account": a, "kind": "house", "name": a, "balance": 0,
                               "created_ms": now} for a in HOUSE])


def downgrade() -> None:
    op.drop_table("ledger_outbox")
    op.drop_table("ledger_entries")
    op.drop_table("ledger_transactions")
    op.drop_table("ledger_accounts")
