"""Shared pytest fixtures: shared/, a real NATS server, databases.

Plain helpers (``free_port``, ``running_service``, ``NatsServer``,
``wait_health``…) live in ``tests/fixtures.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Before grpc is imported: no fork handlers. The tests fork service processes
# while gRPC runs in this one; grpc's fork handler would restart its poller in
# the child, which aborts (SIGABRT) when the child closes its descriptors
# before exec.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from tests.fixtures import NatsServer, postgres_reachable, postgres_test_url

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """The shared/ folder beside the repository (or ``PAIJU_SHARED_DIR``)."""
    return Path(os.environ.get("PAIJU_SHARED_DIR", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared/ folder (specs and seeds); skips when it is missing."""
    path = shared_dir()
    if not path.is_dir():
        pytest.skip(f"shared/ not found at {path} (set PAIJU_SHARED_DIR)")
    return path


@pytest.fixture(scope="session")
def nats_server() -> Iterator[str]:
    """URL of a real ``nats-server -js`` on a free port with a temporary store,
    shared by the whole session. Do not stop it: use ``nats_process`` for outages."""
    server = NatsServer()
    server.start()
    try:
        yield server.url
    finally:
        server.close()


@pytest.fixture
def nats_process() -> Iterator[NatsServer]:
    """A NATS server of this test's own (``.url``, ``.stop()``, ``.start()``,
    ``.restart()`` on the same port): for tests that take NATS away."""
    server = NatsServer()
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """URL of the test PostgreSQL (``PAIJU_TEST_POSTGRES_URL`` or
    postgresql://postgres@127.0.0.1:5432/test); skips the test when it cannot
    be reached. Tests share it: use your own schema or table names."""
    url = postgres_test_url()
    reason = postgres_reachable(url)
    if reason is not None:
        pytest.skip(reason)
    return url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite database file in the test's tmp_path (plain URL form
    ``sqlite:///…``; ``paiju.runtime.db.make_engine`` picks the async driver)."""
    return f"sqlite:///{tmp_path / 'test.db'}"
