"""Presence soak: bots that drop and come back at every phase, and the rules'
limits on absent players checked all along.

usage: python bench/soak.py [--bots 200] [--seconds 300] [--quick] [--seed N]

Starts a fresh platform as ``paiju up`` does (:mod:`paiju.tools.up`, a private
NATS, SQLite in a temporary folder) with a rooms file of its own whose rooms
have short holds (``reconnect_seconds`` 15, ``idle_disconnect_seconds`` 8,
``turn_seconds`` 8), and fills tables of the four games with bots
(:class:`paiju.tools.bots.Bot`). Each bot drops its connection now and then, at any
phase (the deal, bidding, mid-trick, the settlement screen), without a close
frame, and comes back after a while: mostly within seconds, sometimes after
its hold is spent. A monitor client reads every room through the gateway
(``rooms``) every 2 s and counts as a violation (rulings.md "Shared by all
games"):

- a seat outside a game whose player has been away longer than
  ``idle_disconnect_seconds`` (it should have been stood up);
- a seat in a game whose player has been away, without a break, longer than
  its whole hold budget ``reconnect_seconds`` (it should have escaped);
- a started room whose every seat has been away longer than
  ``reconnect_seconds`` plus one deal (the table should have ended by escape).

Each check allows :data:`SLACK_SECONDS` for presence to notice a loss and the
lobby's sweep to run. At the end every bot leaves for good; once the
abandoned tables have ended, every room must be empty, and the ledger must
hold exactly one settlement per finished game with every transaction
summing to zero. ``--quick`` (CI): 40 bots for 30 s. Shows progress every
10 s; prints the figures and a JSON line; exit status 1 on any violation.
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
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paiju.tools.bots import SEATS, Bot, BotError, Client, Stats  # noqa: E402

#: The room options of the soak (seconds): short, so that a few minutes see many holds spent.
RECONNECT_SECONDS = 15
IDLE_DISCONNECT_SECONDS = 8
TURN_SECONDS = 8
#: One paced deal at most (the slowest: daa, 108 cards at the default pace), seconds.
DEAL_SECONDS = 20
#: Time allowed for presence to notice a loss and the lobby or table to act on it.
SLACK_SECONDS = 15
GAMES = ("doudizhu", "hunzhan", "shengji", "daa")


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def rooms_file(tables: int, path: Path) -> list[tuple[str, str, int]]:
    """Write the soak's rooms file: one server per game with enough rooms;
    returns the rooms to fill ``[(room, game, seats)]``, the games in turn."""
    from services.lobby.domain import coin_servers as lobby_rooms

    per_game = Counter(GAMES[i % len(GAMES)] for i in range(tables))
    options = {"reconnect_seconds": RECONNECT_SECONDS, "turn_seconds": TURN_SECONDS}
    servers = [{"server": f"soak{game[:3]}", "game": game, "base": 1, "min_coins": 0,
                "rooms": max(1, per_game[game]),
                "options": {**options, **({"decks": 2} if game == "shengji" else {})}}
               for game in GAMES]
    text = json.dumps({"defaults": {"fee_rate": 0.02, "ready_seconds": 20,
                                    "idle_disconnect_seconds": IDLE_DISCONNECT_SECONDS},
                       "servers": servers}, indent=1)  # JSON is YAML
    path.write_text(text, encoding="utf-8")
    config = lobby_rooms.parse(text)
    free = {g: [r for r, s in config.all_rooms() if s.game == g] for g in GAMES}
    return [(free[g].pop(0), g, SEATS[g]) for g in (GAMES[i % 4] for i in range(tables))]


class FlakyBot(Bot):
    """A bot whose connection drops now and then (no close frame) and which
    comes back after ``away`` seconds; ``stay_away()`` makes it leave for good."""

    def __init__(self, *args: Any, mean_between_drops: float, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.mean_between_drops = mean_between_drops
        self.back_at = 0.0
        self.drops = 0
        self.gone = False

    def away(self) -> float:
        """How long one absence lasts: mostly short, sometimes past the hold."""
        r = self.rng.random()
        if r < 0.7:
            return self.rng.uniform(0.5, 5)
        if r < 0.9:
            return self.rng.uniform(5, 12)
        return self.rng.uniform(RECONNECT_SECONDS + 5, 2 * RECONNECT_SECONDS + 10)

    async def chaos(self) -> None:
        """Drop the connection at random times (a lost network: abort the socket)."""
        while not self.done.is_set() and not self.gone:
            await asyncio.sleep(self.rng.expovariate(1 / self.mean_between_drops))
            ws = self.client.ws
            if ws is None or self.client.closed.is_set() or self.gone:
                continue
            self.back_at = time.monotonic() + self.away()
            self.drops += 1
            ws.transport.abort()

    async def _session(self) -> None:
        while time.monotonic() < self.back_at or self.gone:
            if self.gone:
                self.done.set()
                raise ConnectionError("left for good")
            await asyncio.sleep(0.2)
        await super()._session()

    def stay_away(self) -> None:
        """Leave for good: drop the connection and never come back."""
        self.gone = True
        ws = self.client.ws
        if ws is not None:
            ws.transport.abort()


def violations(rooms: list[dict[str, Any]], now_ms: int) -> list[str]:
    """The rule breaches in ``rooms`` (the gateway's ``rooms`` reply) at ``now_ms``."""
    out = []
    for room in rooms:
        started = room["state"] == "started"
        away = [(s["player"], now_ms - s["away_since"]) for s in room["seats"]
                if not s["connected"] and s.get("away_since")]
        limit = (RECONNECT_SECONDS if started else IDLE_DISCONNECT_SECONDS) + SLACK_SECONDS
        for player, ms in away:
            if ms > limit * 1000:
                out.append(f"{room['room']}: {player} away {ms / 1000:.0f} s "
                           f"{'in a game' if started else 'outside a game'}")
        if started and room["seats"] and len(away) == len(room["seats"]):
            least = min(ms for _, ms in away)
            if least > (RECONNECT_SECONDS + DEAL_SECONDS + SLACK_SECONDS) * 1000:
                out.append(f"{room['room']}: every seat gone {least / 1000:.0f} s, still started")
    return out


async def read_rooms(monitor: Client, servers: list[str]) -> list[dict[str, Any]]:
    """Every room of ``servers``, through the gateway."""
    out: list[dict[str, Any]] = []
    for server in servers:
        out += (await monitor.call("rooms", server=server))["rooms"]
    return out


def ledger_check(data: Path) -> dict[str, Any]:
    """Settled once per finished game, every transaction summing to zero."""
    with sqlite3.connect(data / "table.db") as t:
        finished = [gid for gid, reason in t.execute(
            "SELECT game_id, reason FROM table_game_records") if reason != "redeal"]
    with sqlite3.connect(data / "ledger.db") as led:
        settled = Counter(ref for (ref,) in led.execute(
            "SELECT reference FROM ledger_transactions WHERE kind = 'settle'"))
        unbalanced = led.execute(
            "SELECT COUNT(*) FROM (SELECT transaction_id FROM ledger_entries "
            "GROUP BY transaction_id HAVING SUM(delta) != 0)").fetchone()[0]
        total = led.execute("SELECT COALESCE(SUM(delta), 0) FROM ledger_entries").fetchone()[0]
    return {"games_finished": len(finished),
            "not_settled_once": sorted(g for g in finished if settled[g] != 1),
            "settlements_without_game": sorted(set(settled) - set(finished)),
            "unbalanced_transactions": int(unbalanced), "journal_sum": int(total)}


async def soak(url: str, servers: list[str], rooms: list[tuple[str, str, int]], seconds: float,
               seed: int) -> dict[str, Any]:
    """Run the bots with their drops for ``seconds``, checking all along; then
    every bot leaves and the rooms must empty. Returns the figures."""
    rng = random.Random(seed)
    stats = Stats()
    run = secrets.token_hex(3)
    bots = [FlakyBot(url, f"soak-{run}-{i}-{seat}", game, room, seat, 10**6, (0.2, 1.0),
                     stats, random.Random(rng.random()), mean_between_drops=25.0,
                     declare_p=0.7)
            for i, (room, game, seats) in enumerate(rooms) for seat in range(seats)]
    monitor = Client(url, lambda ev: None)
    await monitor.connect()
    await monitor.call("login", name=f"soak-monitor-{run}")
    tasks = [asyncio.create_task(b.run()) for b in bots]
    chaos = [asyncio.create_task(b.chaos()) for b in bots]
    found: list[str] = []
    start = time.monotonic()
    last_shown = start
    checks = 0
    try:
        while time.monotonic() - start < seconds:
            await asyncio.sleep(2)
            try:
                found += violations(await read_rooms(monitor, servers), int(time.time() * 1000))
                checks += 1
            except BotError as e:
                _log(f"soak: monitor refused ({e.code}), checking again")
            if time.monotonic() - last_shown >= 10:
                last_shown = time.monotonic()
                _log(f"soak: {last_shown - start:4.0f}/{seconds:.0f} s, "
                     f"{sum(stats.games.values())} games, "
                     f"{sum(b.drops for b in bots)} drops, {len(found)} violations")
        # everyone leaves for good; abandoned tables must end, rooms must empty
        for b in bots:
            b.stay_away()
        for c in chaos:
            c.cancel()
        deadline = time.monotonic() + RECONNECT_SECONDS + DEAL_SECONDS + 3 * SLACK_SECONDS
        while True:
            await asyncio.sleep(2)
            rooms_now = await read_rooms(monitor, servers)
            found += violations(rooms_now, int(time.time() * 1000))
            left = [r["room"] for r in rooms_now if r["seats"]]
            if not left:
                break
            if time.monotonic() > deadline:
                found.append(f"rooms not emptied after everyone left: {left}")
                break
        emptied = time.monotonic() - start - seconds
    finally:
        for t in [*tasks, *chaos]:
            t.cancel()
        await asyncio.gather(*tasks, *chaos, return_exceptions=True)
        await monitor.close()
    return {"bots": len(bots), "seconds": seconds, "checks": checks,
            "games": dict(stats.games), "drops": sum(b.drops for b in bots),
            "reconnects": stats.reconnects, "violations": found,
            "emptied_after_s": round(emptied, 1)}


def main(argv: list[str] | None = None) -> int:
    """Run the soak; exit status 0 when no rule was broken."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bots", type=int, default=200, help="about this many bots (whole tables)")
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--quick", action="store_true", help="40 bots for 30 s (CI)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    bots, seconds = (40, 30.0) if args.quick else (args.bots, args.seconds)
    tables = max(4, round(bots / 4))  # 3 + 4 + 4 + 5 seats: 4 per table on average

    from paiju.tools import up

    data = Path(tempfile.mkdtemp(prefix="paiju-soak-"))
    rooms = rooms_file(tables, data / "rooms.yaml")
    os.environ["PAIJU_ROOMS_FILE"] = str(data / "rooms.yaml")
    os.environ.setdefault("PAIJU_LOG_LEVEL", "WARNING")
    env = {"PAIJU_UP_PORT_BASE": str(_free_base()), "PAIJU_DATA_DIR": str(data / "data"),
           "PAIJU_DRAIN_SECONDS": "2", "PAIJU_UP_TIMEOUT": "90"}
    platform = up.Platform(up.plan(env), out=_log)
    try:
        platform.check_ports()
        platform.start_nats()
        platform.start_services()
        platform.wait_serving(lambda: False)
        url = f"ws://{platform.plan.host}:{platform.plan.http_port}/ws"
        _log(f"soak: {sum(s for _, _, s in rooms)} bots at {len(rooms)} tables for {seconds:.0f} s")
        result = asyncio.run(soak(url, [f"soak{g[:3]}" for g in GAMES], rooms, seconds,
                                  args.seed))
        platform.check_alive()
        result["ledger"] = ledger_check(data / "data")
    finally:
        platform.stop()
        shutil.rmtree(data, ignore_errors=True)
    led = result["ledger"]
    bad = (result["violations"] or led["not_settled_once"] or led["settlements_without_game"]
           or led["unbalanced_transactions"] or led["journal_sum"])
    print(f"soak {result['bots']} bots {result['seconds']:.0f} s: "
          f"{sum(result['games'].values())} games {result['games']}, {result['drops']} drops, "
          f"{result['reconnects']} reconnects, {len(result['violations'])} violations, "
          f"rooms empty {result['emptied_after_s']} s after the end; ledger: "
          f"{led['games_finished']} games, {len(led['not_settled_once'])} not settled once, "
          f"{led['unbalanced_transactions']} unbalanced, journal sum {led['journal_sum']}")
    for v in result["violations"][:20]:
        print(f"  violation: {v}")
    print(json.dumps(result))
    return 1 if bad else 0


def _free_base() -> int:
    from bench.load import _free_base as free

    return free()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        raise SystemExit(main())
