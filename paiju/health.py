"""Health: the standard gRPC health service fed by the state of dependencies.

The overall service (``""``) and every named service report SERVING only while
every dependency (``nats``, ``database``, …) is up and the process is not
stopping: that is readiness. The service ``liveness`` reports SERVING for as
long as the process runs, so a NATS or database blip does not restart pods
(architecture.md, "Storage and health").
"""

from __future__ import annotations

import logging

from grpc_health.v1 import health, health_pb2
from prometheus_client import Gauge

LIVENESS = "liveness"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING

log = logging.getLogger("paiju.health")

DEPENDENCY_UP = Gauge("paiju_dependency_up",
                      "1 while a dependency of this process (nats, database) is reachable.",
                      ["dependency"])


class Health:
    """Tracks dependencies and publishes readiness to the gRPC health servicer."""

    def __init__(self, services: list[str]) -> None:
        self.servicer = health.aio.HealthServicer()
        self.services = ["", *services]
        self.deps: dict[str, bool] = {}
        self.stopping = False

    @property
    def ready(self) -> bool:
        """True while every dependency is up and the process is not stopping."""
        return not self.stopping and all(self.deps.values())

    async def set(self, dependency: str, up: bool) -> None:
        """Record that ``dependency`` is up or down and update readiness."""
        if self.deps.get(dependency) != up:
            log.info("dependency %s %s", dependency, "up" if up else "down",
                     extra={"dependency": dependency, "up": up})
        self.deps[dependency] = up
        DEPENDENCY_UP.labels(dependency).set(1 if up else 0)
        await self.publish()

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
