"""Replicas started at the same moment on an empty database all come up: the
migrations of lobby, table and ledger run under a lock (PostgreSQL: an
advisory lock on the migration connection; SQLite: a file lock beside the
database file), so the second instance waits and finds the schema made
instead of crashing on the version table."""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.synchronize
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text

from paiju.runtime import db
from tests.conftest import REPO
from tests.deploy.databases import fresh_postgres_database
from tests.fixtures import (
    free_port,
    service_env,
    start_service_process,
    stop_process,
    wait_health,
)

MIGRATING = ["lobby", "table", "ledger"]
#: What a service may take to come up on a loaded machine (a deadline, not a timing).
START_DEADLINE = 120.0


@pytest.fixture(params=["postgresql", "sqlite"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a new one on the test PostgreSQL (skips without
    one), or a new SQLite file."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.db'}"
        return
    postgres_url: str = request.getfixturevalue("postgres_url")
    with fresh_postgres_database(postgres_url, "paiju_ops_migrate") as url:
        yield url


@pytest.mark.parametrize("service", MIGRATING)
async def test_two_instances_started_together_both_come_up(
        service: str, empty_database: str, nats_server: str, tmp_path: Path) -> None:
    procs: list[tuple[subprocess.Popen[bytes], str, Path]] = []
    try:
        for i in range(2):
            port = free_port()
            env = service_env(NATS_URL=nats_server, DATABASE_URL=empty_database,
                              GRPC_PORT=str(port), METRICS_PORT="0",
                              INSTANCE=f"{service}-{i}", DATA_DIR=str(tmp_path / f"data{i}"),
                              GRANT_KEY="concurrent-start-grant-key",
                              LEDGER_ADDR=f"127.0.0.1:{free_port()}",
                              LOBBY_ADDR=f"127.0.0.1:{free_port()}",
                              TABLE_ADDRS=f"127.0.0.1:{free_port()}",
                              DEV_MODE="1")  # no NATS credentials needed
            log = tmp_path / f"{service}-{i}.log"
            procs.append((start_service_process(service, env, log), f"127.0.0.1:{port}", log))

        async def up(proc: subprocess.Popen[bytes], addr: str, log: Path) -> None:
            try:
                await wait_health(addr, proc=proc, timeout=START_DEADLINE)
            except (RuntimeError, TimeoutError) as e:
                tail = log.read_text(errors="replace")[-3000:]
                raise AssertionError(f"{service} at {addr} did not come up: {e}\n{tail}") from None

        results = await asyncio.gather(*(up(*p) for p in procs), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
    finally:
        for proc, _, _ in procs:
            stop_process(proc)


def _migrate_at_barrier(url: str, folder: str, barrier: multiprocessing.synchronize.Barrier,
                        ) -> None:
    barrier.wait(timeout=60)
    db.migrate(url, Path(folder))


@pytest.mark.parametrize("service", MIGRATING)
def test_migrations_released_at_one_moment_all_apply(service: str, empty_database: str) -> None:
    """Four processes call :func:`paiju.runtime.db.migrate` the moment a barrier opens
    (a tighter race than service starts): every one returns, the schema is at
    head with one version row."""
    folder = REPO / "services" / service / "migrations"
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    workers = [ctx.Process(target=_migrate_at_barrier, args=(empty_database, str(folder), barrier))
               for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    assert asyncio.run(versions(empty_database, f"alembic_version_{service}")) == [head(folder)]


def head(folder: Path) -> str:
    """The head revision of the migrations in ``folder``."""
    cfg = Config()
    cfg.set_main_option("script_location", str(folder))
    revision = ScriptDirectory.from_config(cfg).get_current_head()
    assert revision is not None
    return revision


async def versions(url: str, version_table: str) -> list[str]:
    """The rows of ``version_table`` in the database at ``url``."""
    engine = db.make_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(text(f"SELECT version_num FROM {version_table}"))
            return [str(r[0]) for r in rows]
    finally:
        await engine.dispose()
