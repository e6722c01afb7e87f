"""paiju.runtime.peers: an address setting as one gRPC target (pure logic, and a
comma list of two real gRPC servers on loopback behind mutual TLS)."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from paiju.runtime import peers
from paiju.runtime.service import Context
from paiju.security import identity
from tests.fixtures import as_identity, running_service


def test_one_address_is_kept_as_it_is() -> None:
    assert peers.target("lobby:50051") == "lobby:50051"
    assert peers.target("dns:///lobby-replicas:50051") == "dns:///lobby-replicas:50051"
    assert peers.target(" lobby:50051 ,") == "lobby:50051"


def test_a_comma_list_becomes_the_literal_addresses_of_every_replica() -> None:
    assert peers.target("127.0.0.1:1,127.0.0.2:2") == "ipv4:127.0.0.1:1,127.0.0.2:2"
    assert peers.target("localhost:7,127.0.0.1:8").startswith("ipv4:127.0.0.1:7,")
    assert peers.target("[::1]:5,[::1]:6") == "ipv6:[::1]:5,[::1]:6"
    assert peers.target("127.0.0.1:1,127.0.0.1:1") == "ipv4:127.0.0.1:1"


@pytest.mark.parametrize("bad", ["", " , ", "dns:///a:1,b:2", "127.0.0.1:1,[::1]:2",
                                 "no-such-host.invalid:1,127.0.0.1:2"])
def test_a_list_that_cannot_be_one_target_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        peers.target(bad)


def test_a_list_without_the_service_name_is_refused_under_tls() -> None:
    with pytest.raises(ValueError, match="names several replicas"):
        identity.channel_options(None, (), "127.0.0.1:1,127.0.0.1:2")


async def test_calls_reach_a_live_replica_of_a_list_through_mutual_tls() -> None:
    async def nothing(ctx: Context) -> list[str]:
        return []  # health and reflection only

    async with running_service("ledger", nothing, {}) as live:
        # the first address answers nothing: every call lands on the live one
        addr = f"127.0.0.1:1,{live}"
        async with identity.secure_channel(addr, as_identity("operator"), "ledger") as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            for _ in range(4):
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=10,
                                         wait_for_ready=True)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
        # the server's certificate is checked for the service's name, not the target
        async with identity.secure_channel(addr, as_identity("operator"), "lobby") as ch:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(),
                                                           timeout=3)
            assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE,
                                            grpc.StatusCode.DEADLINE_EXCEEDED)


def test_round_robin_only_where_several_replicas_may_answer() -> None:
    assert peers.options("lobby:50051") == ()
    assert peers.options("dns:///lobby-replicas:50051") == peers.OPTIONS
    assert peers.options("127.0.0.1:1,127.0.0.1:2") == peers.OPTIONS
    assert ("grpc.service_config", peers.SERVICE_CONFIG) in peers.OPTIONS
