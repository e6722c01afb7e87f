"""Small helpers of the lobby tests: calls that expect a refusal, metric reads."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import grpc
from prometheus_client import REGISTRY

from services.lobby.domain.errors import reason_of


async def refused(call: Awaitable[Any]) -> tuple[grpc.StatusCode, str]:
    """Await a call that must fail; its status code and reason code."""
    try:
        await call
    except grpc.aio.AioRpcError as e:
        return e.code(), reason_of(e)
    raise AssertionError("the call succeeded but should have been refused")


def sample(name: str, **labels: str) -> float:
    """The current value of a metric sample (0 if absent)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0
