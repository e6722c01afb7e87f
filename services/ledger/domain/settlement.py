"""The settlement rule as pure functions: points per seat in, coins per player out.

Source: shared/spec/rulings.md "Settlement" (from seed 000's 积分, 结算表 and 例外).

- A seat's claim is ``points / unit × base`` coins (``points`` must be a whole
  number of units: paiju ruling, docs/ledger.md).
- Losers (negative claims) pay their claims, each capped at its balance.
- Winners are paid their claims from what the losers paid; where that is short,
  in proportion to their claims, each share floored. What is left goes to the
  house (``remainder``).
- The house takes ``floor(received × fee_rate)`` of what each winner receives.
- The doudizhu no-call fee is capped at the balance likewise (:func:`charge`).

Everything is an ``int`` of coins; ``fee_rate`` is read as the shortest decimal
that prints it (0.02 is exactly 2/100), so fees never suffer binary rounding.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from services.ledger.domain.errors import INVALID_ARGUMENT, LedgerError

#: Largest absolute coin amount or point count accepted (keeps sums inside int64).
MAX_AMOUNT = 10**15

_PLAYER_ID = re.compile(r"^[A-Za-z0-9_\-:@+]{1,128}$")


@dataclass(frozen=True)
class Terms:
    """A room's settlement settings: ``base`` coins per unit, ``unit`` points per
    unit (hunzhan 5, else 1), ``fee_rate`` the house's share of winnings."""

    base: int
    unit: int
    fee_rate: float


@dataclass(frozen=True)
class Seat:
    """One seat of a finished game: its number, player id and points."""

    seat: int
    player: str
    points: int


@dataclass(frozen=True)
class Row:
    """One row of the settlement table (结算表): ``coins`` is the player's change
    after the fee, ``fee`` what the house took from the winnings (both coins)."""

    player: str
    seat: int
    points: int
    coins: int
    fee: int


@dataclass(frozen=True)
class Settlement:
    """What :func:`settle` decides: the rows in seat order, the fees the house
    took (``fees``) and what was left of what losers paid (``remainder``)."""

    rows: tuple[Row, ...]
    fees: int
    remainder: int

    @property
    def house(self) -> int:
        """Everything the house took: fees plus remainder."""
        return self.fees + self.remainder


def check_player(player: str) -> None:
    """Raise ``LedgerError(INVALID_ARGUMENT, "bad_player_id")`` unless ``player``
    is 1–128 characters of letters, digits and ``_ - : @ +`` (it becomes a NATS
    subject token, so no dots, spaces or wildcards)."""
    if not _PLAYER_ID.match(player):
        raise LedgerError(INVALID_ARGUMENT, "bad_player_id",
                          f"player id {player!r} must be 1-128 of [A-Za-z0-9_-:@+]")


@functools.lru_cache(maxsize=256)
def fee_fraction(fee_rate: float) -> Fraction:
    """``fee_rate`` as an exact fraction of its shortest decimal form (kept
    for the 256 rates used last: rooms have a handful). Raises
    ``LedgerError(INVALID_ARGUMENT, "bad_terms")`` unless 0 ≤ fee_rate < 1."""
    if not math.isfinite(fee_rate) or not 0 <= fee_rate < 1:
        raise LedgerError(INVALID_ARGUMENT, "bad_terms",
                          f"fee_rate must be in [0, 1), got {fee_rate!r}")
    return Fraction(Decimal(repr(fee_rate)))


def check_terms(terms: Terms) -> None:
    """Raise ``LedgerError(INVALID_ARGUMENT, "bad_terms")`` unless base and unit
    are positive and the fee rate is in [0, 1)."""
    if not 0 < terms.base <= MAX_AMOUNT:
        raise LedgerError(INVALID_ARGUMENT, "bad_terms", f"base must be positive, got {terms.base}")
    if not 0 < terms.unit <= MAX_AMOUNT:
        raise LedgerError(INVALID_ARGUMENT, "bad_terms", f"unit must be positive, got {terms.unit}")
    fee_fraction(terms.fee_rate)


def check_seats(terms: Terms, seats: Sequence[Seat]) -> None:
    """Validate the seats of a settlement. Errors (all INVALID_ARGUMENT):
    ``no_seats``, ``duplicate_seat``, ``duplicate_player``, ``bad_player_id``,
    ``bad_seat``, ``points_not_multiple_of_unit`` (paiju ruling: a claim is a
    whole number of units), ``amount_out_of_range``."""
    if not seats:
        raise LedgerError(INVALID_ARGUMENT, "no_seats", "a settlement needs at least one seat")
    if len({s.seat for s in seats}) != len(seats):
        raise LedgerError(INVALID_ARGUMENT, "duplicate_seat", "a seat appears twice")
    if len({s.player for s in seats}) != len(seats):
        raise LedgerError(INVALID_ARGUMENT, "duplicate_player", "a player appears twice")
    for s in seats:
        check_player(s.player)
        if s.seat < 0:
            raise LedgerError(INVALID_ARGUMENT, "bad_seat", f"seat {s.seat} is negative")
        if s.points % terms.unit:
            raise LedgerError(INVALID_ARGUMENT, "points_not_multiple_of_unit",
                              f"seat {s.seat}: {s.points} points is not a multiple of "
                              f"the unit {terms.unit}")
        if abs(s.points // terms.unit * terms.base) > MAX_AMOUNT:
            raise LedgerError(INVALID_ARGUMENT, "amount_out_of_range",
                              f"seat {s.seat}: claim out of range")


def claim(terms: Terms, points: int) -> int:
    """Coins a seat claims (positive) or owes (negative): points / unit × base.
    ``points`` must be a multiple of ``unit`` (see :func:`check_seats`)."""
    return points // terms.unit * terms.base


def settle(terms: Terms, seats: Sequence[Seat], balances: Mapping[str, int]) -> Settlement:
    """Settle one game: the rows (seat order), the fees and the remainder.

    ``balances`` holds each seated player's coins before the settlement.
    Player changes, fees and remainder sum to zero and no balance goes below 0.
    Raises :class:`LedgerError` (INVALID_ARGUMENT) on bad terms or seats.

    >>> t = Terms(base=50, unit=5, fee_rate=0.02)   # seed 000's table
    >>> s = settle(t, [Seat(0, "A", 0), Seat(1, "B", 10), Seat(2, "C", -10), Seat(3, "D", 0)],
    ...            {"A": 500, "B": 500, "C": 500, "D": 500})
    >>> [(r.player, r.coins, r.fee) for r in s.rows], s.house
    ([('A', 0, 0), ('B', 98, 2), ('C', -100, 0), ('D', 0, 0)], 2)
    """
    check_terms(terms)
    check_seats(terms, seats)
    rate = fee_fraction(terms.fee_rate)
    claims = {s.player: claim(terms, s.points) for s in seats}
    paid = {p: min(-c, max(0, balances[p])) for p, c in claims.items() if c < 0}
    received_total = sum(paid.values())
    wins = {p: c for p, c in claims.items() if c > 0}
    claimed_total = sum(wins.values())
    if received_total >= claimed_total:
        received = dict(wins)
    else:
        received = {p: received_total * c // claimed_total for p, c in wins.items()}
    remainder = received_total - sum(received.values())
    # floor(r × rate) in integers (r ≥ 0): the same as Fraction's, a fifth of the time
    fees = {p: r * rate.numerator // rate.denominator for p, r in received.items()}
    rows = []
    for s in sorted(seats, key=lambda s: s.seat):
        if s.player in paid:
            coins, fee = -paid[s.player], 0
        else:
            fee = fees.get(s.player, 0)
            coins = received.get(s.player, 0) - fee
        rows.append(Row(s.player, s.seat, s.points, coins, fee))
    return Settlement(tuple(rows), sum(fees.values()), remainder)


def charge(coins: int, balance: int) -> int:
    """What a room fee of ``coins`` takes from a player holding ``balance``:
    the fee capped at the balance (rulings.md: the doudizhu no-call fee, 20)."""
    return min(coins, max(0, balance))
