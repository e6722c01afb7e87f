"""paiju.config: PAIJU_* variables and their local defaults."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from paiju import config, config_docs
from paiju.config import load
from paiju.runtime.service import Context, run
from tests.conftest import REPO
from tests.fixtures import service_env


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for key in list(os.environ):
        if key.startswith("PAIJU_"):
            monkeypatch.delenv(key)


def test_defaults_work_on_one_machine() -> None:
    ledger = load("ledger")
    assert (ledger.grpc_port, ledger.metrics_port) == (50053, 9103)
    assert (load("lobby").grpc_port, load("table").grpc_port, load("gateway").grpc_port) == (
        50051, 50052, 50054)
    assert ledger.host == "127.0.0.1"
    assert ledger.nats_url == "nats://127.0.0.1:4222"
    assert ledger.database_url == "sqlite:///.paiju/ledger.db"
    assert ledger.ledger_addr == "127.0.0.1:50053"
    assert ledger.lobby_addr == "127.0.0.1:50051"
    assert ledger.table_addrs == ()
    assert ledger.instance == "ledger-50053"
    assert ledger.gateway_port == 8080
    assert ledger.dev_mode is False
    assert ledger.drain_seconds == 10.0


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIJU_GRPC_PORT", "6000")
    monkeypatch.setenv("PAIJU_METRICS_PORT", "6001")
    monkeypatch.setenv("PAIJU_DATA_DIR", "/var/lib/paiju")
    monkeypatch.setenv("PAIJU_TABLE_ADDRS", "t-0:50052, t-1:50052,")
    monkeypatch.setenv("PAIJU_DEV_MODE", "1")
    monkeypatch.setenv("PAIJU_DRAIN_SECONDS", "2.5")
    monkeypatch.setenv("PAIJU_NATS_URL", "nats://a:4222,nats://b:4222")
    cfg = load("table")
    assert (cfg.grpc_port, cfg.metrics_port) == (6000, 6001)
    assert cfg.data_dir == Path("/var/lib/paiju")
    assert cfg.database_url == "sqlite:////var/lib/paiju/table.db"
    assert cfg.table_addrs == ("t-0:50052", "t-1:50052")
    assert cfg.instance == "table-6000"
    assert cfg.dev_mode is True
    assert cfg.drain_seconds == 2.5
    assert cfg.nats_url == "nats://a:4222,nats://b:4222"


@pytest.mark.parametrize("raw, expected", [
    ("true", True), ("YES", True), ("on", True), ("0", False), ("false", False), ("", False)])
def test_dev_mode_flag(monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool) -> None:
    monkeypatch.setenv("PAIJU_DEV_MODE", raw)
    assert load("gateway").dev_mode is expected


def test_database_url_is_taken_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIJU_DATABASE_URL", "postgresql://paiju@db/paiju")
    assert load("ledger").database_url == "postgresql://paiju@db/paiju"


@pytest.mark.parametrize("name", ["GRPC_PORT", "METRICS_PORT", "GATEWAY_PORT", "DRAIN_SECONDS"])
def test_malformed_number_names_the_variable(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(f"PAIJU_{name}", "fifty")
    with pytest.raises(ValueError, match=f"PAIJU_{name}"):
        load("lobby")


def test_docs_show_the_declarations() -> None:
    """docs/configuration.md holds the tables generated from paiju.config.Settings
    (``python -m paiju.config_docs docs/configuration.md`` rewrites them)."""
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    start, end = text.index(config.BEGIN), text.index(config.END) + len(config.END)
    assert text[start:end] == config_docs.markdown(), \
        "stale: run .venv/bin/python -m paiju.config_docs docs/configuration.md"
    for name in config.Settings.model_fields:
        assert f"| `{config.variable(name)}` |" in text


def test_no_service_reads_the_environment_itself() -> None:
    """Every PAIJU_* variable of the services is declared in paiju/config.py:
    no other module of paiju/ or services/ reads os.environ (``paiju up``,
    paiju/tools/up.py and paiju/tools/launch.py, passes the environment on to its
    children)."""
    readers = []
    for path in [*(REPO / "paiju").glob("*.py"), *(REPO / "services").rglob("*.py")]:
        if path.name in ("config.py", "platform.py", "launch.py"):
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"os\.environ|os\.getenv|environ\.get", text):
            readers.append(str(path.relative_to(REPO)))
    assert readers == []


def test_every_variable_the_services_name_is_declared() -> None:
    declared = {config.variable(f) for f in config.Settings.model_fields}
    named = set()
    for path in (REPO / "services").rglob("*.py"):
        named |= set(re.findall(r"PAIJU_[A-Z_]*[A-Z]", path.read_text(encoding="utf-8")))
    assert named <= declared


#: A bad value of every variable and the service that uses it: each must stop
#: that service at start with exit status 2 and a line naming the variable.
BAD_VALUES: dict[str, tuple[str, str]] = {
    "games": ("no such-module", "table"),
    "host": ("a b", "ledger"),
    "grpc_port": ("70000", "ledger"),
    "metrics_port": ("abc", "lobby"),
    "health_port": ("65536", "table"),
    "tls_dir": ("/nonexistent/tls", "gateway"),
    "nats_url": ("http://nats:4222", "gateway"),
    "nats_nkey_seed_file": (str(REPO / "README.md"), "table"),  # a file, but no seed in it
    "nats_tls_ca": ("/nonexistent/ca.pem", "ledger"),
    "nats_tls_cert": ("/nonexistent/cert.pem", "gateway"),
    "nats_tls_key": ("/nonexistent/key.pem", "lobby"),
    "database_url": ("mysql://db/paiju", "ledger"),
    "data_dir": (str(REPO / "README.md"), "ledger"),
    "ledger_addr": ("ledger", "lobby"),
    "lobby_addr": ("lobby:port", "table"),
    "table_addrs": ("table-0:50052,table-1", "lobby"),
    "instance": ("table 0", "table"),
    "drain_seconds": ("soon", "gateway"),
    "log_level": ("loud", "ledger"),
    "event_loop": ("trio", "table"),
    "gateway_port": ("-1", "gateway"),
    "token_secret": ("short", "gateway"),
    "token_ttl_seconds": ("abc", "gateway"),
    "dev_mode": ("maybe", "gateway"),
    "dev_start_coins": ("-5", "gateway"),
    "ai_token_secret": ("short", "gateway"),
    "ai_start_coins": ("-5", "gateway"),
    "grant_key": ("", "ledger"),
    "rooms_file": ("/nonexistent/rooms.yaml", "lobby"),
    "lobby_reconcile_seconds": ("0", "lobby"),
    "relief_coins": ("-1", "lobby"),
    "relief_claims_per_day": ("0", "lobby"),
    "relief_day_starts_utc_hour": ("24", "lobby"),
    "private_rooms_per_player": ("-1", "lobby"),
    "private_code_tries_per_minute": ("0", "lobby"),
    "ledger_rankings_max_age_seconds": ("-1", "ledger"),
    "lobby_start_grace_seconds": ("-1", "lobby"),
    "lobby_table_lost_seconds": ("soon", "lobby"),
    "table_deal_interval_ms": ("fast", "table"),
    "table_game_drain_seconds": ("-1", "table"),
    "table_allow_fixed_deal": ("perhaps", "table"),
    "game_log_replicas": ("0", "table"),
    "lease_seconds": ("0", "table"),
    "table_address": ("table-0", "table"),
    "table_pool": ("a.b", "table"),
    "gateway_ping_interval_seconds": ("0", "gateway"),
    "gateway_ping_timeout_seconds": ("soon", "gateway"),
    "token_max_lifetime_seconds": ("0", "gateway"),
    "token_jwks_url": ("ftp://idp.example/jwks.json", "gateway"),
    "token_jwks_refresh_seconds": ("-1", "gateway"),
    "token_issuer": ("two words", "gateway"),
    "token_audience": ("my app", "gateway"),
    "gateway_max_connections": ("0", "gateway"),
    "gateway_max_connections_per_address": ("-3", "gateway"),
    "gateway_sessions_per_player_per_minute": ("many", "gateway"),
    "gateway_max_replay_shares": ("0", "gateway"),
    "gateway_max_queued_bytes": ("0", "gateway"),
    "gateway_max_calls_in_flight": ("-3", "gateway"),
    "gateway_max_loop_lag_seconds": ("0", "gateway"),
    "gateway_max_act_seconds": ("0", "gateway"),
    "presence_heartbeat_seconds": ("0", "gateway"),
    "presence_timeout_seconds": ("1", "table"),  # below the heartbeat (2)
    "table_record_retry_seconds": ("0", "table"),
    "tracing_otlp_endpoint": ("collector:4317", "lobby"),  # no scheme
    "tracing_sample_ratio": ("1.5", "ledger"),
    "up_nats_port": ("nats", "gateway"),
    "up_port_base": ("65500", "table"),  # its web port would pass 65535
    "up_timeout": ("-1", "lobby"),
}


def test_every_variable_has_a_bad_value_below() -> None:
    assert set(BAD_VALUES) == set(config.Settings.model_fields)


@pytest.mark.parametrize("field", sorted(BAD_VALUES))
def test_a_bad_value_stops_the_service_with_a_clean_error(
        field: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """What ``paiju <service>`` does first (paiju.runtime.service.run): one line on
    stderr naming the variable and its value, exit status 2, nothing started."""
    value, service = BAD_VALUES[field]
    name = config.variable(field)
    monkeypatch.setenv(name, value)

    async def setup(ctx: Context) -> list[str]:
        raise AssertionError("setup must not run")

    with pytest.raises(SystemExit) as stopped:
        run(service, setup)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"paiju {service}: PAIJU_") and err.count("\n") == 1, err
    assert f"{name}=" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("service", ["lobby", "table", "ledger", "gateway"])
def test_a_service_process_exits_with_status_2(service: str) -> None:
    """The real command: ``paiju <service>`` with the issue's bad value."""
    env = service_env(TOKEN_TTL_SECONDS="abc")
    proc = subprocess.run([sys.executable, "-m", "paiju.cli", service], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == (f"paiju {service}: PAIJU_TOKEN_TTL_SECONDS='abc': Input should be a "
                           "valid integer, unable to parse string as an integer\n")


def test_a_bad_value_raises_naming_the_variable_and_the_value() -> None:
    with pytest.raises(ValueError, match=r"PAIJU_TOKEN_TTL_SECONDS='abc'"):
        load("gateway", {"PAIJU_TOKEN_TTL_SECONDS": "abc"})
    with pytest.raises(ValueError, match=r"PAIJU_PRESENCE_HEARTBEAT_SECONDS=.*"
                                         r"PAIJU_PRESENCE_TIMEOUT_SECONDS"):
        load("gateway", {"PAIJU_PRESENCE_TIMEOUT_SECONDS": "1"})


def test_empty_values_count_as_unset_except_the_keys() -> None:
    cfg = load("table", {"PAIJU_GRPC_PORT": "", "PAIJU_LOBBY_ADDR": " ", "PAIJU_DEV_MODE": ""})
    assert (cfg.grpc_port, cfg.lobby_addr, cfg.dev_mode) == (50052, "127.0.0.1:50051", False)
    for key in ("PAIJU_TOKEN_SECRET", "PAIJU_GRANT_KEY"):
        with pytest.raises(ValueError, match=key):
            load("gateway", {key: ""})


def test_the_ai_token_key_is_optional_and_each_key_long_enough() -> None:
    """PAIJU_AI_TOKEN_SECRET: unset or empty, no AI token is accepted; set,
    each key has HS256's 32 bytes, as the players' keys."""
    assert load("gateway", {}).ai_token_secret == ""
    assert load("gateway", {"PAIJU_AI_TOKEN_SECRET": " "}).ai_token_secret == ""
    two = f"{'a' * 32}, {'b' * 33}"
    assert load("gateway", {"PAIJU_AI_TOKEN_SECRET": two}).ai_token_secret == \
        f"{'a' * 32},{'b' * 33}"
    with pytest.raises(ValueError, match="PAIJU_AI_TOKEN_SECRET"):
        load("gateway", {"PAIJU_AI_TOKEN_SECRET": "short"})
    assert load("gateway", {}).ai_start_coins == 100000
    with pytest.raises(ValueError, match="PAIJU_AI_START_COINS"):
        load("gateway", {"PAIJU_AI_START_COINS": "-1"})


def test_the_services_own_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIJU_TOKEN_TTL_SECONDS", "60")
    monkeypatch.setenv("PAIJU_DEV_START_COINS", "5")
    monkeypatch.setenv("PAIJU_TABLE_DEAL_INTERVAL_MS", "30")
    monkeypatch.setenv("PAIJU_TABLE_ALLOW_FIXED_DEAL", "yes")
    monkeypatch.setenv("PAIJU_TABLE_GAME_DRAIN_SECONDS", "0")
    monkeypatch.setenv("PAIJU_LOBBY_RECONCILE_SECONDS", "0.5")
    monkeypatch.setenv("PAIJU_LOG_LEVEL", "debug")
    monkeypatch.setenv("PAIJU_TOKEN_SECRET", f"{'n' * 32}, {'o' * 40}")
    cfg = load("table")
    assert (cfg.token_ttl_seconds, cfg.dev_start_coins) == (60, 5)
    assert (cfg.table_deal_interval_ms, cfg.table_allow_fixed_deal) == (30.0, True)
    assert (cfg.table_game_drain_seconds, cfg.lobby_reconcile_seconds) == (0.0, 0.5)
    assert cfg.log_level == "DEBUG"
    assert cfg.token_secret == f"{'n' * 32},{'o' * 40}"
