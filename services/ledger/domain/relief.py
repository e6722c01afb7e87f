"""Relief coins (救济金): the rules of a claim, without I/O.

A player whose balance is below a threshold (the lobby's: the lowest
``min_coins`` of a game's servers) may be granted ``coins`` up to
``per_day`` times per relief day. A relief day starts at the UTC hour
``day_starts_utc_hour`` (e.g. 16: midnight in China, UTC+8) and lasts 24 h.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.ledger.domain.errors import INVALID_ARGUMENT, LedgerError
from services.ledger.domain.settlement import MAX_AMOUNT

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
#: A claim id: the client's key of one claim (1-31 letters, digits, ``_``, ``-``).
CLAIM_ID = re.compile(r"[A-Za-z0-9_-]{1,31}")
#: Most claims a day may allow.
MAX_PER_DAY = 100


@dataclass(frozen=True)
class Policy:
    """One claim's terms: ``coins`` granted (> 0), while the balance is below
    ``below`` coins (> 0), at most ``per_day`` claims (1-100) per relief day
    starting at UTC hour ``day_starts_utc_hour`` (0-23)."""

    coins: int
    below: int
    per_day: int
    day_starts_utc_hour: int


def check(policy: Policy, claim_id: str) -> None:
    """Raise ``LedgerError(INVALID_ARGUMENT, reason)`` for a bad claim id
    (``bad_claim_id``) or bad terms (``bad_amount``: coins or below not in
    1..MAX_AMOUNT; ``bad_policy``: per_day or the hour out of range)."""
    if not CLAIM_ID.fullmatch(claim_id):
        raise LedgerError(INVALID_ARGUMENT, "bad_claim_id",
                          "a claim id is 1-31 of [A-Za-z0-9_-]")
    for name, value in (("coins", policy.coins), ("below", policy.below)):
        if isinstance(value, bool) or not 0 < value <= MAX_AMOUNT:
            raise LedgerError(INVALID_ARGUMENT, "bad_amount",
                              f"{name} must be a positive whole number, got {value!r}")
    if not 1 <= policy.per_day <= MAX_PER_DAY:
        raise LedgerError(INVALID_ARGUMENT, "bad_policy",
                          f"per_day must be 1-{MAX_PER_DAY}, got {policy.per_day}")
    if not 0 <= policy.day_starts_utc_hour <= 23:
        raise LedgerError(INVALID_ARGUMENT, "bad_policy",
                          f"day_starts_utc_hour must be 0-23, got {policy.day_starts_utc_hour}")


def day_start(now_ms: int, day_starts_utc_hour: int) -> int:
    """The unix ms at which the relief day holding ``now_ms`` started: the
    latest ``day_starts_utc_hour``:00 UTC at or before ``now_ms``."""
    offset = day_starts_utc_hour * HOUR_MS
    return (now_ms - offset) // DAY_MS * DAY_MS + offset
