"""A table instance pinned busy meets no retry storm (real processes): bots
play doudizhu at four tables while the only table instance gets a twentieth
of the CPU time for 8 s (SIGSTOPped for 950 ms of every second, as a process
starved by a noisy neighbour is: acts then take up to a second).

- The table receives no more calls per second through the fault and the 5 s
  after it than before it, plus a tenth (the retry budget): the players'
  clients wait for their answers instead of asking again, and nobody retries
  into the slow instance (Google SRE, "Handling Overload").
- Every player gets answers: no ``unavailable``, no dropped connection, only
  the refusals of moves that raced the game.
- Within 10 s after the fault a fresh sign-in is answered in under 1 s, and
  every game finishes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bench.load_report import RACES
from paiju.tools.bots import run_bots
from tests.gateway.test_overload import fresh_sign_in
from tests.platform_procs import Platform, running_platform

pytestmark = pytest.mark.timeout(400)

#: Tables of bots, the seconds they play for, and the fault's shape.
TABLES, PLAY_SECONDS = 4, 30
CALM_SECONDS, FAULT_SECONDS, AFTER_SECONDS = 10.0, 8.0, 5.0
STOPPED_S, PERIOD_S = 0.95, 1.0


def table_calls(p: Platform) -> float:
    """RPCs the table instance has started so far (every method)."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{p.metrics['table']}/metrics",
                                  timeout=10).read().decode()
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
               if s.name == "grpc_server_started_total")


async def pin_busy(pid: int, seconds: float) -> None:
    """Let ``pid`` run only ``1 - STOPPED_S / PERIOD_S`` of the time for ``seconds``."""
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            os.kill(pid, signal.SIGSTOP)
            await asyncio.sleep(STOPPED_S)
            os.kill(pid, signal.SIGCONT)
            await asyncio.sleep(PERIOD_S - STOPPED_S)
    finally:
        os.kill(pid, signal.SIGCONT)


async def starve(p: Platform) -> tuple[dict[str, object], float, float, float]:
    """Bots play; the table is pinned busy once the games are under way: the
    bots' summary, the calm and the fault's table calls per second, and how
    long after the fault a fresh sign-in was answered in under 1 s."""
    bots = asyncio.create_task(run_bots(p.gateway_url, ["doudizhu"], None, TABLES, (0.1, 0.3),
                                        seed=11, show_progress=False, duration=PLAY_SECONDS))
    await asyncio.sleep(5.0)  # seated, the first deals under way
    before = table_calls(p)
    await asyncio.sleep(CALM_SECONDS)
    calm = (table_calls(p) - before) / CALM_SECONDS
    before = table_calls(p)
    await pin_busy(p.procs["table"].pid, FAULT_SECONDS)
    ended = time.monotonic()
    while True:
        code, seconds, _ = await fresh_sign_in(p, "starved-after")
        if code == "ok" and seconds < 1.0:
            break
        assert time.monotonic() - ended < 10, (code, seconds)
        await asyncio.sleep(0.2)
    answered_after = time.monotonic() - ended
    await asyncio.sleep(max(0.0, AFTER_SECONDS - answered_after))
    during = (table_calls(p) - before) / (FAULT_SECONDS + max(AFTER_SECONDS, answered_after))
    return await asyncio.wait_for(bots, timeout=300), calm, during, answered_after


def test_a_table_instance_pinned_busy_meets_no_retry_storm() -> None:
    with running_platform() as p:
        summary, calm, during, answered_after = asyncio.run(starve(p))
    assert calm > 0, summary
    # 3 calls a second of slack: the sign-ins above and the deals that start
    assert during <= 1.1 * calm + 3, (during, calm)
    errors = summary["errors"]
    assert isinstance(errors, dict)
    assert set(errors) <= RACES | {"busy"}, summary
    assert answered_after < 10
    games = summary["games_finished"]
    assert isinstance(games, dict) and games.get("doudizhu", 0) >= TABLES, summary
