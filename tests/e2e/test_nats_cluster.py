"""The platform on a real three-node NATS cluster loses a node and goes on.

The whole platform as real processes (two table instances, the game log and
the leases at three replicas, ``PAIJU_GAME_LOG_REPLICAS=3`` as the production
overlay sets it) on three ``nats-server`` nodes with routes on loopback
(:class:`tests.nats_cluster.NatsCluster`, every service given every node).
Bots play doudizhu and hunzhan; once every game is under way the node that
is JetStream's meta leader (as its monitoring endpoint ``/jsz`` says) is
SIGKILLed, then started again; then the node leading the game log's stream
is SIGKILLed and started again. Every game finishes with no error seen by a
player (none refused a start), each game is settled once and its record
replays to its result. What players saw is printed: the longest wait a bot
saw between two events of one game, and the public ``seq`` gaps and repeats
that reached the bots (each gap repaired by the bot's ``view``; the
platform does not repair them itself yet)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from paiju.tools.bots import run_bots
from paiju.tools.nats_cluster import stream_leaders
from paiju.tools.replay import replay
from services.table.adapters.gamelog import STREAM_PREFIX
from tests.nats_cluster import HOST, NatsCluster
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

#: Tables of each game the bots play (a game each).
TABLES = 3
GAMES = ["doudizhu", "hunzhan"]
#: Seconds a killed node stays down before it is started again.
DOWN_SECONDS = 4.0


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql).fetchall())


def running_games(p: Platform) -> int:
    """Rooms whose game has started, as the lobby's database says."""
    return len(rows(p.data / "lobby.db", "SELECT room FROM lobby_rooms WHERE state = 'started'"))


async def kill_and_restart(cluster: NatsCluster, name: str) -> None:
    """SIGKILL node ``name``, wait :data:`DOWN_SECONDS`, start it again."""
    cluster.kill(name)
    await asyncio.sleep(DOWN_SECONDS)
    cluster.start_node(name)


async def faults(p: Platform, cluster: NatsCluster) -> list[str]:
    """Once games run: kill the meta leader, then the game log's stream leader
    (each restarted); returns what was killed."""
    deadline = time.monotonic() + 90
    while running_games(p) < TABLES * len(GAMES):
        assert time.monotonic() < deadline, "the games did not all start"
        await asyncio.sleep(0.5)
    await asyncio.sleep(3)  # the games are under way
    killed = []
    meta = cluster.wait_leader()
    killed.append(f"meta leader {meta}")
    await kill_and_restart(cluster, meta)
    cluster.wait_leader()
    await asyncio.sleep(3)
    leaders: dict[str, str] = {}
    for _ in range(50):
        leaders = stream_leaders(HOST, cluster.live_nodes(), STREAM_PREFIX)
        if leaders:
            break
        await asyncio.sleep(0.2)
    assert len(leaders) == 1, f"the game log's stream and its leader: {leaders}"
    (stream,) = leaders.values()
    killed.append(f"stream leader {stream}")
    await kill_and_restart(cluster, stream)
    return killed


async def play(p: Platform) -> tuple[dict[str, Any], list[str]]:
    assert isinstance(p.nats, NatsCluster)
    bots = asyncio.create_task(run_bots(p.gateway_url, GAMES, 1, TABLES, (0.3, 0.8), seed=5,
                                        show_progress=False))
    try:
        killed = await faults(p, p.nats)
        summary = await asyncio.wait_for(bots, 300)
    finally:
        bots.cancel()
    return summary, killed


def test_games_go_on_through_a_meta_leader_and_a_stream_leader_loss() -> None:
    with running_platform(extra_env={"GAME_LOG_REPLICAS": "3"}, replicas={"table": 2},
                          nats_nodes=3) as p:
        summary, killed = asyncio.run(play(p))
        print(f"killed: {killed}; longest wait between two events of a game: "
              f"{summary['longest_wait_s']} s; seq gaps {summary['seq_gaps']}, repeats "
              f"{summary['seq_repeats']}; summary: {summary}")
        assert summary["games_finished"] == {g: TABLES for g in GAMES}, summary
        assert summary["errors"] == {}, summary
        records = rows(p.data / "table.db",
                       "SELECT game_id, reason, record_json FROM table_game_records")
        finished = [gid for gid, reason, _ in records if reason != "redeal"]
        assert len(finished) == TABLES * len(GAMES) == len(set(finished)), records
        settled = Counter(ref for (ref,) in rows(
            p.data / "ledger.db",
            "SELECT reference FROM ledger_transactions WHERE kind = 'settle'"))
        assert {gid: settled[gid] for gid in finished} == {gid: 1 for gid in finished}
        for _gid, _reason, text in records:
            assert replay(json.loads(text))["finished"]
