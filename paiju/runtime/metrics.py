"""Prometheus metrics: the ``/metrics`` endpoint and the gRPC server metrics.

gRPC metrics use the conventional names of go-grpc-prometheus:
``grpc_server_started_total``, ``grpc_server_handled_total`` and
``grpc_server_handling_seconds`` with labels ``grpc_type``, ``grpc_service``,
``grpc_method`` (and ``grpc_code`` on the handled counter), and the client side
``grpc_client_handled_total`` / ``grpc_client_handling_seconds``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
from prometheus_client import Counter, Histogram, start_http_server

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)

GRPC_STARTED = Counter(
    "grpc_server_started_total", "RPCs started on the server.",
    ["grpc_type", "grpc_service", "grpc_method"],
)
GRPC_HANDLED = Counter(
    "grpc_server_handled_total", "RPCs completed on the server, by status code.",
    ["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
)
#: The garbage collector's pauses (:func:`observe_gc`): every collection, by
#: generation; a full one in a busy process is the longest pause it has.
GC_SECONDS = Histogram(
    "paiju_gc_pause_seconds", "Seconds the garbage collector held the process, by generation.",
    ["generation"], buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0))


def observe_gc() -> None:
    """Time every collection of the garbage collector into :data:`GC_SECONDS`
    (a ``gc.callbacks`` hook, once per process)."""
    import gc

    children = [GC_SECONDS.labels(str(g)) for g in range(3)]
    started = [0.0]

    def hook(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            children[int(info["generation"])].observe(time.perf_counter() - started[0])

    if not any(getattr(cb, "__qualname__", "").startswith("observe_gc") for cb in gc.callbacks):
        gc.callbacks.append(hook)


GRPC_SECONDS = Histogram(
    "grpc_server_handling_seconds", "Time to handle an RPC on the server.",
    ["grpc_type", "grpc_service", "grpc_method"], buckets=LATENCY_BUCKETS,
)
GRPC_CLIENT_HANDLED = Counter(
    "grpc_client_handled_total", "RPCs completed by the client, by status code.",
    ["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
)
GRPC_CLIENT_SECONDS = Histogram(
    "grpc_client_handling_seconds", "Time of an RPC as the client sees it.",
    ["grpc_type", "grpc_service", "grpc_method"], buckets=LATENCY_BUCKETS,
)


def serve_metrics(port: int, host: str = "0.0.0.0") -> None:
    """Serve ``/metrics`` on ``host:port`` in a background thread (port 0: none)."""
    if port:
        start_http_server(port, addr=host)


def _split(method: str) -> tuple[str, str]:
    # "/paiju.ledger.v1.LedgerService/Settle" -> ("paiju.ledger.v1.LedgerService", "Settle")
    service, _, name = method.lstrip("/").rpartition("/")
    return service, name


def status_name(code: Any, failed: BaseException | None = None) -> str:
    """The ``grpc_code`` label of a finished RPC: the code the handler set
    (``context.abort``/``set_code``), else ``CANCELLED`` for a cancelled call,
    ``UNKNOWN`` for any other exception, ``OK`` otherwise."""
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    if isinstance(code, int):
        for status in grpc.StatusCode:
            if status.value[0] == code:
                return str(status.name)
    if failed is None:
        return "OK"
    if isinstance(failed, asyncio.CancelledError):
        return "CANCELLED"
    return "UNKNOWN"


def timed(method: str, handler: grpc.RpcMethodHandler | None) -> grpc.RpcMethodHandler | None:
    """``handler`` of full method name ``method`` (``/package.Service/Method``)
    counted and timed: ``grpc_server_started_total`` when it starts,
    ``grpc_server_handling_seconds`` and ``grpc_server_handled_total`` (by
    :func:`status_name`) when it ends. Only unary-unary handlers (the only kind
    paiju serves) are wrapped; others, and None, are returned as they are.
    Called once per method when it is registered (:mod:`paiju.runtime.grpc_server`), so
    the metric children are looked up once, not per call."""
    if handler is None or handler.unary_unary is None:
        return handler
    service, name = _split(method)
    inner = handler.unary_unary
    started = GRPC_STARTED.labels("unary", service, name)
    seconds = GRPC_SECONDS.labels("unary", service, name)
    handled: dict[str, Any] = {}

    async def observed(request: Any, context: grpc.aio.ServicerContext) -> Any:
        started.inc()
        start = time.perf_counter()
        failed: BaseException | None = None
        try:
            return await inner(request, context)
        except BaseException as e:
            failed = e
            raise
        finally:
            seconds.observe(time.perf_counter() - start)
            code = status_name(context.code(), failed)
            child = handled.get(code)
            if child is None:
                child = handled[code] = GRPC_HANDLED.labels("unary", service, name, code)
            child.inc()
            del failed  # no cycle through the traceback's frame (this one)

    return grpc.unary_unary_rpc_method_handler(
        observed,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )
