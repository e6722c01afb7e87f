"""The platform on a real three-node NATS cluster loses a node and goes on.

The whole platform as real processes (two table instances, the game log and
the leases at three replicas, ``PAIJU_GAME_LOG_REPLICAS=3`` as the production
overlay sets it) on three ``nats-server`` nodes with routes on loopback
(:class:`tests.nats_cluster.NatsCluster`, every service given every node).
Bots play doudizhu and hunzhan; once every game is under way the node that
is JetStream's meta leader (as its monitoring endpoint ``/jsz`` says) is
SIGKILLed, then started again; then the node leading the game log's stream
is SIGKILLed and started again. Just after each kill another table of bots
sits down and presses start: its game must start (the lobby looks for a
table instance through the election). Every game finishes with no error
seen by a player (none refused a start), each game is settled once and its
record replays to its result, and no public ``seq`` gap or repeat reached a
bot (the gateway repairs a gap with the client's view and drops a repeat).
What players saw is printed: the longest wait a bot saw between two events
of one game, and the gaps and repeats."""

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
from tests.gateway.test_overload import metric
from tests.nats_cluster import HOST, NatsCluster
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

#: Tables of each game the bots play (a game each).
TABLES = 3
GAMES = ["doudizhu", "hunzhan"]
#: Seconds a killed node stays down before it is started again.
DOWN_SECONDS = 4.0


def seq_repairs(p: Platform) -> dict[str, float]:
    """The gateway's ``paiju_gateway_seq_repairs_total`` by kind."""
    return {kind: metric(p, "gateway", "paiju_gateway_seq_repairs_total", kind=kind)
            for kind in ("gap", "repeat", "reconnect")}


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql).fetchall())


def running_games(p: Platform) -> int:
    """Rooms whose game has started, as the lobby's database says."""
    return len(rows(p.data / "lobby.db", "SELECT room FROM lobby_rooms WHERE state = 'started'"))


#: The game of the table that starts just after each kill.
LATE_GAME = "doudizhu"


async def kill_and_restart(p: Platform, cluster: NatsCluster, name: str,
                           starts: list[asyncio.Task[dict[str, Any]]]) -> None:
    """SIGKILL node ``name``, let a new table of bots start a game (added to
    ``starts``) while it is down, wait :data:`DOWN_SECONDS`, start the node
    again."""
    cluster.kill(name)
    starts.append(asyncio.create_task(run_bots(
        p.gateway_url, [LATE_GAME], 1, 1, (0.3, 0.8), seed=len(starts), show_progress=False)))
    await asyncio.sleep(DOWN_SECONDS)
    cluster.start_node(name)


async def faults(p: Platform, cluster: NatsCluster,
                 starts: list[asyncio.Task[dict[str, Any]]]) -> list[str]:
    """Once games run: kill the meta leader, then the game log's stream leader
    (each restarted, a game started while each is down: ``starts``); returns
    what was killed."""
    deadline = time.monotonic() + 90
    while running_games(p) < TABLES * len(GAMES):
        assert time.monotonic() < deadline, "the games did not all start"
        await asyncio.sleep(0.5)
    await asyncio.sleep(3)  # the games are under way
    killed = []
    meta = cluster.wait_leader()
    killed.append(f"meta leader {meta}")
    await kill_and_restart(p, cluster, meta, starts)
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
    await kill_and_restart(p, cluster, stream, starts)
    return killed


async def play(p: Platform) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    """The bots' summary, the late tables' summaries, what was killed."""
    assert isinstance(p.nats, NatsCluster)
    bots = asyncio.create_task(run_bots(p.gateway_url, GAMES, 1, TABLES, (0.3, 0.8), seed=5,
                                        show_progress=False))
    starts: list[asyncio.Task[dict[str, Any]]] = []
    try:
        killed = await faults(p, p.nats, starts)
        summary = await asyncio.wait_for(bots, 300)
        late = [await asyncio.wait_for(t, 120) for t in starts]
    finally:
        for task in [bots, *starts]:
            task.cancel()
    return summary, late, killed


def test_games_go_on_through_a_meta_leader_and_a_stream_leader_loss() -> None:
    with running_platform(extra_env={"GAME_LOG_REPLICAS": "3"}, replicas={"table": 2},
                          nats_nodes=3) as p:
        summary, late, killed = asyncio.run(play(p))
        print(f"gateway seq repairs: {seq_repairs(p)}")
        print(f"killed: {killed}; longest wait between two events of a game: "
              f"{summary['longest_wait_s']} s; seq gaps {summary['seq_gaps']}, repeats "
              f"{summary['seq_repeats']}; started during the faults: "
              f"{[s['games_finished'] for s in late]}, errors {[s['errors'] for s in late]}, "
              f"gaps {[s['seq_gaps'] for s in late]}, repeats "
              f"{[s['seq_repeats'] for s in late]}; summary: {summary}")
        assert summary["games_finished"] == {g: TABLES for g in GAMES}, summary
        assert summary["errors"] == {}, summary
        assert (summary["seq_gaps"], summary["seq_repeats"]) == (0, 0), summary
        for started in late:  # started while a node was down: none refused
            assert started["games_finished"] == {LATE_GAME: 1}, started
            assert started["errors"] == {}, started
            assert (started["seq_gaps"], started["seq_repeats"]) == (0, 0), started
        records = rows(p.data / "table.db",
                       "SELECT game_id, reason, record_json FROM table_game_records")
        finished = [gid for gid, reason, _ in records if reason != "redeal"]
        assert len(finished) == TABLES * len(GAMES) + len(late) == len(set(finished)), records
        settled = Counter(ref for (ref,) in rows(
            p.data / "ledger.db",
            "SELECT reference FROM ledger_transactions WHERE kind = 'settle'"))
        assert {gid: settled[gid] for gid in finished} == {gid: 1 for gid in finished}
        for _gid, _reason, text in records:
            assert replay(json.loads(text))["finished"]
