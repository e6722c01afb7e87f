"""A stale owner, SIGTERM handover and a lone instance, with real processes
Leases of 1 s.

- A paused owner (SIGSTOP) whose lease another instance took cannot append
  or publish once resumed (SIGCONT): its action is refused, no event of its
  reaches the clients (no repeated seq), and its log says so.
- SIGTERM of an instance hosting 50 games: it exits within 15 s, every game
  moves to the other instance and finishes, each settled once.
- A lone instance on SIGTERM releases its games and exits; the next instance
  to start takes them over.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import grpc
import pytest

from paiju.table.v1 import table_pb2
from tests.fixtures import NatsServer
from tests.table.cluster import (
    Cluster,
    assert_no_gap,
    cluster_running,
    finals,
    play,
    settlements,
)

OPTIONS = {"turn_seconds": 600}


def moved_to(cl: Cluster, room: str) -> str | None:
    """The address of the room's last game_moved, or None."""
    moves = [e for e in cl.public(room) if e["type"] == "game_moved"]
    return str(moves[-1]["table_instance"]) if moves else None


async def leave_and_check(cl: Cluster, room: str, gid: str, first: str,
                          players: list[str]) -> None:
    """End the game by an escape (seat 0 leaves); one game_finished, no seq
    gap or repeat, one settlement per player."""
    await cl.call(room, first, "Leave", table_pb2.PlayerRequest(room=room, player=players[0]))
    fin = (await cl.wait(lambda: finals(cl, room), f"game_finished in {room}"))[0]
    assert fin["reason"] == "escape" and fin["game_id"] == gid
    assert len(finals(cl, room)) == 1
    assert_no_gap(cl, room, players)
    assert await settlements(cl, players, gid) == [1] * len(players)


@pytest.mark.timeout(120)
async def test_stale_owner_cannot_append_or_publish(nats_process: NatsServer,
                                                    tmp_path: Path) -> None:
    async with cluster_running(nats_process, tmp_path) as cl:
        a = await cl.start("ta")
        b = await cl.start("tb")
        ps = ["st0", "st1", "st2"]
        await cl.open(ps)
        room, gid = await cl.create(a.addr, "doudizhu", ps, options=OPTIONS)
        assert await play(cl, room, a.addr, ps, until=lambda k: k == "call")
        cl.signal("ta", signal.SIGSTOP)
        await cl.wait(lambda: moved_to(cl, room) == b.addr, "game_moved to tb", timeout=30)
        # The game goes on at tb while ta sleeps.
        assert await play(cl, room, a.addr, ps, until=lambda k: True)
        await asyncio.sleep(0.5)
        seen = len(cl.public(room))
        cl.signal("ta", signal.SIGCONT)
        # Straight to the stale owner, an action legal in the game as it knows
        # it: refused, whichever it noticed first (its append fenced off, or
        # the lease held by tb: then it no longer has the game).
        stale = cl.stub(a.addr)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            view = json.loads((await stale.GetView(table_pb2.ViewRequest(
                room=room, player=ps[0]))).json)
            player = ps[view["to_act"][0]]
            hints = (await stale.Hints(table_pb2.ViewRequest(room=room, player=player))).actions
            await stale.Act(table_pb2.ActRequest(room=room, player=player, client_seq=10_000,
                                                 action=hints[0]))
        assert err.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.NOT_FOUND)
        await cl.wait(lambda: "another instance owns it now" in a.text(), "ta's log line")
        assert gid in a.text()
        await asyncio.sleep(1.0)
        # Nothing came from ta: every event since is tb's (no repeated seq).
        assert len(cl.public(room)) == seen
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await cl.stub(a.addr).GetView(table_pb2.ViewRequest(room=room, player=ps[0]))
        assert err.value.code() == grpc.StatusCode.NOT_FOUND
        await leave_and_check(cl, room, gid, a.addr, ps)


@pytest.mark.slow  # about 35 s
@pytest.mark.timeout(240)
async def test_sigterm_hands_50_games_over(nats_process: NatsServer, tmp_path: Path) -> None:
    async with cluster_running(nats_process, tmp_path) as cl:
        a = await cl.start("ta")
        b = await cl.start("tb")
        games: list[tuple[str, str, list[str]]] = []
        for n in range(50):
            ps = [f"h{n}s{i}" for i in range(3)]
            await cl.open(ps)
            room, gid = await cl.create(a.addr, "doudizhu", ps, options=OPTIONS)
            games.append((room, gid, ps))
        for room, _, ps in games[:10]:
            assert await play(cl, room, a.addr, ps, until=lambda k: k == "call")
        started = time.monotonic()
        cl.signal("ta", signal.SIGTERM)
        code = await asyncio.to_thread(a.proc.wait, 15)
        exited = time.monotonic() - started
        assert code == 0 and exited < 15, (code, exited)
        await cl.wait(lambda: all(moved_to(cl, room) == b.addr for room, _, _ in games),
                      "every game moved to tb", timeout=60)
        print(f"50 games: ta exited {exited:.2f}s after SIGTERM; all moved "
              f"{time.monotonic() - started:.2f}s after it")
        # Five are played to the end, the others end by an escape.
        await asyncio.gather(*(play(cl, room, a.addr, ps) for room, _, ps in games[:5]))
        for room, gid, ps in games[:5]:
            fin = (await cl.wait(lambda: finals(cl, room), "game_finished"))[0]  # noqa: B023
            assert fin["game_id"] == gid
            assert_no_gap(cl, room, ps)
            assert await settlements(cl, ps, gid) == [1, 1, 1]
        for room, gid, ps in games[5:]:
            await leave_and_check(cl, room, gid, a.addr, ps)
        assert "took over game" in b.text()


@pytest.mark.timeout(120)
async def test_lone_instance_releases_on_sigterm_and_the_next_takes_over(
        nats_process: NatsServer, tmp_path: Path) -> None:
    async with cluster_running(nats_process, tmp_path) as cl:
        a = await cl.start("ta")
        ps = ["lo0", "lo1", "lo2"]
        await cl.open(ps)
        room, gid = await cl.create(a.addr, "doudizhu", ps, options=OPTIONS)
        assert await play(cl, room, a.addr, ps, until=lambda k: k == "call")
        started = time.monotonic()
        cl.signal("ta", signal.SIGTERM)
        assert await asyncio.to_thread(a.proc.wait, 15) == 0
        assert time.monotonic() - started < 15
        assert moved_to(cl, room) is None
        b = await cl.start("tb")
        await cl.wait(lambda: moved_to(cl, room) == b.addr, "game_moved to tb", timeout=30)
        view = await cl.view(room, a.addr, ps[0])
        assert view["phase"] == "robbing"
        await leave_and_check(cl, room, gid, a.addr, ps)
