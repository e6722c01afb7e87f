"""The ledger's Prometheus metrics (no player labels: bounded label sets only)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from paiju.runtime.metrics import LATENCY_BUCKETS

#: Settle calls by result: ``applied``, ``repeated`` (idempotent repeat),
#: ``refused`` (bad input, conflict, unknown player), ``error``.
SETTLEMENTS = Counter("paiju_ledger_settlements_total", "Settle calls, by result.", ["result"])
for _result in ("applied", "repeated", "refused", "error"):
    SETTLEMENTS.labels(_result)  # at 0 from the start (the dashboard, the SLO)
SETTLEMENT_SECONDS = Histogram(
    "paiju_ledger_settlement_duration_seconds",
    "Time to apply a settlement, retries included.", buckets=LATENCY_BUCKETS)
#: Coins taken from player accounts by settlements and room fees.
COINS_MOVED = Counter("paiju_ledger_coins_moved_total",
                      "Coins moved out of player accounts by settlements and fees.")
#: Coins the house took, by kind: ``winner`` (fee on winnings), ``remainder``
#: (what was left of what losers paid), ``room`` (no-call fee).
FEES = Counter("paiju_ledger_fees_total", "Coins taken by the house, by kind.", ["kind"])
GRANTED = Counter("paiju_ledger_granted_coins_total", "Coins granted to players.")
#: Coins operators adjusted (paiju admin adjust), by direction: ``given``, ``taken``.
ADJUSTED = Counter("paiju_ledger_adjusted_coins_total",
                   "Coins operators gave or took (paiju admin adjust).", ["direction"])
#: Relief claims (救济金, GrantRelief) by result: ``granted``, ``repeated``
#: (idempotent repeat), ``not_eligible`` (balance at or above the
#: threshold), ``spent`` (the day's claims used).
RELIEF = Counter("paiju_ledger_relief_total", "Relief claims (GrantRelief), by result.",
                 ["result"])
for _result in ("granted", "repeated", "not_eligible", "spent"):
    RELIEF.labels(_result)
RELIEF_COINS = Counter("paiju_ledger_relief_coins_total", "Relief coins granted to players.")
#: Transactions retried after a deadlock, serialization failure or busy database.
RETRIES = Counter("paiju_ledger_retries_total",
                  "Database transactions retried (deadlock, serialization, busy).", ["operation"])
OUTBOX_PENDING = Gauge("paiju_ledger_outbox_pending", "Events written but not yet published.")
OUTBOX_LAG = Gauge("paiju_ledger_outbox_lag_seconds",
                   "Age of the oldest unpublished event (0 when none).")
OUTBOX_PUBLISHED = Counter("paiju_ledger_outbox_published_total", "Events published to NATS.")
#: History, stats and rankings reads (GetGames, GetStats, GetRankings), and a
#: rankings read's time.
HISTORY_READ = Counter("paiju_ledger_history_reads_total", "GetGames calls answered.")
STATS_READ = Counter("paiju_ledger_stats_reads_total", "GetStats calls answered.")
RANKINGS_READ = Counter("paiju_ledger_rankings_reads_total", "GetRankings calls answered.")
RANKINGS_SECONDS = Histogram("paiju_ledger_rankings_duration_seconds",
                             "Time to read a server's rankings.", buckets=LATENCY_BUCKETS)
