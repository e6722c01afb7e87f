"""The platform under load: bots at many tables at once, beside bare NATS and gRPC.

usage: python bench/load.py [--tables 50,200,500] [--seconds 60] [--think 0.5,2] [--procs 3]
    [--quick] [--profile DIR] [--table-instances N] [--gateways M] [--event-loop uvloop,asyncio]
    [--store auto|sqlite|postgres|URL] [--sweep]

For each table count it starts a fresh platform the way ``paiju up`` does
(:mod:`paiju.tools.up`: a private NATS server and the four services as
processes, ports moved with ``PAIJU_UP_PORT_BASE``) with a rooms file of its
own (``PAIJU_ROOMS_FILE``: servers of 6 rooms, the tables shared evenly among
doudizhu, hunzhan, shengji (2 decks) and daa, so 4 clients per table on
average). ``--store`` (bench/load_store.py): the lobby, the ledger and the
table's records on a fresh PostgreSQL database of the run where one answers,
as in production, else on SQLite files in a temporary folder. Bots
(:class:`paiju.tools.bots.Bot`: WebSocket clients that log in, sit, ready and play
random legal moves got with ``hints``, thinking ``--think`` seconds per move)
run in ``--procs`` worker processes, their logins spread over a ramp. Once
every bot is seated, a window of ``--seconds`` is measured:

- the action round trip (a bot sends ``act``, the table's public event of it
  comes back) at p50 / p99, actions per second, errors by code;
- the resident memory (RSS) and CPU share of every service process, NATS and
  the bot processes;
- beside them, in the same window and on the same machine, a bare NATS
  request-reply and a bare gRPC unary call to a tiny echo server
  (:mod:`bench.echo`), paced at 20 per second each; the platform's overhead
  is the ratio of the round trips;
- CPU ms per accepted action of every process (each service instance, NATS,
  the bots together): the cost of one more action, so of one more table;
  also in milligauges of the run's machine gauge (:mod:`bench.gauge`,
  measured before each size and after the last, the least kept), which
  compare across machines.

``--sweep`` finds the capacity: the sizes of ``--tables`` (default
:data:`SWEEP`) in order until one misses the goal (act p99 under 100 ms, no
platform error); it prints the largest that met it in tables and in tables
per gauge, and keeps it in the JSON's ``capacity``.

``--table-instances N --gateways M`` run the platform as ``paiju up --tables N
--gateways M`` (bot process i talks to gateway i mod M). ``--event-loop
uvloop,asyncio`` runs each size once on each event loop of the services
(``PAIJU_EVENT_LOOP``), one after the other: a before / after of the same run.
``--quick``: 5 tables, one game each with no thinking, measured from start to
end (a smoke run). ``--profile DIR``: py-spy records every gateway, table and
lobby process during the window, and the lobby, ledger, gateway and table during
the ramp (``*-ramp.txt``; collapsed stacks, summarised on stderr); every
service's ``/metrics`` page at the end is kept there too. Each size also reports
its ramp: the refusals of login, watch_server, sit and ready before the window,
when every bot sat, the gRPC calls that did not end OK and the slow ones.
After the bots stop, fresh sign-ins are tried until one is answered in under
1 s (bench/load_recovery.py: how long that took, within 10 s).
Prints one line per figure, then a JSON line with every number.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing as mp
import os
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import load_recovery, load_store  # noqa: E402  (after the path set-up above)
from bench.gauge import gauge_ms, in_milligauges  # noqa: E402
from bench.load_bots import worker  # noqa: E402
from bench.load_report import (  # noqa: E402
    GOAL_P99_MS,
    RACES,
    meets_goal,
    platform_errors,
    report,
)
from bench.procstats import (  # noqa: E402
    cpu_seconds,
    rss_mb,
    start_profiles,
    stop_profiles,
    summarise_profile,
)
from paiju.tools.bots import SEATS  # noqa: E402

__all__ = ["RACES", "platform_errors", "report", "summarise_profile"]  # re-exported

#: The game of each table, cyclically: 3 + 4 + 4 + 5 = 16 seats per 4 tables.
MIX = ("doudizhu", "hunzhan", "shengji", "daa")
ROOMS_PER_SERVER = 6
GOAL_TABLES = 500
#: The sizes a capacity sweep tries, in order.
SWEEP = "50,100,200,300,400,500,700,1000"
#: Bots arrive at this rate (each login opens an account and grants coins).
LOGINS_PER_SECOND = 50


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- the rooms file ----------------------------------------------------------------------


def rooms_file(tables: int, path: Path) -> list[tuple[str, str, int]]:
    """Write a rooms file with enough servers for ``tables`` tables of the
    :data:`MIX`; returns the rooms to fill: ``[(room, game, seats)]``."""
    from services.lobby.domain import coin_servers as lobby_rooms

    per_game = Counter(MIX[i % len(MIX)] for i in range(tables))
    servers = []
    for game in MIX:
        for k in range(max(1, math.ceil(per_game[game] / ROOMS_PER_SERVER))):
            entry: dict[str, Any] = {"server": f"b{game[:3]}{k:03d}", "game": game,
                                     "base": 1, "min_coins": 0, "rooms": ROOMS_PER_SERVER}
            if game == "shengji":
                entry["options"] = {"decks": 2}
            servers.append(entry)
    text = json.dumps({"defaults": {"fee_rate": 0.02, "ready_seconds": 20},
                       "servers": servers}, indent=1)  # JSON is YAML
    path.write_text(text, encoding="utf-8")
    config = lobby_rooms.parse(text)
    free = {g: [r for r, s in config.all_rooms() if s.game == g] for g in MIX}
    out = []
    for i in range(tables):
        game = MIX[i % len(MIX)]
        out.append((free[game].pop(0), game, SEATS[game]))
    return out


# -- one size ----------------------------------------------------------------------------


@dataclass
class Size:
    """What to run at one size."""

    tables: int
    think: tuple[float, float]
    seconds: float | None  # None: play ``games`` games and measure all of it
    games: int
    procs: int
    profile: Path | None
    #: table instances and gateways (``paiju up --tables N --gateways M``)
    instances: tuple[int, int] = (1, 1)
    #: the services' ``PAIJU_EVENT_LOOP``
    event_loop: str = "uvloop"
    #: the store (bench/load_store.py :func:`~bench.load_store.choose_store`)
    store: str = "auto"


def _free_base() -> int:
    """A port base whose ports (base+1 .. base+99) look free."""
    for _ in range(50):
        base = random.randrange(20000, 60000, 100)
        ok = True
        for off in (1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24, 80, 81, 82,
                    102, 112, 122, 104, 114, 124):  # instance 2: + 100 (tables, gateways)
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", base + off))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free port range")


def _pct(values: list[float], q: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0] * 1000, 2)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000, 2)


def run_size(size: Size, show: bool) -> dict[str, Any]:
    """Start a platform, load it with bots, measure; the figures of this size."""
    from paiju.tools import up

    load_average = [round(x, 2) for x in os.getloadavg()]
    data = Path(tempfile.mkdtemp(prefix="paiju-load-"))
    rooms = rooms_file(size.tables, data / "rooms.yaml")
    env_keep = {k: os.environ.get(k) for k in ("PAIJU_ROOMS_FILE", "PAIJU_LOG_LEVEL",
                                               "PAIJU_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS",
                                               "PAIJU_EVENT_LOOP")}
    os.environ["PAIJU_ROOMS_FILE"] = str(data / "rooms.yaml")
    os.environ["PAIJU_EVENT_LOOP"] = size.event_loop
    # Every bot connects from this machine: no per-address limit.
    os.environ["PAIJU_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS"] = "1000000"
    os.environ.setdefault("PAIJU_LOG_LEVEL", "INFO")
    env = {"PAIJU_UP_PORT_BASE": str(_free_base()), "PAIJU_DATA_DIR": str(data / "data"),
           "PAIJU_DRAIN_SECONDS": "2", "PAIJU_UP_TIMEOUT": "90"}
    store = load_store.choose_store(size.store, os.environ, _log)
    _log(f"store: {store.label}")
    if store.url is not None:
        env["PAIJU_DATABASE_URL"] = store.url
    tables_n, gateways_n = size.instances
    platform = up.Platform(up.plan(env, {"table": tables_n, "gateway": gateways_n}), out=_log)
    # the bare NATS echo runs on the platform's NATS, as a user of its own
    echo_user = f"bench:{secrets.token_hex(16)}"
    name, password = echo_user.split(":")
    platform.nats_users.append(
        f'{{user: "{name}", password: "{password}", permissions: '
        f'{{publish: ["bench.>", "_INBOX.>"], subscribe: ["bench.>", "_INBOX.>"]}}}}')
    echo: subprocess.Popen[bytes] | None = None
    workers: list[Any] = []
    try:
        platform.check_ports()
        platform.start_nats()
        platform.start_services()
        platform.wait_serving(lambda: False)
        pids = {c.name: c.proc.pid for c in platform.children}
        pids.update({c.name: c.proc.pid for c in platform.nats})
        urls = [f"ws://{platform.plan.host}:{platform.plan.http_port + k}/ws"
                for k in range(gateways_n)]
        echo_port = up.free_port(platform.plan.host)
        echo_nats = platform.nats_url.replace("://", f"://{echo_user}@", 1)
        echo = subprocess.Popen([sys.executable, str(ROOT / "bench" / "echo.py"),
                                 "--nats", echo_nats, "--grpc-port", str(echo_port)],
                                stdout=subprocess.PIPE)
        assert echo.stdout is not None
        echo.stdout.readline()  # "ready"
        result = _load(size, urls, rooms, pids, echo_nats,
                       f"127.0.0.1:{echo_port}", show, workers)
        result["sign_in_after"] = asyncio.run(load_recovery.sign_in_after(urls[0]))
        platform.check_alive()
        result["metrics"] = load_store.scrape(platform.plan.host, {
            c.name: c.metrics_port for c in platform.plan.instances()}, size.profile)
        result["load_average"], result["store"] = load_average, store.label
        return result
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
            w.join(5)
        if echo is not None:
            echo.terminate()
            echo.wait(10)
        platform.stop()
        store.drop()
        if size.profile is not None and (data / "data" / "logs").is_dir():
            # keep the services' logs beside the profiles
            shutil.copytree(data / "data" / "logs", size.profile / f"logs-{size.tables}",
                            dirs_exist_ok=True)
        for k, v in env_keep.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(data, ignore_errors=True)


def _load(size: Size, urls: list[str], rooms: list[tuple[str, str, int]], pids: dict[str, int],
          nats_url: str, grpc_addr: str, show: bool, workers: list[Any]) -> dict[str, Any]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from bench import echo

    ctx = mp.get_context("spawn")
    flags = {"start": ctx.Event(), "stop": ctx.Event(), "quit": ctx.Event()}
    queue = ctx.Queue()
    procs = max(1, min(max(size.procs, len(urls)), len(rooms)))
    clients = sum(s for _, _, s in rooms)
    ramp = max(1.0, clients / LOGINS_PER_SECOND)
    games = size.games if size.seconds is None else 10**6
    for i in range(procs):
        # bot process i talks to gateway i mod the gateways
        w = ctx.Process(target=worker, args=(urls[i % len(urls)], rooms[i::procs], size.think,
                                             games, i,
                                              ramp, flags, queue), daemon=True)
        w.start()
        workers.append(w)
    progress_of: dict[int, tuple[int, int, int, int]] = {}
    results: dict[int, dict[str, Any]] = {}

    def drain(timeout: float) -> None:
        with contextlib.suppress(Exception):
            msg = queue.get(timeout=timeout)
            if msg[0] == "progress":
                progress_of[msg[1]] = msg[2:]
            else:
                results[msg[1]] = msg[2]

    def totals() -> tuple[int, int, int, int]:
        vals = list(progress_of.values())
        return tuple(sum(v[i] for v in vals) for i in range(4))  # type: ignore[return-value]

    def alive() -> bool:
        return any(w.is_alive() for w in workers) or not queue.empty()

    console = Console(stderr=True)
    label = f"{size.tables} tables"
    # py-spy of the ramp too (the services that seat: lobby, ledger, gateway)
    ramp_spies = start_profiles(size.profile, size.tables, ramp + 60, pids, "-ramp",
                                ("lobby", "ledger", "gateway", "table"))
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(),
                  console=console, disable=not show, transient=True) as progress:
        task = progress.add_task(f"{label}: seating", total=clients, info="")
        deadline = time.monotonic() + ramp + 60
        while time.monotonic() < deadline and alive():
            drain(0.5)
            seated, _total, actions, done = totals()
            progress.update(task, completed=seated, info=f"{seated}/{clients} seated, "
                            f"{actions} actions, {done} games")
            if size.seconds is None or (len(progress_of) == procs and seated >= clients):
                break
        seated_at_start = totals()[0] if size.seconds is not None else clients
        for *_, spy in ramp_spies:
            spy.send_signal(2)  # SIGINT: py-spy writes what it has
        t_start = time.perf_counter()
        cpu0 = {n: cpu_seconds(p) for n, p in pids.items()}
        bots_cpu0 = {w.pid: cpu_seconds(w.pid) for w in workers}
        flags["start"].set()
        profilers = start_profiles(size.profile, size.tables, size.seconds or 30, pids,
                                   f"-{size.event_loop}")
        rss_peak: dict[str, float] = {}

        async def window() -> dict[str, list[float]]:
            stop = asyncio.Event()
            count = 10**6 if size.seconds is not None else 200
            base = asyncio.create_task(echo.measure(nats_url, grpc_addr, count, 0.05, stop))
            total_s = size.seconds if size.seconds is not None else 600.0
            progress.update(task, description=f"{label}: measuring", total=total_s,
                            completed=0)
            while time.perf_counter() - t_start < total_s:
                await asyncio.sleep(0.5)
                while not queue.empty():
                    drain(0)
                for n, p in pids.items():
                    r = rss_mb(p)
                    if r is not None:
                        rss_peak[n] = max(rss_peak.get(n, 0.0), r)
                _, _, actions, done = totals()
                progress.update(task, completed=time.perf_counter() - t_start,
                                info=f"{actions} actions, {done} games")
                if size.seconds is None and (len(results) == procs or not alive()):
                    break
            stop.set()
            return await base

        baseline = asyncio.run(window())
        flags["stop"].set()
        elapsed = time.perf_counter() - t_start
        cpu = {n: round(100 * (cpu_seconds(p) - cpu0[n]) / elapsed, 1) for n, p in pids.items()}
        cpu_s = {n: cpu_seconds(p) - cpu0[n] for n, p in pids.items()}
        bots_cpu_s = sum(cpu_seconds(p) - c for p, c in bots_cpu0.items())
        bots_cpu = round(100 * bots_cpu_s / elapsed, 1)
        rss = {n: rss_mb(p) for n, p in pids.items()}
        flags["quit"].set()
        deadline = time.monotonic() + 30
        while len(results) < procs and time.monotonic() < deadline and alive():
            drain(0.5)
    profiles = stop_profiles(ramp_spies + profilers, _log)
    rtts = [r for res in results.values() for r in res["rtts"]]
    kinds: dict[str, list[float]] = {}
    slow_seconds: Counter[int] = Counter()
    #: round trips of the acts sent once the window had begun (``t - r``: when
    #: the act was sent, from the window's start)
    sent_in_window: list[float] = []
    for res in results.values():
        for kind, r, t in res.get("by_kind", []):
            kinds.setdefault(kind, []).append(r)
            if t - r >= 0:
                sent_in_window.append(r)
            if r > GOAL_P99_MS / 1000:
                slow_seconds[int(t)] += 1
    actions = sum(res["actions"] for res in results.values())
    errors: Counter[str] = Counter()
    window_errors: Counter[str] = Counter()
    ramp_refusals: Counter[str] = Counter()
    games_done: Counter[str] = Counter()
    for res in results.values():
        errors.update(res["errors"])
        window_errors.update(res["window_errors"])
        ramp_refusals.update(res.get("ramp_refusals", {}))
        games_done.update(res["games"])
    if len(results) < procs:
        errors["bot_process_lost"] += procs - len(results)
    seconds = max((res["seconds"] for res in results.values()), default=elapsed)
    # CPU ms per accepted action of each process (the window's actions)
    per_action = {n: round(1000 * c / actions, 2) if actions else None
                  for n, c in [*cpu_s.items(), ("bots", bots_cpu_s)]}
    return {
        "instances": {"table": size.instances[0], "gateway": size.instances[1]},
        "event_loop": size.event_loop, "cpu_ms_per_action": per_action,
        "tables": size.tables, "clients": clients, "bot_processes": procs,
        "seated": seated_at_start, "ramp_refusals": dict(ramp_refusals),
        "seated_s": None if len(results) < procs or any(
            res.get("seated_s") is None for res in results.values())
        else round(max(res["seated_s"] for res in results.values()), 1),
        "think_s": list(size.think), "window_s": round(seconds, 1),
        "rtt_ms": {"p50": _pct(rtts, 50), "p99": _pct(rtts, 99), "n": len(rtts)},
        "rtt_ms_sent_in_window": {"p50": _pct(sent_in_window, 50),
                                  "p99": _pct(sent_in_window, 99), "n": len(sent_in_window)},
        "rtt_ms_by_kind": {k: {"p50": _pct(v, 50), "p99": _pct(v, 99), "n": len(v)}
                           for k, v in sorted(kinds.items())},
        # seconds of the window (from its start) with round trips over the goal
        "slow_seconds": dict(sorted(slow_seconds.items())),
        "actions_per_s": round(actions / seconds, 1) if seconds > 0 else 0.0,
        "errors": dict(errors), "window_errors": dict(window_errors),
        "games_finished": dict(games_done),
        "reconnects": sum(res["reconnects"] for res in results.values()),
        "rss_mb": rss, "rss_peak_mb": rss_peak, "cpu_percent": cpu,
        "bots_cpu_percent": bots_cpu,
        "nats_rtt_ms": {"p50": _pct(baseline["nats"], 50), "p99": _pct(baseline["nats"], 99),
                        "n": len(baseline["nats"])},
        "grpc_rtt_ms": {"p50": _pct(baseline["grpc"], 50), "p99": _pct(baseline["grpc"], 99),
                        "n": len(baseline["grpc"])},
        "profiles": profiles,
    }


def _exit_on_sigterm() -> None:
    """SIGTERM / SIGINT stop the run through ``finally`` blocks (the platform,
    the bots and the echo server are stopped), even in a background job where
    SIGINT is ignored."""
    import signal

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def run_sizes(sizes: list[Size], show: bool, stop_at_miss: bool) -> list[dict[str, Any]]:
    """Run each size (a sweep stops after the first that misses the goal);
    each result gets the run's machine gauge (the least of those measured
    before each size and after the last) and its CPU per action in it."""
    out: list[dict[str, Any]] = []
    gauges = [gauge_ms()]
    for size in sizes:
        _log(f"== platform load: {size.tables} tables ({size.instances[0]} table, "
             f"{size.instances[1]} gateway instances, {size.event_loop}); "
             f"machine gauge {gauges[-1]} ms ==")
        try:
            r = run_size(size, show)
        except Exception as e:  # a size that could not run is a figure too
            r = {"tables": size.tables, "failed": f"{type(e).__name__}: {e}"}
        out.append(r)
        gauges.append(gauge_ms())
        if stop_at_miss and not meets_goal(r):
            break
    gauge = min(gauges)
    for r in out:
        if "failed" in r:
            print(f"platform {r['tables']} tables: FAILED ({r['failed']})", flush=True)
            continue
        r["gauge_ms"] = gauge
        r["cpu_mg_per_action"] = {n: in_milligauges(v, gauge)
                                  for n, v in r["cpu_ms_per_action"].items()}
        for line in report(r):
            print(line, flush=True)
    return out


def capacity(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The most tables of a sweep that met the goal (0: none did), and the
    same per gauge: tables × gauge ms / 1000, the tables a machine that runs
    the gauge once per CPU second would hold."""
    held = [r["tables"] for r in results if meets_goal(r)]
    gauge = next((r["gauge_ms"] for r in results if "gauge_ms" in r), None)
    tables = max(held, default=0)
    return {"tables": tables, "gauge_ms": gauge,
            "tables_per_gauge": round(tables * gauge / 1000, 2) if gauge else None}


def capacity_line(c: dict[str, Any]) -> str:
    """The sweep's printed result."""
    return (f"capacity: {c['tables']} tables (act p99 < {GOAL_P99_MS:.0f} ms, no platform "
            f"error); machine gauge {c['gauge_ms']} ms, so {c['tables_per_gauge']} tables "
            "per gauge (tables × gauge ms / 1000)")


def main(argv: list[str] | None = None) -> int:
    """Run the load benchmark at every size; exit status 0 (numbers are the output)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=None, help="table counts (50,200,500)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured window")
    parser.add_argument("--think", default="0.5,2", help="think time range, seconds")
    parser.add_argument("--procs", type=int, default=3, help="bot processes")
    parser.add_argument("--games", type=int, default=1, help="games per table (--quick)")
    parser.add_argument("--quick", action="store_true",
                        help="5 tables, 1 game each, think 0, whole run measured")
    parser.add_argument("--profile", type=Path, default=None,
                        help="py-spy the gateway, table and lobby into this folder")
    parser.add_argument("--table-instances", type=int, default=1,
                        help="table service instances (paiju up --tables N)")
    parser.add_argument("--gateways", type=int, default=1,
                        help="gateway instances (paiju up --gateways N); bot process i "
                             "talks to gateway i mod N")
    parser.add_argument("--store", default="auto",
                        help="auto (PostgreSQL at PAIJU_TEST_POSTGRES_URL or 127.0.0.1:5432 if "
                             "it answers, else SQLite), sqlite, postgres, or a postgresql:// URL;"
                             " a PostgreSQL store is a fresh database per run")
    parser.add_argument("--sweep", action="store_true",
                        help="find the capacity: the sizes of --tables (default "
                             f"{SWEEP}) in order until one misses the goal")
    parser.add_argument("--event-loop", default="uvloop",
                        help="the services' PAIJU_EVENT_LOOP; several (uvloop,asyncio): each "
                             "size is run once with each, one after the other")
    args = parser.parse_args(argv)
    _exit_on_sigterm()
    show = sys.stderr.isatty()
    if args.quick:
        sizes = [Size(int(args.tables or 5), (0.0, 0.0), None, args.games, 2, args.profile,
                      (args.table_instances, args.gateways), loop, args.store)
                 for loop in args.event_loop.split(",")]
    else:
        think = tuple(float(x) for x in args.think.split(","))
        sizes = [Size(int(t), (think[0], think[-1]), args.seconds, args.games, args.procs,
                      args.profile, (args.table_instances, args.gateways), loop, args.store)
                 for t in (args.tables or (SWEEP if args.sweep else "50,200,500")).split(",")
                 for loop in args.event_loop.split(",")]
    out = run_sizes(sizes, show, stop_at_miss=args.sweep)
    summary: dict[str, Any] = {"bench": "platform", "results": out}
    if args.sweep:
        summary["capacity"] = capacity(out)
        print(capacity_line(summary["capacity"]), flush=True)
    print(json.dumps(summary, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
