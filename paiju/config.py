"""Configuration from ``PAIJU_*`` environment variables, with local defaults.

Every setting has a default that works on one machine (``paiju up``). Names:

================================  ==========================================  =====================
variable                          meaning                                     default
================================  ==========================================  =====================
PAIJU_HOST                        address the services bind                   127.0.0.1
PAIJU_GRPC_PORT                   this process's gRPC port                    per service (below)
PAIJU_METRICS_PORT                this process's Prometheus /metrics port     per service (below)
PAIJU_NATS_URL                    NATS server(s), comma separated             nats://127.0.0.1:4222
PAIJU_DATABASE_URL                SQLAlchemy URL (sqlite:///…, postgresql://…) SQLite in DATA_DIR
PAIJU_DATA_DIR                    where local SQLite files live               .paiju
PAIJU_LEDGER_ADDR                 ledger gRPC address                         127.0.0.1:50053
PAIJU_LOBBY_ADDR                  lobby gRPC address                          127.0.0.1:50051
PAIJU_TABLE_ADDRS                 table instances, comma separated            127.0.0.1:50052
PAIJU_INSTANCE                    this instance's name (table placement)      <service>-<port>
PAIJU_GATEWAY_PORT                gateway HTTP/WebSocket port                 8080
PAIJU_TOKEN_SECRET                HMAC keys of client tokens (JWT HS256;      a development-only key
                                  comma separated: the first signs)
PAIJU_DEV_MODE                    development login by name                   false
PAIJU_GRANT_KEY                   key guarding the ledger's Grant RPC         dev-grant-key
PAIJU_ROOMS_FILE                  coin servers and rooms (YAML)               built-in default
PAIJU_DRAIN_SECONDS               grace for in-flight work on SIGTERM         10
PAIJU_LOG_LEVEL                   logging level                               INFO
PAIJU_PRESENCE_HEARTBEAT_SECONDS  seconds between a gateway's presence        2
                                  heartbeats (paiju.presence)
PAIJU_PRESENCE_TIMEOUT_SECONDS    seconds without a heartbeat after which a   6
                                  gateway counts as dead (paiju.presence)
================================  ==========================================  =====================
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

#: The token key when none is configured: for development only (32 bytes, as
#: HS256 wants); production sets PAIJU_TOKEN_SECRET.
DEV_TOKEN_SECRET = "paiju-development-only-token-key"

#: Default gRPC and metrics ports per service.
GRPC_PORTS = {"lobby": 50051, "table": 50052, "ledger": 50053, "gateway": 50054}
METRICS_PORTS = {"lobby": 9101, "table": 9102, "ledger": 9103, "gateway": 9104}


def _env(name: str, default: str) -> str:
    return os.environ.get(f"PAIJU_{name}", default)


def _number(name: str, default: float) -> float:
    raw = os.environ.get(f"PAIJU_{name}")
    if raw is None or not raw.strip():
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"PAIJU_{name}={raw!r} is not a number") from None


def _port(name: str, default: int) -> int:
    raw = os.environ.get(f"PAIJU_{name}")
    if raw is None or not raw.strip():
        return default
    try:
        port = int(raw)
    except ValueError:
        raise ValueError(f"PAIJU_{name}={raw!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"PAIJU_{name}={raw!r} is not a port number (0-65535)")
    return port


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(f"PAIJU_{name}")
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Config:
    """The settings of one service process (see the module docstring)."""

    service: str
    host: str = "127.0.0.1"
    grpc_port: int = 0
    metrics_port: int = 0
    nats_url: str = "nats://127.0.0.1:4222"
    database_url: str = ""
    data_dir: Path = Path(".paiju")
    ledger_addr: str = "127.0.0.1:50053"
    lobby_addr: str = "127.0.0.1:50051"
    table_addrs: tuple[str, ...] = ("127.0.0.1:50052",)
    instance: str = ""
    gateway_port: int = 8080
    token_secret: str = DEV_TOKEN_SECRET
    dev_mode: bool = False
    grant_key: str = "dev-grant-key"
    rooms_file: str = ""
    drain_seconds: float = 10.0
    log_level: str = "INFO"
    presence_heartbeat_seconds: float = 2.0
    presence_timeout_seconds: float = 6.0
    extra: dict[str, str] = field(default_factory=dict)


def presence_seconds() -> tuple[float, float]:
    """``(heartbeat, timeout)`` of presence in seconds, from
    PAIJU_PRESENCE_HEARTBEAT_SECONDS (default 2) and PAIJU_PRESENCE_TIMEOUT_SECONDS
    (default 6). Raises ``ValueError`` unless ``0 < heartbeat < timeout``."""
    heartbeat = _number("PRESENCE_HEARTBEAT_SECONDS", 2.0)
    timeout = _number("PRESENCE_TIMEOUT_SECONDS", 6.0)
    if not 0 < heartbeat < timeout:
        raise ValueError(
            f"PAIJU_PRESENCE_HEARTBEAT_SECONDS={heartbeat} must be above 0 and below "
            f"PAIJU_PRESENCE_TIMEOUT_SECONDS={timeout}")
    return heartbeat, timeout


def load(service: str) -> Config:
    """Read the configuration of ``service`` (lobby, table, ledger, gateway) from
    the environment. Raises ``ValueError`` naming the variable on a malformed
    number or port."""
    data_dir = Path(_env("DATA_DIR", ".paiju"))
    grpc_port = _port("GRPC_PORT", GRPC_PORTS.get(service, 0))
    database_url = _env("DATABASE_URL", f"sqlite:///{data_dir / (service + '.db')}")
    heartbeat, timeout = presence_seconds()
    return Config(
        service=service,
        host=_env("HOST", "127.0.0.1"),
        grpc_port=grpc_port,
        metrics_port=_port("METRICS_PORT", METRICS_PORTS.get(service, 0)),
        nats_url=_env("NATS_URL", "nats://127.0.0.1:4222"),
        database_url=database_url,
        data_dir=data_dir,
        ledger_addr=_env("LEDGER_ADDR", f"127.0.0.1:{GRPC_PORTS['ledger']}"),
        lobby_addr=_env("LOBBY_ADDR", f"127.0.0.1:{GRPC_PORTS['lobby']}"),
        table_addrs=tuple(
            a.strip()
            for a in _env("TABLE_ADDRS", f"127.0.0.1:{GRPC_PORTS['table']}").split(",")
            if a.strip()
        ),
        instance=_env("INSTANCE", f"{service}-{grpc_port}"),
        gateway_port=_port("GATEWAY_PORT", 8080),
        token_secret=_env("TOKEN_SECRET", DEV_TOKEN_SECRET),
        dev_mode=_flag("DEV_MODE", False),
        grant_key=_env("GRANT_KEY", "dev-grant-key"),
        rooms_file=_env("ROOMS_FILE", ""),
        drain_seconds=_number("DRAIN_SECONDS", 10.0),
        log_level=_env("LOG_LEVEL", "INFO"),
        presence_heartbeat_seconds=heartbeat,
        presence_timeout_seconds=timeout,
    )
