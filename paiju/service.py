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
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from paiju import log as logsetup
from paiju.config import Config, load
from paiju.health import Health
from paiju.metrics import MetricsInterceptor, serve_metrics


@dataclass
class Context:
    """What ``setup`` gets: the configuration, health, the gRPC server, a logger,
    a stop event, and lists to register background tasks and stop callbacks in."""

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


async def serve(config: Config, setup: Setup, ready: asyncio.Event | None = None) -> None:
    """Run one service until SIGTERM/SIGINT (or ``ctx.stopping`` is set)."""
    log = logging.getLogger(f"paiju.{config.service}")
    server = grpc.aio.server(interceptors=[MetricsInterceptor()])
    ctx = Context(config, Health([]), server, log, asyncio.Event())
    names = list(await setup(ctx))
    ctx.health.services += names
    health_pb2_grpc.add_HealthServicer_to_server(ctx.health.servicer, server)
    reflection.enable_server_reflection(
        [*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME], server)
    port = server.add_insecure_port(f"{config.host}:{config.grpc_port}")
    await server.start()
    await ctx.health.publish()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, ctx.stopping.set)
    log.info("serving", extra={"grpc_port": port, "metrics_port": config.metrics_port,
                               "services": names})
    if ready is not None:
        ready.set()
    await ctx.stopping.wait()
    log.info("stopping", extra={"drain_seconds": config.drain_seconds})
    await ctx.health.stop()
    await server.stop(grace=config.drain_seconds)
    for callback in ctx.on_stop:
        try:
            await asyncio.wait_for(callback(), timeout=config.drain_seconds)
        except Exception:
            log.exception("stop callback failed")
    for task in ctx.tasks:
        task.cancel()
    await asyncio.gather(*ctx.tasks, return_exceptions=True)
    log.info("stopped")


def run(service: str, setup: Setup) -> None:
    """The ``main()`` of a service process: configuration from the environment,
    logs, metrics, then :func:`serve` until a signal."""
    config = load(service)
    logsetup.setup(service, config.log_level)
    serve_metrics(config.metrics_port, config.host)
    asyncio.run(serve(config, setup))
