"""The table's calls to other services, retried until they answer.

- ledger ``Settle`` (idempotent by game id) and ``ChargeFee`` (idempotent by
  charge id): retried while the ledger is unreachable or failing
  (UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL, UNKNOWN, …), with the jittered
  backoff capped at 5 s of :mod:`paiju.runtime.retries` (``paiju_retries_total``
  operations ``ledger_settle``, ``ledger_charge_fee``); a refusal
  (INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND) is an answer and is not
  retried (:class:`Refused`).
- lobby ``GameOver`` and ``GameMoved`` (both idempotent by game id), retried
  the same way (``lobby_game_over``, ``lobby_game_moved``).

The addresses may name every replica (:mod:`paiju.runtime.peers`): a call goes to
one that is up, and a retry after a replica died goes to another. Each call
waits for a connection within its deadline (gRPC ``wait_for_ready``) instead
of failing at once while the channel is between two connection attempts
(after the peer was away, or started after the table).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.runtime import retries
from paiju.security.identity import Identity, secure_channel
from services.table import metrics

log = logging.getLogger("paiju.table.remote")

T = TypeVar("T")

#: Status codes that are answers, not failures: not retried.
FINAL = frozenset({
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.NOT_FOUND, grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.UNIMPLEMENTED,
})


class Refused(Exception):
    """The peer answered with a final error status (``code``, ``details``)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


def failed(e: BaseException) -> bool:
    """True for a gRPC failure worth another try (any status not in :data:`FINAL`)."""
    return isinstance(e, grpc.aio.AioRpcError) and e.code() not in FINAL


async def retry(call: Callable[[], Awaitable[T]], operation: str,
                on_retry: Callable[[], None] | None = None) -> T:
    """``await call()`` until it answers (:func:`paiju.runtime.retries.call`, for
    ever, counted as ``operation``). Raises :class:`Refused` on a final status."""
    try:
        return await retries.call(operation, call, failed, on_retry=on_retry)
    except grpc.aio.AioRpcError as e:
        raise Refused(e.code(), e.details() or "") from e


class Ledger:
    """The ledger client of the table service (mutual TLS as ``identity``)."""

    def __init__(self, addr: str, identity: Identity | None, timeout: float = 10.0) -> None:
        self.channel = secure_channel(addr, identity, "ledger")
        self.stub = ledger_pb2_grpc.LedgerServiceStub(self.channel)
        self.timeout = timeout

    async def settle(self, request: ledger_pb2.SettleRequest) -> ledger_pb2.SettleResponse:
        """``Settle``, retried until answered (counted in settlements_retried)."""
        async def call() -> ledger_pb2.SettleResponse:
            reply: ledger_pb2.SettleResponse = await self.stub.Settle(
                request, timeout=self.timeout, wait_for_ready=True)
            return reply
        return await retry(call, "ledger_settle", metrics.SETTLEMENTS_RETRIED.inc)

    async def charge_fee(self, request: ledger_pb2.ChargeFeeRequest
                         ) -> ledger_pb2.ChargeFeeResponse:
        """``ChargeFee``, retried until answered."""
        async def call() -> ledger_pb2.ChargeFeeResponse:
            reply: ledger_pb2.ChargeFeeResponse = await self.stub.ChargeFee(
                request, timeout=self.timeout, wait_for_ready=True)
            return reply
        return await retry(call, "ledger_charge_fee")

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()


class Lobby:
    """The lobby client of the table service (mutual TLS as ``identity``)."""

    def __init__(self, addr: str, identity: Identity | None, timeout: float = 10.0) -> None:
        self.channel = secure_channel(addr, identity, "lobby")
        self.stub = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.timeout = timeout

    async def game_over(self, request: lobby_pb2.GameOverRequest) -> None:
        """``GameOver``, retried until answered."""
        async def call() -> None:
            await self.stub.GameOver(request, timeout=self.timeout, wait_for_ready=True)
        await retry(call, "lobby_game_over")

    async def game_moved(self, request: lobby_pb2.GameMovedRequest) -> None:
        """``GameMoved``, retried until answered; :class:`Refused` NOT_FOUND
        when the room no longer runs the game."""
        async def call() -> None:
            await self.stub.GameMoved(request, timeout=self.timeout, wait_for_ready=True)
        await retry(call, "lobby_game_moved")

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()


def settlement_rows(rows: list[common_pb2.SettlementRow]) -> list[dict[str, int | str]]:
    """The 结算表 as events.md gives it: ``[{player, seat, points, coins, fee}]``."""
    return [{"player": r.player, "seat": r.seat, "points": r.points, "coins": r.coins,
             "fee": r.fee} for r in rows]
