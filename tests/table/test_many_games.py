"""200 games at once in one table instance, played by random legal bots
through the RPCs; every settlement once, no sequence gap. Draining on SIGTERM."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import REGISTRY

from paiju.common.v1 import common_pb2
from paiju.ledger.v1 import ledger_pb2
from paiju.table.v1 import table_pb2
from tests.fixtures import as_identity
from tests.table.bots import play_room
from tests.table.conftest import Harness

SEATS = {"doudizhu": 3, "hunzhan": 4, "shengji": 4, "daa": 5}
GAMES = 200


def retried() -> float:
    """paiju_table_settlements_retried_total as exported."""
    return REGISTRY.get_sample_value("paiju_table_settlements_retried_total") or 0.0


@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_200_games_at_once(harness: Harness) -> None:
    h = harness
    # Turns never run out here: the bots move the clock past declaring windows.
    options = {"deal_interval_ms": 0, "turn_seconds": 10**7}
    names = list(SEATS)
    rooms: list[tuple[str, str, list[str]]] = []
    start = time.monotonic()
    specs = [(names[n % len(names)], [f"m{n}s{i}" for i in range(SEATS[names[n % 4]])])
             for n in range(GAMES)]
    await h.open([p for _, ps in specs for p in ps], 100_000)
    for n, (game, ps) in enumerate(specs):
        room, gid = await h.create(game, ps, options=options, room=f"many{n}",
                                   game_id=f"many-{n}")
        rooms.append((room, gid, ps))
    assert len(h.table.rooms) == GAMES
    listed = await h.stub.ListGames(table_pb2.ListGamesRequest())
    assert len(listed.games) == GAMES and listed.accepting
    await asyncio.gather(*(play_room(h.stub, h.clock, room, ps, random.Random(i))
                           for i, (room, _, ps) in enumerate(rooms)))
    await h.wait(lambda: len(h.lobby.calls) >= GAMES, "every GameOver", timeout=60)
    # game_finished goes out after GameOver (docs/table.md "Behaviour").
    await h.wait(lambda: all(any(e["type"] == "game_finished" and e["reason"] != "redeal"
                                 for e in h.public(room)) for room, _, _ in rooms),
                 "every game_finished", timeout=60)
    elapsed = time.monotonic() - start
    assert sorted(c.game_id for c in h.lobby.calls) == sorted(gid for _, gid, _ in rooms)
    assert not h.table.rooms
    for room, _, ps in rooms:
        pub = h.public(room)
        by_game: dict[str, list[int]] = {}
        for e in pub:
            by_game.setdefault(e["game_id"], []).append(e["seq"])
        for seqs in by_game.values():
            assert seqs == list(range(1, len(seqs) + 1))
        for p in ps:
            mine: dict[str, list[int]] = {}
            for e in h.private(p):
                mine.setdefault(e["game_id"], []).append(e["seq"])
            for seqs in mine.values():
                assert seqs == list(range(1, len(seqs) + 1))
        finals = [e for e in pub if e["type"] == "game_finished" and e["reason"] != "redeal"]
        assert len(finals) == 1
        fin = finals[0]
        # The settlement is in the ledger exactly once: a repeat is recognised
        # and each player's journal holds one entry for it at most.
        histories = await asyncio.gather(*(h.ledger.GetHistory(
            ledger_pb2.GetHistoryRequest(player=p, limit=50)) for p in ps))
        for p, hist in zip(ps, histories, strict=True):
            entries = [e for e in hist.entries if e.reference == fin["game_id"]]
            row = next(r for r in fin["settlement"] if r["player"] == p)
            assert len(entries) <= 1
            assert sum(e.delta for e in entries) == row["coins"]
    audit = await h.ledger.Audit(ledger_pb2.AuditRequest())
    assert audit.ok and audit.journal_sum == 0
    print(f"{GAMES} games in {elapsed:.1f}s")


async def test_draining_instance_takes_no_new_games_but_runs_its_own(
        harness: Harness) -> None:
    h = harness
    ps = ["dr0", "dr1", "dr2"]
    await h.open(ps)
    room, _ = await h.create("doudizhu", ps)
    h.table.drain()
    listed = await h.stub.ListGames(table_pb2.ListGamesRequest())
    assert not listed.accepting and [g.room for g in listed.games] == [room]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await h.create("doudizhu", ["dr3", "dr4", "dr5"])
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "draining" in (err.value.details() or "")
    # The running game goes on to its end.
    await play_room(h.stub, h.clock, room, ps, random.Random(1))
    assert await h.table.wait_idle(5)


async def test_create_game_refusals(harness: Harness) -> None:
    h = harness
    seats = [common_pb2.SeatPlayer(seat=i, player=f"cg{i}") for i in range(3)]
    cases: list[tuple[dict[str, Any], str]] = [
        (dict(game="mahjong", seats=seats), "unknown_game"),
        (dict(game="doudizhu", seats=seats[:2]), "wrong_seats"),
        (dict(game="doudizhu", seats=seats, options_json="[1]"), "invalid_argument"),
        (dict(game="doudizhu", seats=seats, options_json='{"turn_seconds": -1}'),
         "bad_options"),
        (dict(game="doudizhu", seats=seats, options_json='{"bogus": 1}'), "bad_options"),
        (dict(game="doudizhu", seats=seats, deal_json='{"hands": [], "first": 0}'),
         "bad_deal"),
    ]
    for fields, code in cases:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await h.stub.CreateGame(table_pb2.CreateGameRequest(
                game_id="g-bad", room="r-bad", **fields))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, code
        assert (err.value.details() or "").startswith(code + ":")
    assert not h.table.rooms
    # Idempotent by game id; another game in a busy room is refused.
    ps = ["cg0", "cg1", "cg2"]
    await h.open(ps)
    room, gid = await h.create("doudizhu", ps, game_id="g-same", room="r-same")
    again = await h.create("doudizhu", ps, game_id="g-same", room="r-same")
    assert again == (room, gid)
    view = await h.view(room, ps[0])
    assert (await h.act(room, ps[view["to_act"][0]], "call")).ok
    await h.wait_event(room, "bid")  # everything published before it has arrived
    assert len([e for e in h.public(room) if e["type"] == "game_started"]) == 1
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await h.create("doudizhu", ps, game_id="g-other", room="r-same")
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS


async def test_settlement_retried_until_the_ledger_answers(
        nats_server: str, tmp_path: Path) -> None:
    from services.ledger.main import setup as ledger_setup
    from tests.fixtures import free_port, running_service
    from tests.table.conftest import harness_running

    port = free_port()
    before = retried()
    counted = REGISTRY.get_sample_value("paiju_retries_total",
                                        {"operation": "ledger_settle"}) or 0.0
    (tmp_path / "a").mkdir()
    async with harness_running(nats_server, tmp_path / "a") as h:
        ps = ["rt0", "rt1", "rt2"]
        await h.open(ps)
        # Point the table at a ledger that is not there yet.
        from services.table.adapters.remote import Ledger
        real = h.table.ledger
        h.table.ledger = Ledger(f"127.0.0.1:{port}", as_identity("table"), timeout=1)
        room, gid = await h.create("doudizhu", ps)
        await h.stub.Leave(table_pb2.PlayerRequest(room=room, player=ps[1]))
        await h.wait(lambda: retried() > before, "a retry")
        # counted by paiju.runtime.retries as well (jittered, capped backoff, for ever)
        assert (REGISTRY.get_sample_value("paiju_retries_total",
                                          {"operation": "ledger_settle"}) or 0) > counted
        assert not [e for e in h.public(room) if e["type"] == "game_finished"]
        (tmp_path / "b").mkdir()
        async with running_service("ledger", ledger_setup, {
                "nats_url": nats_server, "grpc_port": port,
                "database_url": f"sqlite:///{tmp_path / 'b' / 'ledger.db'}"}):
            fin = await h.wait_event(room, "game_finished", timeout=30)
        assert fin["reason"] == "escape" and fin["game_id"] == gid
        # That ledger had no accounts: it refused (unknown_player), so no coin
        # moved; the table said so in game_finished, went on and told the lobby.
        assert fin["settlement"] == []
        assert fin["settlement_error"].startswith("unknown_player:")
        assert [await h.balance(p) for p in ps] == [1000, 1000, 1000]
        await h.wait(lambda: h.lobby.calls, "GameOver")
        await h.table.ledger.close()
        h.table.ledger = real
