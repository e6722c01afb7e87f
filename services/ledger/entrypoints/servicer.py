"""The ledger's gRPC servicer: protobuf in and out, :class:`Ledger` does the work.

Refusals become gRPC errors with details ``"<reason>: <message>"``
(services/ledger/domain/errors.py); a database that cannot be reached is UNAVAILABLE
``database_unavailable``.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
from google.protobuf import unknown_fields
from google.protobuf.message import Message
from sqlalchemy.exc import DBAPIError

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.security import operator_calls as operator
from services.ledger.application import accounts as account_search
from services.ledger.application.accounts import AccountView
from services.ledger.application.games import RankRow
from services.ledger.application.ledger import Ledger
from services.ledger.application.postings import SettleOutcome, adjust
from services.ledger.application.relief import NOT_ELIGIBLE, SPENT, grant_relief
from services.ledger.domain import relief as relief_rules
from services.ledger.domain import settlement as rules
from services.ledger.domain.errors import (
    INVALID_ARGUMENT,
    PERMISSION_DENIED,
    UNAVAILABLE,
    LedgerError,
)
from services.ledger.metrics import (
    ADJUSTED,
    COINS_MOVED,
    FEES,
    GRANTED,
    HISTORY_READ,
    RANKINGS_READ,
    RANKINGS_SECONDS,
    RELIEF,
    RELIEF_COINS,
    SETTLEMENT_SECONDS,
    SETTLEMENTS,
    STATS_READ,
)

T = TypeVar("T")
GRANT_KEY_HEADER = "x-paiju-grant-key"
SERVICE_NAME = ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"].full_name

log = logging.getLogger("paiju.ledger")

#: The settlement metrics' children, looked up once (``labels`` takes a lock
#: and a dict lookup every call).
_APPLIED = SETTLEMENTS.labels("applied")
_REPEATED = SETTLEMENTS.labels("repeated")
_WINNER_FEES = FEES.labels("winner")
_REMAINDER_FEES = FEES.labels("remainder")


def mistyped_fields(message: Message, prefix: str = "") -> list[str]:
    """Names of fields of ``message`` (and its sub-messages) that arrived with a
    wire type other than their declared one — e.g. ``coins`` sent as a double
    1.5. Protobuf keeps such values as unknown fields and reads the field as 0;
    the ledger refuses them instead (``bad_field_type``)."""
    known = message.DESCRIPTOR.fields_by_number
    unknown = unknown_fields.UnknownFieldSet(message)
    numbers = [unknown[i].field_number for i in range(len(unknown))]
    found = [f"{prefix}{known[n].name}" for n in numbers if n in known]
    for field, value in message.ListFields():
        if field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        if field.is_repeated:
            for i, item in enumerate(value):
                found += mistyped_fields(item, f"{prefix}{field.name}[{i}].")
        else:
            found += mistyped_fields(value, f"{prefix}{field.name}.")
    return found


def _check_wire(message: Message) -> None:
    bad = mistyped_fields(message)
    if bad:
        raise LedgerError(INVALID_ARGUMENT, "bad_field_type",
                          f"{', '.join(bad)}: wrong type (amounts and points are integers)")


def _account(a: AccountView) -> ledger_pb2.Account:
    return ledger_pb2.Account(player=a.player, name=a.name, coins=a.coins)


def _rows(outcome: SettleOutcome) -> list[common_pb2.SettlementRow]:
    return [common_pb2.SettlementRow(player=r.player, seat=r.seat, points=r.points,
                                     coins=r.coins, fee=r.fee) for r in outcome.rows]


class LedgerServicer(ledger_pb2_grpc.LedgerServiceServicer):
    """``paiju.ledger.v1.LedgerService`` over a :class:`Ledger`; ``grant_key``
    guards Grant (metadata ``x-paiju-grant-key``)."""

    def __init__(self, ledger: Ledger, grant_key: str) -> None:
        self.ledger = ledger
        self.grant_key = grant_key

    async def _call(self, context: grpc.aio.ServicerContext, request: Message,
                    work: Callable[[], Awaitable[T]],
                    failed: Callable[[str], None] = lambda _: None) -> T:
        """``work()`` after the wire check; a refusal (:class:`LedgerError`)
        aborts with its code and ``"<reason>: <message>"``, a database failure
        with UNAVAILABLE ``database_unavailable``. ``failed`` hears ``refused``
        or ``error`` before the call ends that way."""
        try:
            _check_wire(request)
            return await work()
        except LedgerError as e:
            failed("refused")
            await context.abort(e.code, e.details)
        except DBAPIError as e:
            failed("error")
            log.warning("database error: %s", e)
            await context.abort(UNAVAILABLE, f"database_unavailable: {type(e.orig).__name__}")
        except Exception:
            failed("error")
            raise
        raise AssertionError("unreachable")

    async def OpenAccount(self, request: ledger_pb2.OpenAccountRequest,
                          context: grpc.aio.ServicerContext) -> ledger_pb2.Account:
        """Open (or return) an account."""
        account = await self._call(context, request, lambda: self.ledger.accounts.open(
            request.player, request.name))
        return _account(account)

    async def GetBalance(self, request: ledger_pb2.GetBalanceRequest,
                         context: grpc.aio.ServicerContext) -> ledger_pb2.Account:
        """A player's coins."""
        account = await self._call(context, request,
                                   lambda: self.ledger.accounts.balance(request.player))
        return _account(account)

    async def GetHistory(self, request: ledger_pb2.GetHistoryRequest,
                         context: grpc.aio.ServicerContext) -> ledger_pb2.GetHistoryResponse:
        """A player's journal entries, newest first."""
        found = await self._call(context, request, lambda: self.ledger.accounts.history(
            request.player, request.limit))
        return ledger_pb2.GetHistoryResponse(entries=[
            ledger_pb2.JournalEntry(transaction_id=e.transaction_id, kind=e.kind,
                                    reference=e.reference, delta=e.delta, ts_ms=e.ts_ms,
                                    balance_after=e.balance_after) for e in found])

    async def Grant(self, request: ledger_pb2.GrantRequest,
                    context: grpc.aio.ServicerContext) -> ledger_pb2.Account:
        """Grant coins; needs the grant key in the metadata."""
        given = ""
        for key, value in context.invocation_metadata() or ():
            if key == GRANT_KEY_HEADER:
                given = value if isinstance(value, str) else value.decode()
        if not self.grant_key or not hmac.compare_digest(given.encode(), self.grant_key.encode()):
            await context.abort(PERMISSION_DENIED,
                                f"grant_key_required: metadata {GRANT_KEY_HEADER} is missing "
                                "or wrong")
        account, repeated = await self._call(context, request, lambda: self.ledger.postings.grant(
            request.player, request.coins, request.reason, request.grant_id))
        if not repeated:
            GRANTED.inc(request.coins)
        return _account(account)

    async def Settle(self, request: ledger_pb2.SettleRequest,
                     context: grpc.aio.ServicerContext) -> ledger_pb2.SettleResponse:
        """Settle a finished game (idempotent by game id)."""
        start = time.perf_counter()
        terms = rules.Terms(request.terms.base, request.terms.unit, request.terms.fee_rate)
        seats = [rules.Seat(s.seat, s.player, s.points) for s in request.seats]
        outcome = await self._call(
            context, request,
            lambda: self.ledger.postings.settle(request.game_id, terms, seats, request.game,
                                                request.reason, request.server, request.room,
                                                request.played_ms),
            lambda result: SETTLEMENTS.labels(result).inc())
        SETTLEMENT_SECONDS.observe(time.perf_counter() - start)
        if outcome.repeated:
            _REPEATED.inc()
        else:
            _APPLIED.inc()
            COINS_MOVED.inc(sum(-r.coins for r in outcome.rows if r.coins < 0))
            _WINNER_FEES.inc(outcome.fees)
            _REMAINDER_FEES.inc(outcome.remainder)
        return ledger_pb2.SettleResponse(game_id=outcome.reference, rows=_rows(outcome),
                                         house=outcome.house, repeated=outcome.repeated,
                                         fees=outcome.fees, remainder=outcome.remainder)

    async def ChargeFee(self, request: ledger_pb2.ChargeFeeRequest,
                        context: grpc.aio.ServicerContext) -> ledger_pb2.ChargeFeeResponse:
        """Charge a room fee capped at each balance (idempotent by charge id)."""
        outcome = await self._call(context, request, lambda: self.ledger.postings.charge_fee(
            request.charge_id, list(request.players), request.coins, request.reason,
            request.game_id))
        if not outcome.repeated:
            COINS_MOVED.inc(outcome.fees)
            FEES.labels("room").inc(outcome.fees)
        return ledger_pb2.ChargeFeeResponse(rows=_rows(outcome), repeated=outcome.repeated)

    async def GetGames(self, request: ledger_pb2.GetGamesRequest,
                       context: grpc.aio.ServicerContext) -> ledger_pb2.GetGamesResponse:
        """A player's settled games, newest first (services/ledger/application/games.py)."""
        games, next_before = await self._call(context, request, lambda: self.ledger.games.history(
            request.player, request.limit, request.before))
        HISTORY_READ.inc()
        return ledger_pb2.GetGamesResponse(next_before=next_before, games=[
            ledger_pb2.GameEntry(
                transaction_id=g.transaction_id, game_id=g.game_id, ts_ms=g.ts_ms,
                server=g.server, room=g.room, game=g.game, reason=g.reason, seat=g.mine.seat,
                points=g.mine.points, coins=g.mine.coins, fee=g.mine.fee,
                players=[ledger_pb2.GamePlayer(seat=p.seat, player=p.player, name=p.name,
                                               points=p.points, coins=p.coins, fee=p.fee)
                         for p in g.players])
            for g in games])

    async def GetRankings(self, request: ledger_pb2.GetRankingsRequest,
                          context: grpc.aio.ServicerContext) -> ledger_pb2.GetRankingsResponse:
        """A coin server's 7-day rankings (services/ledger/application/games.py)."""
        start = time.perf_counter()
        found = await self._call(context, request, lambda: self.ledger.games.rankings(
            request.server, request.player, request.limit, request.until_ms, request.window))
        RANKINGS_SECONDS.observe(time.perf_counter() - start)
        RANKINGS_READ.inc()

        def row(r: RankRow) -> ledger_pb2.RankRow:
            return ledger_pb2.RankRow(rank=r.rank, player=r.player, name=r.name, coins=r.coins,
                                      games=r.games)
        return ledger_pb2.GetRankingsResponse(
            server=found.server, from_ms=found.from_ms, to_ms=found.to_ms,
            rows=[row(r) for r in found.rows], me=row(found.me) if found.me else None,
            players=found.players)

    async def GetStats(self, request: ledger_pb2.GetStatsRequest,
                       context: grpc.aio.ServicerContext) -> ledger_pb2.GetStatsResponse:
        """A player's stats per game (services/ledger/application/games.py)."""
        found = await self._call(context, request, lambda: self.ledger.games.stats(
            request.player, request.game))
        STATS_READ.inc()
        return ledger_pb2.GetStatsResponse(player=found.player, name=found.name, games=[
            ledger_pb2.GameStats(
                game=g.game, games=g.games, wins=g.wins, losses=g.losses, draws=g.draws,
                best=g.best, worst=g.worst, escapes=g.escapes, coins=g.coins,
                first_ms=g.first_ms, last_ms=g.last_ms, played_ms=g.played_ms)
            for g in found.games])

    async def Audit(self, request: ledger_pb2.AuditRequest,
                    context: grpc.aio.ServicerContext) -> ledger_pb2.AuditResponse:
        """Recompute every balance and the zero sum."""
        report = await self._call(context, request, self.ledger.audit)
        if not report.ok:
            log.error("audit failed", extra={"mismatched": list(report.mismatched_accounts),
                                             "unbalanced": list(report.unbalanced_transactions),
                                             "journal_sum": report.journal_sum})
        return ledger_pb2.AuditResponse(
            ok=report.ok, accounts=report.accounts, transactions=report.transactions,
            journal_sum=report.journal_sum, mismatched_accounts=report.mismatched_accounts,
            unbalanced_transactions=report.unbalanced_transactions,
            negative_accounts=report.negative_accounts, house=dict(report.house),
            kinds=dict(report.kinds))

    async def FindAccounts(self, request: ledger_pb2.FindAccountsRequest,
                           context: grpc.aio.ServicerContext
                           ) -> ledger_pb2.FindAccountsResponse:
        """Player accounts by id prefix or name (the operator's search)."""
        found = await self._call(context, request, lambda: account_search.find(
            self.ledger.uow, request.query, request.limit))
        return ledger_pb2.FindAccountsResponse(accounts=[_account(a) for a in found])

    async def Adjust(self, request: ledger_pb2.AdjustRequest,
                     context: grpc.aio.ServicerContext) -> ledger_pb2.AdjustResponse:
        """An operator's adjustment with a reason (journal kind ``adjust``)."""
        by = operator.who(context)
        account, repeated = await self._call(context, request, lambda: adjust(
            self.ledger.postings, request.player, request.coins, request.reason,
            request.adjustment_id, by))
        if not repeated:
            ADJUSTED.labels("given" if request.coins > 0 else "taken").inc(abs(request.coins))
            log.warning("coins adjusted by an operator", extra={
                "operator": by, "player": request.player, "coins": request.coins,
                "reason": request.reason, "adjustment_id": request.adjustment_id})
        return ledger_pb2.AdjustResponse(account=_account(account), repeated=repeated)

    async def GrantRelief(self, request: ledger_pb2.GrantReliefRequest,
                          context: grpc.aio.ServicerContext
                          ) -> ledger_pb2.GrantReliefResponse:
        """Relief coins (救济金) for a player below the threshold, capped per
        relief day (services/ledger/application/relief.py)."""
        policy = relief_rules.Policy(request.coins, request.below, request.per_day,
                                     request.day_starts_utc_hour)

        async def claim() -> ledger_pb2.GrantReliefResponse:
            try:
                granted = await grant_relief(self.ledger.postings, request.player,
                                             request.claim_id, policy)
            except LedgerError as e:
                if e.reason in _RELIEF_REFUSALS:
                    RELIEF.labels(_RELIEF_REFUSALS[e.reason]).inc()
                raise
            if granted.repeated:
                RELIEF.labels("repeated").inc()
            else:
                RELIEF.labels("granted").inc()
                RELIEF_COINS.inc(granted.coins)
            account = await self.ledger.accounts.balance(request.player)
            return ledger_pb2.GrantReliefResponse(
                account=_account(account), coins=granted.coins,
                claims_left=granted.claims_left, day_ends_ms=granted.day_ends_ms,
                repeated=granted.repeated)

        return await self._call(context, request, claim)


#: A relief refusal's reason → its result label of paiju_ledger_relief_total.
_RELIEF_REFUSALS = {NOT_ELIGIBLE: "not_eligible", SPENT: "spent"}
