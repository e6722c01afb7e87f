"""A finished game's record through the table's ``GetRecord``, its settlement
in the ledger with the coin server and room it was played at (history), and
its replay steps through the rules engine (paiju/tools/replay.py ``steps``): the
hand-written spring game of test_doudizhu_service.py, whose expectations are
worked out from rulings.md "doudizhu" (the landlord takes the kitty; a trick
is won when the two others pass; the landlord plays out)."""

from __future__ import annotations

import json
from collections import Counter

import grpc
import pytest

from paiju.ledger.v1 import ledger_pb2
from paiju.table.v1 import table_pb2
from paiju.tools.replay import steps
from tests.table.conftest import Harness
from tests.table.test_doudizhu_service import SPRING_DEAL, players

PLAYS = (["BJ", "SJ"], ["2S", "2H", "2C", "2D"], ["AS", "AH", "AC", "AD"],
         ["KS", "KH", "KC", "KD"], ["QS", "QH", "QC", "QD"])


async def test_record_history_and_replay_of_a_finished_game(harness: Harness) -> None:
    h = harness
    ps = players(h)
    await h.open(ps, 1000)
    room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    assert (await h.act(room, ps[0], "call")).ok
    assert (await h.act(room, ps[1], "no_rob")).ok
    assert (await h.act(room, ps[2], "no_rob")).ok
    for cards in PLAYS:
        assert (await h.act(room, ps[0], "play", cards)).ok
        assert (await h.act(room, ps[1], "pass")).ok
        assert (await h.act(room, ps[2], "pass")).ok
    assert (await h.act(room, ps[0], "play", ["3S", "3H"])).ok
    await h.wait_event(room, "game_finished")
    await h.wait(lambda: h.lobby.calls, "GameOver")

    reply = await h.stub.GetRecord(table_pb2.GetRecordRequest(game_id=gid))
    record = json.loads(reply.json)
    assert record == await h.table.store.get(gid)
    assert (record["game_id"], record["room"], record["server"]) == (gid, room, "s1")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await h.stub.GetRecord(table_pb2.GetRecordRequest(game_id="no-such-game"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert (err.value.details() or "").startswith("no_record")

    # the ledger's history has the game where it was played, each seat's row
    games = await h.ledger.GetGames(ledger_pb2.GetGamesRequest(player=ps[1]))
    g = games.games[0]
    assert (g.game_id, g.server, g.room, g.game, g.seat, g.points, g.coins) == (
        gid, "s1", room, "doudizhu", 1, -64, -64)
    assert [(p.player, p.points, p.coins, p.fee) for p in g.players] == [
        (ps[0], 128, 126, 2), (ps[1], -64, -64, 0), (ps[2], -64, -64, 0)]

    frames = steps(record)
    assert len(frames) == 20  # the deal and 19 actions
    assert [Counter(h) for h in frames[0]["hands"]] == [Counter(x) for x in SPRING_DEAL["hands"]]
    # after the bidding the landlord (seat 0) holds its 17 and the kitty
    assert Counter(frames[3]["hands"][0]) == Counter(SPRING_DEAL["hands"][0] +
                                                     SPRING_DEAL["bottom"])
    assert [f["step"] for f in frames if f["trick_won"]][:5] == [6, 9, 12, 15, 18]
    assert frames[6]["trick_won"]["seat"] == 0
    assert frames[-1]["hands"][0] == [] and frames[-1]["result"] == record["result"]
    assert frames[-1]["result"]["points"] == [128, -64, -64]
