"""A table instance dies under load: takeover time, and what the log costs.

usage: python bench/failover.py [--tables 8] [--games 1] [--lease-seconds 2]
                                [--log-games 6] [--log-rounds 2]

Runs ``paiju up --tables 2`` (real processes: NATS with JetStream, ledger,
two table instances, lobby, gateway; SQLite in a temporary folder) and bots
(paiju/tools/bots.py) at ``--tables`` doudizhu tables, ``--games`` games each, over
the gateway. Once every table's game is under way (the bidding begun), the
table instance running more of them is SIGKILLed (``paiju up`` starts it
again after its back-off; either instance may take the games over). Then:

- the takeover time of each of the killed instance's games: from the
  SIGKILL to its ``game_moved`` on the table's public subject (read as the
  gateway's NATS user), p50 and max;
- the bots' action round trip over the gateway (action sent, its public
  event back), p50 and p99, failover included;
- in the same run, the table's ``Act`` round trip with and without the log
  (bench/table_log.py: the same table, the append answered at once and no
  flush in the ``no log`` rounds), p50 and p99 and their ratio.

Prints those figures and one JSON line. :func:`failover` is the scenario
tests/e2e/test_failover_up.py checks (every game finishes, none voided,
each settled once).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nats  # noqa: E402

from paiju.runtime.natsconn import decode  # noqa: E402
from paiju.runtime.table_instances import TableInstances  # noqa: E402
from paiju.security import identity, natsauth, nkey_seeds  # noqa: E402
from paiju.table.v1 import table_pb2, table_pb2_grpc  # noqa: E402
from paiju.tools.bots import run_bots  # noqa: E402
from paiju.tools.procs import port_free  # noqa: E402

#: Offsets from PAIJU_UP_PORT_BASE that ``paiju up --tables 2`` binds.
OFFSETS = (1, 2, 3, 4, 11, 12, 13, 14, 22, 31, 32, 33, 34, 80, 102, 112, 132)


def port_base() -> int:
    """A PAIJU_UP_PORT_BASE where every port paiju up derives is free."""
    for _ in range(200):
        base = random.randrange(10000, 32000, 200)  # below the ephemeral range
        if all(port_free("127.0.0.1", base + o) for o in OFFSETS):
            return base
    raise RuntimeError("no free port range")


def pct(xs: list[float], p: int) -> float:
    """The ``p`` percentile of ``xs`` (inclusive method; the value for one)."""
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=100, method="inclusive")[p - 1]


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(
                    int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def service_pid(up: int, service: str, grpc_port: int) -> int:
    """The pid of ``paiju up``'s child running ``service`` on ``grpc_port``."""
    for pid in descendants(up):
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            if service.encode() in cmd and f"PAIJU_GRPC_PORT={grpc_port}".encode() in env:
                return pid
    raise LookupError(f"no {service} process on port {grpc_port}")


@dataclass
class Run:
    """A running ``paiju up --tables 2`` and what the scenario saw."""

    proc: subprocess.Popen[bytes]
    base: int
    data: Path
    out: Path
    #: (monotonic arrival, event) of every game_moved.
    moved: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    #: room -> table instance of its last game_started / game_moved.
    where: dict[str, str] = field(default_factory=dict)
    killed_addr: str = ""
    killed_rooms: list[str] = field(default_factory=list)
    killed_at: float = 0.0
    #: Games each table instance ran when one was killed.
    before_kill: dict[str, int] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    def addr(self, offset: int) -> str:
        """``127.0.0.1:<base + offset>``."""
        return f"127.0.0.1:{self.base + offset}"

    @property
    def tables(self) -> list[str]:
        """The two table instances' gRPC addresses."""
        return [self.addr(2), self.addr(102)]

    def takeover_seconds(self) -> list[float]:
        """SIGKILL to ``game_moved``, per killed room (its first move after)."""
        out = []
        for room in self.killed_rooms:
            after = [t for t, e in self.moved if e.get("room") == room and t >= self.killed_at]
            if after:
                out.append(after[0] - self.killed_at)
        return out

    def log(self, name: str) -> str:
        """What service ``name`` logged (``paiju up`` keeps logs in data/logs)."""
        path = self.data / "logs" / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


async def running(run: Run, addr: str) -> list[table_pb2.GameSummary]:
    """ListGames at ``addr`` as the operator ([] when it does not answer)."""
    operator = identity.load(run.data / "tls", "operator")
    try:
        async with identity.secure_channel(addr, operator, "table") as ch:
            reply = await table_pb2_grpc.TableServiceStub(ch).ListGames(
                table_pb2.ListGamesRequest(), timeout=5)
    except Exception:
        return []
    return list(reply.games)


def wait_banner(run: Run, timeout: float = 180) -> None:
    """Until ``paiju up`` printed its banner."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "Ctrl-C stops everything." in run.out.read_text(errors="replace"):
            return
        if run.proc.poll() is not None:
            raise RuntimeError(f"paiju up exited:\n{run.out.read_text(errors='replace')}")
        time.sleep(0.2)
    raise TimeoutError(f"paiju up did not come up:\n{run.out.read_text(errors='replace')}")


@contextlib.asynccontextmanager
async def failover(tables: int = 8, games: int = 1, lease_seconds: float = 2.0,
                   think: tuple[float, float] = (0.05, 0.15), seed: int = 7,
                   show_progress: bool = False) -> AsyncIterator[Run]:
    """The scenario of the module docstring; yields the :class:`Run` once the
    bots are done (the platform still up), then stops it."""
    tmp = Path(tempfile.mkdtemp(prefix="paiju-failover-"))
    base = port_base()
    env = {**os.environ, "PAIJU_UP_PORT_BASE": str(base), "PAIJU_DATA_DIR": str(tmp / "data"),
           "PAIJU_LEASE_SECONDS": str(lease_seconds), "PAIJU_DRAIN_SECONDS": "2",
           "PYTHONUNBUFFERED": "1"}
    for name in ("PAIJU_NATS_URL", "PAIJU_DATABASE_URL", "PAIJU_TLS_DIR", "PAIJU_INSTANCE"):
        env.pop(name, None)
    out = tmp / "up.out"
    with out.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "paiju.cli", "up", "--tables", "2"],
                                env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    run = Run(proc, base, tmp / "data", out)
    nc = None
    try:
        await asyncio.to_thread(wait_banner, run)
        seed_file = natsauth.seed_path(run.data / "nats", "gateway")
        nc = await nats.connect(f"nats://127.0.0.1:{base + 22}",
                                nkeys_seed_str=nkey_seeds.read_seed(seed_file),
                                inbox_prefix=natsauth.inbox_prefix("gateway"))

        async def on_event(msg: Any) -> None:
            event = decode(msg.data)
            if event.get("type") == "game_moved":
                run.moved.append((time.monotonic(), event))
            if event.get("type") in ("game_started", "game_moved"):
                run.where[str(event.get("room"))] = str(event.get("table_instance"))

        await nc.subscribe("paiju.table.*.events", cb=on_event)
        await nc.flush()
        # Both instances registered before the games start (the lobby places
        # games only on registered instances; the second may register a
        # moment after paiju up's banner). The gateway's user may read it.
        registry = TableInstances(nc)
        deadline = time.monotonic() + 60
        while len(await registry.refresh()) < 2:
            if time.monotonic() > deadline:
                raise TimeoutError("both table instances did not register")
            await asyncio.sleep(0.2)
        await asyncio.sleep(registry.interval)  # the lobby reads it every second too
        bots = asyncio.create_task(run_bots(
            f"ws://127.0.0.1:{base + 80}/ws", ["doudizhu"], games, tables, think,
            seed=seed, show_progress=show_progress))
        # Every table's game under way: each started and past the deal.
        deadline = time.monotonic() + 180
        while True:
            if bots.done():
                raise RuntimeError(f"the bots ended before the kill: {bots.result()}")
            if time.monotonic() > deadline:
                raise TimeoutError("the games did not get under way")
            lists = {a: await running(run, a) for a in run.tables}
            if sum(len(g) for g in lists.values()) >= tables and all(
                    g.seq >= 6 for gs in lists.values() for g in gs):
                break
            await asyncio.sleep(0.2)
        run.before_kill = {a: len(g) for a, g in lists.items()}
        run.killed_addr = max(run.tables, key=lambda a: len(lists[a]))
        run.killed_rooms = [g.room for g in lists[run.killed_addr]]
        pid = service_pid(proc.pid, "table", int(run.killed_addr.rsplit(":", 1)[1]))
        run.killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        run.summary = await asyncio.wait_for(bots, timeout=900)
        yield run
    finally:
        if nc is not None:
            await nc.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(proc.wait, 60)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


async def main(tables: int, games: int, lease_seconds: float, log_games: int,
               log_rounds: int) -> dict[str, Any]:
    """The whole bench; returns its figures."""
    from bench import table_log

    async with failover(tables, games, lease_seconds, show_progress=True) as run:
        took = run.takeover_seconds()
        result: dict[str, Any] = {
            "tables": tables, "games_per_table": games, "lease_seconds": lease_seconds,
            "killed_games": len(run.killed_rooms), "taken_over": len(took),
            "takeover_s": {"p50": round(pct(took, 50), 3) if took else None,
                           "max": round(max(took), 3) if took else None},
            "bots": run.summary}
    print("table Act round trip with and without the log ...", flush=True)
    result["act_rtt"] = await table_log.main(log_games, log_rounds)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--lease-seconds", type=float, default=2.0)
    parser.add_argument("--log-games", type=int, default=6)
    parser.add_argument("--log-rounds", type=int, default=2)
    args = parser.parse_args()
    import logging

    logging.disable(logging.ERROR)  # bench/table_log.py's unfunded players: expected
    r = asyncio.run(main(args.tables, args.games, args.lease_seconds, args.log_games,
                         args.log_rounds))
    b = r["bots"]
    print(f"killed one of 2 table instances running {r['killed_games']} of {r['tables']} "
          f"games; taken over {r['taken_over']}: takeover (SIGKILL to game_moved) "
          f"p50 {r['takeover_s']['p50']} s, max {r['takeover_s']['max']} s "
          f"(lease {r['lease_seconds']} s)")
    print(f"bots: {b['games_finished']} finished, errors {b['errors']}, action round trip "
          f"over the gateway p50 {b['rtt_ms']['p50']} ms p99 {b['rtt_ms']['p99']} ms")
    a = r["act_rtt"]
    for kind in ("log", "no log"):
        print(f"table Act {kind:7s} {a[kind]['actions']:5d} actions  p50 {a[kind]['p50_ms']} ms"
              f"  p99 {a[kind]['p99_ms']} ms")
    print(f"ratio log/no log: p50 {a['ratio_p50']}  p99 {a['ratio_p99']}")
    print(json.dumps(r))
