"""Replicas without a single point of failure: two lobbies, two
ledgers, two tables and two gateways as real processes, each reaching every
replica of its peers through a comma list (PAIJU_LOBBY_ADDR,
PAIJU_LEDGER_ADDR). One lobby and one ledger are SIGKILLed while a game runs
on each table: those games end settled (each table reached a live ledger)
and released (a live lobby), the games after them start and end too, and
both gateways still sign players in and list rooms."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import time
from collections import Counter
from typing import Any

import pytest

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.table.v1 import table_pb2, table_pb2_grpc
from paiju.tools.bots import Client, run_bots
from tests.fixtures import service_channel
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

REPLICAS = {"lobby": 2, "ledger": 2, "table": 2, "gateway": 2}
#: Games per room and rooms: two rooms, so the least-loaded placement puts
#: one on each table; four games each, so that while a game is under way on
#: each table one of them still has games to place after the kill (a room
#: may start a game or two after the other under load).
GAMES, ROOMS = 4, 2


async def running_games(addr: str) -> list[table_pb2.GameSummary]:
    async with service_channel(addr) as ch:
        reply = await table_pb2_grpc.TableServiceStub(ch).ListGames(
            table_pb2.ListGamesRequest(), timeout=5)
    return list(reply.games)


async def play_and_kill(p: Platform) -> tuple[dict[str, Any], dict[str, int], dict[str, str]]:
    """Bots play on both gateways; once a game is under way on each table,
    lobby-2 and ledger-2 are SIGKILLed. Returns the bots' summary, how many
    games the lobbies had placed when the kill came, and the game under way
    on each table then."""
    bots = asyncio.create_task(run_bots(p.gateway_urls, ["doudizhu"], GAMES, ROOMS,
                                        (0.02, 0.05), seed=7, show_progress=False))
    deadline = time.monotonic() + 180
    while True:
        assert not bots.done(), bots.result()
        assert time.monotonic() < deadline, \
            "no moment with a game under way on each table and a game still to place"
        under_way = {t: [g.game_id for g in await running_games(p.addr(t)) if g.seq >= 8]
                     for t in ("table", "table-2")}
        # the kill must come before a room's last game, so that the surviving
        # lobby places games after it
        if all(under_way.values()) and min(games_started(p, t) for t in under_way) < GAMES:
            break
        await asyncio.sleep(0.2)
    before = {t: games_started(p, t) for t in ("table", "table-2")}
    for name in ("lobby-2", "ledger-2"):
        os.kill(p.procs[name].pid, signal.SIGKILL)
    return (await asyncio.wait_for(bots, timeout=400), before,
            {t: ids[0] for t, ids in under_way.items()})


def games_started(p: Platform, table: str) -> int:
    """How many games the lobbies placed on the table instance ``table``."""
    return len(game_ids(p, table))


def game_ids(p: Platform, table: str) -> set[str]:
    """The games the lobbies placed on ``table`` (their shared games table)."""
    with sqlite3.connect(p.data / "lobby.db") as db:
        rows = db.execute("SELECT game_id, table_instance FROM lobby_games").fetchall()
    return {gid for gid, inst in rows if inst == p.addr(table)}


async def gateway_works(url: str) -> tuple[int, int]:
    """A new player signs in at ``url`` (a development grant: the ledger) and
    lists the rooms of the first server (the lobby); returns (coins, rooms)."""
    client = Client(url, lambda ev: None)
    await client.connect()
    try:
        me = await client.call("login", name=f"after-kill-{url.rsplit(':', 1)[-1][:5]}")
        servers = (await client.call("servers"))["servers"]
        rooms = (await client.call("rooms", server=servers[0]["server"]))["rooms"]
        return int(me.get("coins", 0)), len(rooms)
    finally:
        assert client.ws is not None
        await client.ws.close()


async def audit(addr: str) -> ledger_pb2.AuditResponse:
    async with service_channel(addr) as ch:
        reply: ledger_pb2.AuditResponse = await ledger_pb2_grpc.LedgerServiceStub(ch).Audit(
            ledger_pb2.AuditRequest(), timeout=10)
        return reply


def test_one_lobby_and_one_ledger_killed_while_games_run() -> None:
    with running_platform({"TABLE_DEAL_INTERVAL_MS": "0"}, replicas=REPLICAS) as p:
        summary, before, killed_during = asyncio.run(play_and_kill(p))
        assert p.procs["lobby-2"].poll() == -signal.SIGKILL
        assert p.procs["ledger-2"].poll() == -signal.SIGKILL
        # every game played to its end, none refused by a dead replica; a game
        # ends (game_finished) only once a lobby answered its GameOver
        assert summary["games_finished"] == {"doudizhu": GAMES * ROOMS}, summary
        assert set(summary["errors"]) <= {"unavailable"}, summary
        # games were placed after the kill (by the surviving lobby), each once
        after = {t: games_started(p, t) for t in ("table", "table-2")}
        assert sum(before.values()) < sum(after.values()) == GAMES * ROOMS, (before, after)
        # both gateways still reach a lobby and a ledger
        for url in p.gateway_urls:
            coins, rooms = asyncio.run(gateway_works(url))
            assert coins > 0 and rooms > 0
        # every game settled once, no room left started, the journal sums to zero
        with sqlite3.connect(p.data / "ledger.db") as db:
            settled = Counter(ref for (ref,) in db.execute(
                "SELECT reference FROM ledger_transactions WHERE kind = 'settle'"))
        assert len(settled) == GAMES * ROOMS and set(settled.values()) == {1}
        # the game under way on each table at the kill was settled and ended after it
        for table, game_id in killed_during.items():
            assert any(ref.startswith(game_id) for ref in settled), (table, game_id)
        result = asyncio.run(audit(p.addr("ledger")))
        assert result.ok and result.journal_sum == 0 and not result.mismatched_accounts
        for t in ("table", "table-2"):
            assert asyncio.run(running_games(p.addr(t))) == []
