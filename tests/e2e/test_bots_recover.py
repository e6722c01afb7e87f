"""``paiju bots`` recovers as a player's client should: a bot whose gateway
dies mid-game signs in at the next gateway of its list and carries on from its
view (no ``room_started`` death), and a gap in the events' ``seq`` makes it
ask for its view. Real processes: NATS, the four services, a second gateway."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
from typing import Any

import pytest

from paiju.table.v1 import table_pb2, table_pb2_grpc
from paiju.tools.bots import Bot, Stats, run_bots
from tests.fixtures import (
    free_port,
    service_channel,
    start_service_process,
    stop_process,
    wait_for_port,
)
from tests.fixtures import wait_health as wait_serving
from tests.platform_procs import Platform, running_platform

pytestmark = pytest.mark.timeout(600)


async def running_games(addr: str) -> list[table_pb2.GameSummary]:
    async with service_channel(addr) as ch:
        reply = await table_pb2_grpc.TableServiceStub(ch).ListGames(
            table_pb2.ListGamesRequest(), timeout=5)
    return list(reply.games)


async def kill_mid_game(p: Platform, second: subprocess.Popen[bytes],
                        urls: list[str]) -> dict[str, Any]:
    """Bots play two doudizhu games starting on ``urls[0]``; the gateway
    ``second`` is SIGKILLed once the first game is under way."""
    bots = asyncio.create_task(run_bots(urls, ["doudizhu"], 2, 1, (0.2, 0.4), seed=3,
                                        show_progress=False))
    deadline = time.monotonic() + 120
    while not any(g.seq >= 8 for g in await running_games(p.addr("table"))):
        assert not bots.done(), bots.result()
        assert time.monotonic() < deadline, "no game got under way"
        await asyncio.sleep(0.2)
    os.kill(second.pid, signal.SIGKILL)  # mid-game: bidding done or nearly
    return await asyncio.wait_for(bots, timeout=400)


def test_bots_move_to_another_gateway_mid_game_and_finish() -> None:
    with running_platform() as p:
        port, grpc_port, metrics_port = free_port(), free_port(), free_port()
        env = p.env("gateway", {}) | {"PAIJU_GATEWAY_PORT": str(port),
                                      "PAIJU_GRPC_PORT": str(grpc_port),
                                      "PAIJU_METRICS_PORT": str(metrics_port)}
        second = start_service_process("gateway", env, p.data / "gateway-2.log")
        try:
            asyncio.run(wait_serving(f"127.0.0.1:{grpc_port}", timeout=60, proc=second))
            wait_for_port(port)
            # bots are spread over the list: seats 0 and 2 start on the second gateway
            summary = asyncio.run(kill_mid_game(p, second,
                                                [f"ws://127.0.0.1:{port}/ws", p.gateway_url]))
        finally:
            stop_process(second)
    assert summary["games_finished"] == {"doudizhu": 2}
    assert summary["reconnects"] >= 2  # both bots of the killed gateway came back
    assert "room_started" not in summary["errors"]
    assert set(summary["errors"]) <= {"ConnectionError", "ConnectionClosedError",
                                      "ConnectionRefusedError", "OSError"}, summary


def quiet_bot() -> Bot:
    return Bot("ws://127.0.0.1:1/ws", "b", "doudizhu", "r", 1, 1, (0.0, 0.0), Stats(),
               random.Random(1))


async def test_a_gap_in_the_public_seq_asks_for_the_view() -> None:
    bot = quiet_bot()
    for seq in (1, 2, 3):
        bot._on_event({"type": "played", "seq": seq, "game_id": "g1", "seat": 0})
    assert not bot.need_view
    bot._on_event({"type": "passed", "seq": 5, "game_id": "g1", "seat": 2})  # 4 is missing
    assert bot.need_view
    # a view starts again from its numbers, and gives the turn where the bot is to act
    bot._on_event({"type": "view", "seq": 6, "player_seq": 9, "game_id": "g1",
                   "to_act": [1], "phase": "playing"})
    assert not bot.need_view and bot.my_turn is not None
    bot._on_event({"type": "played", "seq": 7, "game_id": "g1", "seat": 1})
    assert not bot.need_view


async def test_a_gap_in_the_private_seq_asks_for_the_view_and_a_new_game_starts_over() -> None:
    bot = quiet_bot()
    bot._on_event({"type": "hand", "seq": 1, "game_id": "g1", "cards": []})
    bot._on_event({"type": "your_turn", "seq": 3, "game_id": "g1", "phase": "bidding"})
    assert bot.need_view
    bot = quiet_bot()
    bot._on_event({"type": "played", "seq": 40, "game_id": "g1", "seat": 0})
    bot._on_event({"type": "game_started", "seq": 1, "game_id": "g2"})  # a new game
    bot._on_event({"type": "turn", "seq": 2, "game_id": "g2", "seat": 0})
    assert not bot.need_view
