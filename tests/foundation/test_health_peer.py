"""A peer service watched through its gRPC channel (paiju.runtime.health.watch_peer):
reported in ``paiju_dependency_up{dependency=<peer>}`` while a real gRPC server
on loopback answers, and down once it stops, without touching readiness."""

from __future__ import annotations

import asyncio

import grpc
from prometheus_client import REGISTRY

from paiju.runtime.health import Health, watch_peer
from tests.fixtures import until


def gauge(peer: str) -> float | None:
    return REGISTRY.get_sample_value("paiju_dependency_up", {"dependency": peer})


async def serve(port: int = 0) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server, bound


async def test_a_peer_is_up_while_it_answers_and_down_once_it_stops() -> None:
    server, port = await serve()
    health = Health([])
    await health.set("nats", True)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    watcher = asyncio.create_task(watch_peer(health, "peer-under-test", channel))
    try:
        # No call is made: the watcher itself asks the idle channel to connect.
        await until(lambda: health.peers.get("peer-under-test") is True, "the peer up")
        assert gauge("peer-under-test") == 1.0
        await server.stop(None)
        await until(lambda: health.peers.get("peer-under-test") is False, "the peer down")
        assert gauge("peer-under-test") == 0.0
        assert health.ready  # a peer is not part of readiness
        server, _ = await serve(port)
        await until(lambda: health.peers.get("peer-under-test") is True, "the peer back",
                    timeout=30)
    finally:
        await channel.close()
        await server.stop(None)
    await asyncio.wait_for(watcher, 10)  # a closed channel ends the watch
