"""A table instance stopped (SIGSTOP) past its lease, while another instance
took its game over and the game went on there, must not answer for that game
once it runs again: its GetView, Hints and PlayerReconnected (whose reply
is the player's view) are refused (``UNAVAILABLE``: the
caller asks where the game is) instead of answered from the state it held
when it stopped. Leases of 1 s."""

from __future__ import annotations

import signal
from pathlib import Path

import grpc
import pytest

from paiju.table.v1 import table_pb2
from tests.fixtures import NatsServer
from tests.table.cluster import SEATS, cluster_running, play

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


async def test_a_stopped_owner_answers_no_view_of_a_game_taken_over(
        nats_process: NatsServer, tmp_path: Path) -> None:
    async with cluster_running(nats_process, tmp_path) as cl:
        a = await cl.start("ta")
        b = await cl.start("tb")
        ps = [f"stale{i}" for i in range(SEATS["doudizhu"])]
        await cl.open(ps)
        room, _ = await cl.create(a.addr, "doudizhu", ps)
        assert await play(cl, room, a.addr, ps, until=lambda kind: kind == "call")
        stopped_at = (await cl.view(room, a.addr, ps[0]))["seq"]
        cl.signal("ta", signal.SIGSTOP)
        try:
            await cl.wait(lambda: cl.owner(room, a.addr) == b.addr, "game_moved")
            # The game goes on at its new owner.
            assert await play(cl, room, a.addr, ps, until=lambda kind: True)
            assert (await cl.view(room, a.addr, ps[0]))["seq"] > stopped_at
        finally:
            cl.signal("ta", signal.SIGCONT)
        view = table_pb2.ViewRequest(room=room, player=ps[0])
        back = table_pb2.PlayerRequest(room=room, player=ps[0])
        for rpc, request in (("GetView", view), ("Hints", view),
                             ("PlayerReconnected", back)):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await getattr(cl.stub(a.addr), rpc)(request, timeout=5)
            assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE,
                                            grpc.StatusCode.NOT_FOUND), rpc
