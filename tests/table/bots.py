"""Random legal bots that play through the table service's RPCs only:
GetView (whose turn, which phase) and Hints (the legal actions), then Act."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence

import grpc

from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.table.application.clock import FakeClock


async def play_room(stub: table_pb2_grpc.TableServiceStub, clock: FakeClock, room: str,
                    players: Sequence[str], rng: random.Random, *, grace: float = 5.0,
                    declare_p: float = 1.0, max_steps: int = 5000) -> int:
    """Play the game in ``room`` (redeals included) until the room is free.

    In a declaring window the bot makes at most one declaration per deal (with
    probability ``declare_p``), then moves ``clock`` past the grace window.
    Returns the number of accepted actions.
    """
    seq = 0
    accepted = 0
    declared_in: set[str] = set()
    for _ in range(max_steps):
        try:
            reply = await stub.GetView(table_pb2.ViewRequest(room=room, player=players[0]))
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return accepted
            raise
        view = json.loads(reply.json)
        if view["phase"] == "finished":
            await asyncio.sleep(0.002)
            continue
        if view["to_act"]:
            player = players[view["to_act"][0]]
            hints = (await stub.Hints(table_pb2.ViewRequest(room=room, player=player))).actions
            if not hints:
                await asyncio.sleep(0.002)
                continue
            seq += 1
            answer = await stub.Act(table_pb2.ActRequest(
                room=room, player=player, client_seq=seq, action=rng.choice(list(hints))))
            accepted += answer.ok
            continue
        if view["dealing"]["done"] and view.get("declaring_until") is not None:
            if view["game_id"] not in declared_in:
                declared_in.add(view["game_id"])
                if rng.random() < declare_p:
                    for player in rng.sample(list(players), len(players)):
                        hints = (await stub.Hints(
                            table_pb2.ViewRequest(room=room, player=player))).actions
                        declares = [a for a in hints if a.type == "declare"]
                        if declares:
                            seq += 1
                            answer = await stub.Act(table_pb2.ActRequest(
                                room=room, player=player, client_seq=seq,
                                action=rng.choice(declares)))
                            accepted += answer.ok
                            break
            clock.advance(grace + 0.001)
        await asyncio.sleep(0.002)
    raise AssertionError(f"room {room} did not finish in {max_steps} steps")
