"""Health: the standard gRPC health service fed by the state of dependencies.

The overall service (``""``) and every named service report SERVING only while
every dependency (``nats``, ``database``, …) is up and the process is not
stopping: that is readiness. The service ``liveness`` reports SERVING for as
long as the process runs, so a NATS or database blip does not restart pods
(architecture.md, "Storage and health").

A peer service this process calls over gRPC (the ledger, for the lobby and
the tables) is watched through its channel (:func:`watch_peer`): reported in
``paiju_dependency_up`` like a dependency, so that an operator sees it lost,
but not part of readiness (a lobby without its ledger still shows rooms; taking
it out of rotation would not bring the ledger back).
"""

from __future__ import annotations

import logging

import grpc
from grpc_health.v1 import health, health_pb2
from prometheus_client import Gauge

LIVENESS = "liveness"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING

log = logging.getLogger("paiju.health")

DEPENDENCY_UP = Gauge("paiju_dependency_up",
                      "1 while a dependency of this process (nats, database, or a peer "
                      "service it calls: ledger) is reachable.",
                      ["dependency"])


class Health:
    """Tracks dependencies and publishes readiness to the gRPC health servicer."""

    def __init__(self, services: list[str]) -> None:
        self.servicer = health.aio.HealthServicer()
        self.services = ["", *services]
        self.deps: dict[str, bool] = {}
        self.peers: dict[str, bool] = {}
        self.stopping = False

    @property
    def ready(self) -> bool:
        """True while every dependency is up and the process is not stopping."""
        return not self.stopping and all(self.deps.values())

    async def set(self, dependency: str, up: bool) -> None:
        """Record that ``dependency`` is up or down and update readiness."""
        _record(self.deps, "dependency", dependency, up)
        await self.publish()

    def set_peer(self, peer: str, up: bool) -> None:
        """Record that the peer service ``peer`` is reachable or not
        (``paiju_dependency_up{dependency=peer}``); readiness is unchanged."""
        _record(self.peers, "peer", peer, up)

    async def stop(self) -> None:
        """Mark the process as stopping (readiness NOT_SERVING from now on)."""
        self.stopping = True
        await self.publish()

    async def publish(self) -> None:
        """Push the current readiness to the health servicer."""
        status = SERVING if self.ready else NOT_SERVING
        for name in self.services:
            await self.servicer.set(name, status)
        await self.servicer.set(LIVENESS, SERVING)


def _record(book: dict[str, bool], kind: str, name: str, up: bool) -> None:
    """Note ``name`` up or down in ``book`` and ``paiju_dependency_up``,
    logging a change (``kind``: dependency or peer)."""
    if book.get(name) != up:
        log.info("%s %s %s", kind, name, "up" if up else "down",
                 extra={"dependency": name, "up": up})
    book[name] = up
    DEPENDENCY_UP.labels(name).set(1 if up else 0)


_UP = grpc.ChannelConnectivity.READY
_DOWN = (grpc.ChannelConnectivity.TRANSIENT_FAILURE, grpc.ChannelConnectivity.SHUTDOWN)


async def watch_peer(health: Health, peer: str, channel: grpc.aio.Channel) -> None:
    """Report ``peer`` up while ``channel`` (to that service's replicas) is
    READY and down while its connecting fails (TRANSIENT_FAILURE), until the
    channel is closed; an idle channel is asked to connect, so the state is
    known without a call. Runs as one of the process's background tasks."""
    while True:
        state = channel.get_state(try_to_connect=True)
        if state == _UP or state in _DOWN:
            health.set_peer(peer, state == _UP)
        if state == grpc.ChannelConnectivity.SHUTDOWN:
            return
        await channel.wait_for_state_change(state)
