"""gRPC clients of the lobby, the ledger and the table instances, and the
mapping of their errors to client error codes."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import grpc

from paiju.ledger.v1 import ledger_pb2_grpc
from paiju.lobby.v1 import lobby_pb2_grpc
from paiju.security.identity import Identity, secure_channel
from paiju.table.v1 import table_pb2_grpc
from services.gateway.domain.protocol import ClientError

#: Seconds a client command may wait for a service.
CALL_TIMEOUT = 5.0
#: Seconds a start press (the lobby's ``Ready``) may wait: the lobby looks for
#: a table instance that takes the game through a JetStream election (up to
#: 25 s, services/lobby/application/lobby.py ``PLACEMENT_SECONDS``).
READY_TIMEOUT = 30.0
_CODE = re.compile(r"^([a-z][a-z0-9_]*): ")


class Backends:
    """The channels and stubs one gateway uses (mutual TLS as ``identity``,
    :func:`paiju.security.identity.secure_channel`); table channels by address."""

    def __init__(self, lobby_addr: str, ledger_addr: str, identity: Identity | None) -> None:
        self.identity = identity
        self._channels = {"lobby": secure_channel(lobby_addr, identity, "lobby"),
                          "ledger": secure_channel(ledger_addr, identity, "ledger")}
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self._channels["lobby"])
        self.ledger = ledger_pb2_grpc.LedgerServiceStub(self._channels["ledger"])
        self._tables: dict[str, table_pb2_grpc.TableServiceStub] = {}

    def table(self, address: str) -> table_pb2_grpc.TableServiceStub:
        """The stub of the table instance at ``address`` (made once)."""
        stub = self._tables.get(address)
        if stub is None:
            ch = secure_channel(address, self.identity, "table")
            self._channels[f"table:{address}"] = ch
            stub = self._tables[address] = table_pb2_grpc.TableServiceStub(ch)
        return stub

    async def close(self) -> None:
        """Close every channel."""
        for ch in self._channels.values():
            await ch.close()


def client_error(e: grpc.aio.AioRpcError) -> ClientError:
    """The client error for a failed call: the service's reason code (trailing
    metadata ``paiju-error`` or the ``code: `` prefix of the message) where it
    gave one, else ``unavailable`` for an unreachable service, else ``internal``."""
    details = e.details() or ""
    for key, value in e.trailing_metadata() or ():
        if key == "paiju-error":
            return ClientError(str(value), details)
    m = _CODE.match(details)
    if m:
        return ClientError(m.group(1), details[m.end():])
    if e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return ClientError("unavailable", "a service did not answer; try again")
    if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
        return ClientError("bad_request", details)
    return ClientError("internal", details or e.code().name)


class CallsInFlight:
    """The gateway's calls to the services not yet answered (one gateway a
    process; read by its admission control,
    :mod:`services.gateway.domain.admission`)."""

    def __init__(self) -> None:
        self.count = 0


#: This process's calls in flight.
IN_FLIGHT = CallsInFlight()


@contextlib.contextmanager
def counted() -> Iterator[None]:
    """Count a call to a service in :data:`IN_FLIGHT` while it runs (every
    call the gateway makes: :func:`call` does)."""
    IN_FLIGHT.count += 1
    try:
        yield
    finally:
        IN_FLIGHT.count -= 1


async def call(method: Any, request: Any, *, timeout: float = CALL_TIMEOUT,
               **kwargs: Any) -> Any:
    """Call a unary method, waiting at most ``timeout`` seconds, mapping a gRPC
    failure to :class:`ClientError` (:func:`counted` while it runs)."""
    with counted():
        try:
            return await method(request, timeout=timeout, **kwargs)
        except grpc.aio.AioRpcError as e:
            raise client_error(e) from e
