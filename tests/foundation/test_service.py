"""paiju.runtime.service / health / metrics / natsconn in-process: a real gRPC server on
loopback with a tiny test servicer, a real NATS server."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import REGISTRY

from paiju.runtime.natsconn import connect
from paiju.runtime.service import Context, serve
from paiju.security.authz import RULES, Rule
from paiju.security.identity import channel_options
from tests.fixtures import (
    NatsServer,
    as_identity,
    client_channel,
    health_status,
    service_config,
    wait_health,
)
from tests.fixtures import running_service as running

SERVICE = "paiju.test.v1.Probe"
#: paiju's authorisation table plus the probe's methods, callable by the operator.
PROBE_RULES = {**RULES, **{f"/{SERVICE}/{m}": Rule(frozenset({"operator"}))
                           for m in ("Echo", "Reject", "Crash", "Hold", "Stall")}}


def running_service(*args: Any, **kwargs: Any) -> Any:
    """tests.fixtures.running_service with the probe's rules."""
    kwargs["rules"] = PROBE_RULES
    return running(*args, **kwargs)


class Probe:
    """Raw-bytes RPCs: Echo (OK), Reject (abort INVALID_ARGUMENT), Crash
    (ValueError), Hold (waits until ``release`` is set, then OK), Stall
    (blocks the event loop for the request's number of ms, then OK)."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.echoes = 0
        #: Set (from the server's loop) once Stall blocks it.
        self.stalling = threading.Event()

    async def echo(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        self.echoes += 1
        return request

    async def stall(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        self.stalling.set()
        time.sleep(int(request) / 1000)  # the loop is busy: no other call starts
        return b"stalled"

    async def reject(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "E_PROBE")
        raise AssertionError("abort returned")

    async def crash(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        raise ValueError("crash")

    async def hold(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        self.entered.set()
        await self.release.wait()
        return b"held"

    async def setup(self, ctx: Context) -> list[str]:
        handlers = {name: grpc.unary_unary_rpc_method_handler(fn) for name, fn in {
            "Echo": self.echo, "Reject": self.reject, "Crash": self.crash,
            "Hold": self.hold, "Stall": self.stall}.items()}
        ctx.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE, handlers),))
        return [SERVICE]


def handled(method: str, code: str) -> float:
    value = REGISTRY.get_sample_value("grpc_server_handled_total", {
        "grpc_type": "unary", "grpc_service": SERVICE, "grpc_method": method, "grpc_code": code})
    return value or 0.0


def handling_count(method: str) -> float:
    value = REGISTRY.get_sample_value("grpc_server_handling_seconds_count", {
        "grpc_type": "unary", "grpc_service": SERVICE, "grpc_method": method})
    return value or 0.0


async def call(addr: str, method: str, payload: bytes = b"x") -> bytes:
    async with client_channel(addr) as channel:
        reply: bytes = await channel.unary_unary(f"/{SERVICE}/{method}")(payload, timeout=5)
        return reply


async def code_of(addr: str, method: str) -> grpc.StatusCode:
    try:
        await call(addr, method)
    except grpc.aio.AioRpcError as e:
        return e.code()
    return grpc.StatusCode.OK


async def test_metrics_count_every_outcome_by_code() -> None:
    before = {(m, c): handled(m, c) for m, c in [
        ("Echo", "OK"), ("Reject", "INVALID_ARGUMENT"), ("Crash", "UNKNOWN")]}
    counts = {m: handling_count(m) for m in ("Echo", "Reject", "Crash")}
    async with running_service("ledger", Probe().setup) as addr:
        assert await call(addr, "Echo", b"hi") == b"hi"
        assert await call(addr, "Echo", b"again") == b"again"
        assert await code_of(addr, "Reject") == grpc.StatusCode.INVALID_ARGUMENT
        assert await code_of(addr, "Crash") == grpc.StatusCode.UNKNOWN
    assert handled("Echo", "OK") - before["Echo", "OK"] == 2
    assert handled("Reject", "INVALID_ARGUMENT") - before["Reject", "INVALID_ARGUMENT"] == 1
    assert handled("Crash", "UNKNOWN") - before["Crash", "UNKNOWN"] == 1
    assert handled("Reject", "OK") == 0 and handled("Crash", "OK") == 0
    assert handling_count("Echo") - counts["Echo"] == 2
    assert handling_count("Reject") - counts["Reject"] == 1


async def test_a_call_whose_deadline_passed_while_it_waited_does_not_run() -> None:
    """A call that waited behind a busy event loop past its caller's deadline
    is answered DEADLINE_EXCEEDED without running (grpc.aio's server does not
    start its handler); a call with time left runs."""
    probe = Probe()
    async with running_service("ledger", probe.setup) as addr:
        def channel() -> grpc.Channel:
            """A blocking channel (run in a thread while the server's loop stalls)."""
            return grpc.secure_channel(addr, as_identity("operator").channel_credentials(),
                                       options=channel_options(None, (), addr))

        def stall() -> bytes:
            with channel() as ch:
                reply: bytes = ch.unary_unary(f"/{SERVICE}/Stall")(b"1000", timeout=5)
                return reply

        def echo(timeout: float) -> grpc.StatusCode:
            assert probe.stalling.wait(10)  # the server's loop is stalled now
            with channel() as ch:
                try:
                    ch.unary_unary(f"/{SERVICE}/Echo")(b"late", timeout=timeout)
                except grpc.RpcError as e:
                    return e.code()
                return grpc.StatusCode.OK

        stalled, late, patient = await asyncio.gather(
            asyncio.to_thread(stall), asyncio.to_thread(echo, 0.3),
            asyncio.to_thread(echo, 5.0))
        assert stalled == b"stalled"
        assert late == grpc.StatusCode.DEADLINE_EXCEEDED
        assert patient == grpc.StatusCode.OK
        assert probe.echoes == 1  # the patient one only


async def test_health_and_reflection_list_the_services() -> None:
    async with running_service("lobby", Probe().setup) as addr:
        assert await health_status(addr) == "SERVING"
        assert await health_status(addr, SERVICE) == "SERVING"
        assert await health_status(addr, "liveness") == "SERVING"
        assert await health_status(addr, "paiju.nothing.v1.Here") == "SERVICE_UNKNOWN"
        async with client_channel(addr) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            names: set[str] = set()
            async for reply in stub.ServerReflectionInfo(iter([request])):
                names |= {s.name for s in reply.list_services_response.service}
    assert names == {SERVICE, "grpc.health.v1.Health",
                     "grpc.reflection.v1alpha.ServerReflection"}


async def test_stop_drains_in_flight_calls_and_refuses_new_ones() -> None:
    probe = Probe()
    contexts: list[Context] = []
    async with running_service("table", probe.setup, contexts=contexts) as addr:
        ctx = contexts[0]
        stopped_callbacks: list[str] = []

        async def on_stop() -> None:
            stopped_callbacks.append("drained")

        ctx.on_stop.append(on_stop)
        async with client_channel(addr) as channel:
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(service=""))
            first = await watch.read()
            assert first.status == health_pb2.HealthCheckResponse.SERVING
            held = asyncio.create_task(call(addr, "Hold"))
            await probe.entered.wait()
            ctx.stopping.set()
            second = await watch.read()
            assert second.status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()
        await wait_health(addr, "UNAVAILABLE", timeout=10)  # accepts no new calls
        assert not held.done()
        assert stopped_callbacks == []
        probe.release.set()
        assert await held == b"held"
    assert stopped_callbacks == ["drained"]


async def test_readiness_follows_nats_and_liveness_does_not(nats_process: NatsServer) -> None:
    async def setup(ctx: Context) -> list[str]:
        nc = await connect(ctx.config.nats_url, ctx.health, "probe")
        ctx.on_stop.append(nc.drain)
        return await Probe().setup(ctx)

    async with running_service("lobby", setup, {"nats_url": nats_process.url}) as addr:
        assert await health_status(addr) == "SERVING"
        nats_process.stop()
        await wait_health(addr, "NOT_SERVING", timeout=20)
        assert await health_status(addr, SERVICE) == "NOT_SERVING"
        assert await health_status(addr, "liveness") == "SERVING"
        assert await call(addr, "Echo", b"still") == b"still"
        nats_process.start()
        await wait_health(addr, "SERVING", timeout=20)
        assert await health_status(addr, SERVICE) == "SERVING"


async def test_setup_failure_is_raised_and_nothing_keeps_serving() -> None:
    async def setup(ctx: Context) -> list[str]:
        raise RuntimeError("no database")

    try:
        async with running_service("ledger", setup):
            raise AssertionError("service started")
    except RuntimeError as e:
        assert str(e) == "no database"
    else:
        raise AssertionError("no error")


async def test_stop_while_setup_waits_for_a_dependency() -> None:
    entered, never = asyncio.Event(), asyncio.Event()
    cancelled: list[bool] = []

    async def setup(ctx: Context) -> list[str]:
        entered.set()
        try:
            await never.wait()  # e.g. a dependency that never answers
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return []

    stop = asyncio.Event()
    task = asyncio.create_task(serve(service_config("lobby"), setup, stop=stop, signals=False))
    await entered.wait()
    stop.set()
    await asyncio.wait_for(task, timeout=10)
    assert cancelled == [True]


async def test_a_port_another_service_serves_on_is_refused() -> None:
    """gRPC's default SO_REUSEPORT would let a second server share the port
    (two services answering each other's calls); serve() refuses it."""
    async with running_service("lobby", Probe().setup) as addr:
        port = int(addr.rsplit(":", 1)[1])
        try:
            async with running_service("lobby", Probe().setup, {"grpc_port": port}):
                raise AssertionError("a second service serves on the same port")
        except RuntimeError as e:
            assert str(e) == f"cannot bind gRPC port 127.0.0.1:{port} (in use?)"
        assert await call(addr, "Echo", b"still mine") == b"still mine"


async def test_stop_is_bounded_when_a_background_task_ignores_its_cancel() -> None:
    """A task that swallows its cancel (Python 3.11's wait_for can, gh-86296)
    must not keep the service from stopping: serve() returns after drain_seconds."""
    swallowed: list[bool] = []
    release = asyncio.Event()

    async def stubborn() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            swallowed.append(True)
        await release.wait()  # goes on after its cancel, until the test lets go

    async def setup(ctx: Context) -> list[str]:
        ctx.tasks.append(asyncio.create_task(stubborn()))
        return []

    stop = asyncio.Event()
    task = asyncio.create_task(serve(service_config("lobby", drain_seconds=0.5), setup,
                                     stop=stop, signals=False,
                                     on_started=lambda ctx: stop.set()))
    try:
        await asyncio.wait_for(task, timeout=10)
        assert swallowed == [True]
    finally:
        release.set()
