"""A ``grpc.aio`` server whose method handlers are wrapped once, when they are
registered, instead of by server interceptors on every call.

With any server interceptor, ``grpc.aio`` runs the interceptor chain for every
call (a ``functools.partial`` continuation per interceptor, its coroutines,
the handler looked up again): CPU and cyclic garbage per RPC, which the
collector then has to find (docs/performance.md).
:class:`GuardedServer` stands for the real server in :func:`paiju.runtime.service.serve`:
every handler a servicer registers, by ``add_registered_method_handlers`` (what
grpcio's generated ``add_*Servicer_to_server`` uses first) or by
``add_generic_rpc_handlers`` (the generated code's fallback, health,
reflection, any hand-made ``GenericRpcHandler``), goes through ``wrap(method,
handler)`` (the metrics of :func:`paiju.runtime.metrics.timed` around the check of
:meth:`paiju.security.authz.Authorizer.guard`) before the server sees it. A generic
handler is wrapped by :class:`_Wrapped`, which wraps each method's handler the
first time it is asked for it and keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import grpc

#: ``wrap(full method name, handler or None)``: the handler the server runs.
Wrap = Callable[[str, Any], Any]


class _Wrapped(grpc.GenericRpcHandler):  # type: ignore[misc]
    """A ``GenericRpcHandler`` whose handlers come out wrapped: each method's
    once (kept while the inner handler returns the same one)."""

    def __init__(self, inner: Any, wrap: Wrap) -> None:
        self._inner = inner
        self._wrap = wrap
        self._made: dict[str, tuple[Any, Any]] = {}

    def service(self, details: grpc.HandlerCallDetails) -> Any:
        """The wrapped handler of ``details.method``, or None (not this one's)."""
        handler = self._inner.service(details)
        if handler is None:
            return None
        method = str(details.method)
        made = self._made.get(method)
        if made is None or made[0] is not handler:
            made = self._made[method] = (handler, self._wrap(method, handler))
        return made[1]


class GuardedServer(grpc.aio.Server):  # type: ignore[misc]
    """``server`` (a ``grpc.aio.server()``) with every handler registered
    through it wrapped by ``wrap`` (see the module docstring); everything
    else is the server's own."""

    def __init__(self, server: Any, wrap: Wrap) -> None:
        self._server = server
        self._wrap = wrap

    def add_generic_rpc_handlers(self, generic_rpc_handlers: Sequence[Any]) -> None:
        """Register ``generic_rpc_handlers``, each behind :class:`_Wrapped`."""
        self._server.add_generic_rpc_handlers(
            [_Wrapped(handler, self._wrap) for handler in generic_rpc_handlers])

    def add_registered_method_handlers(self, service_name: str,
                                       method_handlers: Mapping[str, Any]) -> None:
        """Register ``method_handlers`` (method name → handler) of
        ``service_name`` (``package.Service``), each wrapped now."""
        self._server.add_registered_method_handlers(service_name, {
            name: self._wrap(f"/{service_name}/{name}", handler)
            for name, handler in method_handlers.items()})

    def add_insecure_port(self, address: str) -> int:
        """The server's own (the bound port; 0 if it could not bind)."""
        return int(self._server.add_insecure_port(address))

    def add_secure_port(self, address: str, server_credentials: grpc.ServerCredentials) -> int:
        """The server's own (the bound port; 0 if it could not bind)."""
        return int(self._server.add_secure_port(address, server_credentials))

    async def start(self) -> None:
        """The server's own."""
        await self._server.start()

    async def stop(self, grace: float | None) -> None:
        """The server's own: stop accepting, let calls run ``grace`` seconds."""
        await self._server.stop(grace)

    async def wait_for_termination(self, timeout: float | None = None) -> bool:
        """The server's own: True if it stopped within ``timeout`` seconds."""
        return bool(await self._server.wait_for_termination(timeout))
