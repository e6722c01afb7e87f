"""The ledger's money movements: grants, settlements, room fees and
operators' adjustments (relief coins: services/ledger/application/relief.py).

Each is one idempotent unit of work (services/ledger/application/journal.py): the
transaction row and the players' locks (``Writer.open``), the rule
(services/ledger/domain/settlement.py), then the postings, the outbox events and the
stored answer (``Writer.close``), committed together or not at all.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from paiju.runtime import jsontext
from services.ledger.adapters.journal_pg import PgWriter
from services.ledger.adapters.journal_sql import SqlWriter
from services.ledger.adapters.models import (
    DAY_MS,
    HOUSE_ADJUSTMENTS,
    HOUSE_FEES,
    HOUSE_GRANTS,
    HOUSE_PENALTIES,
    HOUSE_ROOM_FEES,
    transactions,
)
from services.ledger.adapters.unit_of_work import UnitOfWork
from services.ledger.application import journal
from services.ledger.application.accounts import Accounts, AccountView
from services.ledger.domain import settlement as rules
from services.ledger.domain.errors import (
    ALREADY_EXISTS,
    FAILED_PRECONDITION,
    INVALID_ARGUMENT,
    LedgerError,
)

T = TypeVar("T")
#: The longest time played a settlement may give (ms): 7 days.
MAX_PLAYED_MS = 7 * 86_400_000

#: Transaction kind → the refusal of a repeated key with other content.
CONFLICTS = {"grant": ("grant_id_conflict", "grant {} was made with other content"),
             "settle": ("game_id_conflict", "game {} was settled with other content"),
             "fee": ("charge_id_conflict", "charge {} was made with other content"),
             "adjust": ("adjustment_id_conflict", "adjustment {} was made with other content"),
             "relief": ("claim_id_conflict", "relief claim {} was made with other content")}


@dataclass(frozen=True)
class SettleOutcome:
    """The answer to a settlement (or a fee charge): the rows, the house's take
    split into fees and remainder, and whether it was a repeat."""

    reference: str
    rows: tuple[rules.Row, ...]
    fees: int
    remainder: int
    repeated: bool

    @property
    def house(self) -> int:
        """Everything the house took."""
        return self.fees + self.remainder


def _rows_json(rows: Sequence[rules.Row], fees: int, remainder: int) -> str:
    return jsontext.dumps({"rows": [[r.player, r.seat, r.points, r.coins, r.fee] for r in rows],
                           "fees": fees, "remainder": remainder})


def _outcome(reference: str, result_json: str, repeated: bool) -> SettleOutcome:
    data = json.loads(result_json)
    rows = tuple(rules.Row(str(p), int(s), int(pt), int(c), int(f))
                 for p, s, pt, c, f in data["rows"])
    return SettleOutcome(reference, rows, int(data["fees"]), int(data["remainder"]), repeated)


async def _stored(uow: UnitOfWork, kind: str, reference: str) -> tuple[str, str]:
    async def read(conn: AsyncConnection) -> tuple[str, str]:
        row = (await conn.execute(
            select(transactions.c.content_hash, transactions.c.result_json)
            .where(transactions.c.kind == kind, transactions.c.reference == reference)
        )).one()
        return str(row.content_hash), str(row.result_json)

    return await uow.query(kind, read)


async def once(uow: UnitOfWork, kind: str, reference: str, digest: str,
                work: Callable[[journal.Writer], Awaitable[T]],
                repeat: Callable[[str], T]) -> T:
    """Run the unit of work ``work`` (whose first step is the writer's ``open``
    of ``kind``/``reference``) once and commit: on PostgreSQL on the driver's
    connection (services/ledger/adapters/journal_pg.py), on SQLite through SQLAlchemy
    (journal_sql.py). A repeat of the same content (``digest``) answers
    ``repeat(stored result_json)`` and moves nothing; other content under the
    same key raises ``<kind>_id_conflict`` (ALREADY_EXISTS): ``grant_id_conflict``,
    ``game_id_conflict`` (settle), ``charge_id_conflict`` (fee),
    ``adjustment_id_conflict``, ``claim_id_conflict`` (relief)."""
    try:
        if uow.sqlite:
            return await uow.run(kind, lambda conn: work(SqlWriter(conn)), events=True)
        return await uow.run_driver(kind, lambda conn: work(PgWriter(conn)), events=True)
    except journal.Repeat:
        stored, result_json = await _stored(uow, kind, reference)
        if stored != digest:
            reason, message = CONFLICTS[kind]
            raise LedgerError(ALREADY_EXISTS, reason, message.format(reference)) from None
        return repeat(result_json)


class Postings:
    """Grants, settlements and fee charges through ``uow``."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow
        self.accounts = Accounts(uow)

    async def grant(self, player: str, coins: int, reason: str = "", grant_id: str = "",
                    ) -> tuple[AccountView, bool]:
        """Give ``player`` ``coins`` (> 0) from ``house:grants``; idempotent by
        ``grant_id`` (empty: a fresh one). Returns the account and whether it
        was a repeat. Errors: ``bad_amount``, ``bad_reference`` (INVALID_ARGUMENT),
        ``unknown_player`` (NOT_FOUND), ``grant_id_conflict`` (ALREADY_EXISTS)."""
        rules.check_player(player)
        _check_amount(coins)
        reason = reason or "grant"
        grant_id = grant_id or f"auto:{uuid.uuid4()}"
        _check_reference(grant_id, reason)
        digest = journal.content_hash({"player": player, "coins": coins, "reason": reason})
        uow = self.uow

        async def work(w: journal.Writer) -> bool:
            now = uow.clock()
            txid, balances = await w.open(
                "grant", grant_id, digest, now, [player], reason=reason)
            await w.close(
                txid, balances, {player: coins}, {HOUSE_GRANTS: -coins},
                json.dumps({"coins": coins}),
                [{"player": player, "coins": balances[player] + coins, "delta": coins,
                  "reason": reason, "game_id": ""}], now)
            return False  # applied now, not a repeat

        repeated = await once(uow, "grant", grant_id, digest, work, lambda _: True)
        return await self.accounts.balance(player), repeated

    async def settle(self, game_id: str, terms: rules.Terms, seats: Sequence[rules.Seat],
                     game: str = "", reason: str = "", server: str = "", room: str = "",
                     played_ms: int = 0) -> SettleOutcome:
        """Apply the settlement of ``game_id`` (rulings.md "Settlement") once,
        with its seats and coins won kept for history and rankings under the
        coin ``server`` and ``room`` it was played at, and how long it was
        played (``played_ms``, ms, 0 to 7 days) for the players' stats.

        A repeat with the same content returns the stored outcome with
        ``repeated`` true and moves nothing. Errors: INVALID_ARGUMENT (``bad_terms``,
        ``no_seats``, ``duplicate_seat``, ``duplicate_player``, ``bad_player_id``,
        ``points_not_multiple_of_unit``, ``amount_out_of_range``, ``bad_reference``,
        ``bad_played_ms``),
        NOT_FOUND ``unknown_player``, ALREADY_EXISTS ``game_id_conflict``.
        """
        _check_reference(game_id, reason, game, server, room)
        if not 0 <= played_ms <= MAX_PLAYED_MS:
            raise LedgerError(INVALID_ARGUMENT, "bad_played_ms",
                              f"played_ms must be 0-{MAX_PLAYED_MS}")
        rules.check_terms(terms)
        rules.check_seats(terms, seats)
        # server and room are where it was played, not what is settled: a
        # repeat is the same settlement with or without them (a retry that
        # crosses a rollout of the ledger is a repeat, not a conflict).
        digest = journal.content_hash({
            "terms": [terms.base, terms.unit, repr(float(terms.fee_rate))],
            "seats": sorted([s.seat, s.player, s.points] for s in seats),
            "game": game, "reason": reason})
        uow = self.uow

        async def work(w: journal.Writer) -> SettleOutcome:
            now = uow.clock()
            txid, balances = await w.open(
                "settle", game_id, digest, now, [s.player for s in seats],
                game, reason, server, room, played_ms)
            result = rules.settle(terms, seats, balances)
            tally = journal.Tally(server, now // DAY_MS, tuple(
                (r.player, r.seat, r.points, r.coins, r.fee) for r in result.rows))
            await w.close(
                txid, balances, {r.player: r.coins for r in result.rows},
                {HOUSE_FEES: result.fees, HOUSE_PENALTIES: result.remainder},
                _rows_json(result.rows, result.fees, result.remainder),
                [{"player": r.player, "coins": balances[r.player] + r.coins, "delta": r.coins,
                  "reason": "settlement", "game_id": game_id, "points": r.points,
                  "fee": r.fee} for r in result.rows], now, tally)
            return SettleOutcome(game_id, result.rows, result.fees, result.remainder, False)

        return await once(uow, "settle", game_id, digest, work,
                                  lambda stored: _outcome(game_id, stored, True))

    async def charge_fee(self, charge_id: str, players: Sequence[str], coins: int,
                         reason: str = "", game_id: str = "") -> SettleOutcome:
        """Charge each of ``players`` a room fee of ``coins``, capped at its
        balance (rulings.md: the doudizhu no-call fee), into ``house:room_fees``;
        idempotent by ``charge_id``. Rows: ``coins`` the (negative) change, ``fee``
        what was taken, ``seat`` the player's index in ``players``. Errors:
        ``bad_amount``, ``no_players``, ``duplicate_player``, ``bad_player_id``,
        ``bad_reference`` (INVALID_ARGUMENT), ``unknown_player`` (NOT_FOUND),
        ``charge_id_conflict`` (ALREADY_EXISTS)."""
        _check_reference(charge_id, reason, game_id)
        _check_amount(coins)
        if not players:
            raise LedgerError(INVALID_ARGUMENT, "no_players", "a fee needs at least one player")
        if len(set(players)) != len(players):
            raise LedgerError(INVALID_ARGUMENT, "duplicate_player", "a player appears twice")
        for p in players:
            rules.check_player(p)
        reason = reason or "room_fee"
        digest = journal.content_hash({"players": list(players), "coins": coins,
                                       "reason": reason, "game_id": game_id})
        uow = self.uow

        async def work(w: journal.Writer) -> SettleOutcome:
            now = uow.clock()
            txid, balances = await w.open(
                "fee", charge_id, digest, now, players, reason=reason)
            taken = {p: rules.charge(coins, balances[p]) for p in players}
            rows = tuple(rules.Row(p, i, 0, -taken[p], taken[p]) for i, p in enumerate(players))
            await w.close(
                txid, balances, {p: -t for p, t in taken.items()},
                {HOUSE_ROOM_FEES: sum(taken.values())}, _rows_json(rows, sum(taken.values()), 0),
                [{"player": p, "coins": balances[p] - taken[p], "delta": -taken[p],
                  "reason": reason, "game_id": game_id} for p in players], now)
            return SettleOutcome(charge_id, rows, sum(taken.values()), 0, False)

        return await once(uow, "fee", charge_id, digest, work,
                                  lambda stored: _outcome(charge_id, stored, True))


async def adjust(postings: Postings, player: str, coins: int, reason: str,
                 adjustment_id: str, by: str) -> tuple[AccountView, bool]:
    """An operator's adjustment (``paiju admin adjust``): ``coins`` (> 0 given,
    < 0 taken) to ``player`` against ``house:adjustments``, one transaction
    of kind ``adjust`` whose reason is ``reason`` (mandatory) and whose stored
    result names the operator ``by``; idempotent by ``adjustment_id``.
    Returns the account and whether it was a repeat. Errors:
    ``reason_required``, ``bad_amount``, ``bad_reference``, ``bad_player_id``
    (INVALID_ARGUMENT), ``unknown_player`` (NOT_FOUND), ``not_enough_coins``
    (FAILED_PRECONDITION: a take beyond the balance), ``adjustment_id_conflict``
    (ALREADY_EXISTS)."""
    rules.check_player(player)
    if not reason.strip():
        raise LedgerError(INVALID_ARGUMENT, "reason_required",
                          "an adjustment needs a reason")
    if isinstance(coins, bool) or not isinstance(coins, int) or coins == 0:
        raise LedgerError(INVALID_ARGUMENT, "bad_amount",
                          f"coins must be a non-zero whole number, got {coins!r}")
    _check_amount(abs(coins))
    _check_reference(adjustment_id, reason)
    digest = journal.content_hash({"player": player, "coins": coins, "reason": reason})
    uow = postings.uow

    async def work(w: journal.Writer) -> bool:
        now = uow.clock()
        txid, balances = await w.open("adjust", adjustment_id, digest, now, [player],
                                      reason=reason)
        if balances[player] + coins < 0:
            raise LedgerError(FAILED_PRECONDITION, "not_enough_coins",
                              f"{player} has {balances[player]} coins; cannot take "
                              f"{-coins}")
        await w.close(
            txid, balances, {player: coins}, {HOUSE_ADJUSTMENTS: -coins},
            json.dumps({"coins": coins, "by": by, "reason": reason}),
            [{"player": player, "coins": balances[player] + coins, "delta": coins,
              "reason": "adjustment", "game_id": ""}], now)
        return False

    repeated = await once(uow, "adjust", adjustment_id, digest, work, lambda _: True)
    return await postings.accounts.balance(player), repeated


def _check_amount(coins: int) -> None:
    if not isinstance(coins, int) or isinstance(coins, bool) or not 0 < coins <= rules.MAX_AMOUNT:
        raise LedgerError(INVALID_ARGUMENT, "bad_amount",
                          f"coins must be a positive whole number, got {coins!r}")


def _check_reference(reference: str, *labels: str) -> None:
    if not reference or len(reference) > 160:
        raise LedgerError(INVALID_ARGUMENT, "bad_reference",
                          "the idempotency key (game_id, grant_id, charge_id) must be "
                          "1-160 characters")
    for label in labels:
        if len(label) > 64:
            raise LedgerError(INVALID_ARGUMENT, "bad_reference",
                              f"{label[:20]!r}… is longer than 64 characters")
