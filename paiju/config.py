"""Configuration from ``PAIJU_*`` environment variables, with local defaults.

Every variable a paiju service reads is declared once, typed, in
:class:`Settings` (pydantic-settings; the variable is ``PAIJU_`` + the field
name in capitals). Every one has a default that works on one machine
(``paiju up``); an empty value counts as unset, except for the keys
(``PAIJU_TOKEN_SECRET``, ``PAIJU_GRANT_KEY``), which must not be empty.
:func:`load` turns them into the :class:`Config` of one service process and
raises ``ValueError`` naming the variable for a bad value (the services then
exit with status 2, see :func:`paiju.service.run`).

docs/configuration.md shows the declarations' tables (:func:`markdown`);
``python -m paiju.config docs/configuration.md`` rewrites them there and a
test fails when they differ. ``paiju up``'s own variables (``PAIJU_UP_*``) are
read by :mod:`paiju.platform`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url

PREFIX = "PAIJU_"

#: The token key when none is configured: for development only (32 bytes, as
#: HS256 wants); production sets PAIJU_TOKEN_SECRET.
DEV_TOKEN_SECRET = "paiju-development-only-token-key"
#: The grant key when none is configured: for development only; production
#: sets PAIJU_GRANT_KEY.
DEV_GRANT_KEY = "dev-grant-key"

#: Default gRPC and metrics ports per service.
GRPC_PORTS = {"lobby": 50051, "table": 50052, "ledger": 50053, "gateway": 50054}
METRICS_PORTS = {"lobby": 9101, "table": 9102, "ledger": 9103, "gateway": 9104}
#: Default plain health ports per service (for the kubelet's gRPC probes).
HEALTH_PORTS = {"lobby": 9111, "table": 9112, "ledger": 9113, "gateway": 9114}

#: The logging levels PAIJU_LOG_LEVEL takes.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

#: The shortest HMAC key a token key may be (bytes): what HS256 wants.
MIN_TOKEN_KEY_BYTES = 32

_HOST = r"(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])"
_ADDRESS = re.compile(rf"(?:dns:///)?{_HOST}:\d{{1,5}}")
_NATS = re.compile(rf"(?:(?:nats|tls|ws|wss)://)?(?:[^\s@/,]+@)?{_HOST}(?::\d{{1,5}})?")


def _check(pattern: re.Pattern[str], what: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        items = [v.strip() for v in value.split(",") if v.strip()]
        if not items:
            raise ValueError(f"is not {what}")
        for item in items:
            if not pattern.fullmatch(item) or not _port_ok(item):
                raise ValueError(f"is not {what}" if len(items) == 1
                                 else f"holds {item!r}, which is not {what}")
        return ",".join(items)

    return check


def _port_ok(item: str) -> bool:
    tail = item.rsplit(":", 1)[-1]
    return not tail.isdigit() or int(tail) <= 65535


def _host(value: str) -> str:
    if not re.fullmatch(rf"{_HOST}|[0-9A-Fa-f:]+", value):
        raise ValueError("is not a host name or IP address")
    return value


def _database_url(value: str) -> str:
    try:
        driver = make_url(value).drivername
    except Exception:
        raise ValueError("is not a database URL (sqlite:///file.db, postgresql://…)") from None
    if not driver.startswith(("sqlite", "postgresql", "postgres")):
        raise ValueError(f"names {driver!r}; paiju runs on sqlite and postgresql")
    return value


def _data_dir(value: Path) -> Path:
    if value.exists() and not value.is_dir():
        raise ValueError("exists and is not a folder")
    return value


def _tls_dir(value: Path | None) -> Path | None:
    if value is not None and not value.is_dir():
        raise ValueError("is not a folder (of ca.pem, <service>.pem, <service>-key.pem)")
    return value


def _readable_file(value: Path | None) -> Path | None:
    if value is not None and not value.is_file():
        raise ValueError("is not a readable file")
    return value


def _seed_file(value: Path | None) -> Path | None:
    if value is not None:
        from paiju.natsauth import read_seed  # natsauth imports this module

        read_seed(value)  # ValueError: "cannot be read (…)" / "is not an NKey user seed"
    return value


def _token_keys(value: str) -> str:
    keys = [k.strip() for k in value.split(",")]
    if not all(keys):
        raise ValueError("holds an empty key")
    if any(len(k.encode()) < MIN_TOKEN_KEY_BYTES for k in keys):
        raise ValueError(f"holds a key shorter than {MIN_TOKEN_KEY_BYTES} bytes (HS256)")
    return ",".join(keys)


def _jwks_url(value: str) -> str:
    if not re.fullmatch(r"https?://[^\s/?#]+(?:[/?#]\S*)?", value):
        raise ValueError("is not an http(s) URL")
    return value


def _log_level(value: str) -> str:
    if value.upper() not in LOG_LEVELS:
        raise ValueError(f"is not one of {', '.join(LOG_LEVELS)}")
    return value.upper()


#: The event loops a service process can run on (``PAIJU_EVENT_LOOP``).
EVENT_LOOPS = ("uvloop", "asyncio")


def _event_loop(value: str) -> str:
    if value.lower() not in EVENT_LOOPS:
        raise ValueError(f"is not one of {', '.join(EVENT_LOOPS)}")
    return value.lower()


def _instance(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.:-]+", value):
        raise ValueError("may hold only letters, digits and _ . : -")
    return value


def _port(value: Any) -> Any:
    if isinstance(value, str):
        if not value.strip().isdigit() or int(value) > 65535:
            raise ValueError("is not a port number (0-65535)")
        return int(value)
    return value


Port = Annotated[int, BeforeValidator(_port), Field(ge=0, le=65535)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Address = Annotated[str, AfterValidator(_check(_ADDRESS, "a host:port address"))]


def _doc(group: str, default: str | None = None) -> dict[str, Any]:
    """Field metadata for the docs: the table ``group`` and a default as written there."""
    return {"group": group} if default is None else {"group": group, "doc_default": default}


#: The docs' sections, in order: key, title.
GROUPS = {"all": "Every service", "gateway": "Gateway", "lobby": "Lobby", "table": "Table",
          "ledger": "Ledger", "presence": "Presence (gateway, lobby, table)"}


class Settings(BaseSettings):
    """Every ``PAIJU_*`` variable of the services (``PAIJU_`` + the field name
    in capitals), typed and documented."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, case_sensitive=False, frozen=True,
                                      extra="ignore", validate_default=True)

    host: Annotated[str, AfterValidator(_host)] = Field(
        default="127.0.0.1", description="address the gRPC, metrics and HTTP servers bind",
        json_schema_extra=_doc("all", "`127.0.0.1` (`0.0.0.0` in the image)"))
    grpc_port: Port | None = Field(
        default=None, description="this process's gRPC port, mutual TLS only (health, "
        "reflection, its RPCs)",
        json_schema_extra=_doc("all", "lobby 50051, table 50052, ledger 50053, gateway 50054"))
    metrics_port: Port | None = Field(
        default=None, description="this process's Prometheus `/metrics` port (0: none)",
        json_schema_extra=_doc("all", "lobby 9101, table 9102, ledger 9103, gateway 9104"))
    health_port: Port | None = Field(
        default=None, description="plain gRPC port serving only the health service, for "
        "probes (0: a free port)",
        json_schema_extra=_doc("all", "lobby 9111, table 9112, ledger 9113, gateway 9114"))
    tls_dir: Annotated[Path, AfterValidator(_tls_dir)] | None = Field(
        default=None, description="folder of the CA and this service's certificate: `ca.pem`, "
        "`<service>.pem`, `<service>-key.pem` ([operations.md](operations.md#service-identity-"
        "who-may-call-what)); required outside development mode",
        json_schema_extra=_doc("all", "unset: refused to start, or insecure with a warning in "
                                      "development mode"))
    nats_url: Annotated[str, AfterValidator(_check(_NATS, "a NATS URL"))] = Field(
        default="nats://127.0.0.1:4222", description="NATS server(s), comma separated",
        json_schema_extra=_doc("all"))
    nats_nkey_seed_file: Annotated[Path, AfterValidator(_seed_file)] | None = Field(
        default=None, description="file holding this service's NKey seed (`SU…`) for NATS, "
        "made by `paiju nats-config`; required outside development mode",
        json_schema_extra=_doc("all", "none"))
    nats_tls_ca: Annotated[Path, AfterValidator(_readable_file)] | None = Field(
        default=None, description="CA certificate (PEM) to verify the NATS server by; set, "
        "NATS is reached over TLS", json_schema_extra=_doc("all", "none (no TLS)"))
    nats_tls_cert: Annotated[Path, AfterValidator(_readable_file)] | None = Field(
        default=None, description="client certificate (PEM) for a NATS server that wants one "
        "(with `PAIJU_NATS_TLS_KEY`)", json_schema_extra=_doc("all", "none"))
    nats_tls_key: Annotated[Path, AfterValidator(_readable_file)] | None = Field(
        default=None, description="the client certificate's private key (PEM)",
        json_schema_extra=_doc("all", "none"))
    database_url: Annotated[str, AfterValidator(_database_url)] | None = Field(
        default=None, description="SQLAlchemy URL in its plain form: `sqlite:///path.db`, "
        "`postgresql://user:pw@host/db` (the async driver is chosen for you); not the gateway",
        json_schema_extra=_doc("all", "`sqlite:///$PAIJU_DATA_DIR/<service>.db`"))
    data_dir: Annotated[Path, AfterValidator(_data_dir)] = Field(
        default=Path(".paiju"),
        description="where local SQLite files live", json_schema_extra=_doc("all"))
    ledger_addr: Address = Field(
        default="127.0.0.1:50053", description="the ledger's gRPC address (lobby, table, gateway)",
        json_schema_extra=_doc("all"))
    lobby_addr: Address = Field(
        default="127.0.0.1:50051", description="the lobby's gRPC address (table, gateway)",
        json_schema_extra=_doc("all"))
    table_addrs: Address = Field(
        default="127.0.0.1:50052", description="table instances' gRPC addresses, comma separated "
        "(lobby; gateways reach each game's table at one of them)",
        json_schema_extra=_doc("all"))
    instance: Annotated[str, AfterValidator(_instance)] | None = Field(
        default=None, description="this instance's name (logs, NATS connection names)",
        json_schema_extra=_doc("all", "`<service>-<grpc port>`"))
    drain_seconds: Seconds = Field(
        default=10.0, description="grace on SIGTERM for in-flight calls and for each stop step",
        json_schema_extra=_doc("all"))
    log_level: Annotated[str, AfterValidator(_log_level)] = Field(
        default="INFO", description="`DEBUG`, `INFO`, `WARNING`, `ERROR` (any case)",
        json_schema_extra=_doc("all"))
    event_loop: Annotated[str, AfterValidator(_event_loop)] = Field(
        default="uvloop", description="the process's event loop: `uvloop` (libuv, faster "
        "sockets and timers; docs/performance.md) or `asyncio` (the standard library's)",
        json_schema_extra=_doc("all"))

    gateway_port: Port = Field(
        default=8080, description="the gateway's HTTP port: WebSocket `/ws` and the web client",
        json_schema_extra=_doc("gateway"))
    token_secret: Annotated[str, AfterValidator(_token_keys)] = Field(
        default=DEV_TOKEN_SECRET,
        description="HMAC keys of client tokens (JWT HS256, each at least "
        "32 bytes), comma separated: the first signs, every one verifies; a key of your own is "
        "required outside development mode (unless `PAIJU_TOKEN_JWKS_URL` is set)",
        json_schema_extra=_doc("gateway"))
    token_ttl_seconds: Annotated[int, Field(gt=0)] = Field(
        default=86400, description="lifetime of the tokens the gateway issues",
        json_schema_extra=_doc("gateway"))
    dev_mode: bool = Field(
        default=False, description="development login by name (`1`/`true`/`yes`/`on`, "
        "`0`/`false`/`no`/`off`); on under `paiju up`; off, every service needs "
        "`PAIJU_NATS_NKEY_SEED_FILE`", json_schema_extra=_doc("gateway"))
    dev_start_coins: Annotated[int, Field(ge=0)] = Field(
        default=100000, description="coins granted to a new development account",
        json_schema_extra=_doc("gateway"))
    grant_key: Annotated[str, Field(min_length=1)] = Field(
        default=DEV_GRANT_KEY,
        description="key guarding the ledger's Grant RPC (ledger and gateway "
        "alike); a key of your own is required outside development mode",
        json_schema_extra=_doc("ledger"))

    rooms_file: Annotated[Path, AfterValidator(_readable_file)] | None = Field(
        default=None, description="coin servers and rooms (YAML); see [lobby.md](lobby.md)",
        json_schema_extra=_doc("lobby", "built-in default offering every game"))
    lobby_reconcile_seconds: Positive = Field(
        default=5.0, description="seconds between the reconciler's passes over started rooms",
        json_schema_extra=_doc("lobby"))
    lobby_start_grace_seconds: Positive = Field(
        default=30.0, description="seconds a started room is left alone before its game is checked",
        json_schema_extra=_doc("lobby"))
    lobby_table_lost_seconds: Positive = Field(
        default=60.0, description="seconds a table instance may not answer before its rooms' games "
        "count as lost", json_schema_extra=_doc("lobby"))

    table_deal_interval_ms: Seconds = Field(
        default=150.0, description="default pace of a paced deal, milliseconds per card (a room's "
        "`deal_interval_ms` option overrides it)", json_schema_extra=_doc("table"))
    table_game_drain_seconds: Seconds = Field(
        default=600.0, description="how long handing the running games over may take after "
        "SIGTERM (docs/table.md \"Handover\"); then the instance stops anyway",
        json_schema_extra=_doc("table"))
    game_log_replicas: Annotated[int, Field(ge=1)] = Field(
        default=1, description="replicas of the table's game log stream and lease buckets "
        "(JetStream; docs/table.md \"The game log\")", json_schema_extra=_doc("table"))
    lease_seconds: Positive = Field(
        default=5.0, description="TTL of a table instance's lease of a game; renewed every third "
        "of it, free games looked for every quarter of it (at most every second)",
        json_schema_extra=_doc("table"))
    table_address: Address | None = Field(
        default=None, description="this table instance's gRPC address as others reach it "
        "(`game_moved`, its leases)",
        json_schema_extra=_doc("table", "`<PAIJU_HOST>:<PAIJU_GRPC_PORT>`"))
    table_pool: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]+$")] | None = Field(
        default=None, description="the table instances that take over each other's games "
        "(letters, digits, `_`, `-`)",
        json_schema_extra=_doc("table", "derived from `PAIJU_DATABASE_URL`"))
    table_allow_fixed_deal: bool = Field(
        default=False, description="CreateGame may take a fixed deal (`deal_json`): tests only",
        json_schema_extra=_doc("table"))

    gateway_ping_interval_seconds: Positive = Field(
        default=5.0, description="seconds between the WebSocket pings a gateway sends each "
        "connection (services.gateway.keepalive)", json_schema_extra=_doc("gateway"))
    gateway_ping_timeout_seconds: Positive = Field(
        default=5.0, description="seconds a pong may take before the connection is aborted",
        json_schema_extra=_doc("gateway"))

    token_max_lifetime_seconds: Annotated[int, Field(gt=0)] = Field(
        default=7 * 86400, description="longest lifetime a client token may have (`exp` − `iat`, "
        "and `exp` − now); tokens without `exp` or living longer are refused",
        json_schema_extra=_doc("gateway"))
    token_jwks_url: Annotated[str, AfterValidator(_jwks_url)] | None = Field(
        default=None, description="JWKS URL of an identity provider whose RS256/ES256 tokens "
        "`auth` accepts (with `PAIJU_TOKEN_ISSUER` and `PAIJU_TOKEN_AUDIENCE`)",
        json_schema_extra=_doc("gateway", "none"))
    token_issuer: Annotated[str, Field(pattern=r"^\S+$")] | None = Field(
        default=None, description="the `iss` the identity provider's tokens must carry",
        json_schema_extra=_doc("gateway", "none"))
    token_jwks_refresh_seconds: Seconds = Field(
        default=30.0, description="shortest time between two fetches of the JWKS for a token "
        "signed by a key it does not hold yet (key rotation)", json_schema_extra=_doc("gateway"))
    token_audience: Annotated[str, Field(pattern=r"^\S+$")] | None = Field(
        default=None, description="the `aud` the identity provider's tokens must carry",
        json_schema_extra=_doc("gateway", "none"))
    gateway_max_connections: Annotated[int, Field(gt=0)] = Field(
        default=20000, description="open client connections one gateway takes; more are "
        "closed with 1013", json_schema_extra=_doc("gateway"))
    gateway_max_connections_per_address: Annotated[int, Field(gt=0)] = Field(
        default=256, description="open client connections from one IP address; more are "
        "closed with 1013", json_schema_extra=_doc("gateway"))
    gateway_sessions_per_player_per_minute: Annotated[int, Field(gt=0)] = Field(
        default=20, description="sign-ins (`login`, `auth`) one player may make per minute on "
        "one gateway; more are refused (`too_many_sessions`)", json_schema_extra=_doc("gateway"))
    gateway_max_queued_bytes: Annotated[int, Field(gt=0)] = Field(
        default=256 * 1024 * 1024, description="bytes waiting in all send queues of one gateway; "
        "the connection whose message would pass it is cut off", json_schema_extra=_doc("gateway"))

    presence_heartbeat_seconds: Positive = Field(
        default=2.0, description="seconds between a gateway's presence heartbeats (paiju.presence)",
        json_schema_extra=_doc("presence"))
    presence_timeout_seconds: Positive = Field(
        default=6.0,
        description="seconds without a heartbeat after which a gateway counts as dead; "
        "above the heartbeat", json_schema_extra=_doc("presence"))

    @model_validator(mode="before")
    @classmethod
    def _empty_is_unset(cls, data: Any) -> Any:
        """An empty (or blank) value counts as unset, except for the keys."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items()
                    if not (isinstance(v, str) and not v.strip()
                            and k not in ("token_secret", "grant_key"))}
        return data

    @model_validator(mode="after")
    def _tls_key_with_cert(self) -> Settings:
        if self.nats_tls_key and not (self.nats_tls_cert and self.nats_tls_ca):
            raise ValueError("PAIJU_NATS_TLS_KEY needs PAIJU_NATS_TLS_CERT and PAIJU_NATS_TLS_CA")
        if self.nats_tls_cert and not self.nats_tls_ca:
            raise ValueError("PAIJU_NATS_TLS_CERT needs PAIJU_NATS_TLS_CA")
        return self

    @model_validator(mode="after")
    def _heartbeat_below_timeout(self) -> Settings:
        if not self.presence_heartbeat_seconds < self.presence_timeout_seconds:
            raise ValueError(
                f"PAIJU_PRESENCE_HEARTBEAT_SECONDS={self.presence_heartbeat_seconds} must be "
                f"below PAIJU_PRESENCE_TIMEOUT_SECONDS={self.presence_timeout_seconds}")
        return self

    @model_validator(mode="after")
    def _ttl_within_max_lifetime(self) -> Settings:
        if self.token_ttl_seconds > self.token_max_lifetime_seconds:
            raise ValueError(
                f"PAIJU_TOKEN_TTL_SECONDS={self.token_ttl_seconds} must not pass "
                f"PAIJU_TOKEN_MAX_LIFETIME_SECONDS={self.token_max_lifetime_seconds}")
        return self

    @model_validator(mode="after")
    def _jwks_with_issuer_and_audience(self) -> Settings:
        if self.token_jwks_url and not (self.token_issuer and self.token_audience):
            raise ValueError("PAIJU_TOKEN_JWKS_URL needs PAIJU_TOKEN_ISSUER and "
                             "PAIJU_TOKEN_AUDIENCE (the provider's tokens are checked for both)")
        return self


def variable(field: str) -> str:
    """The environment variable of :class:`Settings` field ``field``."""
    return PREFIX + field.upper()


def settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The :class:`Settings` from ``environ`` (default: the process's
    environment). Raises ``ValueError`` naming each bad variable with its value
    and what is wrong."""
    try:
        if environ is None:
            return Settings()
        return Settings.model_validate(
            {f: environ[variable(f)] for f in Settings.model_fields if variable(f) in environ})
    except ValidationError as e:
        raise ValueError(_explain(e)) from None


def _explain(e: ValidationError) -> str:
    lines = []
    for err in e.errors(include_url=False):
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["loc"]:
            # "PAIJU_X='v' is not …" (our checks), "PAIJU_X='v': Input should …" (pydantic's)
            sep = " " if msg[:1].islower() else ": "
            lines.append(f"{variable(str(err['loc'][0]))}={err['input']!r}{sep}{msg}")
        else:
            lines.append(msg)
    return "; ".join(lines)


@dataclass(frozen=True)
class Config:
    """The settings of one service process (:class:`Settings` with the
    per-service defaults filled in)."""

    service: str
    host: str = "127.0.0.1"
    grpc_port: int = 0
    metrics_port: int = 0
    health_port: int = 0
    tls_dir: Path | None = None
    nats_url: str = "nats://127.0.0.1:4222"
    nats_nkey_seed_file: str = ""
    nats_tls_ca: str = ""
    nats_tls_cert: str = ""
    nats_tls_key: str = ""
    database_url: str = ""
    data_dir: Path = Path(".paiju")
    ledger_addr: str = "127.0.0.1:50053"
    lobby_addr: str = "127.0.0.1:50051"
    table_addrs: tuple[str, ...] = ("127.0.0.1:50052",)
    instance: str = ""
    gateway_port: int = 8080
    token_secret: str = DEV_TOKEN_SECRET
    token_ttl_seconds: int = 86400
    dev_mode: bool = False
    dev_start_coins: int = 100000
    grant_key: str = DEV_GRANT_KEY
    rooms_file: str = ""
    drain_seconds: float = 10.0
    log_level: str = "INFO"
    event_loop: str = "uvloop"
    lobby_reconcile_seconds: float = 5.0
    lobby_start_grace_seconds: float = 30.0
    lobby_table_lost_seconds: float = 60.0
    table_deal_interval_ms: float = 150.0
    table_game_drain_seconds: float = 600.0
    table_allow_fixed_deal: bool = False
    game_log_replicas: int = 1
    lease_seconds: float = 5.0
    table_address: str = ""
    table_pool: str = ""
    gateway_ping_interval_seconds: float = 5.0
    gateway_ping_timeout_seconds: float = 5.0
    token_max_lifetime_seconds: int = 7 * 86400
    token_jwks_url: str = ""
    token_jwks_refresh_seconds: float = 30.0
    token_issuer: str = ""
    token_audience: str = ""
    gateway_max_connections: int = 20000
    gateway_max_connections_per_address: int = 256
    gateway_sessions_per_player_per_minute: int = 20
    gateway_max_queued_bytes: int = 256 * 1024 * 1024
    presence_heartbeat_seconds: float = 2.0
    presence_timeout_seconds: float = 6.0


def presence_seconds() -> tuple[float, float]:
    """``(heartbeat, timeout)`` of presence in seconds, from
    PAIJU_PRESENCE_HEARTBEAT_SECONDS (default 2) and PAIJU_PRESENCE_TIMEOUT_SECONDS
    (default 6). Raises ``ValueError`` unless ``0 < heartbeat < timeout``."""
    s = settings()
    return s.presence_heartbeat_seconds, s.presence_timeout_seconds


def load(service: str, environ: Mapping[str, str] | None = None) -> Config:
    """The configuration of ``service`` (lobby, table, ledger, gateway) from
    ``environ`` (default: the process's environment). Raises ``ValueError``
    naming the variable for a bad value."""
    s = settings(environ)
    grpc_port = GRPC_PORTS.get(service, 0) if s.grpc_port is None else s.grpc_port
    fields = s.model_dump(exclude={"grpc_port", "metrics_port", "health_port", "database_url",
                                   "instance", "table_addrs", "rooms_file", "table_address",
                                   "table_pool", "token_jwks_url", "token_issuer",
                                   "token_audience", "nats_nkey_seed_file",
                                   "nats_tls_ca", "nats_tls_cert", "nats_tls_key"})
    return Config(
        service=service,
        grpc_port=grpc_port,
        metrics_port=METRICS_PORTS.get(service, 0) if s.metrics_port is None else s.metrics_port,
        health_port=HEALTH_PORTS.get(service, 0) if s.health_port is None else s.health_port,
        database_url=s.database_url or f"sqlite:///{s.data_dir / (service + '.db')}",
        instance=s.instance or f"{service}-{grpc_port}",
        table_addrs=tuple(s.table_addrs.split(",")),
        rooms_file=str(s.rooms_file or ""),
        table_address=s.table_address or "",
        table_pool=s.table_pool or "",
        token_jwks_url=s.token_jwks_url or "",
        token_issuer=s.token_issuer or "",
        token_audience=s.token_audience or "",
        nats_nkey_seed_file=str(s.nats_nkey_seed_file or ""),
        nats_tls_ca=str(s.nats_tls_ca or ""), nats_tls_cert=str(s.nats_tls_cert or ""),
        nats_tls_key=str(s.nats_tls_key or ""),
        **fields,
    )


def check_keys(config: Config) -> None:
    """Refuse development keys outside development mode (issue 18): the
    gateway needs a token key of its own (``PAIJU_TOKEN_SECRET``; unset, or
    holding :data:`DEV_TOKEN_SECRET`, is refused unless ``PAIJU_TOKEN_JWKS_URL``
    is set, in which case the development key verifies nothing), the ledger a
    grant key of its own (``PAIJU_GRANT_KEY`` unset or :data:`DEV_GRANT_KEY`).
    Raises ``ValueError`` naming the variable; nothing in development mode
    (``PAIJU_DEV_MODE``)."""
    if config.dev_mode:
        return
    hint = "outside development mode (PAIJU_DEV_MODE) set a key of your own"
    dev_token = DEV_TOKEN_SECRET in config.token_secret.split(",")
    if config.service == "gateway" and dev_token and (
            config.token_secret != DEV_TOKEN_SECRET or not config.token_jwks_url):
        raise ValueError(f"PAIJU_TOKEN_SECRET is unset or holds the development key: {hint}"
                         " (or verify tokens by PAIJU_TOKEN_JWKS_URL only)")
    if config.service == "ledger" and config.grant_key == DEV_GRANT_KEY:
        raise ValueError(f"PAIJU_GRANT_KEY is unset or the development key: {hint}")


BEGIN = "<!-- generated by `python -m paiju.config docs/configuration.md` from paiju/config.py -->"
END = "<!-- end of generated tables -->"


def markdown() -> str:
    """The tables of every variable, one section per group (docs/configuration.md)."""
    out: list[str] = []
    for group, title in GROUPS.items():
        out += ["", f"### {title}", "", "| variable | meaning | default |", "| --- | --- | --- |"]
        for name, f in Settings.model_fields.items():
            extra = f.json_schema_extra
            assert isinstance(extra, dict)
            if extra["group"] != group:
                continue
            default = extra.get("doc_default") or _shown(f.default)
            out.append(f"| `{variable(name)}` | {f.description} | {default} |")
    return "\n".join([BEGIN, *out, "", END])


def _shown(value: Any) -> str:
    """A default as the docs show it: ``off``/``on``, ``10`` for 10.0."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


def rewrite_docs(path: Path) -> bool:
    """Put :func:`markdown` between the markers of ``path``; True if it changed."""
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + markdown() + text[end:]
    path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(f"{arg}: {'rewritten' if rewrite_docs(Path(arg)) else 'up to date'}")
