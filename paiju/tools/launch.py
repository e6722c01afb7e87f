"""How ``paiju up`` runs one service process: the :class:`Instance` (its
service, name and ports) and the environment it gets (:func:`instance_env`).
The test platform (tests/platform_procs.py) starts its services with the
same environment, so tests run them as users do."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from paiju.security import natsauth

#: The repository's root (services/ lives beside paiju/ in a checkout).
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Instance:
    """One service process of a :class:`Plan`: its service, a name unique in
    the platform (``table``, ``table-2`` …) and its ports."""

    service: str
    name: str
    grpc_port: int
    metrics_port: int
    http_port: int
    health_port: int = 0


def instance_env(member: Instance, *, host: str, nats_url: str, nats_creds: Path | None,
                 data_dir: Path, tls_dir: Path, ledger_addr: str, lobby_addr: str,
                 database_url: str | None = None,
                 base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment ``paiju up`` gives one service process: ``base``
    (default: this process's) plus its ports, the others' addresses, NATS
    (``nats_creds``: the folder of the NKey seeds: each service's, and each
    gateway's, named after it, which is also its ``PAIJU_INSTANCE``), data,
    dev mode and certificates. The test platform starts its services with this too
    (tests/platform_procs.py), so tests run them as users do. No
    ``PAIJU_TABLE_ADDRS``: table instances register themselves."""
    env = dict(os.environ if base is None else base)
    env.update({
        "PAIJU_HOST": host,
        "PAIJU_GRPC_PORT": str(member.grpc_port),
        "PAIJU_METRICS_PORT": str(member.metrics_port),
        "PAIJU_HEALTH_PORT": str(member.health_port),
        "PAIJU_TLS_DIR": str(tls_dir),
        "PAIJU_GATEWAY_PORT": str(member.http_port),
        "PAIJU_NATS_URL": nats_url,
        "PAIJU_DATA_DIR": str(data_dir),
        "PAIJU_LEDGER_ADDR": ledger_addr,
        "PAIJU_LOBBY_ADDR": lobby_addr,
        "PAIJU_DEV_MODE": "1",
        "PYTHONUNBUFFERED": "1",
    })
    # A gateway's name is its NATS user's, whose presence it alone may publish.
    if member.service == "gateway":
        env["PAIJU_INSTANCE"] = member.name
        env.update(natsauth.seed_env(nats_creds, member.name))
    else:
        env.pop("PAIJU_INSTANCE", None)
        env.update(natsauth.seed_env(nats_creds, member.service))
    if database_url:
        env["PAIJU_DATABASE_URL"] = database_url
    # services/ lives beside paiju/ in a checkout: importable from any cwd
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env
