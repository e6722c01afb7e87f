"""Configuration from ``PAIJU_*`` environment variables, with local defaults.

Every variable a paiju service reads is declared once, typed, in
:class:`Settings` (pydantic-settings; the variable is ``PAIJU_`` + the field
name in capitals). Every one has a default that works on one machine
(``paiju up``); an empty value counts as unset, except for the keys
(``PAIJU_TOKEN_SECRET``, ``PAIJU_GRANT_KEY``), which must not be empty.
:func:`load` turns them into the :class:`Config` of one service process and
raises ``ValueError`` naming the variable for a bad value (the services then
exit with status 2, see :func:`paiju.runtime.service.run`).

docs/configuration.md shows the declarations' tables
(:func:`paiju.config_docs.markdown`); ``python -m paiju.config_docs
docs/configuration.md`` rewrites them there and a test fails when they differ.
``paiju up``'s own variables (``PAIJU_UP_*``) are declared here too and read by
:mod:`paiju.tools.up` (through :func:`settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from paiju.config_checks import (
    LOG_LEVELS,
    MIN_TOKEN_KEY_BYTES,
    NATS_URL,
    Address,
    Addresses,
    Port,
    Positive,
    Replicas,
    Seconds,
    check_ai_token_keys,
    check_data_dir,
    check_database_url,
    check_event_loop,
    check_games,
    check_host,
    check_instance,
    check_jwks_url,
    check_log_level,
    check_otlp_endpoint,
    check_port,
    check_readable_file,
    check_seed_file,
    check_tls_dir,
    check_token_keys,
    pattern_check,
)
from paiju.config_keys import DEV_GRANT_KEY, DEV_TOKEN_SECRET, check_keys

__all__ = ["DEV_GRANT_KEY", "DEV_TOKEN_SECRET", "LOG_LEVELS", "MIN_TOKEN_KEY_BYTES", "Config",
           "Settings", "check_keys", "load", "settings"]

PREFIX = "PAIJU_"


#: Default gRPC and metrics ports per service.
GRPC_PORTS = {"lobby": 50051, "table": 50052, "ledger": 50053, "gateway": 50054}
METRICS_PORTS = {"lobby": 9101, "table": 9102, "ledger": 9103, "gateway": 9104}
#: Default plain health ports per service (for the kubelet's gRPC probes).
HEALTH_PORTS = {"lobby": 9111, "table": 9112, "ledger": 9113, "gateway": 9114}


def _doc(group: str, default: str | None = None) -> dict[str, Any]:
    """Field metadata for the docs: the table ``group`` and a default as written there."""
    return {"group": group} if default is None else {"group": group, "doc_default": default}


#: The docs' sections, in order: key, title.
GROUPS = {"all": "Every service", "gateway": "Gateway", "lobby": "Lobby", "table": "Table",
          "ledger": "Ledger", "presence": "Presence (gateway, lobby, table)",
          "tracing": "Tracing (every service)", "up": "`paiju up` (the platform on one machine)"}


class Settings(BaseSettings):
    """Every ``PAIJU_*`` variable of the services (``PAIJU_`` + the field name
    in capitals), typed and documented."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, case_sensitive=False, frozen=True,
                                      extra="ignore", validate_default=True)

    host: Annotated[str, AfterValidator(check_host)] = Field(
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
    tls_dir: Annotated[Path, AfterValidator(check_tls_dir)] | None = Field(
        default=None, description="folder of the CA and this service's certificate: `ca.pem`, "
        "`<service>.pem`, `<service>-key.pem` ([operations.md](operations.md#service-identity-"
        "who-may-call-what)); required outside development mode",
        json_schema_extra=_doc("all", "unset: refused to start, or insecure with a warning in "
                                      "development mode"))
    nats_url: Annotated[str, AfterValidator(pattern_check(NATS_URL, "a NATS URL"))] = Field(
        default="nats://127.0.0.1:4222", description="NATS server(s), comma separated",
        json_schema_extra=_doc("all"))
    nats_nkey_seed_file: Annotated[Path, AfterValidator(check_seed_file)] | None = Field(
        default=None, description="file holding this service's NKey seed (`SU…`) for NATS, "
        "made by `paiju nats-config`; required outside development mode; also read by "
        "`paiju ai --pool` (the user `ai`'s seed, `ai.nk`)",
        json_schema_extra=_doc("all", "none"))
    nats_tls_ca: Annotated[Path, AfterValidator(check_readable_file)] | None = Field(
        default=None, description="CA certificate (PEM) to verify the NATS server by; set, "
        "NATS is reached over TLS", json_schema_extra=_doc("all", "none (no TLS)"))
    nats_tls_cert: Annotated[Path, AfterValidator(check_readable_file)] | None = Field(
        default=None, description="client certificate (PEM) for a NATS server that wants one "
        "(with `PAIJU_NATS_TLS_KEY`)", json_schema_extra=_doc("all", "none"))
    nats_tls_key: Annotated[Path, AfterValidator(check_readable_file)] | None = Field(
        default=None, description="the client certificate's private key (PEM)",
        json_schema_extra=_doc("all", "none"))
    database_url: Annotated[str, AfterValidator(check_database_url)] | None = Field(
        default=None, description="SQLAlchemy URL in its plain form: `sqlite:///path.db`, "
        "`postgresql://user:pw@host/db` (the async driver is chosen for you); not the gateway",
        json_schema_extra=_doc("all", "`sqlite:///$PAIJU_DATA_DIR/<service>.db`"))
    data_dir: Annotated[Path, AfterValidator(check_data_dir)] = Field(
        default=Path(".paiju"),
        description="where local SQLite files live", json_schema_extra=_doc("all"))
    ledger_addr: Replicas = Field(
        default="127.0.0.1:50053", description="the ledger's gRPC address (lobby, table, gateway): "
        "one, every replica comma separated, or `dns:///name:port` (calls go round robin to "
        "the replicas that answer)",
        json_schema_extra=_doc("all"))
    lobby_addr: Replicas = Field(
        default="127.0.0.1:50051", description="the lobby's gRPC address (table, gateway), as "
        "`PAIJU_LEDGER_ADDR` takes it",
        json_schema_extra=_doc("all"))
    table_addrs: Addresses = Field(
        default=(), description="table instances the lobby places games on (and the "
        "gateway asks for records) besides those that announce themselves in the registry "
        "(comma separated; optional)",
        json_schema_extra=_doc("lobby", "none"))
    games: Annotated[str, AfterValidator(check_games)] | None = Field(
        default=None, description="modules of extra games, comma separated, registered beside "
        "the `paiju.games` entry points (paiju/rules/registry.py); every service reads it",
        json_schema_extra=_doc("all", "none"))
    instance: Annotated[str, AfterValidator(check_instance)] | None = Field(
        default=None, description="this instance's name (logs, NATS connection names); a "
        "gateway's is also its NATS user's, whose presence it alone may publish",
        json_schema_extra=_doc("all", "`<service>-<grpc port>`"))
    drain_seconds: Seconds = Field(
        default=10.0, description="grace on SIGTERM for in-flight calls and for each stop step",
        json_schema_extra=_doc("all"))
    log_level: Annotated[str, AfterValidator(check_log_level)] = Field(
        default="INFO", description="`DEBUG`, `INFO`, `WARNING`, `ERROR` (any case)",
        json_schema_extra=_doc("all"))
    event_loop: Annotated[str, AfterValidator(check_event_loop)] = Field(
        default="uvloop", description="the process's event loop: `uvloop` (libuv, faster "
        "sockets and timers; docs/performance.md) or `asyncio` (the standard library's)",
        json_schema_extra=_doc("all"))

    gateway_port: Port = Field(
        default=8080, description="the gateway's HTTP port: WebSocket `/ws` and the web client",
        json_schema_extra=_doc("gateway"))
    token_secret: Annotated[str, AfterValidator(check_token_keys)] = Field(
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
    ai_token_secret: Annotated[str, AfterValidator(check_ai_token_keys)] = Field(
        default="", description="HMAC keys of AI players' tokens (JWT HS256, each at least 32 "
        "bytes), comma separated: `paiju ai` signs with the first, the gateway verifies with "
        "every one; such a token signs in an AI player (机器人, a player id starting `ai-`) "
        "whose account is opened at its first sign-in; empty: AI players sign in by "
        "development login only", json_schema_extra=_doc("gateway"))
    ai_start_coins: Annotated[int, Field(ge=0)] = Field(
        default=100000, description="in development mode, coins the house grants once to an "
        "AI player's account at its first sign-in with an AI token (outside it the operator "
        "funds AI accounts: `paiju admin fund-ai`)", json_schema_extra=_doc("gateway"))
    dev_start_coins: Annotated[int, Field(ge=0)] = Field(
        default=100000, description="coins granted to a new development account",
        json_schema_extra=_doc("gateway"))
    grant_key: Annotated[str, Field(min_length=1)] = Field(
        default=DEV_GRANT_KEY,
        description="key guarding the ledger's Grant RPC (ledger and gateway "
        "alike); a key of your own is required outside development mode",
        json_schema_extra=_doc("ledger"))

    ledger_rankings_max_age_seconds: Seconds = Field(
        default=30.0, description="how old a coin server's materialised rankings may be when "
        "read before they are computed again from the daily tally (0: every read; "
        "docs/ledger.md \"Rankings\")", json_schema_extra=_doc("ledger"))

    rooms_file: Annotated[Path, AfterValidator(check_readable_file)] | None = Field(
        default=None, description="coin servers and rooms (YAML; a server's `practice: true` "
        "makes it a practice server, 练习场, where no coins move and AI players fill the "
        "seats; `ai_fill_after_s: N` asks for AI players N s after a player sits in a "
        "waiting room of a coin server, default off); see [lobby.md](lobby.md)",
        json_schema_extra=_doc("lobby", "built-in default offering every game and a "
                               "practice server of each"))
    relief_coins: Annotated[int, Field(ge=0, le=10**12)] = Field(
        default=2000, description="relief coins (救济金) granted per claim to a player whose "
        "balance is below every server of a game (0: no relief offered; docs/lobby.md "
        "\"Relief\")", json_schema_extra=_doc("lobby"))
    relief_claims_per_day: Annotated[int, Field(ge=1, le=100)] = Field(
        default=3, description="relief claims a player may make per relief day",
        json_schema_extra=_doc("lobby"))
    relief_day_starts_utc_hour: Annotated[int, Field(ge=0, le=23)] = Field(
        default=16, description="the UTC hour at which a relief day starts and the claims "
        "are counted anew (16: midnight in China, UTC+8)", json_schema_extra=_doc("lobby"))
    private_rooms_per_player: Annotated[int, Field(ge=0, le=100)] = Field(
        default=1, description="private rooms (好友房) a player may have open at once "
        "(0: nobody may open one; docs/lobby.md \"Private rooms\")",
        json_schema_extra=_doc("lobby"))
    private_code_tries_per_minute: Annotated[int, Field(ge=1, le=1000)] = Field(
        default=10, description="invite codes a player may try (join or watch) a minute, per "
        "lobby process; more are refused too_many_attempts", json_schema_extra=_doc("lobby"))
    lobby_reconcile_seconds: Positive = Field(
        default=5.0, description="seconds between the reconciler's passes over started rooms",
        json_schema_extra=_doc("lobby"))
    lobby_start_grace_seconds: Positive = Field(
        default=30.0, description="seconds a started room is left alone before its game is checked",
        json_schema_extra=_doc("lobby"))
    lobby_table_lost_seconds: Positive = Field(
        default=60.0, description="seconds a started game may have no lease holder and no "
        "readable game log before the reconciler voids it", json_schema_extra=_doc("lobby"))

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
        default=5.0, description="seconds without a frame or pong from a connection before "
        "the gateway pings it (services.gateway.adapters.keepalive)",
        json_schema_extra=_doc("gateway"))
    gateway_ping_timeout_seconds: Positive = Field(
        default=5.0, description="seconds a pong may take before the connection is aborted",
        json_schema_extra=_doc("gateway"))

    token_max_lifetime_seconds: Annotated[int, Field(gt=0)] = Field(
        default=7 * 86400, description="longest lifetime a client token may have (`exp` − `iat`, "
        "and `exp` − now); tokens without `exp` or living longer are refused",
        json_schema_extra=_doc("gateway"))
    token_jwks_url: Annotated[str, AfterValidator(check_jwks_url)] | None = Field(
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
    gateway_max_replay_shares: Annotated[int, Field(gt=0)] = Field(
        default=50, description="active shared replay links (`share_replay`) one player may "
        "hold; more are refused (`too_many_shares`) until one is revoked",
        json_schema_extra=_doc("gateway"))
    gateway_max_queued_bytes: Annotated[int, Field(gt=0)] = Field(
        default=256 * 1024 * 1024, description="bytes waiting in all send queues of one gateway; "
        "the connection whose message would pass it is cut off", json_schema_extra=_doc("gateway"))
    gateway_max_calls_in_flight: Annotated[int, Field(gt=0)] = Field(
        default=256, description="calls of one gateway to the services not yet answered; "
        "past it, commands that start new work (sign-in, sit, ready, quick start, watch, "
        "lists, history) are refused with `busy`, a game's own commands never",
        json_schema_extra=_doc("gateway"))
    gateway_max_loop_lag_seconds: Positive = Field(
        default=1.0, description="how late the gateway's event loop may run a timer (the "
        "largest of the last second) before commands that start new work are refused "
        "with `busy`", json_schema_extra=_doc("gateway"))
    gateway_max_act_seconds: Positive = Field(
        default=0.05, description="the median answer time of the gateway's `act` commands "
        "(the last 2 s, at least 20 of them) past which, for 2 s on end, commands that "
        "start new work are refused with `busy`: the running games are served first",
        json_schema_extra=_doc("gateway"))

    presence_heartbeat_seconds: Positive = Field(
        default=2.0, description="seconds between a gateway's presence heartbeats (paiju.presence)",
        json_schema_extra=_doc("presence"))
    presence_timeout_seconds: Positive = Field(
        default=6.0,
        description="seconds without a heartbeat after which a gateway counts as dead; "
        "above the heartbeat", json_schema_extra=_doc("presence"))

    table_record_retry_seconds: Positive = Field(
        default=300.0, description="how long storing a finished game's record is retried while "
        "the database fails (jittered backoff up to 5 s); then the record is given up: logged, "
        "counted in `paiju_table_records_lost_total`, and the room released",
        json_schema_extra=_doc("table"))
    tracing_otlp_endpoint: Annotated[str, AfterValidator(check_otlp_endpoint)] | None = Field(
        default=None, description="OpenTelemetry collector taking OTLP over gRPC "
        "(`http://host:4317` plain, `https://…` TLS); set, every service exports its traces "
        "there ([operations.md](operations.md#tracing))",
        json_schema_extra=_doc("tracing", "none: tracing off"))
    tracing_sample_ratio: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] = Field(
        default=1.0, description="share of new traces kept (0 to 1; a call inside a kept trace "
        "is kept)", json_schema_extra=_doc("tracing"))
    up_nats_port: Port | None = Field(
        default=None, description="port of the NATS server `paiju up` starts",
        json_schema_extra=_doc("up", "4222 (a free one if busy)"))
    up_port_base: Annotated[
        int, BeforeValidator(check_port), Field(ge=1024, le=65535 - 80)] | None = (
        Field(default=None, description="move every port of `paiju up`: gRPC base+1..4 (lobby, "
              "table, ledger, gateway), metrics base+11..14, health base+31..34, web client "
              "base+80, NATS base+22 (`paiju replay-link` and `paiju admin` find that `paiju up` "
              "by it too)", json_schema_extra=_doc(
                  "up", "unset: 50051-50054, 9101-9104, 9111-9114, 8080, 4222")))
    up_timeout: Positive = Field(
        default=60.0, description="seconds `paiju up` waits for every service to serve",
        json_schema_extra=_doc("up"))

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


class Config(Settings):
    """The settings of one service process: :class:`Settings` (every field as
    declared there) with ``service`` and the per-service defaults filled in
    (:func:`load`): the ports, the database URL and the instance name."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore", validate_default=False)

    service: str
    grpc_port: int = 0
    metrics_port: int = 0
    health_port: int = 0
    database_url: str = ""
    instance: str = ""

    @classmethod
    def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Made from values read already (:func:`load`), never from the
        environment: the constructor's own arguments only."""
        return (init_settings,)


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
    return Config.model_validate({
        **dict(s),
        "service": service,
        "grpc_port": grpc_port,
        "metrics_port": METRICS_PORTS.get(service, 0) if s.metrics_port is None
        else s.metrics_port,
        "health_port": HEALTH_PORTS.get(service, 0) if s.health_port is None else s.health_port,
        "database_url": s.database_url or f"sqlite:///{s.data_dir / (service + '.db')}",
        "instance": s.instance or f"{service}-{grpc_port}",
    })


BEGIN = ("<!-- generated by `python -m paiju.config_docs docs/configuration.md` "
         "from paiju/config.py -->")
END = "<!-- end of generated tables -->"

