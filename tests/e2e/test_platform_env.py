"""The test platform runs the services as ``paiju up`` does: each instance's
environment in tests/platform_procs.py holds the variables ``paiju up`` gives
that service and no other, but for the timing knobs of ``TEST_SETTINGS`` (each
with its reason there) and the variables a test passes because it is about
them (``extra_env``). Where a variable says how the service behaves (not
where it listens or keeps its files), its value is ``paiju up``'s."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from paiju.tools.up import SERVICES, plan
from tests.fixtures import NatsServer
from tests.platform_procs import (
    TEST_SETTINGS,
    Platform,
    instance_names,
    running_platform,
    service_of,
)

#: Variables that say where a service listens, finds the others or keeps its
#: files: the test platform picks its own (free ports, a temporary folder, the
#: test certificates); their names must still be ``paiju up``'s.
WHERE = frozenset({
    "PAIJU_HOST", "PAIJU_GRPC_PORT", "PAIJU_METRICS_PORT", "PAIJU_HEALTH_PORT",
    "PAIJU_GATEWAY_PORT", "PAIJU_NATS_URL", "PAIJU_DATA_DIR", "PAIJU_TLS_DIR",
    "PAIJU_LEDGER_ADDR", "PAIJU_LOBBY_ADDR", "PAIJU_NATS_NKEY_SEED_FILE",
})

#: Timing knobs only: anything else the tests set for every platform would
#: make them run a platform users never run.
KNOBS = {"DRAIN_SECONDS", "TABLE_GAME_DRAIN_SECONDS"}


def paiju_vars(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("PAIJU_")}


@pytest.fixture
def test_platform(tmp_path: Path) -> Iterator[Platform]:
    """A test platform's plan (two tables, two gateways), not started."""
    names = instance_names({"table": 2, "gateway": 2})
    ports = {n: 20000 + i for i, n in enumerate(names)}
    nats = NatsServer(auth=True)
    platform = Platform(tmp_path, nats, ports, {n: 21000 + i for i, n in enumerate(names)},
                        {n: 22000 + i for i, n in enumerate(names)
                         if service_of(n) == "gateway"},
                        procs={n: subprocess.Popen(["true"]) for n in names})
    yield platform
    for proc in platform.procs.values():
        proc.wait()
    shutil.rmtree(nats.store, ignore_errors=True)


def test_test_settings_are_timing_knobs_only() -> None:
    assert set(TEST_SETTINGS) <= KNOBS


def test_each_instance_gets_what_paiju_up_gives_it(test_platform: Platform,
                                                   tmp_path: Path) -> None:
    up = plan({"PAIJU_DATA_DIR": str(tmp_path)}, {"table": 2, "gateway": 2})
    creds = tmp_path / "nats"
    up_env = {m.name: paiju_vars(up.child_env(m, "nats://127.0.0.1:4222", creds, base={}))
              for m in up.instances()}
    assert set(up_env) == set(test_platform.procs)
    for name in test_platform.procs:
        ours = paiju_vars(test_platform.env(name, {}))
        theirs = up_env[name]
        knobs = {f"PAIJU_{k}" for k in TEST_SETTINGS}
        assert set(ours) - knobs == set(theirs), name
        for key in set(theirs) - WHERE:
            assert ours[key] == theirs[key], (name, key)
    assert {service_of(n) for n in test_platform.procs} == set(SERVICES)


def test_no_table_list_the_users_do_not_have(test_platform: Platform) -> None:
    # paiju up and the manifests let table instances register themselves; a
    # list of table addresses hid that the gateway's replays needed one
    for name in test_platform.procs:
        assert "PAIJU_TABLE_ADDRS" not in test_platform.env(name, {}), name


def test_a_variable_paiju_up_does_not_set_is_refused() -> None:
    """A module's ``extra_env`` holds only the listed variables: anything else
    (here the table list ``paiju up`` no longer gives) is refused before NATS
    or any service starts."""
    with pytest.raises(ValueError, match=r"TABLE_ADDRS.*EXTRA_SETTINGS"), \
            running_platform({"TABLE_ADDRS": "127.0.0.1:1", "TABLE_DEAL_INTERVAL_MS": "5"}):
        pytest.fail("the platform started")
