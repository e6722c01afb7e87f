"""The ledger's tables (SQLAlchemy Core), prefixed ``ledger_`` to share a database.

- ``ledger_accounts``: one row per account, ``account`` = ``player:<id>`` or
  ``house:<name>``; ``balance`` in coins, always the sum of its entries.
- ``ledger_transactions``: the append-only journal's transactions (a
  settlement's coin server, room and time played among them); the unique
  key (``kind``, ``reference``) makes settlements (game id), grants (grant id),
  fee charges (charge id) and operators' adjustments (adjustment id)
  idempotent. ``content_hash`` identifies the
  request, ``result_json`` is the answer returned to repeats.
- ``ledger_entries``: the double entries; a transaction's deltas sum to zero.
- ``ledger_outbox``: ``balance_changed`` events written in the transaction that
  caused them and relayed to NATS afterwards (``sent_ms`` set once published).
- ``ledger_seats``: one row per seat of each settlement (the player's points,
  coins after the fee, fee; zero changes too, which have no entry): a
  player's history (战绩) by ``(account, transaction_id)``.
- ``ledger_wins_daily``: the rankings' materialised tally, kept in the
  settlement's own transaction: per coin server, UTC day (unix ms // 86400000)
  and player account, the net coins of that day's settlements (after fees)
  and their number. Grants and room fees never enter it (docs/ledger.md
  "Rankings").
- ``ledger_rankings`` / ``ledger_rankings_meta``: the materialised rankings of
  each coin server's current 7-day window (rank, coins, games per player;
  the window's last day, when computed, how many players), computed again
  from the tally when older than ``PAIJU_LEDGER_RANKINGS_MAX_AGE_SECONDS``.
- ``ledger_period_rankings`` / ``ledger_period_rankings_meta``: the same for
  the season (the current UTC calendar month) and all time, per ``period``.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

#: House accounts: the fee on winnings, what is left of what losers paid
#: (escape penalties beyond the claims, floor remainders), room fees (the
#: doudizhu no-call fee), the issuer of granted coins (goes negative), the
#: other side of operators' adjustments (``paiju admin adjust``) and the
#: issuer of relief coins (救济金; goes negative).
HOUSE_ADJUSTMENTS = "house:adjustments"
HOUSE_FEES = "house:fees"
HOUSE_PENALTIES = "house:penalties"
HOUSE_ROOM_FEES = "house:room_fees"
HOUSE_GRANTS = "house:grants"
HOUSE_RELIEF = "house:relief"
HOUSE_ACCOUNTS = (HOUSE_ADJUSTMENTS, HOUSE_FEES, HOUSE_GRANTS, HOUSE_PENALTIES, HOUSE_RELIEF,
                  HOUSE_ROOM_FEES)

# An integer primary key that autoincrements on SQLite too.
_ID = BigInteger().with_variant(Integer(), "sqlite")

accounts = Table(
    "ledger_accounts", metadata,
    Column("account", String(160), primary_key=True),
    Column("kind", String(16), nullable=False),  # player | house
    Column("name", String(128), nullable=False, server_default=""),
    Column("balance", BigInteger, nullable=False, server_default="0"),
    Column("created_ms", BigInteger, nullable=False),
    CheckConstraint("kind = 'house' OR balance >= 0",
                    name="ck_ledger_accounts_player_not_negative"),
)

transactions = Table(
    "ledger_transactions", metadata,
    Column("id", _ID, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),  # settle | grant | fee | adjust | relief
    Column("reference", String(160), nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("game", String(64), nullable=False, server_default=""),
    Column("reason", String(64), nullable=False, server_default=""),
    Column("result_json", Text, nullable=False, server_default=""),
    Column("created_ms", BigInteger, nullable=False),
    # The coin server and room of a settlement ("" for other kinds).
    Column("server", String(64), nullable=False, server_default=""),
    Column("room", String(64), nullable=False, server_default=""),
    # How long a settled game was played, ms (the table's record: finished −
    # started; 0 for other kinds and where not given).
    Column("played_ms", BigInteger, nullable=False, server_default="0"),
    UniqueConstraint("kind", "reference", name="uq_ledger_transactions_kind_reference"),
)

entries = Table(
    "ledger_entries", metadata,
    Column("id", _ID, primary_key=True, autoincrement=True),
    Column("transaction_id", _ID, ForeignKey("ledger_transactions.id"), nullable=False),
    Column("account", String(160), ForeignKey("ledger_accounts.account"), nullable=False),
    Column("delta", BigInteger, nullable=False),
    Column("balance_after", BigInteger, nullable=False),
    Index("ix_ledger_entries_account_id", "account", "id"),
    Index("ix_ledger_entries_transaction_id", "transaction_id"),
)

outbox = Table(
    "ledger_outbox", metadata,
    Column("id", _ID, primary_key=True, autoincrement=True),
    Column("subject", String(200), nullable=False),
    Column("type", String(32), nullable=False),
    Column("game_id", String(160), nullable=False, server_default=""),
    Column("data_json", Text, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("sent_ms", BigInteger, nullable=True),
    Index("ix_ledger_outbox_unsent", "sent_ms", "id"),
)

#: Milliseconds of one UTC day (the tally's ``day`` = unix ms // DAY_MS).
DAY_MS = 86_400_000

seats = Table(
    "ledger_seats", metadata,
    Column("account", String(160), primary_key=True),
    Column("transaction_id", _ID, ForeignKey("ledger_transactions.id"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("points", BigInteger, nullable=False),
    Column("coins", BigInteger, nullable=False),
    Column("fee", BigInteger, nullable=False),
    Index("ix_ledger_seats_transaction_id", "transaction_id"),
)

wins_daily = Table(
    "ledger_wins_daily", metadata,
    Column("server", String(64), primary_key=True),
    Column("day", Integer, primary_key=True),
    Column("account", String(160), primary_key=True),
    Column("coins", BigInteger, nullable=False),
    Column("games", Integer, nullable=False),
)

#: Relief claims (救济金) per player and relief day: ``day`` is the unix ms at
#: which the relief day starts (its boundary per configuration), ``claims``
#: how many were granted that day (services/ledger/application/relief.py).
relief_daily = Table(
    "ledger_relief_daily", metadata,
    Column("account", String(160), primary_key=True),
    Column("day", BigInteger, primary_key=True),
    Column("claims", Integer, nullable=False),
)

rankings = Table(
    "ledger_rankings", metadata,
    Column("server", String(64), primary_key=True),
    Column("account", String(160), primary_key=True),
    Column("rank", Integer, nullable=False),
    Column("coins", BigInteger, nullable=False),
    Column("games", Integer, nullable=False),
    Index("ix_ledger_rankings_server_rank", "server", "rank", "account"),
)

rankings_meta = Table(
    "ledger_rankings_meta", metadata,
    Column("server", String(64), primary_key=True),
    Column("last_day", Integer, nullable=False),
    Column("computed_ms", BigInteger, nullable=False),
    Column("players", Integer, nullable=False),
)

#: The materialised rankings of the season and of all time
#: (services/ledger/application/periods.py): ``period`` is ``season`` or
#: ``all``; the meta row says which last day and when they were computed.
period_rankings = Table(
    "ledger_period_rankings", metadata,
    Column("server", String(64), primary_key=True),
    Column("period", String(16), primary_key=True),
    Column("account", String(160), primary_key=True),
    Column("rank", Integer, nullable=False),
    Column("coins", BigInteger, nullable=False),
    Column("games", Integer, nullable=False),
    Index("ix_ledger_period_rankings_rank", "server", "period", "rank", "account"),
)

period_rankings_meta = Table(
    "ledger_period_rankings_meta", metadata,
    Column("server", String(64), primary_key=True),
    Column("period", String(16), primary_key=True),
    Column("last_day", Integer, nullable=False),
    Column("computed_ms", BigInteger, nullable=False),
    Column("players", Integer, nullable=False),
)


def player_account(player: str) -> str:
    """The account key of ``player``: ``player:<id>``."""
    return f"player:{player}"
