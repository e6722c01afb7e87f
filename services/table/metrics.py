"""Prometheus metrics of the table service (names: paiju_table_*; no player labels)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from paiju.runtime.metrics import LATENCY_BUCKETS

GAMES_RUNNING = Gauge(
    "paiju_table_games_running", "Games this instance runs now, by game type.", ["game"])
ACTIONS = Counter(
    "paiju_table_actions_total",
    "Player actions handled, by game type and result (ok, an error code, duplicate).",
    ["game", "result"])
ACTION_SECONDS = Histogram(
    "paiju_table_action_duration_seconds", "Time to handle one player action.", ["game"],
    buckets=LATENCY_BUCKETS)
TIMEOUTS = Counter(
    "paiju_table_timeouts_total", "Turns that ran out (timeout applied).", ["game"])
ESCAPES = Counter(
    "paiju_table_escapes_total", "Games ended by an escape (left, kicked, 4th timeout).",
    ["game"])
SETTLEMENTS_RETRIED = Counter(
    "paiju_table_settlements_retried_total", "Ledger Settle calls retried after a failure.")
RECORDS_LOST = Counter(
    "paiju_table_records_lost_total",
    "Game records given up after PAIJU_TABLE_RECORD_RETRY_SECONDS of failed stores "
    "(the room was released all the same).")
GAMES_FINISHED = Counter(
    "paiju_table_games_finished_total", "Games that ended, by game type and reason.",
    ["game", "reason"])
GAMES_TAKEN_OVER = Counter(
    "paiju_table_games_taken_over_total",
    "Games this instance took over from an instance that died or handed them over.")
TAKEOVER_SECONDS = Histogram(
    "paiju_table_takeover_seconds",
    "Time from taking a free lease to the takeover entry logged and published.",
    buckets=LATENCY_BUCKETS)
LEASE_LOSSES = Counter(
    "paiju_table_lease_losses_total",
    "Games this instance stopped because another instance owns them now.")
LOG_APPEND_RETRIES = Counter(
    "paiju_table_log_append_retries_total",
    "Game log appends sent again after JetStream did not answer (an election, a lost "
    "acknowledgement); each try carries the same message id, so it is written once.")
LOG_APPEND_SECONDS = Histogram(
    "paiju_table_log_append_seconds",
    "Time to append one entry to the game log (until JetStream acknowledged it).",
    buckets=LATENCY_BUCKETS)
