"""The test platform (tests/platform_procs.py) itself: a start that lost a
port race is retried on new ports, another failure is reported at once."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import tests.platform_procs as procs
from tests.fixtures import free_port
from tests.platform_procs import running_platform


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another process listens on, as a gRPC server does
    (``SO_REUSEPORT`` set: a second gRPC server with gRPC's defaults would
    share it without an error)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


def test_a_start_that_lost_a_port_race_is_retried_on_new_ports(
        taken_port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    picked: list[int] = []

    def pick() -> int:  # the ledger's gRPC port of the first start is taken
        port = taken_port if not picked else free_port()
        picked.append(port)
        return port

    monkeypatch.setattr(procs, "free_port", pick)
    with pytest.warns(UserWarning, match=r"start 1 failed \(ledger: its port was taken\)"), \
            running_platform() as p:
        assert p.ports["ledger"] != taken_port
        assert all(proc.poll() is None for proc in p.procs.values())
    ports_per_start = 2 * len(procs.SERVICES) + 1
    assert picked[0] == taken_port and taken_port not in picked[1:]
    assert len(picked) >= 2 * ports_per_start and len(picked) % ports_per_start == 0


def test_a_service_that_fails_otherwise_is_reported_at_once() -> None:
    # A malformed setting: each service exits 2 at once; the start says so
    # (not "health UNAVAILABLE" after the 60 s deadline) and is not retried.
    with pytest.raises(RuntimeError, match=r"did not start .*exited with 2"), \
            running_platform({"METRICS_PORT": "ninety"}):
        raise AssertionError("the platform started")
