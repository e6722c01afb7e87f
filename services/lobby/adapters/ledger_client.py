"""Balances from the ledger (``LedgerService.GetBalance``)."""

from __future__ import annotations

import asyncio

import grpc

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.security.identity import Identity, secure_channel
from services.lobby.domain import errors as E


class Ledger:
    """A client of the ledger at ``addr`` as ``identity`` (mutual TLS);
    ``timeout`` seconds per call."""

    def __init__(self, addr: str, identity: Identity | None, timeout: float = 3.0) -> None:
        self.channel = secure_channel(addr, identity, "ledger")
        self.stub = ledger_pb2_grpc.LedgerServiceStub(self.channel)
        self.timeout = timeout

    async def balance(self, player: str) -> int:
        """``player``'s coins; 0 for a player without an account (NOT_FOUND).
        Raises ``ledger_unavailable`` (UNAVAILABLE) when the ledger fails."""
        try:
            account = await self.stub.GetBalance(ledger_pb2.GetBalanceRequest(player=player),
                                                 timeout=self.timeout)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return 0
            raise E.unavailable(E.LEDGER_UNAVAILABLE,
                                f"the ledger did not answer ({e.code().name})") from e
        return int(account.coins)

    async def balances(self, players: list[str]) -> dict[str, int]:
        """The balances of ``players`` that the ledger gave (failures left out)."""
        results = await asyncio.gather(*(self.balance(p) for p in players),
                                       return_exceptions=True)
        return {p: r for p, r in zip(players, results, strict=True) if isinstance(r, int)}

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()
