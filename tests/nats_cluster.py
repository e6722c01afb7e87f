"""A real three-node NATS cluster for tests (:class:`NatsCluster`): JetStream
on each node, routes on loopback, the services' NKey users as ``paiju up``
gives them (:mod:`paiju.security.natsauth`) and a test observer, each node killed and
started again on its own (:meth:`NatsCluster.kill`, :meth:`NatsCluster.start_node`)."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from paiju.security import natsauth
from paiju.tools.nats_cluster import Node, client_urls, meta_leader, node_args
from paiju.tools.up import die_with_parent, nats_server_binary, port_free
from tests.fixtures import free_port, wait_for_port

HOST = "127.0.0.1"


class NatsCluster:
    """``size`` nodes named ``nats-0`` …; ``address`` is every node's client
    URL (what the services get, with their seed), ``url`` the observer's URLs
    (user and password in each), ``creds`` the seeds' folder (a user per name
    in ``gateways``), as :class:`tests.fixtures.NatsServer` with ``auth``."""

    def __init__(self, size: int = 3, gateways: tuple[str, ...] = ("gateway",)) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="paiju-nats-cluster-"))
        self.creds = self.folder / "creds"
        self.observer = "observer:" + secrets.token_hex(16)
        user, password = self.observer.split(":")
        natsauth.write_credentials(self.creds, gateways=gateways, extra_users=[
            f'{{user: "{user}", password: "{password}"}}'])
        self.nodes = [Node(f"nats-{i}", free_port(), free_port(), free_port())
                      for i in range(size)]
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def address(self) -> str:
        """Every node's client URL, comma separated."""
        return client_urls(self.nodes, HOST)

    @property
    def url(self) -> str:
        """Every node's client URL with the observer's user and password."""
        return ",".join(f"nats://{self.observer}@{HOST}:{n.client_port}" for n in self.nodes)

    def node(self, name: str) -> Node:
        """The node called ``name``."""
        return next(n for n in self.nodes if n.name == name)

    def start_node(self, name: str, timeout: float = 15.0) -> None:
        """Start node ``name`` (its store kept) and wait until it listens.
        ``RuntimeError`` if it exits first."""
        node = self.node(name)
        log = (self.folder / f"{name}.log").open("ab")
        self.procs[name] = subprocess.Popen(
            [nats_server_binary(), "-c", str(self.creds / natsauth.AUTH_CONF),
             *node_args(node, self.nodes, HOST, self.folder / "store")],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent(os.getpid()))
        log.close()
        deadline = time.monotonic() + timeout
        while port_free(HOST, node.client_port):
            if self.procs[name].poll() is not None:
                raise RuntimeError(f"{name} exited: {self.log(name)[-2000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} did not listen: {self.log(name)[-2000:]}")
            time.sleep(0.05)
        wait_for_port(node.client_port)

    def start(self, timeout: float = 60.0) -> None:
        """Start every node, then wait until JetStream has a meta leader."""
        for node in self.nodes:
            self.start_node(node.name)
        self.wait_leader(timeout)

    def wait_leader(self, timeout: float = 60.0) -> str:
        """The meta leader's name, once a running node leads (the others may
        name a killed one until they notice); ``TimeoutError`` after
        ``timeout`` seconds without."""
        deadline = time.monotonic() + timeout
        while True:
            live = self.live_nodes()
            leader = meta_leader(HOST, live)
            if leader in {n.name for n in live}:
                return str(leader)
            if time.monotonic() > deadline:
                raise TimeoutError("no JetStream meta leader")
            time.sleep(0.2)

    def live_nodes(self) -> list[Node]:
        """The nodes whose process runs."""
        return [n for n in self.nodes
                if n.name in self.procs and self.procs[n.name].poll() is None]

    def kill(self, name: str) -> None:
        """SIGKILL node ``name`` and wait for it to be gone."""
        proc = self.procs.pop(name)
        proc.kill()
        proc.wait(timeout=10)

    def log(self, name: str) -> str:
        """What node ``name`` logged."""
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        """Kill every node (their stores are kept)."""
        for name in list(self.procs):
            self.kill(name)

    def close(self) -> None:
        """Kill every node and delete the stores."""
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
