"""The hunzhan worst position played through a running table service while
other games run on the same instance; the instance's longest unresponsive gap.

usage: python bench/worst_table.py [--json FILE]   (also: python bench/worst.py --table)

A table instance (services/table, as ``paiju table`` runs it, with a real ledger
on SQLite and a real NATS server, on a fake game clock: tests/table/conftest.py's
harness) runs in this process. In each run, two doudizhu games and a daa game
are played to their end by random bots through the table's RPCs, while the
``Hints`` RPC is asked again and again; then the clock is run out on the
asked seat (the timeout's default action). :class:`LagMonitor` wakes every
5 ms on the same event loop and records how late it woke: the longest gap is
how long the instance served nobody.

Three runs, in the same process one after the other, first with CPython's
own garbage collector settings (before the table's own tuning), then with the
services' (:func:`paiju.runtime.service.tune_gc`, as a service process has them):

- baseline: the other games alone, ``Hints`` asked for a doudizhu seat;
- the 7-pair run: hunzhan seat 1, void in hearts with 21 distinct plain cards,
  facing a run of 7 heart pairs (116,280 legal follows), asked for hints;
- the 6-pair run: the same against 6 pairs (293,930 follows).

Prints the longest gap of each run against the 50 ms goal, the most
CPU the event loop's thread spent between two wake-ups (the instance's own
work; the rest of a gap is the machine serving other processes), and the
candidate plays the engines built (:data:`paiju.rules.bounded.WORK`), then a
JSON line. tests/table/test_bounded_turn.py plays the same scenario
(:func:`play_worst`) and asserts the counted work.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.worst import RUN6, RUN7, emit, hunzhan_void_deal
from paiju.common.v1 import common_pb2
from paiju.rules.bounded import WORK
from paiju.runtime.service import GC_THRESHOLDS_OF, tune_gc
from paiju.table.v1 import table_pb2
from tests.table.bots import play_room
from tests.table.conftest import Harness

#: The instance's longest unresponsive gap allowed, ms.
GAP_GOAL_MS = 50.0


class LagMonitor:
    """Wakes every ``tick`` seconds on the running loop and records how much
    later than asked it woke (ms): a gap of the event loop, during which the
    instance answered nobody. ``longest_ms`` is the longest since
    :meth:`reset`; ``longest_cpu_ms`` the most CPU the loop's thread spent
    between two wake-ups (its own work, ``tick`` plus a gap apart: the rest
    of a gap is time the machine gave other processes, on a shared machine
    most of it);
    ``samples`` counts wake-ups."""

    def __init__(self, tick: float = 0.005) -> None:
        self.tick = tick
        self.longest_ms = 0.0
        self.longest_cpu_ms = 0.0
        self.samples = 0
        self._task: asyncio.Task[None] | None = None

    def reset(self) -> None:
        """Forget the gaps so far."""
        self.longest_ms = 0.0
        self.longest_cpu_ms = 0.0
        self.samples = 0

    async def _run(self) -> None:
        while True:
            asked, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(self.tick)
            late = (time.perf_counter() - asked - self.tick) * 1000
            self.samples += 1
            self.longest_ms = max(self.longest_ms, late)
            self.longest_cpu_ms = max(self.longest_cpu_ms, (time.thread_time() - cpu) * 1000)

    def __enter__(self) -> LagMonitor:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._task is not None:
            self._task.cancel()


@dataclass
class WorstRun:
    """What one run of :func:`play_worst` saw."""

    hints_calls: int = 0
    hints_replies: list[list[common_pb2.Action]] = field(default_factory=list)
    #: candidate plays built from the lead on (turn events, views, hints)
    plays_built: int = 0
    #: accepted actions of each other game
    accepted: list[int] = field(default_factory=list)
    #: plays built for the timeout's default action
    timeout_plays_built: int = 0
    #: the asked seat's play when its clock ran out
    timeout_play: list[str] = field(default_factory=list)
    view_after: dict[str, Any] = field(default_factory=dict)
    longest_gap_ms: float = 0.0
    longest_gap_cpu_ms: float = 0.0
    lag_samples: int = 0


async def play_worst(h: Harness, run: str | None, tag: str = "b",
                     lag: LagMonitor | None = None) -> WorstRun:
    """Play the scenario on harness ``h``: with ``run`` (RUN7, RUN6) the hunzhan
    void follower is asked for hints while two doudizhu games and a daa game
    are played to their end, then its clock runs out; with ``run`` None the
    other games alone (a doudizhu seat asked). ``tag`` keeps the players of
    repeated runs apart. ``lag``'s longest gap is taken over the whole run."""
    hz = [f"{tag}z{i}" for i in range(4)]
    others = [("doudizhu", [f"{tag}d{i}" for i in range(3)]),
              ("doudizhu", [f"{tag}e{i}" for i in range(3)]),
              ("daa", [f"{tag}a{i}" for i in range(5)])]
    await h.open(hz + [p for _, ps in others for p in ps], 100_000)
    out = WorstRun()
    room, asked = "", ""
    if run is not None:
        room, _ = await h.create("hunzhan", hz, deal=hunzhan_void_deal(run), options={
            "deal_interval_ms": 0, "declare_grace_seconds": 1, "turn_seconds": 600})
        h.clock.advance(0.001)  # the deal, at once (deal_interval_ms 0)
        await h.wait(lambda: any(e["type"] == "dealing" and e["done"]
                                 for e in h.public(room)), "the deal done")
        assert (await h.act(room, hz[0], "declare", ["TS"])).ok
        h.clock.advance(1.001)  # the grace window
        await h.wait_event(room, "declaring_closed")
        asked = hz[1]
    if lag is not None:
        lag.reset()
    WORK.plays = 0  # from the lead on: the follower's turn events, view, hints
    if run is not None:
        assert (await h.act(room, hz[0], "play", run.split())).ok
        assert (await h.view(room, asked))["to_act"] == [1]
    rooms = []
    for game, ps in others:
        other, _ = await h.create(game, ps, options={"deal_interval_ms": 0,
                                                     "turn_seconds": 600})
        rooms.append((other, ps))
    if run is None:
        room, asked = rooms[0][0], rooms[0][1][0]
    done = asyncio.Event()

    async def ask_hints() -> None:
        while not done.is_set():
            try:
                reply = await h.stub.Hints(table_pb2.ViewRequest(room=room, player=asked))
            except Exception:
                if run is None:  # the baseline's room may end before the others
                    return
                raise
            out.hints_replies.append(list(reply.actions))
            out.hints_calls += 1
            await asyncio.sleep(0)

    async def play_others() -> list[int]:
        try:
            return await asyncio.gather(*(play_room(h.stub, h.clock, r, ps, random.Random(i),
                                                    grace=0.5)
                                          for i, (r, ps) in enumerate(rooms)))
        finally:
            done.set()

    asker = asyncio.create_task(ask_hints())
    out.accepted = await play_others()
    await asker
    out.plays_built = WORK.plays
    if run is not None:
        out.view_after = await h.view(room, asked)
        # The clock runs out: the default action is computed directly.
        WORK.plays = 0
        h.clock.advance(600.001)
        await h.wait(lambda: any(e["type"] == "played" and e["seat"] == 1
                                 for e in h.public(room)), "seat 1's timeout play")
        played = next(e for e in h.public(room) if e["type"] == "played" and e["seat"] == 1)
        out.timeout_play = list(played["cards"])
        out.timeout_plays_built = WORK.plays
    if lag is not None:
        out.longest_gap_ms, out.lag_samples = round(lag.longest_ms, 2), lag.samples
        out.longest_gap_cpu_ms = round(lag.longest_cpu_ms, 2)
    return out


RUNS = (("baseline: other games alone", None), ("hunzhan void vs 7-pair run", RUN7),
        ("hunzhan void vs 6-pair run", RUN6))


async def bench(untuned: bool = True) -> dict[str, Any]:
    """The three runs on one table instance, first (``untuned``) with
    CPython's own collector settings, then with the services' (``tune_gc``,
    as a service process has once it serves); their figures."""
    from tests.fixtures import NatsServer
    from tests.table.conftest import harness_running

    nats = NatsServer()
    nats.start()
    results: dict[str, Any] = {"goal_ms": GAP_GOAL_MS, "runs": {}}
    phases = (["gc untuned", "gc tuned"] if untuned else ["gc tuned"])
    try:
        with tempfile.TemporaryDirectory(prefix="paiju-worst-table-") as tmp:
            async with harness_running(nats.url, Path(tmp)) as h:
                n = 0
                for phase in phases:
                    if phase == "gc tuned":
                        tune_gc(GC_THRESHOLDS_OF["table"])  # as a table instance does
                    with LagMonitor() as lag:
                        for label, run in RUNS:
                            n += 1
                            cpu = time.process_time()
                            r = await play_worst(h, run, tag=f"w{n}", lag=lag)
                            row = {"longest_gap_ms": r.longest_gap_ms,
                                   "longest_gap_cpu_ms": r.longest_gap_cpu_ms,
                                   "lag_samples": r.lag_samples,
                                   "hints_calls": r.hints_calls, "plays_built": r.plays_built,
                                   "timeout_plays_built": r.timeout_plays_built,
                                   "other_games_actions": sum(r.accepted),
                                   "cpu_seconds": round(time.process_time() - cpu, 2),
                                   "ratio_to_goal": round(r.longest_gap_ms / GAP_GOAL_MS, 3)}
                            key = label if phase == "gc tuned" else f"{label} ({phase})"
                            results["runs"][key] = row
                            print(f"  {phase:10} {label:28} longest gap "
                                  f"{r.longest_gap_ms:7.2f} ms (goal ≤ {GAP_GOAL_MS:.0f}, "
                                  f"ratio {row['ratio_to_goal']:.2f}; at most "
                                  f"{r.longest_gap_cpu_ms:.2f} ms of the loop's own CPU "
                                  f"between two wake-ups); {r.hints_calls} hints calls, "
                                  f"{r.plays_built} plays built, "
                                  f"{row['timeout_plays_built']} for the timeout; "
                                  f"{row['other_games_actions']} actions of the other games",
                                  flush=True)
    finally:
        nats.stop()
    return results


def main(argv: list[str] | None = None) -> int:
    """Run and print (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    emit(asyncio.run(bench()), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
