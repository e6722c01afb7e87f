"""The bootstrap every paiju service process uses.

:func:`run` sets up JSON logging, the ``/metrics`` endpoint, a ``grpc.aio``
server on mutual TLS (``PAIJU_TLS_DIR``, :mod:`paiju.security.identity`) whose every
method is counted and timed (:func:`paiju.runtime.metrics.timed`) and authorised
(:mod:`paiju.security.authz`), wrapped once when registered
(:mod:`paiju.runtime.grpc_server`), the standard
health service (readiness fed by dependencies) and reflection on it, the
health service alone on its own plain port (``PAIJU_HEALTH_PORT``), calls
the service's ``setup`` to add its servicers and background work, and serves
until SIGTERM or SIGINT. Then it stops gracefully: readiness goes
NOT_SERVING, the server stops accepting and lets in-flight calls finish
(``PAIJU_DRAIN_SECONDS``), the health port closes, the service's own
``on_stop`` callbacks run (drain NATS, close the database), in that order.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from paiju.config import Config, check_keys, load
from paiju.runtime import log as logsetup
from paiju.runtime import tracing
from paiju.runtime.grpc_server import GuardedServer
from paiju.runtime.health import Health
from paiju.runtime.metrics import observe_gc, serve_metrics, timed
from paiju.security import natsauth
from paiju.security.authz import RULES, Authorizer, Rule
from paiju.security.identity import Identity, IdentityError
from paiju.security.identity import load as load_identity


@dataclass
class Context:
    """What ``setup`` gets: the configuration (``grpc_port`` and
    ``health_port`` are the bound ports), health, the gRPC server, a logger,
    the stop event, lists to register background tasks and stop callbacks in
    (callbacks run in order after the gRPC server has drained; tasks are
    cancelled last), and the process's identity for its clients
    (``paiju.security.identity.secure_channel(addr, ctx.identity, peer)``; None on an
    insecure development server)."""

    config: Config
    health: Health
    server: grpc.aio.Server
    log: logging.Logger
    stopping: asyncio.Event
    identity: Identity | None = None
    tasks: list[asyncio.Task[object]] = field(default_factory=list)
    on_stop: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


#: ``setup(ctx)`` adds servicers to ``ctx.server`` and returns their full
#: service names (for health and reflection).
Setup = Callable[[Context], Awaitable[Sequence[str]]]

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def server_identity(config: Config) -> Identity | None:
    """The identity ``config.service`` serves and calls as, from
    ``PAIJU_TLS_DIR``; None in development mode without it (insecure, logged
    as a warning by :func:`serve`). Raises :class:`~paiju.security.identity.IdentityError`
    (a ``ValueError`` naming the setting) outside development mode without
    ``PAIJU_TLS_DIR``, or when its files are missing or wrong."""
    if config.tls_dir is None:
        if config.dev_mode:
            return None
        raise IdentityError("PAIJU_TLS_DIR is not set: outside development mode "
                            "(PAIJU_DEV_MODE) a service needs its certificates "
                            f"(ca.pem, {config.service}.pem, {config.service}-key.pem)")
    return load_identity(config.tls_dir, config.service)


def _wrap(authorizer: Authorizer | None, method: str, handler: Any) -> Any:
    """What the gRPC port runs for ``method``: ``handler`` counted and timed
    (:func:`paiju.runtime.metrics.timed`) around the caller's check
    (:meth:`paiju.security.authz.Authorizer.guard`; none on an insecure server)."""
    if authorizer is not None:
        handler = authorizer.guard(method, handler)
    return timed(method, handler)


def _bind(server: grpc.aio.Server, where: str, what: str,
          credentials: grpc.ServerCredentials | None = None) -> int:
    try:
        port: int = (server.add_insecure_port(where) if credentials is None
                     else server.add_secure_port(where, credentials))
    except RuntimeError as e:  # grpc's own "Failed to bind"
        raise RuntimeError(f"cannot bind {what} port {where} (in use?)") from e
    if port == 0:
        raise RuntimeError(f"cannot bind {what} port {where} (in use?)")
    return port


async def serve(config: Config, setup: Setup, ready: asyncio.Event | None = None, *,
                stop: asyncio.Event | None = None,
                on_started: Callable[[Context], object] | None = None,
                signals: bool = True, rules: Mapping[str, Rule] = RULES) -> None:
    """Run one service until SIGTERM/SIGINT or until ``stop`` is set.

    The gRPC port takes mutual-TLS callers only, each call authorised by
    ``rules`` (default :data:`paiju.security.authz.RULES`); see :func:`server_identity`.
    ``config.grpc_port`` / ``config.health_port`` 0 bind free ports
    (``ctx.config`` tells which). ``ready`` is set and ``on_started(ctx)``
    called once the server accepts calls. ``signals=False`` leaves the
    process's signal handlers alone (in-process tests). Raises ``RuntimeError``
    if a port cannot be bound, ``IdentityError`` without certificates, and
    whatever ``setup`` raises; the servers are stopped in every case.
    """
    log = logging.getLogger(f"paiju.{config.service}")
    identity = server_identity(config)
    authorizer = None
    if identity is None:
        log.warning("insecure gRPC: development mode without PAIJU_TLS_DIR; any caller "
                    "may call anything")
    else:
        authorizer = Authorizer(rules, config.dev_mode)
    # No SO_REUSEPORT (gRPC's default on Linux): a port another process holds is
    # a bind error here, not a second server silently sharing its calls. No
    # interceptor but tracing's (when configured): grpc.aio runs a server's
    # interceptor chain on every call; the metrics and the authorisation wrap
    # each method's handler once, when it is registered (paiju/runtime/grpc_server.py).
    server = GuardedServer(
        grpc.aio.server(interceptors=tracing.server_interceptors() or None,
                        options=[("grpc.so_reuseport", 0)]),
        functools.partial(_wrap, authorizer))
    port = _bind(server, f"{config.host}:{config.grpc_port}", "gRPC",
                 identity.server_credentials() if identity is not None else None)
    health_server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    health_port = _bind(health_server, f"{config.host}:{config.health_port}", "health")
    if config.grpc_port != port:
        instance = config.instance
        if not instance or instance == f"{config.service}-{config.grpc_port}":
            instance = f"{config.service}-{port}"
        config = config.model_copy(update={"grpc_port": port, "instance": instance})
    config = config.model_copy(update={"health_port": health_port})
    ctx = Context(config, Health([]), server, log, stop or asyncio.Event(), identity=identity)
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
        health_pb2_grpc.add_HealthServicer_to_server(ctx.health.servicer, health_server)
        reflection.enable_server_reflection(
            [*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME], server)
        await ctx.health.publish()
        await health_server.start()
        await server.start()
        log.info("serving", extra={"grpc_port": port, "metrics_port": config.metrics_port,
                                   "health_port": health_port, "tls": identity is not None,
                                   "services": names, "instance": config.instance})
        if ready is not None:
            ready.set()
        if on_started is not None:
            on_started(ctx)
        await ctx.stopping.wait()
        log.info("stopping", extra={"drain_seconds": config.drain_seconds})
    finally:
        await _shutdown(ctx, health_server)
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


async def _shutdown(ctx: Context, health_server: grpc.aio.Server) -> None:
    """NOT_SERVING, drain the gRPC server, stop the health port, stop
    callbacks, cancel tasks (each step bounded by ``drain_seconds``)."""
    grace = ctx.config.drain_seconds
    await ctx.health.stop()
    await ctx.server.stop(grace=grace)
    await health_server.stop(grace=None)
    for callback in ctx.on_stop:
        try:
            await asyncio.wait_for(callback(), timeout=grace)
        except Exception:
            ctx.log.exception("stop callback failed")
    # Bounded: a task that swallows its cancel (Python 3.11's wait_for can) is
    # logged and left behind, never waited for for ever.
    for task in await _cancel(ctx.tasks, grace):
        ctx.log.error("background task did not stop when cancelled",
                      extra={"task": task.get_name()})
    ctx.log.info("stopped")


async def _cancel(tasks: Sequence[asyncio.Task[Any]], timeout: float) -> set[asyncio.Task[Any]]:
    """Cancel ``tasks`` and wait up to ``timeout`` seconds for them; those
    still running (they swallowed their cancel). The failures of those that
    ended are retrieved: each was logged by itself, or comes at the end."""
    for task in tasks:
        task.cancel()
    if not tasks:
        return set()
    done, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in done:
        if not task.cancelled():
            task.exception()
    return pending


async def _cancel_the_rest(timeout: float) -> list[str]:
    """Cancel every task left in the process's loop once :func:`serve` is
    done (a library's reconnect loop, a forgotten helper) and wait up to
    ``timeout`` seconds; the names (coroutine qualnames) of those still
    running, which swallowed their cancel."""
    rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    pending = await _cancel(rest, timeout)
    return sorted(getattr(t.get_coro(), "__qualname__", t.get_name()) for t in pending)


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop factory of ``PAIJU_EVENT_LOOP`` ``name``: uvloop's
    (``uvloop.new_event_loop``) for ``uvloop``, None (asyncio's default loop)
    for ``asyncio``. docs/performance.md has what uvloop saves."""
    if name == "uvloop":
        try:
            import uvloop
        except ImportError:  # not built for this platform (Windows): asyncio's own
            return None
        return uvloop.new_event_loop
    return None


#: The collector's thresholds in a service process (CPython's default: 700,
#: 10, 10): a young collection once the tracked objects made outnumber those
#: freed by the first number, a middle one every second-number young ones, a
#: full one every third-number middle ones (and only once the objects kept
#: since the last full one grew by a quarter). A pause costs about 0.2 µs of
#: CPU per reference the collection walks, and what a busy service walks is
#: mostly the live state it made since the last collection of that
#: generation (docs/performance.md).
GC_THRESHOLDS = (10_000, 10, 10)

#: Per service, where :data:`GC_THRESHOLDS` is not the measured best. The
#: table makes cyclic garbage on every RPC (grpc's own per-call closure) and
#: in its games, so its count of objects grows steadily: at 10,000 its middle
#: collections walked ≈ 35,000 objects (46–61 ms of CPU) every 12–25 s at 500 tables;
#: at 2,000 a middle one walks a fifth of that every ≈ 2.4 s (5–17 ms). Its
#: oldest threshold rises tenfold so that full collections (all the games'
#: state) come no more often than before. The gateway keeps 10,000: its
#: objects are freed as fast as they are made once its players are
#: connected, so it never reaches 10,000 in play, while at 2,000 its middle
#: collections walk every connection's pending reads (52–67 ms) every ≈ 7 s.
GC_THRESHOLDS_OF = {"table": (2_000, 10, 100)}


def tune_gc(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> None:
    """Once serving (:func:`run`): move every object made so far (modules,
    protobuf descriptors, the rules' tables, the service's set-up) out of the
    collector's reach
    (``gc.freeze``), so that the full collections a busy service runs do
    not walk them again and again, and set the collector's ``thresholds``
    (young, middle, oldest: ``gc.set_threshold``).
    Reference counting frees almost everything a call makes; the collector
    only finds cycles. Without the freeze a full collection in a table
    instance walked every module's objects (150 ms with 170,000 objects,
    bench/worst_table.py): the instance's longest pause."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    observe_gc()


def run(service: str, setup: Setup) -> None:
    """The ``main()`` of a service process: configuration from the environment,
    logs, metrics, then :func:`serve` until SIGTERM or SIGINT. Exit status 0
    after a graceful stop, 1 if it failed (logged as JSON), 2 for a malformed
    ``PAIJU_*`` variable, a development key outside development mode
    (:func:`paiju.config.check_keys`), missing certificates
    (:func:`server_identity`) or missing NATS credentials
    (:func:`paiju.security.natsauth.check_credentials`)."""
    try:
        config = load(service)
        check_keys(config)
        server_identity(config)
        natsauth.check_credentials(config)
    except ValueError as e:
        print(f"paiju {service}: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    log = logsetup.setup(service, config.log_level)
    try:
        tracing.setup(service, config.instance, config.tracing_otlp_endpoint or "",
                      config.tracing_sample_ratio)
        serve_metrics(config.metrics_port, config.host)
        with asyncio.Runner(loop_factory=loop_factory(config.event_loop)) as runner:
            thresholds = GC_THRESHOLDS_OF.get(service, GC_THRESHOLDS)
            runner.run(serve(config, setup, on_started=lambda _ctx: tune_gc(thresholds)))
            stuck = runner.run(_cancel_the_rest(config.drain_seconds))
            if stuck:
                # asyncio.Runner would wait for them for ever: the process was
                # told to stop, and stops.
                log.error("tasks did not stop when cancelled; exiting",
                          extra={"tasks": stuck})
                logging.shutdown()
                os._exit(1)
    except Exception:
        log.exception("failed")  # one JSON line with the traceback in "exc"
        raise SystemExit(1) from None
    finally:
        tracing.shutdown()
