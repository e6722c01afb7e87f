"""The whole platform as real processes, for end-to-end tests: a private NATS
server and the four services (``paiju ledger|table|lobby|gateway``), each in
its own process on free ports, with SQLite files in a temporary folder, as
``paiju up`` runs them."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.fixtures import (
    NatsServer,
    free_port,
    service_env,
    start_service_process,
    stop_process,
    wait_for_port,
    wait_health,
)

SERVICES = ("ledger", "table", "lobby", "gateway")


@dataclass
class Platform:
    """Addresses of a running platform and where its files are."""

    data: Path
    nats: NatsServer
    ports: dict[str, int]
    metrics: dict[str, int]
    gateway_port: int
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def gateway_url(self) -> str:
        """The WebSocket URL of the gateway."""
        return f"ws://127.0.0.1:{self.gateway_port}/ws"

    def addr(self, service: str) -> str:
        """The gRPC address of ``service``."""
        return f"127.0.0.1:{self.ports[service]}"

    def env(self, service: str, extra: Mapping[str, str]) -> dict[str, str]:
        """The environment ``service`` runs with."""
        return service_env(
            NATS_URL=self.nats.url, DATA_DIR=str(self.data), DEV_MODE="1",
            GRPC_PORT=str(self.ports[service]), METRICS_PORT=str(self.metrics[service]),
            LEDGER_ADDR=self.addr("ledger"), LOBBY_ADDR=self.addr("lobby"),
            TABLE_ADDRS=self.addr("table"), GATEWAY_PORT=str(self.gateway_port),
            DRAIN_SECONDS="2", **extra)


@contextlib.contextmanager
def running_platform(extra_env: Mapping[str, str] | None = None) -> Iterator[Platform]:
    """Start NATS and the four services; stop them all on exit."""
    data = Path(tempfile.mkdtemp(prefix="paiju-platform-"))
    nats = NatsServer()
    nats.start()
    p = Platform(data, nats, {s: free_port() for s in SERVICES},
                 {s: free_port() for s in SERVICES}, free_port())
    try:
        for name in SERVICES:
            p.procs[name] = start_service_process(
                name, p.env(name, dict(extra_env or {})), data / f"{name}.log")
        for name in SERVICES:
            asyncio.run(wait_health(p.addr(name), timeout=60))
        wait_for_port(p.gateway_port)
        yield p
    finally:
        for proc in reversed(list(p.procs.values())):
            stop_process(proc)
        nats.close()
        shutil.rmtree(data, ignore_errors=True)
