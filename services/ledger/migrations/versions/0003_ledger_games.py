"""History and rankings: a settlement's server and room, its seats
(``ledger_seats``) and the daily tally of coins won per server and player
(``ledger_wins_daily``), both filled from the settlements already in the
journal (their server and room are ""), and the materialised rankings
(``ledger_rankings``, ``ledger_rankings_meta``; computed when first read).

Revision ID: 0003_ledger_games
Revises: 0002_ledger_adjustments
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_ledger_games"
down_revision: str | None = "0002_ledger_adjustments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DAY_MS = 86_400_000


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("ledger_transactions") as batch:
        batch.add_column(sa.Column("server", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("room", sa.String(64), nullable=False, server_default=""))
    seats = op.create_table(
        "ledger_seats",
        sa.Column("account", sa.String(160), primary_key=True),
        sa.Column("transaction_id", _id(), sa.ForeignKey("ledger_transactions.id"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("points", sa.BigInteger, nullable=False),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("fee", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ledger_seats_transaction_id", "ledger_seats", ["transaction_id"])
    wins = op.create_table(
        "ledger_wins_daily",
        sa.Column("server", sa.String(64), primary_key=True),
        sa.Column("day", sa.Integer, primary_key=True),
        sa.Column("account", sa.String(160), primary_key=True),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
    )
    op.create_table(
        "ledger_rankings",
        sa.Column("server", sa.String(64), primary_key=True),
        sa.Column("account", sa.String(160), primary_key=True),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("coins", sa.BigInteger, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
    )
    op.create_index("ix_ledger_rankings_server_rank", "ledger_rankings",
                    ["server", "rank", "account"])
    op.create_table(
        "ledger_rankings_meta",
        sa.Column("server", sa.String(64), primary_key=True),
        sa.Column("last_day", sa.Integer, nullable=False),
        sa.Column("computed_ms", sa.BigInteger, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
    )
    _backfill(seats, wins)


def _backfill(seats: sa.Table, wins: sa.Table) -> None:
    """Seats and tally of the settlements already journalled (result_json
    holds their rows: [player, seat, points, coins, fee])."""
    rows = op.get_bind().execute(sa.text(
        "SELECT id, created_ms, result_json FROM ledger_transactions "
        "WHERE kind = 'settle' AND result_json <> ''"))
    seat_rows: list[dict[str, int | str]] = []
    tally: dict[tuple[str, int, str], list[int]] = {}
    for txid, created_ms, result_json in rows:
        for player, seat, points, coins, fee in json.loads(result_json)["rows"]:
            account = f"player:{player}"
            seat_rows.append({"account": account, "transaction_id": txid, "seat": seat,
                              "points": points, "coins": coins, "fee": fee})
            t = tally.setdefault(("", int(created_ms) // DAY_MS, account), [0, 0])
            t[0] += coins
            t[1] += 1
    if seat_rows:
        op.bulk_insert(seats, seat_rows)
    if tally:
        op.bulk_insert(wins, [{"server": s, "day": d, "account": a, "coins": c, "games": g}
                              for (s, d, a), (c, g) in tally.items()])


def downgrade() -> None:
    op.drop_table("ledger_rankings_meta")
    op.drop_table("ledger_rankings")
    op.drop_table("ledger_wins_daily")
    op.drop_table("ledger_seats")
    with op.batch_alter_table("ledger_transactions") as batch:
        batch.drop_column("room")
        batch.drop_column("server")
