"""A service's replicas as one gRPC target, balanced round robin.

An address setting (``PAIJU_LOBBY_ADDR``, ``PAIJU_LEDGER_ADDR``) names one
service, however many replicas it runs:

- ``host:port``: gRPC's default (DNS) resolver; every address the name
  resolves to is a replica.
- ``dns:///name:port``: the same, explicitly: in Kubernetes a headless
  Service (``clusterIP: None``), whose name resolves to every ready pod.
- ``host1:port1,host2:port2,…``: a comma list (one machine, a fixed set).
  Each host is resolved once, when the channel is made, into gRPC's
  ``ipv4:``/``ipv6:`` target of literal addresses.

A channel to several replicas (a list, or ``dns:///``: :func:`options`)
balances calls ``round_robin`` over the replicas that are connected: a
replica that died (its connection closed, or it refuses new ones) is
skipped until it answers again; a call that was under way on it
fails ``UNAVAILABLE`` (the callers that must get an answer retry it,
paiju.runtime.retries). The TLS name checked is the service's name, not the
target (see :func:`paiju.security.identity.channel_options`), so one certificate
serves every replica whatever its address.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from typing import Any

#: gRPC service config of a channel to several replicas: round robin over them.
SERVICE_CONFIG = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})
#: Channel options that go with it: no service config from DNS TXT records,
#: and a replica that comes back is connected to again within 5 s (gRPC's
#: reconnect backoff grows to two minutes by default).
OPTIONS: tuple[tuple[str, Any], ...] = (("grpc.service_config", SERVICE_CONFIG),
                                        ("grpc.service_config_disable_resolution", 1),
                                        ("grpc.initial_reconnect_backoff_ms", 500),
                                        ("grpc.max_reconnect_backoff_ms", 5000))


def split(addr: str) -> list[str]:
    """The items of an address setting (comma separated, blanks dropped)."""
    return [a.strip() for a in addr.split(",") if a.strip()]


def _host_port(item: str) -> tuple[str, int]:
    host, sep, port = item.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"{item!r} is not a host:port address")
    return host.strip("[]"), int(port)


def _ips(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise ValueError(f"cannot resolve {host!r} ({e})") from None
    out: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if ip not in out:
            out.append(ip)
    return out


def target(addr: str) -> str:
    """The gRPC target of the address setting ``addr`` (see the module
    docstring): one item as it is; a comma list as ``ipv4:a:p,b:p`` (or
    ``ipv6:[a]:p,…``), every address each host resolves to. Raises
    ``ValueError`` for an empty list, a ``dns:///`` item in a list, a host
    that does not resolve, or a list mixing IPv4 and IPv6 only hosts."""
    items = split(addr)
    if not items:
        raise ValueError("no address")
    if len(items) == 1:
        return items[0]
    v4: list[str] = []
    v6: list[str] = []
    for item in items:
        if "://" in item:
            raise ValueError(f"{item!r}: a comma list holds host:port items only")
        host, port = _host_port(item)
        ips = _ips(host, port)
        four = [f"{ip}:{port}" for ip in ips if ip.version == 4]
        six = [f"[{ip}]:{port}" for ip in ips if ip.version == 6]
        if four:
            v4 += [a for a in four if a not in v4]
        elif six:
            v6 += [a for a in six if a not in v6]
    if v4 and v6:
        raise ValueError(f"{addr!r} mixes IPv4 and IPv6 hosts: give addresses of one kind")
    return f"ipv4:{','.join(v4)}" if v4 else f"ipv6:{','.join(v6)}"


def is_multi(addr: str) -> bool:
    """True when ``addr`` may name several replicas (a list or ``dns:///``)."""
    items = split(addr)
    return len(items) > 1 or any(i.startswith("dns:") for i in items)


def options(addr: str) -> tuple[tuple[str, Any], ...]:
    """The channel options for ``addr``: round robin (:data:`OPTIONS`) where
    it may name several replicas (:func:`is_multi`); none for one
    ``host:port`` (gRPC's default ``pick_first``, which reconnects at once
    when a call comes after the one server restarted, where round robin
    would wait out its reconnect backoff)."""
    return OPTIONS if is_multi(addr) else ()
