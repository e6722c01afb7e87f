"""``paiju up`` supervises its children as a pod's kubelet would: a service
that dies is restarted with a back-off; ``--tables`` / ``--gateways`` run
several instances. Real processes throughout."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from paiju.tools import up
from paiju.tools.up import port_free
from tests.fixtures import health_status, service_env, stop_process
from tests.foundation.test_processes import descendants, wait_banner, wait_gone


def free_base(extra: int) -> int:
    """A port base where ``paiju up``'s ports for ``extra`` more instances are free."""
    offsets = [1, 2, 3, 4, 11, 12, 13, 14, 22, 31, 32, 33, 34, 80]
    offsets += [o + up.INSTANCE_STRIDE * k for k in range(1, extra + 1)
                for o in (2, 4, 12, 14, 32, 34)] + [80 + k for k in range(1, extra + 1)]
    for _ in range(200):
        base = random.randrange(10000, 31000, 100)
        if all(port_free("127.0.0.1", base + o) for o in offsets):
            return base
    raise RuntimeError("no free port range")


def start_up(tmp_path: Path, *args: str, extra: int = 0) -> tuple[subprocess.Popen[bytes],
                                                                Path, int]:
    base = free_base(extra)
    out = tmp_path / "up.out"
    env = service_env(UP_PORT_BASE=str(base), DATA_DIR=str(tmp_path / "data"),
                      DRAIN_SECONDS="2")
    with out.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "paiju.cli", "up", *args], env=env,
                                cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    return proc, out, base


@pytest.fixture
def stopper() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes to stop at the end, with everything below them."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        below = descendants(proc.pid)
        stop_process(proc, timeout=30)
        for pid in wait_gone(below, 10):
            os.kill(pid, signal.SIGKILL)


def child_pid(parent: int, service: str) -> int:
    """The pid of ``paiju up``'s child running ``service``."""
    for pid in descendants(parent):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd[-3:] == [b"paiju.cli", service.encode(), b""]:
            return pid
    raise LookupError(service)


@pytest.mark.slow
async def test_up_restarts_a_killed_service(tmp_path: Path,
                                            stopper: list[subprocess.Popen[bytes]]) -> None:
    proc, out, base = start_up(tmp_path)
    stopper.append(proc)
    wait_banner(proc, out)
    table = child_pid(proc.pid, "table")
    os.kill(table, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while "table restarted (restart 1)" not in out.read_text(errors="replace"):
        assert proc.poll() is None, out.read_text(errors="replace")
        assert time.monotonic() < deadline, out.read_text(errors="replace")
        time.sleep(0.2)
    text = out.read_text(errors="replace")
    assert "table exited with status -9; restarting in 0.5 s" in text
    while await health_status(f"127.0.0.1:{base + 2}") != "SERVING":
        assert time.monotonic() < deadline, "the restarted table never served"
        time.sleep(0.3)
    assert child_pid(proc.pid, "table") != table
    for offset in (1, 3, 4):  # the others were left alone
        assert await health_status(f"127.0.0.1:{base + offset}") == "SERVING"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0


@pytest.mark.slow
async def test_up_runs_several_tables_and_gateways(
        tmp_path: Path, stopper: list[subprocess.Popen[bytes]]) -> None:
    proc, out, base = start_up(tmp_path, "--tables", "2", "--gateways", "2", extra=1)
    stopper.append(proc)
    banner = wait_banner(proc, out)
    second_table = base + 2 + up.INSTANCE_STRIDE
    second_gateway = base + 4 + up.INSTANCE_STRIDE
    assert f"table-2  gRPC 127.0.0.1:{second_table} " in banner
    assert f"gateway-2 gRPC 127.0.0.1:{second_gateway} " in banner
    assert f"http://127.0.0.1:{base + 81}/" in banner
    for port in (base + 2, second_table, base + 4, second_gateway):
        assert await health_status(f"127.0.0.1:{port}") == "SERVING", port
    # No list of table instances: they register themselves (the lobby finds
    # both: tests/e2e/test_failover_up.py).
    lobby = child_pid(proc.pid, "lobby")
    environ = Path(f"/proc/{lobby}/environ").read_bytes().split(b"\0")
    assert not any(e.startswith(b"PAIJU_TABLE_ADDRS=") for e in environ)


def test_supervise_backs_off_doubling_and_resets(tmp_path: Path) -> None:
    plan = up.plan({"PAIJU_DATA_DIR": str(tmp_path)})
    platform = up.Platform(plan, out=lambda _: None)
    crash = [sys.executable, "-c", "raise SystemExit(3)"]
    child = platform._spawn("crashy", crash, None, None)
    platform.children.append(child)
    child.proc.wait()
    now = time.monotonic()
    delays = []
    for _ in range(8):
        lines = platform.supervise(now)
        assert lines[0].startswith("paiju up: crashy exited with status 3; restarting in ")
        delay = float(lines[0].split("restarting in ")[1].split(" s")[0])
        delays.append(delay)
        assert platform.supervise(now + delay - 0.01) == []  # not yet
        now += delay
        assert platform.supervise(now)[0].endswith(f"restarted (restart {len(delays)})")
        platform.children[0].proc.wait()
    assert delays == [0.5, 1, 2, 4, 8, 16, 30, 30]
    # a child that has run for a minute is healthy again: the next delay starts over
    platform.children[0].started = now - up.RESTART_RESET - 1
    platform.children[0].proc = subprocess.Popen([sys.executable, "-c", "import time; "
                                                  "time.sleep(30)"])
    try:
        assert platform.supervise(now) == []
        assert platform.children[0].restarts == 0
    finally:
        platform.children[0].proc.kill()
        platform.children[0].proc.wait()
    lines = platform.supervise(now + 0.1)
    assert "restarting in 0.5 s" in lines[0]


def test_up_refuses_a_count_out_of_range() -> None:
    with pytest.raises(up.UpError, match="--tables must be 1 to 9"):
        up.plan({}, {"table": 0})
    with pytest.raises(up.UpError, match="only table and gateway"):
        up.plan({}, {"lobby": 2})


def test_up_reads_its_settings_from_paiju_config() -> None:
    """PAIJU_UP_* are declared in paiju/config.py: parsed and checked there."""
    plan = up.plan({"PAIJU_UP_PORT_BASE": "40000", "PAIJU_UP_TIMEOUT": "12.5",
                    "PAIJU_UP_NATS_PORT": "4999"})
    assert (plan.grpc_ports["lobby"], plan.metrics_ports["ledger"],
            plan.health_ports["gateway"], plan.http_port) == (40001, 40013, 40034, 40080)
    assert (plan.timeout, plan.nats_port, plan.nats_port_fixed) == (12.5, 4999, True)
    assert up.plan({}).timeout == 60 and up.plan({}).grpc_ports["table"] == 50052
    for name, bad in (("PAIJU_UP_TIMEOUT", "soon"), ("PAIJU_UP_PORT_BASE", "65500"),
                      ("PAIJU_UP_NATS_PORT", "x"), ("PAIJU_DRAIN_SECONDS", "-1")):
        with pytest.raises(up.UpError, match=f"^{name}="):
            up.plan({name: bad})
