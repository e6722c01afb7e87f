"""A NATS cluster on one machine: the nodes' command lines, their client URLs,
and who leads (the JetStream meta group, a stream) as their monitoring
endpoints say.

Each node is a ``nats-server`` with JetStream, its own store folder, a
client port, a route port and a monitoring port; every node routes to every
other (cluster ``paiju``), as the production overlay's StatefulSet does
(``deploy/overlays/prod/nats-cluster.yaml``). Users (``-c auth.conf``) and
TLS are the caller's to add.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The cluster's name (the production overlay's too).
CLUSTER = "paiju"


@dataclass(frozen=True)
class Node:
    """One node: its server name (``nats-<i>``) and its three ports."""

    name: str
    client_port: int
    route_port: int
    monitor_port: int


def node_args(node: Node, nodes: Sequence[Node], host: str, store: Path) -> list[str]:
    """``nats-server``'s arguments for ``node`` of ``nodes`` on ``host``, its
    JetStream store in ``store/<name>``."""
    routes = ",".join(f"nats://{host}:{n.route_port}" for n in nodes if n != node)
    return ["-js", "-a", host, "-p", str(node.client_port), "-n", node.name,
            "--cluster_name", CLUSTER, "--cluster", f"nats://{host}:{node.route_port}",
            "--routes", routes, "-m", str(node.monitor_port), "-sd", str(store / node.name)]


def client_urls(nodes: Sequence[Node], host: str, scheme: str = "nats") -> str:
    """Every node's client URL, comma separated (what ``PAIJU_NATS_URL`` takes)."""
    return ",".join(f"{scheme}://{host}:{n.client_port}" for n in nodes)


def _jsz(host: str, node: Node, query: str = "", timeout: float = 2.0) -> dict[str, Any]:
    url = f"http://{host}:{node.monitor_port}/jsz{query}"
    with urllib.request.urlopen(url, timeout=timeout) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def meta_leader(host: str, nodes: Sequence[Node]) -> str | None:
    """The server name of the JetStream meta leader, as the first node that
    answers says; None while there is none (an election) or none answers."""
    for node in nodes:
        try:
            leader = _jsz(host, node).get("meta_cluster", {}).get("leader")
        except OSError:
            continue
        return str(leader) if leader else None
    return None


def stream_leader(host: str, nodes: Sequence[Node], stream: str) -> str | None:
    """The server name leading ``stream`` (any account), as the first node that
    answers and knows it says; None while it has no leader or none answers."""
    return stream_leaders(host, nodes, stream).get(stream)


def stream_leaders(host: str, nodes: Sequence[Node], prefix: str) -> dict[str, str]:
    """``{stream: leader's server name}`` of the streams (any account) whose
    name starts with ``prefix`` and that have a leader, as the first node that
    answers and knows one of them says; ``{}`` where none does."""
    for node in nodes:
        try:
            data = _jsz(host, node, "?accounts=true&streams=true")
        except OSError:
            continue
        found = {str(d["name"]): str(d["cluster"]["leader"])
                 for account in data.get("account_details") or []
                 for d in account.get("stream_detail") or []
                 if str(d.get("name", "")).startswith(prefix)
                 and (d.get("cluster") or {}).get("leader")}
        if found:
            return found
    return {}


def _monitor(host: str, port: int, path: str, timeout: float = 2.0) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=timeout) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def stream_details(host: str, port: int) -> dict[str, dict[str, Any]]:
    """Every stream (game log, leases, registry …) as the node monitored on
    ``port`` reports it: name -> its ``cluster`` (leader, replicas)."""
    data = _monitor(host, port, "/jsz?accounts=true&streams=true")
    return {str(d["name"]): d.get("cluster") or {}
            for account in data.get("account_details") or []
            for d in account.get("stream_detail") or []}


def whole(host: str, ports: dict[str, int]) -> bool:
    """Is JetStream whole: every node (server name -> monitoring port) says
    ``/healthz`` ok, and every stream is led, with every replica current as
    its leader reports it (a follower does not know the others')? Raises
    ``OSError`` where a node does not answer."""
    for port in ports.values():
        if _monitor(host, port, "/healthz").get("status") != "ok":
            return False
    seen = {name: stream_details(host, port) for name, port in ports.items()}
    streams = {s for details in seen.values() for s in details}
    for stream in streams:
        leader = seen[next(iter(seen))].get(stream, {}).get("leader")
        if leader not in seen or stream not in seen[leader]:
            return False
        if not all(r.get("current") for r in seen[leader][stream].get("replicas") or []):
            return False
    return bool(streams)
