"""The hunzhan worst position (a void follower facing a 7-pair run: 116,280
legal follows) played through a running table service while other games run
on the same instance (issue 19, "Bounded engine work").

Work is counted, not timed: the candidate plays the engines' lazy generators
build (:data:`paiju.rules.bounded.WORK`; the table runs in this process) stay
within 50 per hints or view call, and nothing for the timeout's default
action; the other games' actions are answered while the seat is on its turn.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from bench.worst import RUN7, hunzhan_void_deal
from paiju.common.v1 import common_pb2
from paiju.rules.bounded import HINT_PLAYS, WORK
from paiju.table.v1 import table_pb2
from tests.table.bots import play_room
from tests.table.conftest import Harness

#: seat 1's lowest follow (rulings.md "Shared"): the 12 clubs and diamonds, then
#: the two lowest trumps (spades are trump).
LOWEST = ["7C", "7D", "8C", "8D", "9C", "9D", "JC", "JD", "QC", "QD", "AC", "AD", "7S", "8S"]


@pytest.mark.timeout(120)
async def test_hunzhan_worst_position_through_the_table(harness: Harness) -> None:
    h = harness
    hz = [f"bz{i}" for i in range(4)]
    others = [("doudizhu", [f"bd{i}" for i in range(3)]),
              ("doudizhu", [f"be{i}" for i in range(3)]),
              ("daa", [f"ba{i}" for i in range(5)])]
    await h.open(hz + [p for _, ps in others for p in ps], 100_000)
    room, _ = await h.create("hunzhan", hz, deal=hunzhan_void_deal(RUN7), options={
        "deal_interval_ms": 0, "declare_grace_seconds": 1, "turn_seconds": 600})
    h.clock.advance(0.001)  # the deal, at once (deal_interval_ms 0)
    await h.wait(lambda: any(e["type"] == "dealing" and e["done"] for e in h.public(room)),
                 "the deal done")
    assert (await h.act(room, hz[0], "declare", ["TS"])).ok
    h.clock.advance(1.001)  # the grace window
    await h.wait_event(room, "declaring_closed")
    WORK.plays = 0  # from the lead on: the follower's turn events, view, hints
    assert (await h.act(room, hz[0], "play", RUN7.split())).ok
    assert (await h.view(room, hz[1]))["to_act"] == [1]

    rooms = []
    for game, ps in others:
        opts = {"deal_interval_ms": 0, "turn_seconds": 600}
        other, _ = await h.create(game, ps, options=opts)
        rooms.append((other, ps))
    calls = 0
    replies: list[list[common_pb2.Action]] = []
    done = asyncio.Event()

    async def ask_hints() -> None:
        nonlocal calls
        while not done.is_set():
            reply = await h.stub.Hints(table_pb2.ViewRequest(room=room, player=hz[1]))
            replies.append(list(reply.actions))
            calls += 1
            await asyncio.sleep(0)

    async def play_others() -> list[int]:
        try:
            return await asyncio.gather(*(play_room(h.stub, h.clock, r, ps, random.Random(i),
                                                    grace=0.5)
                                          for i, (r, ps) in enumerate(rooms)))
        finally:
            done.set()

    asker = asyncio.create_task(ask_hints())
    accepted = await play_others()
    await asker
    # Other games were answered to their end while the seat was on its turn.
    assert all(n > 0 for n in accepted)
    view = await h.view(room, hz[1])
    assert view["to_act"] == [1] and view["tricks_played"] == 0
    # Bounded replies and bounded work: 50 plays per hints call, no more built.
    assert calls >= 1 and replies
    for actions in replies:
        assert len(actions) == HINT_PLAYS and all(a.type == "play" for a in actions)
        assert all(len(a.cards) == 14 for a in actions)
    # + 2: the views above (a view computes the options as hints do)
    assert WORK.plays <= (calls + 2) * HINT_PLAYS
    # The clock runs out: the default action is computed directly.
    WORK.plays = 0
    h.clock.advance(600.001)
    await h.wait(lambda: any(e["type"] == "played" and e["seat"] == 1 for e in h.public(room)),
                 "seat 1's timeout play")
    played = next(e for e in h.public(room) if e["type"] == "played" and e["seat"] == 1)
    assert sorted(played["cards"]) == sorted(LOWEST)
    assert WORK.plays <= HINT_PLAYS
