"""The bot processes of bench/load.py: :class:`paiju.tools.bots.Bot` clients that
retry a refused login or seat, wait their pacing out before an action's clock
starts, and report their round trips, errors and CPU to the parent."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import time
from collections import Counter
from typing import Any


def worker(url: str, rooms: list[tuple[str, str, int]], think: tuple[float, float],
            games: int, seed: int, ramp: float, flags: dict[str, Any], queue: Any) -> None:
    """A bot process: plays ``rooms`` (see :func:`_worker_async`) through the
    gateway at ``url``, on uvloop as the services run (the bots are the
    bench's own load on the machine's cores: the less they spend, the more
    the platform has)."""
    import uvloop

    with contextlib.suppress(KeyboardInterrupt):
        uvloop.run(_worker_async(url, rooms, think, games, seed, ramp, flags, queue))


async def _worker_async(url: str, rooms: list[tuple[str, str, int]],
                        think: tuple[float, float], games: int, seed: int, ramp: float,
                        flags: dict[str, Any], queue: Any) -> None:
    from paiju.tools.bots import Bot, BotError, Stats

    class BenchBot(Bot):
        seated = False
        last_type = ""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            plain = self.client.call

            async def counted(cmd: str, **args: Any) -> dict[str, Any]:
                # every refusal of a command, by command: ``sit:unavailable``
                # (paiju.tools.bots retries a refused login without counting it)
                try:
                    return await plain(cmd, **args)
                except BotError as e:
                    refusals[f"{cmd}:{e.code}"] += 1
                    raise

            self.client.call = counted  # type: ignore[method-assign]

        async def run(self) -> None:
            # A refused login or seat (a service that did not answer in time)
            # ends paiju.tools.bots' bot; a person would try again, and so does this.
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
            # The client paces its commands (paiju.tools.bots.BOT_RATE); wait that out
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
    refusals: Counter[str] = Counter()
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

    def seated_now() -> int:
        return sum(b.seated for b in bots)

    def cpu() -> float:
        t = os.times()
        return t.user + t.system

    cpu0 = cpu()
    marks["begin"] = mark()
    ramp_refusals: Counter[str] | None = None  # the refusals before the window
    all_seated_at: float | None = None  # perf_counter when every bot sat
    while True:
        await asyncio.sleep(0.25)
        for name in ("start", "stop"):
            if flags[name].is_set() and name not in marks:
                marks[name] = mark()
                if name == "start":
                    cpu0 = cpu()
                    ramp_refusals = Counter(refusals)
        done = all(t.done() for t in tasks)
        if all_seated_at is None and seated_now() == len(bots):
            all_seated_at = time.perf_counter()
        queue.put(("progress", seed, seated_now(), len(bots), stats.actions,
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
        "refusals": dict(refusals), "ramp_refusals": dict(ramp_refusals or refusals),
        "seated_s": None if all_seated_at is None else all_seated_at - marks["begin"][2],
        "reconnects": stats.reconnects, "cpu_seconds": cpu1 - cpu0, "pid": os.getpid()}))
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.gather(*(b.client.close() for b in bots),
                                              return_exceptions=True), 5)


