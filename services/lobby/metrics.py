"""The lobby's Prometheus metrics.

``paiju_lobby_rooms{state}`` and ``paiju_lobby_seated_players`` describe the
shared state as this process last read it from the database (every lobby
replica reports the same figures: aggregate with ``max``, not ``sum``).
Counters are per process (aggregate with ``sum``).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge

from services.lobby.domain.errors import QUICK_START_RESULTS, SIT_REFUSALS

ROOMS = Gauge("paiju_lobby_rooms", "Rooms by state (idle, waiting, started).", ["state"])
SEATED = Gauge("paiju_lobby_seated_players", "Players sitting in a room.")
SITS_REFUSED = Counter("paiju_lobby_sits_refused_total", "Sit requests refused, by reason.",
                       ["reason"])
GAMES_STARTED = Counter("paiju_lobby_games_started_total",
                        "Games placed on a table instance.")
READY_KICKS = Counter("paiju_lobby_ready_kicks_total",
                      "Players removed because they did not press start in time.")
CAS_CONFLICTS = Counter("paiju_lobby_cas_conflicts_total",
                        "Room writes that lost a compare-and-set race and were retried.")
PLACEMENT_FAILURES = Counter("paiju_lobby_placement_failures_total",
                             "CreateGame calls a table instance refused or did not answer.")
ROOMS_RECOVERED = Counter(
    "paiju_lobby_rooms_recovered_total",
    "Started rooms returned to waiting because their game was lost (nobody held "
    "its lease for lost_after_seconds and its game log could not be read): "
    "game_missing (the room's table instance answers without it), "
    "table_unreachable (that instance does not answer).", ["reason"])
GAMES_MOVED = Counter(
    "paiju_lobby_games_moved_total",
    "Rooms whose game another table instance took over: told by that instance "
    "(game_moved) or found by the reconciler (reconciler).", ["reason"])
IDLE_STANDUPS = Counter(
    "paiju_lobby_idle_standups_total",
    "Seated players stood up because they were absent (no live session) outside a "
    "game for the room's idle_disconnect_seconds.")
QUICK_STARTS = Counter(
    "paiju_lobby_quick_starts_total",
    "Quick starts (快速开始) by result: seated, or the refusal's reason.", ["result"])
CODE_TRIES = Counter(
    "paiju_lobby_code_tries_total",
    "Invite codes of private rooms (好友房) tried, by result: found, wrong (no "
    "room has it), limited (refused too_many_attempts).", ["result"])
PRIVATE_ROOMS_OPENED = Counter(
    "paiju_lobby_private_rooms_opened_total", "Private rooms (好友房) opened.")
AI_SEATS = Counter(
    "paiju_lobby_ai_seats_total",
    "Seats of practice rooms (练习场) the AI pool was asked for, by result: "
    "filled (an AI player comes), not_filled (none free, no answer).", ["result"])
RECOVERY_REASONS = ("game_missing", "table_unreachable")

for _reason in SIT_REFUSALS:
    SITS_REFUSED.labels(_reason)
for _reason in QUICK_START_RESULTS:
    QUICK_STARTS.labels(_reason)
for _result in ("filled", "not_filled"):
    AI_SEATS.labels(_result)
for _result in ("found", "wrong", "limited"):
    CODE_TRIES.labels(_result)
for _reason in RECOVERY_REASONS:
    ROOMS_RECOVERED.labels(_reason)
for _reason in ("game_moved", "reconciler"):
    GAMES_MOVED.labels(_reason)
