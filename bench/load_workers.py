"""The bot processes of :mod:`bench.load` and what it reads of processes
(memory, CPU seconds, py-spy profiles): each bot process plays its share of
the rooms through the gateway and sends its figures back on a queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import time
from collections import Counter
from pathlib import Path
from typing import Any


def _worker(url: str, rooms: list[tuple[str, str, int]], think: tuple[float, float],
            games: int, seed: int, ramp: float, flags: dict[str, Any], queue: Any) -> None:
    """A bot process: plays ``rooms`` (see :func:`_worker_async`)."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_worker_async(url, rooms, think, games, seed, ramp, flags, queue))


async def _worker_async(url: str, rooms: list[tuple[str, str, int]],
                        think: tuple[float, float], games: int, seed: int, ramp: float,
                        flags: dict[str, Any], queue: Any) -> None:
    from paiju.bots import Bot, BotError, Stats

    class BenchBot(Bot):
        seated = False
        last_type = ""

        async def run(self) -> None:
            # A refused login or seat (a service that did not answer in time)
            # ends paiju.bots' bot; a person would try again, and so does this.
            while True:
                try:
                    await super().run()
                    return
                except BotError as e:
                    self.stats.errors[f"retried_after_{e.code}"] += 1
                    with contextlib.suppress(Exception):
                        await self.client.close()
                    await asyncio.sleep(1.0)

        async def _sit(self) -> None:
            await super()._sit()
            self.seated = True

        async def _act(self, action: dict[str, Any]) -> None:
            # The client paces its commands (paiju.bots.BOT_RATE); wait that out
            # first so that the round trip starts when the action is sent.
            wait = getattr(self.client, "next_send", 0.0) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self.last_type = f"{self.game}:{action.get('type')}"
            await super()._act(action)

        def _on_event(self, ev: dict[str, Any]) -> None:
            n = len(self.stats.rtts)
            super()._on_event(ev)
            if len(self.stats.rtts) > n:  # a round trip ended: note its kind
                by_kind.append((self.last_type, self.stats.rtts[-1], time.perf_counter()))

    stats = Stats()
    by_kind: list[tuple[str, float, float]] = []
    rng = random.Random(seed)
    run = secrets.token_hex(3)
    bots: list[BenchBot] = []
    for room, game, seats in rooms:
        for seat in range(seats):
            bots.append(BenchBot(url, f"b{run}-{room[1:]}-{seat}"[:24], game, room, seat,
                                 games, think, stats, random.Random(rng.random())))
    crashes: Counter[str] = Counter()

    async def life(bot: BenchBot, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await bot.run()
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bot that died is an error of the run
            crashes[f"bot_died:{type(e).__name__}"] += 1

    tasks = [asyncio.create_task(life(b, rng.uniform(0, ramp))) for b in bots]
    marks: dict[str, tuple[int, int, float, Counter[str]]] = {}

    def mark() -> tuple[int, int, float, Counter[str]]:
        return len(stats.rtts), stats.actions, time.perf_counter(), stats.errors + crashes

    def cpu() -> float:
        t = os.times()
        return t.user + t.system

    cpu0 = cpu()
    marks["begin"] = mark()
    while True:
        await asyncio.sleep(0.25)
        for name in ("start", "stop"):
            if flags[name].is_set() and name not in marks:
                marks[name] = mark()
                if name == "start":
                    cpu0 = cpu()
        done = all(t.done() for t in tasks)
        queue.put(("progress", seed, sum(b.seated for b in bots), len(bots), stats.actions,
                   sum(stats.games.values())))
        if done or flags["quit"].is_set() or os.getppid() == 1:  # or the parent died
            break
    cpu1 = cpu()
    end = mark()
    start = marks.get("start", marks["begin"])
    stop = marks.get("stop", end)
    window_errors = stop[3] - start[3]
    # The figures first: closing hundreds of connections takes a while.
    queue.put(("result", seed, {
        "rtts": stats.rtts[start[0]:stop[0]], "actions": stop[1] - start[1],
        "by_kind": [(k, r, t - start[2]) for k, r, t in by_kind if start[2] <= t <= stop[2]],
        "seconds": stop[2] - start[2], "errors": dict(stats.errors + crashes),
        "window_errors": dict(window_errors), "games": dict(stats.games),
        "reconnects": stats.reconnects, "cpu_seconds": cpu1 - cpu0, "pid": os.getpid()}))
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.gather(*(b.client.close() for b in bots),
                                              return_exceptions=True), 5)


# -- processes: memory, CPU, profiles ----------------------------------------------------


def rss_mb(pid: int) -> float | None:
    """Resident memory of ``pid`` in MiB (``None`` once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Leaf frames of a waiting thread: the event loop's select, gRPC's poller
#: thread, aiosqlite's worker waiting for work.
IDLE_FRAMES = ("EpollSelector.select", "_PollLikeSelector.select", "Thread.run (threading",
               "_connection_worker_thread (aiosqlite/core.py:59)", "_worker (concurrent")


def summarise_profile(path: Path, top: int = 12) -> list[str]:
    """The hottest functions of a py-spy ``raw`` (collapsed stacks) file: own
    samples (the leaf frame) and inclusive samples, as text lines."""
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = idle = 0
    if not path.exists():
        return [f"(no profile at {path})"]
    for line in path.read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        frames = stack.split(";")
        if any(frames[-1].startswith(i) for i in IDLE_FRAMES):
            idle += count
            continue
        total += count
        own[frames[-1]] += count
        for f in set(frames):
            incl[f] += count
    if not total:
        return ["(no samples)"]
    lines = [f"{total} busy samples ({idle} idle left out); own time:"]
    lines += [f"  {100 * c / total:5.1f}%  {f}" for f, c in own.most_common(top)]
    lines.append("inclusive:")
    lines += [f"  {100 * c / total:5.1f}%  {f}" for f, c in incl.most_common()
              if any(m in f for m in ("services/", "paiju/", "nats/", "websockets/", "grpc/"))
              and "paiju/cli.py" not in f and "paiju/service.py" not in f][:top]
    return lines
