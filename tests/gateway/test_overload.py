"""A starved lobby does not turn into a retry storm (real processes): the
lobby is SIGSTOPped for 5 s while a game runs and a crowd asks for new work.

- The gateway's calls in flight reach its limit; past it, the commands that
  start new work (lists, sign-ins) are answered ``busy`` with a
  ``retry_after_ms`` at once, and never reach the lobby: the lobby receives
  no more calls than the limit while it stands still.
- The game already running goes on: its player's ``view`` and ``act`` are
  answered while the lobby stands still.
- Within 10 s after the lobby goes on, a fresh sign-in is answered in under 1 s.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from paiju.tools.bots import BotError
from tests.fixtures import sigstop, until
from tests.gateway.test_guarantees import Capture, a_turn, my_turn, seat_three
from tests.platform_procs import Platform, running_platform

pytestmark = pytest.mark.timeout(300)

#: The gateway's limit of calls in flight here (256 by default: a crowd of
#: that many clients from one address would pass the per-address limit).
MAX_CALLS = 8
CROWD = 14


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    with running_platform({"GATEWAY_MAX_CALLS_IN_FLIGHT": str(MAX_CALLS)}) as p:
        yield p


def metric(p: Platform, service: str, name: str, **labels: str) -> float:
    """The sum of the samples ``name`` of ``service``'s metrics with ``labels``."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{p.metrics[service]}/metrics",
                                  timeout=10).read().decode()
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
               if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


async def answer(c: Capture, cmd: str, **args: object) -> tuple[str, float, int | None]:
    """``(code, seconds, retry_after_ms)`` of one command: ``ok`` or its error."""
    start = time.monotonic()
    try:
        await c.client.call_now(cmd, **args)
        return "ok", time.monotonic() - start, None
    except BotError as e:
        return e.code, time.monotonic() - start, e.retry_after_ms


async def fresh_sign_in(p: Platform, name: str) -> tuple[str, float, int | None]:
    """A new connection's ``login``: its answer as :func:`answer` gives it."""
    async with Capture(p.gateway_url) as c:
        return await answer(c, "login", name=name)


async def test_a_stopped_lobby_gets_no_retry_storm_and_the_game_goes_on(
        platform: Platform) -> None:
    players, _room = await seat_three(platform, ["ovl-a", "ovl-b", "ovl-c"])
    crowd = [Capture(platform.gateway_url) for _ in range(CROWD)]
    lobby = platform.procs["lobby"]
    try:
        await a_turn(players)  # the game runs
        for i, c in enumerate(crowd):
            await c.__aenter__()
            await c.login(f"ovl-crowd-{i}")
        calls_before = metric(platform, "lobby", "grpc_server_started_total")
        shed_before = metric(platform, "gateway", "paiju_gateway_shed_total",
                             reason="calls_in_flight")

        sigstop(lobby.pid)
        stopped = time.monotonic()
        try:
            # The crowd asks the lobby for its rooms, all at once: MAX_CALLS
            # of them wait for it, the others are told busy at once.
            asked = [asyncio.create_task(answer(c, "rooms", server="doudizhu-10"))
                     for c in crowd]
            await until(lambda: sum(t.done() for t in asked) >= CROWD - MAX_CALLS,
                        "the refusals", timeout=2)
            quick = [t.result() for t in asked if t.done()]
            assert all(code == "busy" for code, _, _ in quick), quick
            assert all(seconds < 1.0 and after == 2000 for _, seconds, after in quick), quick
            # A newcomer is turned away too, at once.
            code, seconds, after = await fresh_sign_in(platform, "ovl-late")
            assert (code, after) == ("busy", 2000) and seconds < 1.0
            # The game goes on: its views and the turn holder's play.
            assert (await answer(players[0], "view"))[0] == "ok"
            holder = players[await a_turn(players)]  # whose turn it is now
            turn = my_turn(holder)
            assert turn is not None
            code, seconds, _ = await answer(holder, "act", action=turn["hints"][0])
            assert code == "ok" and seconds < 2.0, (code, seconds)
            await asyncio.sleep(max(0.0, 5.0 - (time.monotonic() - stopped)))
        finally:
            os.kill(lobby.pid, signal.SIGCONT)
        resumed = time.monotonic()
        waited = [await t for t in asked]
        assert sum(code == "busy" for code, _, _ in waited) >= CROWD - MAX_CALLS

        # Within 10 s, a fresh sign-in answered in under 1 s.
        sign_ins = 0
        while True:
            sign_ins += 1
            code, seconds, _ = await fresh_sign_in(platform, "ovl-after")
            if code == "ok" and seconds < 1.0:
                break
            assert time.monotonic() - resumed < 10, (code, seconds)
            await asyncio.sleep(0.2)
        assert time.monotonic() - resumed < 10

        # No storm: while it stood still the lobby was sent no more calls than
        # the limit; each sign-in after it went on asks it at most 3 questions.
        calls = metric(platform, "lobby", "grpc_server_started_total") - calls_before
        assert calls <= MAX_CALLS + 3 * sign_ins, (calls, sign_ins)
        shed = metric(platform, "gateway", "paiju_gateway_shed_total",
                      reason="calls_in_flight") - shed_before
        assert shed >= CROWD - MAX_CALLS + 1
    finally:
        for c in [*players, *crowd]:
            await c.__aexit__()
