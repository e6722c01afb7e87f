"""The whole platform as real processes, for end-to-end tests: a private NATS
server with each service's NATS user and permissions and the four services
(``paiju ledger|table|lobby|gateway``), each in its own process on free ports,
with SQLite files in a temporary folder, as ``paiju up`` runs them: each gets
the environment ``paiju up`` gives it (:func:`paiju.tools.up.instance_env`)
plus the timing knobs of :data:`TEST_SETTINGS`.

The services must know each other's ports before they start, so the ports are
picked first and bound by the services later: another run on the machine may
take one in between. A service that then cannot bind its port exits at once
(gRPC without ``SO_REUSEPORT``, see paiju/runtime/service.py), and the platform is
started again on new ports (``ATTEMPTS`` times at most, with a warning).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from paiju.tools.launch import Instance, instance_env
from tests.fixtures import (
    NatsServer,
    free_port,
    start_service_process,
    stop_process,
    tls_dir,
    wait_for_port,
    wait_health,
)
from tests.nats_cluster import NatsCluster

SERVICES = ("ledger", "table", "lobby", "gateway")

#: Starts tried before a port race is a failure.
ATTEMPTS = 3

#: What a service logs when its port was taken (paiju/runtime/service.py's gRPC bind,
#: the metrics and WebSocket servers' ``OSError``).
BIND_ERRORS = ("cannot bind", "Address already in use", "Errno 98")

#: The only settings a test platform adds to what ``paiju up`` gives each
#: service (:func:`paiju.tools.up.instance_env`), all timing knobs, each with
#: its reason (a module's ``extra_env`` may override them, or add one of
#: :data:`EXTRA_SETTINGS`):
TEST_SETTINGS = {
    # 1 s for in-flight calls and each stop step on SIGTERM (10 s under
    # paiju up), so that a platform stops within about a second
    "DRAIN_SECONDS": "1",
    # no game drain: the table stops at once and its running games are voided
    # as after a crash, instead of going on (600 s by default, which
    # ``stop_process`` cuts after 15 s); the drain itself is tested on a table
    # of its own (tests/table/test_many_games.py)
    "TABLE_GAME_DRAIN_SECONDS": "0",
}

#: The variables a module's ``extra_env`` may set besides
#: :data:`TEST_SETTINGS` (``PAIJU_`` names without the prefix), each with its
#: reason: a timing knob, or what the modules that set it are about.
#: :func:`running_platform` refuses any other, so that no test runs a
#: platform configured as users never run it without saying why here.
EXTRA_SETTINGS = {
    "TABLE_DEAL_INTERVAL_MS": "timing knob: the paced deal's pace (150 ms a card under "
                              "paiju up), shorter where a test does not watch the deal",
    "ROOMS_FILE": "the rooms a test is about (a 2 s turn, a short hold, a fifth game's server)",
    "GAMES": "the fifth game's registration (tests/web/test_fifth_game.py)",
    "GATEWAY_PING_INTERVAL_SECONDS": "presence timing (tests/gateway/test_presence.py)",
    "GATEWAY_PING_TIMEOUT_SECONDS": "presence timing (tests/gateway/test_presence.py)",
    "PRESENCE_HEARTBEAT_SECONDS": "presence timing (tests/gateway/test_presence.py)",
    "TOKEN_JWKS_URL": "an identity provider's tokens (tests/gateway/test_tokens.py)",
    "TOKEN_ISSUER": "an identity provider's tokens (tests/gateway/test_tokens.py)",
    "TOKEN_AUDIENCE": "an identity provider's tokens (tests/gateway/test_tokens.py)",
    "TOKEN_JWKS_REFRESH_SECONDS": "an identity provider's tokens (tests/gateway/test_tokens.py)",
    "TOKEN_MAX_LIFETIME_SECONDS": "an identity provider's tokens (tests/gateway/test_tokens.py)",
    "TOKEN_TTL_SECONDS": "an identity provider's tokens (tests/gateway/test_tokens.py)",
    "GATEWAY_SESSIONS_PER_PLAYER_PER_MINUTE": "the sign-in limit a test reaches "
                                              "(tests/gateway/test_tokens.py)",
    "AI_TOKEN_SECRET": "AI players signing in with AI tokens, as outside development mode "
                       "(tests/e2e/test_ai_tokens.py)",
    "TRACING_OTLP_ENDPOINT": "tracing to a collector (tests/e2e/test_tracing.py)",
    "METRICS_PORT": "a bad value refused at start (tests/e2e/test_platform_start.py)",
    "GAME_LOG_REPLICAS": "the game log and leases at three replicas on a three-node cluster, "
                         "as the production overlay sets them (tests/e2e/test_nats_cluster.py)",
    "GATEWAY_MAX_CALLS_IN_FLIGHT": "the gateway's headroom reached by a crowd of 14 clients "
                                   "(tests/gateway/test_overload.py; 256 by default, more "
                                   "than one address may open)",
}


def check_extra_env(extra_env: Mapping[str, str]) -> None:
    """``ValueError`` naming each variable of ``extra_env`` that is neither in
    :data:`TEST_SETTINGS` nor in :data:`EXTRA_SETTINGS`."""
    unknown = sorted(set(extra_env) - TEST_SETTINGS.keys() - EXTRA_SETTINGS.keys())
    if unknown:
        raise ValueError(f"the test platform would set {', '.join(unknown)}, which paiju up "
                         "does not: add each to EXTRA_SETTINGS with its reason")


def instance_names(replicas: Mapping[str, int] | None = None) -> list[str]:
    """The processes of a platform, in start order: each service's name for
    its first replica, ``<service>-2``… for the others (``replicas``: how
    many of each, default one)."""
    counts = dict(replicas or {})
    return [s if k == 0 else f"{s}-{k + 1}" for s in SERVICES for k in range(counts.get(s, 1))]


def service_of(name: str) -> str:
    """The service an instance name (``lobby-2``) runs."""
    return name.split("-", 1)[0]


@dataclass
class Platform:
    """Addresses of a running platform and where its files are. Keys of
    ``ports``, ``metrics``, ``procs`` are instance names
    (:func:`instance_names`); ``gateway_ports`` holds each gateway's web port."""

    data: Path
    nats: NatsServer | NatsCluster
    ports: dict[str, int]
    metrics: dict[str, int]
    gateway_ports: dict[str, int]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def gateway_port(self) -> int:
        """The web port of the (first) gateway."""
        return self.gateway_ports["gateway"]

    @property
    def gateway_url(self) -> str:
        """The WebSocket URL of the (first) gateway."""
        return f"ws://127.0.0.1:{self.gateway_port}/ws"

    @property
    def gateway_urls(self) -> list[str]:
        """The WebSocket URL of every gateway."""
        return [f"ws://127.0.0.1:{port}/ws" for port in self.gateway_ports.values()]

    def addr(self, name: str) -> str:
        """The gRPC address of the instance ``name`` (a service's name: its first)."""
        return f"127.0.0.1:{self.ports[name]}"

    def addrs(self, service: str) -> str:
        """Every replica of ``service``, comma separated (as PAIJU_LOBBY_ADDR takes them)."""
        return ",".join(self.addr(n) for n in self.ports if service_of(n) == service)

    def env(self, name: str, extra: Mapping[str, str]) -> dict[str, str]:
        """The environment the instance ``name`` runs with: what ``paiju up``
        gives it (:func:`paiju.tools.up.instance_env`, on this platform's
        ports and the test certificates; the health port 0, bound free), then
        :data:`TEST_SETTINGS` and ``extra``."""
        member = Instance(service_of(name), name, grpc_port=self.ports[name],
                          metrics_port=self.metrics[name],
                          http_port=self.gateway_ports.get(name, self.gateway_port))
        base = {k: v for k, v in os.environ.items() if not k.startswith("PAIJU_")}
        env = instance_env(member, host="127.0.0.1", nats_url=self.nats.address,
                           nats_creds=self.nats.creds, data_dir=self.data, tls_dir=tls_dir(),
                           ledger_addr=self.addrs("ledger"), lobby_addr=self.addrs("lobby"),
                           base=base)
        env.update({f"PAIJU_{k}": v for k, v in {**TEST_SETTINGS, **extra}.items()})
        return env

    def log(self, service: str) -> str:
        """What ``service`` wrote to its log so far."""
        path = self.data / f"{service}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stored_record(self, game_id: str) -> dict[str, Any]:
        """The game record (records.md) the table service stored for
        ``game_id`` (its SQLite database); fails the test when there is none."""
        with sqlite3.connect(self.data / "table.db") as db:
            row = db.execute("SELECT record_json FROM table_game_records WHERE game_id = ?",
                             (game_id,)).fetchone()
        assert row is not None, f"no stored record for {game_id}"
        return dict(json.loads(row[0]))

    def lost_port_race(self) -> str | None:
        """The service that exited because its port was taken (its log says
        so), or ``None``."""
        for name, proc in self.procs.items():
            if proc.poll() is not None and any(e in self.log(name) for e in BIND_ERRORS):
                return name
        return None

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM every service at once (the gateway first), then wait for
        each; SIGKILL what is left after ``timeout`` seconds."""
        procs = list(reversed(list(self.procs.values())))
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + timeout
        for proc in procs:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                stop_process(proc, timeout=1.0)  # SIGTERM again, then SIGKILL


def _start(nats: NatsServer | NatsCluster, extra_env: Mapping[str, str],
           replicas: Mapping[str, int] | None) -> Platform:
    """The services (``replicas`` of each) on newly picked ports. Their
    processes are started; :func:`_wait_healthy` waits for them."""
    data = Path(tempfile.mkdtemp(prefix="paiju-platform-"))
    names = instance_names(replicas)
    p = Platform(data, nats, {n: free_port() for n in names}, {n: free_port() for n in names},
                 {n: free_port() for n in names if service_of(n) == "gateway"})
    for name in names:
        p.procs[name] = start_service_process(service_of(name), p.env(name, extra_env),
                                              data / f"{name}.log")
    return p


def _wait_healthy(p: Platform) -> None:
    """Until every instance is SERVING. Raises ``RuntimeError`` as soon as one
    exits, ``TimeoutError`` if one is not healthy within 60 s."""
    for name in p.procs:
        asyncio.run(wait_health(p.addr(name), timeout=60, proc=p.procs[name]))
    for port in p.gateway_ports.values():
        wait_for_port(port)


def rooms_env(tmp_path_factory: pytest.TempPathFactory, rooms_yaml: str) -> dict[str, str]:
    """The ``extra_env`` of a platform that runs the rooms file ``rooms_yaml``
    (written to a new temporary folder)."""
    rooms = tmp_path_factory.mktemp("rooms") / "rooms.yaml"
    rooms.write_text(rooms_yaml, encoding="utf-8")
    return {"ROOMS_FILE": str(rooms)}


#: An environment variable naming a folder: each platform's data and logs are
#: copied there when it stops (to read what a failed run did).
KEEP_LOGS = "PAIJU_TEST_KEEP_LOGS"


@contextlib.contextmanager
def running_platform(extra_env: Mapping[str, str] | None = None,
                     replicas: Mapping[str, int] | None = None,
                     nats_nodes: int = 1) -> Iterator[Platform]:
    """Start NATS (each service with its own NATS user, as paiju up runs it;
    ``nats_nodes`` > 1: a cluster of that many nodes,
    :class:`tests.nats_cluster.NatsCluster`, every service given every node)
    and the four services (with :data:`TEST_SETTINGS` and ``extra_env``, which
    may hold only :data:`EXTRA_SETTINGS` (``ValueError`` before anything starts),
    ``PAIJU_*`` names without the prefix; ``replicas`` of each, default one,
    every one reaching every replica of the others through comma lists);
    stop them all on exit.
    A start that lost a port race is retried on new ports (with a warning);
    another failure raises ``RuntimeError``
    at once (a service exited, or was not SERVING within 60 s) with the folder
    of the services' logs in the message."""
    check_extra_env(extra_env or {})
    gateways = tuple(n for n in instance_names(replicas) if service_of(n) == "gateway")
    nats: NatsServer | NatsCluster = (NatsServer(auth=True, gateways=gateways)
                                      if nats_nodes == 1 else NatsCluster(nats_nodes, gateways))
    nats.start()
    try:
        for attempt in range(1, ATTEMPTS + 1):
            p = _start(nats, dict(extra_env or {}), replicas)
            try:
                _wait_healthy(p)
                break
            except (RuntimeError, TimeoutError) as e:
                raced = p.lost_port_race()  # before stopping the others
                p.stop()
                if attempt < ATTEMPTS and raced is not None:
                    warnings.warn(f"test platform start {attempt} failed ({raced}: its port "
                                  "was taken): trying again on new ports", stacklevel=1)
                    shutil.rmtree(p.data, ignore_errors=True)
                    continue
                raise RuntimeError(f"the platform did not start ({e}); logs in {p.data}") from e
            except BaseException:
                p.stop()
                raise
        try:
            yield p
        finally:
            p.stop()
            keep = os.environ.get(KEEP_LOGS)
            if keep:
                shutil.copytree(p.data, Path(keep) / p.data.name, dirs_exist_ok=True)
            shutil.rmtree(p.data, ignore_errors=True)
    finally:
        nats.close()


@contextlib.contextmanager
def after_one_game(prefix: str, room: str) -> Iterator[tuple[Platform, list[str]]]:
    """A platform (:func:`running_platform`, a deal of 5 ms a card) where three
    bots named ``<prefix><seat>-<run>`` played one doudizhu game at ``room``
    (seats 0–2): the platform and their names."""
    from paiju.tools.bots import Bot, Stats

    with running_platform({"TABLE_DEAL_INTERVAL_MS": "5"}) as p:
        run = secrets.token_hex(3)
        names = [f"{prefix}{seat}-{run}" for seat in range(3)]

        async def play() -> None:
            stats = Stats()
            bots = [Bot(p.gateway_url, name, "doudizhu", room, seat, 1, (0.0, 0.0),
                        stats, random.Random(seat)) for seat, name in enumerate(names)]
            await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), timeout=120)

        asyncio.run(play())
        yield p, names
