"""``paiju admin`` against the whole platform as real processes:
as the operator identity it finds players, shows their coins and journal,
adjusts coins with a mandatory reason, kicks a player from a waiting room
and from a running game, lists the live games per table instance and ends a
stuck game at its owning instance; each action is checked in the ledger's
audit, and the services count every operator call.

Expectations come from the issue: an adjustment is a journal entry of its own
kind (``adjust``) against the house account, so the audit still sums to zero;
an ended game is voided (reason ``void`` in its record, with who and why, no
settlement); a kick from a running game is that player's escape (records.md
``escape``: "the seat left, or was kicked"), settled as the rules say.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
from typer.testing import CliRunner

from paiju.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from paiju.security.operator_calls import HEADER
from paiju.tools.admin import app
from paiju.tools.bots import BotError, Client
from tests.fixtures import client_channel, tls_dir, until
from tests.gateway.test_edge import metric
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

OPERATOR = "test-operator"


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    with running_platform() as p:
        yield p


def admin(p: Platform, *args: str, status: int = 0) -> dict[str, Any]:
    """Run ``paiju admin ARGS`` against ``p`` as the operator; its JSON output
    (``{}`` for a refusal, whose message is in ``stderr``)."""
    result = CliRunner().invoke(app, [
        "--tls-dir", str(tls_dir()), "--ledger", p.addr("ledger"), "--lobby", p.addr("lobby"),
        "--tables", p.addr("table"), "--by", OPERATOR, *args])
    assert result.exit_code == status, (args, result.output, result.stderr)
    return json.loads(result.stdout) if status == 0 else {"stderr": result.stderr}


async def run(p: Platform, *args: str, status: int = 0) -> dict[str, Any]:
    return await asyncio.to_thread(admin, p, *args, status=status)


class Player:
    """A signed-in client keeping every event it receives."""

    def __init__(self, url: str, name: str) -> None:
        self.name = name
        self.events: list[dict[str, Any]] = []
        self.client = Client(url, self.events.append)
        self.id = ""

    async def start(self) -> Player:
        await self.client.connect()
        self.id = str((await self.client.call("login", name=self.name))["player"])
        return self

    def finished(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "game_finished"]


@pytest.fixture
async def players(platform: Platform, request: pytest.FixtureRequest
                  ) -> AsyncIterator[list[Player]]:
    tag = request.node.name[-12:].replace("[", "").replace("]", "")
    ps = [await Player(platform.gateway_url, f"adm-{tag}-{i}").start() for i in range(3)]
    yield ps
    for pl in ps:
        await pl.client.close()


async def idle_room(player: Player) -> str:
    rooms = (await player.client.call("rooms", server="doudizhu-10"))["rooms"]
    return str(next(r["room"] for r in rooms if r["state"] == "idle"))


async def start_game(p: Platform, ps: list[Player]) -> str:
    """The three players sit in an idle doudizhu room and press start; the
    room's game runs. Returns the room."""
    room = await idle_room(ps[0])
    for seat, pl in enumerate(ps):
        await pl.client.call("sit", room=room, seat=seat)

    for pl in ps:
        for _ in range(200):
            try:
                await pl.client.call("ready")
                break
            except BotError as e:
                if e.code != "not_connected":  # presence not seen yet: again
                    raise
                await asyncio.sleep(0.05)
    await until(lambda: any(e.get("type") == "game_started" for e in ps[0].events),
                "the game started")
    return room


def audit_ok(p: Platform) -> dict[str, Any]:
    report = admin(p, "audit")
    assert report["ok"] and int(report["journal_sum"]) == 0, report
    return report


def records(p: Platform, room: str) -> list[dict[str, Any]]:
    with sqlite3.connect(p.data / "table.db") as conn:
        rows = conn.execute("SELECT record_json FROM table_game_records").fetchall()
    return [r for r in (json.loads(t) for (t,) in rows) if r["room"] == room]


def settled(p: Platform, game_id: str) -> int:
    with sqlite3.connect(p.data / "ledger.db") as conn:
        return int(conn.execute("SELECT count(*) FROM ledger_transactions WHERE kind = 'settle'"
                                " AND reference LIKE ?", (game_id + "%",)).fetchone()[0])


def operator_calls(p: Platform, service: str, method: str, outcome: str = "ok") -> float:
    return metric(p.metrics[service], "paiju_operator_actions_total",
                  f'method="{method}",outcome="{outcome}"')


async def test_find_show_and_adjust_with_a_reason_keep_the_books_balanced(
        platform: Platform, players: list[Player]) -> None:
    p, alice = platform, players[0]
    found = await run(p, "find", alice.name)
    assert [x["player"] for x in found["players"]] == [alice.id]
    assert found["players"][0]["name"] == alice.name and found["players"][0]["seat"] is None
    start = int((await run(p, "show", alice.id))["account"]["coins"])
    house = int(audit_ok(p)["house"].get("house:adjustments", 0))

    given = await run(p, "adjust", alice.id, "--coins", "500", "--reason", "refund")
    assert int(given["account"]["coins"]) == start + 500
    taken = await run(p, "adjust", alice.id, "--coins", "-200", "--reason", "chargeback")
    assert int(taken["account"]["coins"]) == start + 300
    # a take beyond the balance: refused, nothing changes
    refused = await run(p, "adjust", alice.id, "--coins", str(-(start + 301)),
                        "--reason", "too much", status=1)
    assert "not_enough_coins" in refused["stderr"]
    assert "reason_required" in (await run(p, "adjust", alice.id, "--coins", "5",
                                           "--reason", " ", status=1))["stderr"]
    await run(p, "adjust", alice.id, "--coins", "5", status=2)  # no --reason: not even sent
    # the same idempotency key twice moves the coins once
    for _ in range(2):
        again = await run(p, "adjust", alice.id, "--coins", "7", "--reason", "bonus",
                          "--id", alice.id)
    assert int(again["account"]["coins"]) == start + 307 and again["repeated"] is True

    shown = await run(p, "show", alice.id, "--limit", "3")
    assert int(shown["account"]["coins"]) == start + 307
    assert [(e["kind"], int(e["delta"])) for e in shown["journal"]] == [
        ("adjust", 7), ("adjust", -200), ("adjust", 500)]
    report = audit_ok(p)
    assert int(report["house"]["house:adjustments"]) == house - 307
    assert operator_calls(p, "ledger", "LedgerService/Adjust") == 4
    assert operator_calls(p, "ledger", "LedgerService/Adjust", "error") == 2
    assert operator_calls(p, "ledger", "LedgerService/FindAccounts") >= 1


async def test_a_kick_from_a_waiting_room_stands_the_player_up(
        platform: Platform, players: list[Player]) -> None:
    p, bob = platform, players[1]
    room = await idle_room(bob)
    await bob.client.call("sit", room=room, seat=0)
    assert (await run(p, "show", bob.id))["seat"]["room"] == room
    before = operator_calls(p, "lobby", "LobbyService/Kick")
    out = await run(p, "kick", bob.id, "--reason", "abusive name")
    assert out == {"kicked": bob.id, "room": room, "escape": False}
    assert (await run(p, "show", bob.id))["seat"] is None
    assert "not_seated" in (await run(p, "kick", bob.id, "--reason", "again",
                                      status=1))["stderr"]
    assert operator_calls(p, "lobby", "LobbyService/Kick") == before + 1
    audit_ok(p)


async def test_a_stuck_game_is_voided_at_its_instance_without_settlement(
        platform: Platform, players: list[Player]) -> None:
    p = platform
    coins = {pl.id: int((await run(p, "show", pl.id))["account"]["coins"]) for pl in players}
    room = await start_game(p, players)
    listed = (await run(p, "games"))["instances"]
    assert [i["address"] for i in listed] == [p.addr("table")]
    game = next(g for g in listed[0]["games"] if g["room"] == room)
    assert {s["player"] for s in game["seats"]} == set(coins)

    ended = await run(p, "end-game", room, "--reason", "stuck: the landlord's client hangs")
    assert ended["room"] == room and ended["table_instance"] == p.addr("table")
    await until(lambda: all(pl.finished() for pl in players), "every player saw the end")
    finished = players[0].finished()[-1]
    assert finished["reason"] == "void" and not finished["settlement"]
    await until(lambda: records(p, room), "the voided game's record is stored")
    record = records(p, room)[-1]
    assert record["reason"] == "void" and "result" not in record
    assert record["void"]["by"] == OPERATOR
    assert record["void"]["why"] == "stuck: the landlord's client hangs"
    assert settled(p, game["game_id"]) == 0
    for pl in players:  # nobody paid, everybody still sits, the room waits again
        shown = await run(p, "show", pl.id)
        assert int(shown["account"]["coins"]) == coins[pl.id]
        assert shown["seat"]["room"] == room and shown["seat"]["game_id"] == ""
    assert not any(g["room"] == room for g in (await run(p, "games"))["instances"][0]["games"])
    assert "no_game" in (await run(p, "end-game", room, "--reason", "again", status=1))["stderr"]
    assert operator_calls(p, "table", "TableService/EndGame") == 1
    audit_ok(p)


async def test_a_kick_from_a_running_game_is_that_players_escape(
        platform: Platform, players: list[Player]) -> None:
    p = platform
    room = await start_game(p, players)
    game_id = next(g["game_id"] for g in (await run(p, "games"))["instances"][0]["games"]
                   if g["room"] == room)
    kicked = players[2]
    out = await run(p, "kick", kicked.id, "--reason", "cheating")
    assert out["escape"] is True and out["table_instance"] == p.addr("table")
    await until(lambda: players[0].finished(), "the game ended")
    assert players[0].finished()[-1]["reason"] == "escape"
    await until(lambda: settled(p, game_id) == 1, "the escape was settled")
    for _ in range(100):  # the lobby takes the escapee out at the game's end
        if (await run(p, "show", kicked.id))["seat"] is None:
            break
        await asyncio.sleep(0.1)
    assert (await run(p, "show", kicked.id))["seat"] is None
    assert operator_calls(p, "table", "TableService/Kick") == 1
    audit_ok(p)


async def test_the_operator_cannot_settle_and_the_refusal_is_counted(
        platform: Platform) -> None:
    """The operator identity moves coins only by adjustments: a Settle is
    refused before the ledger sees it, logged and counted as ``denied``."""
    p = platform
    async with client_channel(p.addr("ledger"), "operator") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await ledger_pb2_grpc.LedgerServiceStub(channel).Settle(
                ledger_pb2.SettleRequest(game_id="forged"), timeout=10,
                metadata=((HEADER, OPERATOR),))
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert operator_calls(p, "ledger", "LedgerService/Settle", "denied") == 1
    assert settled(p, "forged") == 0
    assert "operator call" in p.log("ledger") and OPERATOR in p.log("ledger")
