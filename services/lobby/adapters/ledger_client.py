"""Balances from the ledger (``LedgerService.GetBalance``) and relief
grants (``LedgerService.GrantRelief``)."""

from __future__ import annotations

import asyncio

import grpc

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.security.identity import Identity, secure_channel
from services.lobby.domain import errors as E
from services.lobby.domain.relief import ReliefTerms

#: The ledger's refusals of a relief claim, passed on with their reason and status.
_PASSED_ON = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
              grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.RESOURCE_EXHAUSTED,
              grpc.StatusCode.ALREADY_EXISTS)


class Ledger:
    """A client of the ledger at ``addr`` as ``identity`` (mutual TLS);
    ``timeout`` seconds per call, which waits within it for a connection
    (``wait_for_ready``) instead of failing at once between two attempts
    (the ledger just started or restarted)."""

    def __init__(self, addr: str, identity: Identity | None, timeout: float = 3.0) -> None:
        self.channel = secure_channel(addr, identity, "ledger")
        self.stub = ledger_pb2_grpc.LedgerServiceStub(self.channel)
        self.timeout = timeout

    async def balance(self, player: str) -> int:
        """``player``'s coins; 0 for a player without an account (NOT_FOUND).
        Raises ``ledger_unavailable`` (UNAVAILABLE) when the ledger fails."""
        try:
            account = await self.stub.GetBalance(ledger_pb2.GetBalanceRequest(player=player),
                                                 timeout=self.timeout, wait_for_ready=True)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return 0
            raise E.unavailable(E.LEDGER_UNAVAILABLE,
                                f"the ledger did not answer ({e.code().name})") from e
        return int(account.coins)

    async def grant_relief(self, player: str, claim_id: str, below: int,
                           terms: ReliefTerms) -> ledger_pb2.GrantReliefResponse:
        """The ledger's relief grant of ``terms.coins`` to ``player`` if its
        balance is below ``below`` (GrantRelief; idempotent by ``claim_id``).
        The ledger's refusals are raised as :class:`LobbyError` with its reason
        and status (``not_eligible``, ``relief_spent``, ``claim_id_conflict``,
        ``bad_claim_id``, ``unknown_player`` …); ``ledger_unavailable``
        (UNAVAILABLE) when it does not answer."""
        request = ledger_pb2.GrantReliefRequest(
            player=player, claim_id=claim_id, coins=terms.coins, below=below,
            per_day=terms.per_day, day_starts_utc_hour=terms.day_starts_utc_hour)
        try:
            reply: ledger_pb2.GrantReliefResponse = await self.stub.GrantRelief(
                request, timeout=self.timeout, wait_for_ready=True)
        except grpc.aio.AioRpcError as e:
            details = e.details() or ""
            reason, _, message = details.partition(": ")
            if e.code() in _PASSED_ON and reason and message:
                raise E.LobbyError(reason, message, e.code()) from e
            raise E.unavailable(E.LEDGER_UNAVAILABLE,
                                f"the ledger did not answer ({e.code().name})") from e
        return reply

    async def balances(self, players: list[str]) -> dict[str, int]:
        """The balances of ``players`` that the ledger gave (failures left out)."""
        results = await asyncio.gather(*(self.balance(p) for p in players),
                                       return_exceptions=True)
        return {p: r for p, r in zip(players, results, strict=True) if isinstance(r, int)}

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()
