"""End to end: a practice server (练习场) through the real platform. A player
sits in a practice room; the lobby asks the AI pool (``paiju ai --pool``'s
:class:`~paiju.tools.ai_worker.AiPool`, over NATS as the ``ai`` user) for
the free seats, and AI players (marked ``ai``) take them at once and press
start; the player presses start and the game is played to its end. No coin
moves (docs/lobby.md "Coin servers and rooms": a practice server's games are
not settled by the ledger, its settlement rows have 0 coins), and once the
player stands up the AIs stand up too and the room is free again. On a coin
server with ``ai_fill_after_s``, a player waiting alone gets AI players after
that wait and the game's settlement moves coins as on any coin server; a
wait lost with a killed lobby process, while no AI pool ran, is asked for
again by the restarted lobby."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from paiju.security import natsauth
from paiju.tools.ai_worker import AiPool
from paiju.tools.bots import Bot, Client, Stats
from tests.fixtures import start_service_process, wait_health
from tests.platform_procs import Platform, rooms_env, running_platform

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

PRACTICE = "doudizhu-practice"
PLAYER = "练习者"
#: A coin server whose waiting rooms are filled with AI players after 1 s.
FILL = "doudizhu-fill"
FILL_ROOMS = f"""
servers:
  - {{server: {FILL}, name: 斗地主 10 金币场, game: doudizhu, base: 10, min_coins: 200,
     rooms: 1, ai_fill_after_s: 1}}
"""


#: The same with a 2 s wait, for the lobby restarted inside it.
SLOW_FILL_ROOMS = FILL_ROOMS.replace("ai_fill_after_s: 1", "ai_fill_after_s: 2")


async def start_pool(p: Platform) -> AiPool:
    """A pool of two 斗地主 AIs (``机器人1``, ``机器人2``) answering the lobby."""
    assert p.nats.creds is not None
    seed = natsauth.seed_path(p.nats.creds, "ai").read_text().strip()
    pool = AiPool(p.gateway_url, "doudizhu", 2, think=(0.0, 0.02), prefix="机器人", seed=5)
    await pool.start(p.nats.address, nkeys_seed_str=seed,
                     inbox_prefix=natsauth.inbox_prefix("ai"))
    return pool


async def signed_in(p: Platform, name: str) -> tuple[Client, dict[str, Any]]:
    """A client signed in as ``name`` and its ``login`` reply."""
    client = Client(p.gateway_url, lambda ev: None)
    await client.connect()
    return client, await client.call("login", name=name)


async def coins_of(p: Platform, name: str) -> int:
    client, reply = await signed_in(p, name)
    await client.close()
    return int(reply["coins"])


async def room_now(client: Client, server: str) -> dict[str, Any]:
    rooms = (await client.call("rooms", server=server))["rooms"]
    return next(r for r in rooms if r["room"] == f"{server}-01")


async def wait_for(client: Client, server: str, ok: Any, what: str,
                   seconds: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        room = await room_now(client, server)
        if ok(room):
            return room
        assert time.monotonic() < deadline, f"{what}: {room}"
        await asyncio.sleep(0.1)


async def play_against_the_pool(p: Platform, server: str) -> dict[str, Any]:
    """A player sits at seat 0 of ``server``'s first room with an AI pool of
    two 斗地主 AIs listening, plays one game and stands up; what it saw."""
    pool = await start_pool(p)
    out: dict[str, Any] = {"coins_before": await coins_of(p, PLAYER)}
    stats = Stats()
    player = Bot(p.gateway_url, PLAYER, "doudizhu", f"{server}-01", 0, 1, (0.0, 0.02), stats,
                 random.Random(3))
    await asyncio.wait_for(player.run(), timeout=120)
    out["games"] = dict(stats.games)
    probe, _ = await signed_in(p, "旁观者")
    try:
        # The player stays seated (gone, not yet stood up by the lobby): the
        # room shows its seats and the game's result.
        out["after_game"] = await wait_for(probe, server, lambda r: r["last_result"] is not None,
                                           "the room has the game's result")
        out["coins_after"] = await coins_of(p, PLAYER)
        me, _ = await signed_in(p, PLAYER)
        await me.call("stand")
        await me.close()
        out["freed"] = await wait_for(probe, server, lambda r: not r["seats"],
                                      "the AIs stand up once no player is seated")
    finally:
        await probe.close()
    out["summary"] = await pool.stop()
    out["ai_coins"] = [await coins_of(p, f"机器人{i}") for i in (1, 2)]
    out["free"] = sorted(pool.free)
    return out


def check_ai_game(out: dict[str, Any]) -> None:
    """One game played, the AIs marked at seats 1 and 2, free again after."""
    assert out["games"] == {"doudizhu": 1}
    seats = {s["seat"]: (s["name"], s["ai"]) for s in out["after_game"]["seats"]}
    assert seats == {0: (PLAYER, False), 1: ("机器人1", True), 2: ("机器人2", True)}
    assert out["summary"]["actions"] > 0 and not out["summary"]["errors"], out["summary"]
    assert out["free"] == ["机器人1", "机器人2"]
    assert out["freed"]["state"] == "idle"


def test_ai_players_fill_a_practice_room_and_no_coin_moves() -> None:
    with running_platform() as p:
        out = asyncio.run(play_against_the_pool(p, PRACTICE))
        room = out["after_game"]
        record = p.stored_record(room["last_result"]["record_id"])
    check_ai_game(out)
    # No coin moved: the result and the record have 0 coins and 0 fee, the
    # player's and the AIs' balances are the development grant they started with.
    rows = room["last_result"]["settlement"]
    assert len(rows) == 3 and all(r["coins"] == 0 and r["fee"] == 0 for r in rows), rows
    assert any(r["points"] != 0 for r in rows), "the game had a winner"
    assert all(r["coins"] == 0 and r["fee"] == 0 for r in record["settlement"])
    assert out["coins_after"] == out["coins_before"]
    assert out["ai_coins"] == [out["coins_before"]] * 2


def test_a_coin_server_fills_a_waiting_room_with_ai_players_after_its_wait(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """``ai_fill_after_s: 1``: the lone player gets two AI players; the game
    is settled by the ledger: every balance moved by its settlement row."""
    with running_platform(rooms_env(tmp_path_factory, FILL_ROOMS)) as p:
        out = asyncio.run(play_against_the_pool(p, FILL))
    check_ai_game(out)
    rows = {r["seat"]: r for r in out["after_game"]["last_result"]["settlement"]}
    assert any(r["coins"] != 0 for r in rows.values()), rows
    start = out["coins_before"]
    assert out["coins_after"] == start + rows[0]["coins"]
    assert out["ai_coins"] == [start + rows[1]["coins"], start + rows[2]["coins"]]


async def sit_then_restart_the_lobby(p: Platform, extra_env: dict[str, str]) -> dict[str, Any]:
    """The player sits in the fill server's first room with no AI pool
    running; the lobby is SIGKILLed inside the 2 s wait and started again;
    then a pool starts. The room as the AIs sat, and once they stood up."""
    me, _ = await signed_in(p, PLAYER)
    out: dict[str, Any] = {}
    try:
        await me.call("sit", room=f"{FILL}-01", seat=0)
        p.procs["lobby"].kill()
        p.procs["lobby"].wait()
        p.procs["lobby"] = start_service_process("lobby", p.env("lobby", extra_env),
                                                 p.data / "lobby-restarted.log")
        await wait_health(p.addr("lobby"), timeout=60, proc=p.procs["lobby"])
        pool = await start_pool(p)
        try:
            out["filled"] = await wait_for(me, FILL, lambda r: len(r["seats"]) == 3,
                                           "the AIs take the free seats", seconds=30)
            await me.call("stand")
            out["freed"] = await wait_for(me, FILL, lambda r: not r["seats"],
                                          "the AIs stand up once no player is seated")
        finally:
            await pool.stop()
    finally:
        await me.close()
    return out


def test_a_fill_wait_lost_with_the_lobby_is_asked_for_again(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The wait that was under way in the killed lobby process is gone; the
    restarted lobby's background pass finds the room waiting with a player
    and asks the pool, now running, for its two free seats."""
    extra = rooms_env(tmp_path_factory, SLOW_FILL_ROOMS)
    with running_platform(extra) as p:
        out = asyncio.run(sit_then_restart_the_lobby(p, extra))
    seats = {s["seat"]: (s["name"], s["ai"]) for s in out["filled"]["seats"]}
    assert seats == {0: (PLAYER, False), 1: ("机器人1", True), 2: ("机器人2", True)}
    assert out["freed"]["state"] == "idle"
