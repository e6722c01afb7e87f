"""The client metrics of paiju's channels (paiju/runtime/metered.py): every unary call
through :func:`paiju.security.identity.secure_channel` is counted by its status code
and timed, without a client interceptor. On a real gRPC server (the health
service) on loopback."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from paiju.runtime.metrics import GRPC_CLIENT_HANDLED, GRPC_CLIENT_SECONDS
from paiju.security.identity import secure_channel

SERVICE = "grpc.health.v1.Health"


def handled(code: str) -> float:
    return float(GRPC_CLIENT_HANDLED.labels("unary", SERVICE, "Check", code)._value.get())


def timed() -> float:
    child = GRPC_CLIENT_SECONDS.labels("unary", SERVICE, "Check")
    return float(sum(b.get() for b in child._buckets))


async def test_calls_are_counted_by_code_and_timed() -> None:
    server = grpc.aio.server()
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await servicer.set("up", health_pb2.HealthCheckResponse.SERVING)
    channel = secure_channel(f"127.0.0.1:{port}", None, None)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        ok, missing, seen = handled("OK"), handled("NOT_FOUND"), timed()
        reply = await stub.Check(health_pb2.HealthCheckRequest(service="up"), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await stub.Check(health_pb2.HealthCheckRequest(service="nobody"), timeout=5)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
        assert (handled("OK"), handled("NOT_FOUND")) == (ok + 1, missing + 1)
        assert timed() == seen + 2
    finally:
        await channel.close()
        await server.stop(None)
