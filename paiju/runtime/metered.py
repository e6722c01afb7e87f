"""The client side of the gRPC metrics without a client interceptor.

Every channel paiju opens (:func:`paiju.security.identity.secure_channel`) is a
:class:`MeteredChannel`: its unary-unary methods count and time each call in
``grpc_client_handled_total`` / ``grpc_client_handling_seconds``
(:mod:`paiju.runtime.metrics`). grpc.aio runs a channel with any client interceptor
through its interceptor machinery (an ``InterceptedUnaryUnaryCall`` and a task
of its own per call): in the gateway, two calls per player action, that was
about a tenth of its busy time at 500 tables (docs/performance.md).
Tracing, when configured, still uses interceptors.

A metered method returns a coroutine (await it for the response; a failed call
raises ``grpc.aio.AioRpcError`` as before), not grpc's call object.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

import grpc

from paiju.runtime.metrics import GRPC_CLIENT_HANDLED, GRPC_CLIENT_SECONDS


class MeteredUnaryUnary:
    """A unary-unary method of ``inner`` (the channel's multicallable for
    ``method``, ``/package.Service/Method``) that counts and times its calls."""

    def __init__(self, inner: Callable[..., Awaitable[Any]], method: str) -> None:
        self._inner = inner
        service, _, name = method.lstrip("/").rpartition("/")
        self._seconds = GRPC_CLIENT_SECONDS.labels("unary", service, name)
        self._handled: dict[str, Any] = {}
        self._labels = ("unary", service, name)

    def _count(self, code: str) -> None:
        child = self._handled.get(code)
        if child is None:
            child = self._handled[code] = GRPC_CLIENT_HANDLED.labels(*self._labels, code)
        child.inc()

    def __call__(self, request: Any, **kwargs: Any) -> Awaitable[Any]:
        """Start the call (the keyword arguments as grpc's: ``timeout``,
        ``metadata`` …); the coroutine returned gives the response."""
        return self._observed(self._inner(request, **kwargs))

    async def _observed(self, call: Awaitable[Any]) -> Any:
        started = time.perf_counter()
        code = "OK"
        try:
            return await call
        except grpc.aio.AioRpcError as e:
            code = e.code().name
            raise
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        finally:
            self._seconds.observe(time.perf_counter() - started)
            self._count(code)


class MeteredChannel:
    """``channel`` (a ``grpc.aio.Channel``) whose unary-unary methods are
    :class:`MeteredUnaryUnary`; everything else is the channel's own."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._channel = channel

    def unary_unary(self, method: str, *args: Any, **kwargs: Any) -> MeteredUnaryUnary:
        """The metered method ``method`` (arguments as ``Channel.unary_unary``)."""
        return MeteredUnaryUnary(self._channel.unary_unary(method, *args, **kwargs), method)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)

    async def __aenter__(self) -> MeteredChannel:
        await self._channel.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._channel.__aexit__(*exc)


def metered(channel: grpc.aio.Channel) -> grpc.aio.Channel:
    """``channel`` as a :class:`MeteredChannel` (typed as the channel it wraps)."""
    return cast(grpc.aio.Channel, MeteredChannel(channel))
