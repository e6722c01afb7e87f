"""paiju.config: PAIJU_* variables and their local defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from paiju.config import load


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
    assert ledger.table_addrs == ("127.0.0.1:50052",)
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
