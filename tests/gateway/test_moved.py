"""The gateway's routing follows a game that moves: a player's
``act`` sent after its table instance was SIGKILLed is sent again by the
gateway (services/gateway/application/routing.py) to the instance that took the game
over, with the same ``client_seq``: answered ok once; sent again it gets the
same answer and nothing more happens (the log's de-duplication). Real table
processes sharing NATS (JetStream) and a record database
(tests/table/cluster.py); the gateway's Router with real gRPC clients, NATS
fan-out and subscriptions."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import nats
import pytest

from paiju.lobby.v1 import lobby_pb2
from paiju.table.v1 import table_pb2
from services.gateway.adapters.backends import Backends
from services.gateway.adapters.fanout import Fanout
from services.gateway.application.routing import Router
from services.gateway.application.subscriptions import Subscriptions
from tests.fixtures import NatsServer, as_identity
from tests.table.cluster import assert_no_gap, cluster_running, play

OPTIONS: dict[str, Any] = {"deal_interval_ms": 0, "turn_seconds": 600}


@pytest.mark.timeout(120)
async def test_an_act_after_its_instance_died_reaches_the_new_owner_once(
        nats_process: NatsServer, tmp_path: Path) -> None:
    async with cluster_running(nats_process, tmp_path) as cl:
        a = await cl.start("ta")
        b = await cl.start("tb")
        ps = ["mv0", "mv1", "mv2"]
        await cl.open(ps)
        room, gid = await cl.create(a.addr, "doudizhu", ps, options=OPTIONS)
        assert await play(cl, room, a.addr, ps, until=lambda k: k == "call")
        view = await cl.view(room, a.addr, ps[0])
        player = ps[view["to_act"][0]]
        hints = (await cl.stub(a.addr).Hints(table_pb2.ViewRequest(
            room=room, player=player))).actions
        nc = await nats.connect(nats_process.url)
        backends = Backends(cl.lobby_addr, cl.ledger_addr, as_identity("gateway"))
        try:
            router = Router(backends, Subscriptions(nc, Fanout(nc), lambda *_: None),
                            lambda: player)
            await router.seated(lobby_pb2.Room(room=room, state="started",
                                               table_instance=a.addr, server="s1"))
            seen = len(cl.public(room))
            cl.signal("ta", signal.SIGKILL)
            a.proc.wait(timeout=10)

            def act() -> Any:
                return router.table_call("Act", lambda r: table_pb2.ActRequest(
                    room=r, player=player, action=hints[0], client_seq=4242))

            first = await act()
            assert first.ok, first
            assert router.seat is not None and router.seat.table == b.addr
            assert router.retries >= 1
            again = await act()
            assert (again.ok, again.seq) == (True, first.seq)
            after = cl.public(room)[seen:]
            assert next(e["type"] for e in after) == "game_moved"
            # The action's public event, once (bid: a call or rob, or passed).
            assert len([e for e in after if e.get("seat") == view["to_act"][0]
                        and e["type"] in ("bid", "passed", "played")]) == 1, after
            assert_no_gap(cl, room, ps)
            got = json.loads((await cl.stub(b.addr).GetView(table_pb2.ViewRequest(
                room=room, player=ps[0]))).json)
            assert got["game_id"] == gid
        finally:
            await backends.close()
            await nc.close()
