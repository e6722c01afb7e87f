"""Chaos soak: bots play all four games while a killer takes processes down
at random; at the end the invariants are checked.

usage: python bench/chaos.py [--minutes 10] [--every 12] [--tables 8]
                             [--store auto|sqlite|postgres|URL] [--quick] [--seed N]

Starts the platform as ``paiju up --tables 2 --gateways 2 --nats-cluster 3``
runs it (:class:`paiju.tools.up.Platform` in this process, whose
:meth:`~paiju.tools.up.Platform.supervise` restarts a child that died), on a
fresh PostgreSQL database where one answers, else on SQLite
(bench/load_store.py :func:`~bench.load_store.choose_store`), with
bench/soak.py's rooms file (short holds: the seat limits it checks).
``--tables`` tables (the four games in turn) are filled with bots
(:class:`ChaosBot`, spread over both gateways) that play for ``--minutes``,
each table stopping after the game that ends past that time.

Every ``--every`` seconds (± 30 %) the killer takes one process down, once
the platform is whole again after the last fault (every service SERVING,
JetStream whole: never two NATS nodes down at once): a table instance, a
gateway, the lobby, the ledger or a NATS node, the kinds in a shuffled turn.
Seven faults in ten are a SIGKILL of the process (the supervisor starts it
again after its back-off), three a SIGSTOP for 2–6 s, then SIGCONT. Beside
them a monitor reads every room through the gateways every 2 s for
bench/soak.py's seat-limit breaches.

At the end it checks the invariants of bench/chaos_checks.py (games finished
or voided, settled once and stored once, the ledger's audit, seat limits,
hidden cards, the players' views against the server's) and prints: the
faults by kind and process, the stalls players saw (p50 / p99 / max of each
game's longest wait between two table events, seconds), the ``seq`` gaps and
repeats the bots met (counted, not an invariant), each invariant's result,
and one JSON line. Shows progress every 10 s. Exit status 1 when an invariant
fails (the data folder, with every process's log, is then kept and named).
``--quick`` (CI): 4 tables for 75 s, a fault every 8 s, 90 s for the last
games to end (else 300 s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import chaos_checks, load_store, soak  # noqa: E402
from bench.failover import pct  # noqa: E402
from paiju.tools import up  # noqa: E402
from paiju.tools.bots import PRIVATE_EVENTS, BotError, Client, Stats  # noqa: E402
from paiju.tools.hidden_cards import CapturingBot  # noqa: E402
from paiju.tools.nats_cluster import whole  # noqa: E402

#: The kinds of process the killer hits, each in turn (shuffled).
KINDS = ("table", "gateway", "lobby", "ledger", "nats")
#: The share of faults that are a SIGSTOP (the rest: SIGKILL), and how long a stop lasts (s).
STOP_SHARE, STOP_SECONDS = 0.3, (2.0, 6.0)
#: The longest the killer waits for the platform to be whole again before a fault (s).
SETTLE_SECONDS = 90.0
#: Time the last games have to end after the run's time is up (s); ``--quick``'s.
END_GRACE_SECONDS, QUICK_GRACE_SECONDS = 300.0, 90.0
#: How often a bot compares its view with the server's at a turn (0..1), besides the last.
VIEW_SHARE = 0.05
#: Time given to events in flight before a view is compared (s).
VIEW_SETTLE_SECONDS = 0.5
#: Bots' think time per move (s).
THINK = (0.1, 0.6)


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- the bots -----------------------------------------------------------------------------


class ChaosBot(CapturingBot):
    """A capturing bot that keeps its hand as its events give it, and now and
    then at its turn (where nothing else moves the game) asks ``view`` and
    compares it with what it built: the game, the public and private ``seq``
    (after :data:`VIEW_SETTLE_SECONDS` for events in flight, it must have
    received everything the view counts) and its hand. It compares once more
    at its first turn once the run's time is up (its last game)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hand: list[str] = []
        #: the last private ``seq`` received of each game (a deal: its own numbers)
        self.private_seqs: dict[str, int] = {}
        self.compared = 0
        self.compared_last = False
        self.mismatches: list[str] = []
        inner = self.client.on_event

        def keep_hand(ev: dict[str, Any]) -> None:
            inner(ev)
            if ev.get("type") == "hand" and isinstance(ev.get("cards"), list):
                self.hand = list(ev["cards"])
            if ev.get("type") in PRIVATE_EVENTS and ev.get("game_id") \
                    and isinstance(ev.get("seq"), int):
                self._saw_private(str(ev["game_id"]), ev["seq"])

        self.client.on_event = keep_hand

    def _saw_private(self, game_id: str, seq: int) -> None:
        self.private_seqs[game_id] = max(self.private_seqs.get(game_id, 0), seq)

    def _from_view(self, view: dict[str, Any]) -> None:
        super()._from_view(view)
        if isinstance(view.get("hand"), list):
            self.hand = list(view["hand"])
        if view.get("game_id") and isinstance(view.get("player_seq"), int):
            self._saw_private(str(view["game_id"]), view["player_seq"])

    def _view_due(self) -> bool:
        turn = self.my_turn
        if turn is None or turn.get("phase") == "declaring" or self.need_view:
            return False
        last = self.until_ms is not None and time.time() * 1000 >= self.until_ms
        return (last and not self.compared_last) or self.rng.random() < VIEW_SHARE

    async def _step(self) -> None:
        if self._view_due():
            await self._compare_view()
        await super()._step()

    async def _compare_view(self) -> None:
        """Ask ``view`` and compare it with the state built from events."""
        game = self.game_id
        seq, player_seq, hand = self.seq, self.private_seqs.get(game, 0), sorted(self.hand)
        try:
            view = (await self.client.call("view")).get("view")
        except BotError:
            return
        if not isinstance(view, dict):
            return
        await asyncio.sleep(VIEW_SETTLE_SECONDS)
        if self.need_view:  # a gap seen meanwhile: the bot knows it is behind
            return
        self.compared += 1
        self.compared_last |= self.until_ms is not None and time.time() * 1000 >= self.until_ms
        found = view_mismatches(view, game, (seq, self.seq),
                                (player_seq, self.private_seqs.get(game, 0)), hand)
        at = time.strftime("%H:%M:%S", time.gmtime())
        self.mismatches += [f"{at} {self.name} ({self.room} seat {self.seat}, game "
                            f"{self.game_id}): {m}" for m in found]


def view_mismatches(view: dict[str, Any], game_id: str, seqs: tuple[int, int],
                    player_seqs: tuple[int, int], hand: list[str]) -> list[str]:
    """How a server ``view`` differs from a player's state: ``seqs`` and
    ``player_seqs`` are the player's public and private ``seq`` when it asked
    and a moment after the answer (the view's must lie between), ``hand``
    (sorted) its hand when it asked (compared where nothing happened meanwhile)."""
    out = []
    if view.get("game_id") != game_id:
        out.append(f"game {view.get('game_id')} in the view, {game_id} built")
    for what, (before, after), key in (("public", seqs, "seq"),
                                       ("private", player_seqs, "player_seq")):
        theirs = view.get(key)
        if after < before:
            out.append(f"{what} seq back from {before} to {after} (a view older than "
                       "events received)")
        elif isinstance(theirs, int) and not before <= theirs <= after:
            out.append(f"{what} seq {theirs} in the view, {before}..{after} received")
    quiet = view.get("seq") == seqs[0] == seqs[1] and view.get("player_seq") == player_seqs[0]
    if quiet and sorted(view.get("hand") or []) != hand:
        out.append(f"hand {sorted(view.get('hand') or [])} in the view, {hand} built")
    return out


def make_bots(urls: list[str], rooms: list[tuple[str, str, int]], stats: Stats, seed: int,
              until_ms: int) -> list[ChaosBot]:
    """One :class:`ChaosBot` per seat of ``rooms`` (``[(room, game, seats)]``),
    bot n starting at gateway n mod the gateways."""
    rng, run = random.Random(seed), secrets.token_hex(3)
    bots: list[ChaosBot] = []
    for t, (room, game, seats) in enumerate(rooms):
        for seat in range(seats):
            k = len(bots) % len(urls)
            bots.append(ChaosBot(urls[k:] + urls[:k], f"chaos-{run}-{t}-{seat}", game, room,
                                 seat, 10**6, THINK, stats, random.Random(rng.random()),
                                 until_ms=until_ms))
    return bots


# -- the killer ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """One fault injected: when (s from the start), the process, its kind,
    ``kill`` or ``stop``, and for a stop how long (s)."""

    at_s: float
    process: str
    kind: str
    how: str
    stopped_s: float = 0.0


def kind_of(name: str) -> str:
    """The kind of a child of :class:`~paiju.tools.up.Platform` by its name
    (``table-2`` → ``table``, ``nats-1`` → ``nats``)."""
    return name.split("-", 1)[0]


def processes(platform: up.Platform) -> list[up.Child]:
    """Every process the platform runs now: services, then NATS nodes."""
    return [*platform.children, *platform.nats]


def is_whole(platform: up.Platform) -> bool:
    """Every process running, every service SERVING on its health port, and
    JetStream whole (:func:`~paiju.tools.nats_cluster.whole`). Blocking."""
    if any(c.proc.poll() is not None for c in processes(platform)):
        return False
    p = platform.plan
    if any(up.health(f"{up.dial_host(p.host)}:{m.health_port}") != "SERVING"
           for m in p.instances()):
        return False
    monitors = {n.name: n.monitor_port for n in platform.nats_nodes}
    try:
        return not monitors or whole(up.dial_host(p.host), monitors)
    except OSError:
        return False


@dataclass
class Killer:
    """Injects the faults of the module docstring into ``platform``."""

    platform: up.Platform
    every: float
    rng: random.Random
    start: float = field(default_factory=time.monotonic)
    faults: list[Fault] = field(default_factory=list)
    #: the faults that could not wait for a whole platform (injected anyway, NATS excepted)
    unsettled: int = 0
    turn: list[str] = field(default_factory=list)

    def next_kind(self) -> str:
        """The next kind of the shuffled turn of :data:`KINDS`."""
        if not self.turn:
            self.turn = self.rng.sample(KINDS, len(KINDS))
        return self.turn.pop()

    async def settle(self) -> bool:
        """Wait until the platform is whole (:func:`is_whole`), at most
        :data:`SETTLE_SECONDS`; whether it is."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while not await asyncio.to_thread(is_whole, self.platform):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.5)
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """A fault every ``every`` s (± 30 %) until ``stop`` is set."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every * self.rng.uniform(0.7, 1.3))
            if stop.is_set():
                return
            settled = await self.settle()
            kind = self.next_kind()
            if not settled:
                self.unsettled += 1
                if kind == "nats":  # a NATS node may be down already: never two
                    self.turn.append(kind)
                    continue
            if not stop.is_set():
                await self.inject(kind)

    async def inject(self, kind: str) -> None:
        """Take down one running process of ``kind``: SIGKILL, or SIGSTOP for a
        few seconds then SIGCONT."""
        running = [c for c in processes(self.platform)
                   if kind_of(c.name) == kind and c.proc.poll() is None]
        if not running:
            return
        child = self.rng.choice(running)
        at = time.monotonic() - self.start
        if self.rng.random() >= STOP_SHARE:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGKILL)
            self.faults.append(Fault(round(at, 1), child.name, kind, "kill"))
            return
        seconds = self.rng.uniform(*STOP_SECONDS)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.proc.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(seconds)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGCONT)
        self.faults.append(Fault(round(at, 1), child.name, kind, "stop", round(seconds, 1)))


async def supervise(platform: up.Platform, restarts: list[str], stop: asyncio.Event) -> None:
    """The supervisor of ``paiju up`` (restart a child that died, after its
    back-off), in this thread, until ``stop``; its lines go to ``restarts``."""
    while not stop.is_set():
        restarts += platform.supervise()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.2)


# -- the monitor --------------------------------------------------------------------------


@dataclass
class Monitor:
    """Reads every room through the gateways every 2 s for bench/soak.py's
    seat-limit breaches, moving to the other gateway when one is down."""

    urls: list[str]
    servers: list[str]
    found: list[str] = field(default_factory=list)
    checks: int = 0
    client: Client | None = None
    name: str = field(default_factory=lambda: f"chaos-monitor-{secrets.token_hex(3)}")
    tries: int = 0

    async def read(self) -> list[dict[str, Any]] | None:
        """Every room of the servers (the gateway's ``rooms``), or None where
        no gateway answered this time."""
        try:
            if self.client is None or self.client.closed.is_set():
                self.tries += 1
                self.client = Client(self.urls[self.tries % len(self.urls)], lambda ev: None)
                await self.client.connect()
                await self.client.call("login", name=self.name)
            return await asyncio.wait_for(soak.read_rooms(self.client, self.servers), 10)
        except (BotError, ConnectionError, OSError, TimeoutError,
                websockets.WebSocketException):
            await self.close()
            return None

    async def close(self) -> None:
        """Close the monitor's connection."""
        if self.client is not None:
            await self.client.close()
        self.client = None

    async def run(self, stop: asyncio.Event) -> None:
        """Read and check until ``stop``."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2)
            rooms = await self.read()
            if rooms is not None:
                self.found += soak.violations(rooms, int(time.time() * 1000))
                self.checks += 1

    async def started(self) -> dict[str, str]:
        """The rooms started now (room -> its game id), tried for up to 60 s."""
        deadline = time.monotonic() + 60
        while (rooms := await self.read()) is None and time.monotonic() < deadline:
            await asyncio.sleep(1)
        return {r["room"]: str(r.get("game_id")) for r in rooms or []
                if r["state"] == "started"}


# -- the run ------------------------------------------------------------------------------


@dataclass
class Options:
    """What to run: minutes of play, seconds between faults, tables, the
    store (:func:`~bench.load_store.choose_store`) and the seed."""

    minutes: float
    every: float
    tables: int
    store: str
    seed: int
    #: seconds the last games have to end once the time is up
    grace: float = END_GRACE_SECONDS


@dataclass
class Outcome:
    """What the scenario saw, for the checks and the report."""

    bots: list[ChaosBot]
    stats: Stats
    faults: list[Fault]
    unsettled: int
    restarts: list[str]
    monitor: Monitor
    seconds: float
    bots_failed: list[str]
    #: rooms still started once the bots were done: room -> its game id
    started_at_end: dict[str, str]


async def scenario(platform: up.Platform, rooms: list[tuple[str, str, int]],
                   opts: Options) -> Outcome:
    """Bots, killer, supervisor and monitor together, with progress every
    10 s; returns once every bot is done (or the grace after the run's time
    is spent)."""
    p = platform.plan
    urls = [f"ws://{up.dial_host(p.host)}:{m.http_port}/ws" for m in p.instances()
            if m.service == "gateway"]
    seconds = opts.minutes * 60
    stats = Stats()
    bots = make_bots(urls, rooms, stats, opts.seed, int((time.time() + seconds) * 1000))
    killer = Killer(platform, opts.every, random.Random(opts.seed))
    monitor = Monitor(urls, sorted({r.rsplit("-", 1)[0] for r, _, _ in rooms}))
    faults_end, all_end = asyncio.Event(), asyncio.Event()
    restarts: list[str] = []
    helpers = [asyncio.create_task(supervise(platform, restarts, all_end)),
               asyncio.create_task(killer.run(faults_end)),
               asyncio.create_task(monitor.run(all_end))]
    play = asyncio.gather(*(b.run() for b in bots), return_exceptions=True)
    start = time.monotonic()
    results: list[Any] = []
    try:
        while not play.done():
            await asyncio.wait([play], timeout=10)
            elapsed = time.monotonic() - start
            if elapsed >= seconds:
                faults_end.set()
            if elapsed >= seconds + opts.grace:
                play.cancel()
                break
            _log(f"chaos: {elapsed:4.0f}/{seconds:.0f} s, {len(killer.faults)} faults, "
                 f"{sum(stats.games.values())} games finished, {len(restarts)} supervisor "
                 f"lines, seq gaps {stats.seq_gaps} repeats {stats.seq_repeats}")
        with contextlib.suppress(asyncio.CancelledError):
            results = await play
        faults_end.set()
        await helpers[1]
        await killer.settle()  # every process back before the checks
        started_at_end = await monitor.started()
    finally:
        faults_end.set()
        all_end.set()
        await asyncio.gather(*helpers, return_exceptions=True)
        await monitor.close()
        for b in bots:
            await b.client.close()
    failed = [f"{b.name}: {r!r}" for b, r in zip(bots, results, strict=False)
              if isinstance(r, BaseException)]
    failed += [f"{b.name} ({b.room} seat {b.seat}) still playing {opts.grace:.0f} s "
               "after the time was up" for b in bots if not b.done.is_set()]
    return Outcome(bots, stats, killer.faults, killer.unsettled, restarts, monitor,
                   time.monotonic() - start, failed, started_at_end)


def start_platform(data: Path, store: load_store.Store) -> tuple[int, up.Platform]:
    """The platform of ``paiju up --tables 2 --gateways 2 --nats-cluster 3``
    at a port base where every port it binds is free (tried again at another
    base where one is taken), its data in ``data``, once every service
    serves; returns its port base too."""
    env = {"PAIJU_DATA_DIR": str(data), "PAIJU_DRAIN_SECONDS": "2", "PAIJU_UP_TIMEOUT": "120"}
    if store.url is not None:
        env["PAIJU_DATABASE_URL"] = store.url
    for attempt in range(20):
        base = _free_base()
        env["PAIJU_UP_PORT_BASE"] = str(base)
        platform = up.Platform(up.plan(env, {"table": 2, "gateway": 2}, nats_nodes=3),
                               out=_log)
        try:
            platform.check_ports()
            break
        except up.UpError:
            if attempt == 19:
                raise
    platform.start_nats()
    platform.start_services()
    platform.wait_serving(lambda: False)
    return base, platform


def _free_base() -> int:
    from bench.load import _free_base as free

    return free()


def run(opts: Options) -> dict[str, Any]:
    """Start the platform, run the scenario, check the invariants; the figures."""
    folder = Path(tempfile.mkdtemp(prefix="paiju-chaos-"))
    rooms = soak.rooms_file(opts.tables, folder / "rooms.yaml")
    os.environ["PAIJU_ROOMS_FILE"] = str(folder / "rooms.yaml")
    os.environ["PAIJU_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS"] = "100000"
    os.environ.setdefault("PAIJU_LOG_LEVEL", "WARNING")
    store = load_store.choose_store(opts.store, os.environ, _log)
    data = folder / "data"
    platform: up.Platform | None = None
    result: dict[str, Any] = {}
    try:
        base, platform = start_platform(data, store)
        _log(f"chaos: {sum(s for _, _, s in rooms)} bots at {len(rooms)} tables for "
             f"{opts.minutes:g} min, a fault every ~{opts.every:g} s; store {store.label}")
        out = asyncio.run(scenario(platform, rooms, opts))
        stored = chaos_checks.read(store.url or f"sqlite:///{data / 'table.db'}",
                                   store.url or f"sqlite:///{data / 'ledger.db'}")
        views = (sum(b.compared for b in out.bots), sum(b.compared_last for b in out.bots),
                 [m for b in out.bots for m in b.mismatches])
        checks = chaos_checks.run_checks(out.bots, stored, data, out.started_at_end,
                                         chaos_checks.admin_env(base, data),
                                         (out.monitor.found, out.monitor.checks), views)
        result = summary(out, checks, store.label, opts)
    finally:
        if platform is not None:
            platform.stop()
        store.drop()
        if result.get("ok"):
            shutil.rmtree(folder, ignore_errors=True)
        else:
            _log(f"chaos: the run's data and logs are kept in {folder}")
    return result


def summary(out: Outcome, checks: list[chaos_checks.Check], store: str,
            opts: Options) -> dict[str, Any]:
    """The figures of a run (stalls in seconds)."""
    waits = sorted(out.stats.game_waits.values())
    by_kind = Counter(f.kind for f in out.faults)
    if out.bots_failed:
        checks.append(chaos_checks.Check("bots", False, f"{len(out.bots_failed)} failed",
                                         out.bots_failed))
    return {
        "minutes": opts.minutes, "every_s": opts.every, "tables": opts.tables, "store": store,
        "bots": len(out.bots), "seconds": round(out.seconds, 1),
        "games_finished": dict(out.stats.games),
        "faults": len(out.faults), "faults_by_kind": dict(by_kind),
        "faults_by_process": dict(Counter(f"{f.process} {f.how}" for f in out.faults)),
        "faults_by_how": dict(Counter(f.how for f in out.faults)),
        "faults_unsettled": out.unsettled,
        "every_kind_twice": all(by_kind[k] >= 2 for k in KINDS),
        "restarts": sum("restarted" in line for line in out.restarts),
        "stall_s": {"games": len(waits),
                    "p50": round(pct(waits, 50), 2) if waits else None,
                    "p99": round(pct(waits, 99), 2) if waits else None,
                    "max": round(waits[-1], 2) if waits else None},
        "seq_gaps": out.stats.seq_gaps, "seq_repeats": out.stats.seq_repeats,
        "reconnects": out.stats.reconnects, "bot_errors": dict(out.stats.errors),
        "invariants": {c.name: {"ok": c.ok, "figures": c.figures, "problems": c.problems}
                       for c in checks},
        "fault_list": [f"{f.at_s}s {f.how} {f.process}"
                       + (f" {f.stopped_s}s" if f.how == "stop" else "") for f in out.faults],
        "ok": all(c.ok for c in checks),
    }


def report(r: dict[str, Any]) -> list[str]:
    """The lines printed for the figures ``r`` of :func:`summary`."""
    s = r["stall_s"]
    lines = [
        f"chaos {r['minutes']:g} min, {r['bots']} bots at {r['tables']} tables, store "
        f"{r['store']}: {sum(r['games_finished'].values())} games {r['games_finished']}",
        f"faults: {r['faults']} ({r['faults_by_how']}), by kind {r['faults_by_kind']}, "
        f"every kind at least twice: {'yes' if r['every_kind_twice'] else 'no'}; "
        f"{r['restarts']} restarts by the supervisor, {r['faults_unsettled']} faults on an "
        "unsettled platform",
        f"  by process: {r['faults_by_process']}",
        f"stalls (longest wait between two table events, per game, {s['games']} games): "
        f"p50 {s['p50']} s, p99 {s['p99']} s, max {s['max']} s",
        f"seq gaps {r['seq_gaps']}, seq repeats {r['seq_repeats']} (counted, not checked); "
        f"reconnects {r['reconnects']}; bot errors {r['bot_errors']}",
    ]
    for name, c in r["invariants"].items():
        lines.append(f"invariant {name}: {'ok' if c['ok'] else 'FAILED'} ({c['figures']})")
        lines += [f"    {p}" for p in c["problems"][:20]]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the chaos soak; exit status 1 when an invariant failed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="minutes of play")
    ap.add_argument("--every", type=float, default=12.0, help="seconds between faults (± 30 %%)")
    ap.add_argument("--tables", type=int, default=8, help="tables (the four games in turn)")
    ap.add_argument("--store", default="auto", help="auto, sqlite, postgres or a URL "
                    "(bench/load.py --store)")
    ap.add_argument("--quick", action="store_true", help="4 tables, 75 s, a fault every 8 s (CI)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    opts = Options(args.minutes, args.every, args.tables, args.store, args.seed)
    if args.quick:
        opts = Options(1.25, 8.0, 4, args.store, args.seed, QUICK_GRACE_SECONDS)
    r = run(opts)
    for line in report(r):
        print(line, flush=True)
    print(json.dumps(r), flush=True)
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        raise SystemExit(main())
