"""The ledger's refusals: a gRPC status code plus a stable snake_case reason.

The servicer turns a :class:`LedgerError` into a gRPC error whose details read
``"<reason>: <message>"``; clients match on the reason (the text before the
first colon), never on the message.
"""

from __future__ import annotations

import grpc

INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
ALREADY_EXISTS = grpc.StatusCode.ALREADY_EXISTS
RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED
UNAVAILABLE = grpc.StatusCode.UNAVAILABLE


class LedgerError(Exception):
    """A refused request: nothing was changed. ``code`` is the gRPC status,
    ``reason`` a stable code (``unknown_player``, ``game_id_conflict`` …)."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message

    @property
    def details(self) -> str:
        """The gRPC status details: ``"<reason>: <message>"``."""
        return f"{self.reason}: {self.message}"
