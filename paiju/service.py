"""The bootstrap every paiju service process uses.

:func:`run` sets up JSON logging, the ``/metrics`` endpoint, a ``grpc.aio``
server with the metrics interceptor, the standard health service (readiness
fed by dependencies) and reflection, calls the service's ``setup`` to add its
servicers and background work, and serves until SIGTERM or SIGINT. Then it
stops gracefully: readiness goes NOT_SERVING, the server stops accepting and
lets in-flight calls finish (``PAIJU_DRAIN_SECONDS``), the service's own
``on_stop`` callbacks run (drain NATS, close the database), in that order.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from paiju import log as logsetup
from paiju.config import Config, check_keys, load
from paiju.health import Health
from paiju.metrics import MetricsInterceptor, serve_metrics


@dataclass
class Context:
    """What ``setup`` gets: the configuration (``grpc_port`` is the bound port),
    health, the gRPC server, a logger, the stop event, and lists to register
    background tasks and stop callbacks in (callbacks run in order after the
    gRPC server has drained; tasks are cancelled last)."""

    config: Config
    health: Health
    server: grpc.aio.Server
    log: logging.Logger
    stopping: asyncio.Event
    tasks: list[asyncio.Task[object]] = field(default_factory=list)
    on_stop: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


#: ``setup(ctx)`` adds servicers to ``ctx.server`` and returns their full
#: service names (for health and reflection).
Setup = Callable[[Context], Awaitable[Sequence[str]]]

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def serve(config: Config, setup: Setup, ready: asyncio.Event | None = None, *,
                stop: asyncio.Event | None = None,
                on_started: Callable[[Context], object] | None = None,
                signals: bool = True) -> None:
    """Run one service until SIGTERM/SIGINT or until ``stop`` is set.

    ``config.grpc_port`` 0 binds a free port (``ctx.config.grpc_port`` tells
    which). ``ready`` is set and ``on_started(ctx)`` called once the server
    accepts calls. ``signals=False`` leaves the process's signal handlers alone
    (in-process tests). Raises ``RuntimeError`` if the port cannot be bound and
    whatever ``setup`` raises; the server is stopped in every case.
    """
    log = logging.getLogger(f"paiju.{config.service}")
    # No SO_REUSEPORT (gRPC's default on Linux): a port another process holds is
    # a bind error here, not a second server silently sharing its calls.
    server = grpc.aio.server(interceptors=[MetricsInterceptor()],
                             options=[("grpc.so_reuseport", 0)])
    where = f"{config.host}:{config.grpc_port}"
    try:
        port = server.add_insecure_port(where)
    except RuntimeError as e:  # grpc's own "Failed to bind"
        raise RuntimeError(f"cannot bind gRPC port {where} (in use?)") from e
    if port == 0:
        raise RuntimeError(f"cannot bind gRPC port {where} (in use?)")
    if config.grpc_port != port:
        instance = config.instance
        if not instance or instance == f"{config.service}-{config.grpc_port}":
            instance = f"{config.service}-{port}"
        config = dataclasses.replace(config, grpc_port=port, instance=instance)
    ctx = Context(config, Health([]), server, log, stop or asyncio.Event())
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    try:
        if signals:
            for sig in _SIGNALS:
                loop.add_signal_handler(sig, ctx.stopping.set)
                installed.append(sig)
        names = await _setup_unless_stopped(setup, ctx)
        if names is None:
            log.info("stopped before serving")
            return
        ctx.health.services += names
        health_pb2_grpc.add_HealthServicer_to_server(ctx.health.servicer, server)
        reflection.enable_server_reflection(
            [*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME], server)
        await ctx.health.publish()
        await server.start()
        log.info("serving", extra={"grpc_port": port, "metrics_port": config.metrics_port,
                                   "services": names, "instance": config.instance})
        if ready is not None:
            ready.set()
        if on_started is not None:
            on_started(ctx)
        await ctx.stopping.wait()
        log.info("stopping", extra={"drain_seconds": config.drain_seconds})
    finally:
        await _shutdown(ctx)
        for sig in installed:
            loop.remove_signal_handler(sig)


async def _setup_unless_stopped(setup: Setup, ctx: Context) -> list[str] | None:
    """``setup(ctx)``'s service names, or None if the stop event came first
    (setup may wait for a dependency for ever: SIGTERM must still stop it)."""
    setup_task: asyncio.Future[Any] = asyncio.ensure_future(setup(ctx))
    stop_task: asyncio.Future[Any] = asyncio.ensure_future(ctx.stopping.wait())
    try:
        await asyncio.wait([setup_task, stop_task], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop_task.cancel()
        if not setup_task.done():
            setup_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await setup_task
    if setup_task.cancelled():
        return None
    return list(setup_task.result())


async def _shutdown(ctx: Context) -> None:
    """NOT_SERVING, drain the gRPC server, stop callbacks, cancel tasks."""
    grace = ctx.config.drain_seconds
    await ctx.health.stop()
    await ctx.server.stop(grace=grace)
    for callback in ctx.on_stop:
        try:
            await asyncio.wait_for(callback(), timeout=grace)
        except Exception:
            ctx.log.exception("stop callback failed")
    for task in ctx.tasks:
        task.cancel()
    with contextlib.suppress(Exception):
        await asyncio.gather(*ctx.tasks, return_exceptions=True)
    ctx.log.info("stopped")


def run(service: str, setup: Setup) -> None:
    """The ``main()`` of a service process: configuration from the environment,
    logs, metrics, then :func:`serve` until SIGTERM or SIGINT. Exit status 0
    after a graceful stop, 1 if it failed (logged as JSON), 2 for a malformed
    ``PAIJU_*`` variable or a development key outside development mode
    (:func:`paiju.config.check_keys`)."""
    try:
        config = load(service)
        check_keys(config)
    except ValueError as e:
        print(f"paiju {service}: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    log = logsetup.setup(service, config.log_level)
    try:
        serve_metrics(config.metrics_port, config.host)
        asyncio.run(serve(config, setup))
    except Exception:
        log.exception("failed")  # one JSON line with the traceback in "exc"
        raise SystemExit(1) from None
