"""Random legal bots that play through the table service's RPCs only:
GetView (whose turn, which phase) and Hints (the legal actions), then Act."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import grpc

from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.table.application.clock import FakeClock

T = TypeVar("T")
R = TypeVar("R")

#: How long a bot goes on asking while the table answers UNAVAILABLE (seconds).
UNAVAILABLE_FOR = 60.0


async def answered(method: Callable[[R], Awaitable[T]], request: R) -> T:
    """``method(request)``, asked again after a pause while it fails UNAVAILABLE (as a
    client does when the gateway answers ``unavailable``, "try again"): an
    instance whose lease renewal was late under load refuses until it is
    renewed (services.table.application.runner ``owned``), then goes on."""
    waited, pause = 0.0, 0.05
    while True:
        try:
            return await method(request)
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE or waited >= UNAVAILABLE_FOR:
                raise
        await asyncio.sleep(pause)
        waited += pause
        pause = min(pause * 2, 1.0)


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
    first = table_pb2.ViewRequest(room=room, player=players[0])
    for _ in range(max_steps):
        try:
            reply = await answered(stub.GetView, first)
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
            ask = table_pb2.ViewRequest(room=room, player=player)
            hints = (await answered(stub.Hints, ask)).actions
            if not hints:
                await asyncio.sleep(0.002)
                continue
            seq += 1
            act = table_pb2.ActRequest(room=room, player=player, client_seq=seq,
                                       action=rng.choice(list(hints)))
            answer = await answered(stub.Act, act)
            accepted += answer.ok
            continue
        if view["dealing"]["done"] and view.get("declaring_until") is not None:
            if view["game_id"] not in declared_in:
                declared_in.add(view["game_id"])
                if rng.random() < declare_p:
                    for player in rng.sample(list(players), len(players)):
                        ask = table_pb2.ViewRequest(room=room, player=player)
                        hints = (await answered(stub.Hints, ask)).actions
                        declares = [a for a in hints if a.type == "declare"]
                        if declares:
                            seq += 1
                            act = table_pb2.ActRequest(room=room, player=player,
                                                       client_seq=seq,
                                                       action=rng.choice(declares))
                            answer = await answered(stub.Act, act)
                            accepted += answer.ok
                            break
            clock.advance(grace + 0.001)
        await asyncio.sleep(0.002)
    raise AssertionError(f"room {room} did not finish in {max_steps} steps")
