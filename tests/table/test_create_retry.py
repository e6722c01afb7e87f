"""A creation tried again after its ``created`` entry landed (an earlier try
wrote it, then failed: its live listing through a JetStream election) starts
the game from that entry, instead of refusing it ``game_exists`` for ever
(services/table/application/runner.py ``_append_created``)."""

from __future__ import annotations

import uuid
from typing import Any

from paiju.table.v1 import table_pb2
from tests.table.conftest import Harness


async def created_elsewhere(h: Harness, prefix: str
                            ) -> tuple[list[str], dict[str, Any], str, str]:
    """Players ``ps`` with a doudizhu game created, and the log of another game
    (``gid`` in ``room``) holding only a ``created`` entry like that game's:
    what a creation cut off after its first entry leaves. Returns ``(ps,
    the first game's created entry, gid, room)``."""
    ps = [f"{prefix}{i}-{uuid.uuid4().hex[:6]}" for i in range(3)]
    await h.open(ps)
    _, first = await h.create("doudizhu", ps)
    (_, created), *_ = await h.table.log.read(first)
    gid, room = f"g{uuid.uuid4().hex[:12]}", f"r{uuid.uuid4().hex[:10]}"
    landed = {**created, "spec": {**created["spec"], "game_id": gid, "room": room}}
    await h.table.log.append(gid, landed, 0)
    return ps, created, gid, room


async def test_a_created_entry_of_an_earlier_try_is_used(harness: Harness) -> None:
    h = harness
    # The entry an earlier try of another game's creation left in its log.
    ps, created, gid, room = await created_elsewhere(h, "cr")
    await h.create("doudizhu", ps, room=room, game_id=gid)
    view = await h.view(room, ps[0])
    assert view["game_id"] == gid
    assert view["hand"] == (await h.view(created["spec"]["room"], ps[0]))["hand"]


async def test_a_going_game_never_listed_live_is_listed_when_located(harness: Harness) -> None:
    """A creation cut off after its created entry landed (the lobby stopped
    mid CreateGame) leaves a log nobody holds and no live listing; the
    reconciler's LocateGame lists it live, and an instance takes it over."""
    h = harness
    _, _, gid, room = await created_elsewhere(h, "lo")
    assert await h.table.leases.live_info(gid) is None
    found = await h.stub.LocateGame(table_pb2.LocateGameRequest(game_id=gid))
    assert (found.owner, found.log, found.ended) == ("", "readable", False)
    assert await h.table.leases.live_info(gid) == {"room": room, "game": "doudizhu"}
    runner = await h.wait(lambda: h.table.rooms.get(room), "the orphan taken over", 30)
    assert runner.game_id == gid
