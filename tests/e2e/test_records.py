"""History (战绩), replays and rankings end to end: the platform as processes
(real NATS, the four services, SQLite), three bots play a doudizhu game to
its settlement; then a client signed in as one of them reads its history,
replays the game and reads the server's rankings, each checked against the
game's record as the table stored it (read from the table's database file,
not through the code under test) and against the rules (records.md: a play
takes its cards from the player's hand; the landlord takes the kitty).

Replays open for the game's players and for an operator's replay link
(``paiju replay-link``), never for another player or an anonymous
connection; a link for another game or a forged one is refused.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import secrets
import sqlite3
import subprocess
import sys
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from paiju.tools.bots import Bot, BotError, Client, Stats
from tests.platform_procs import Platform, running_platform

#: The platform starts and bots play a game first: about 25 s.
pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SERVER = "doudizhu-10"


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[Platform, list[str]]]:
    """A platform where three bots (names returned) played one doudizhu game
    at room ``doudizhu-10-01``."""
    with running_platform({"TABLE_DEAL_INTERVAL_MS": "5"}) as p:
        run = secrets.token_hex(3)
        names = [f"rec{seat}-{run}" for seat in range(3)]

        async def play() -> None:
            stats = Stats()
            bots = [Bot(p.gateway_url, name, "doudizhu", f"{SERVER}-01", seat, 1, (0.0, 0.0),
                        stats, random.Random(seat)) for seat, name in enumerate(names)]
            await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), timeout=120)

        asyncio.run(play())
        yield p, names


def stored_record(p: Platform, game_id: str) -> dict[str, Any]:
    with sqlite3.connect(p.data / "table.db") as conn:
        row = conn.execute("SELECT record_json FROM table_game_records WHERE game_id = ?",
                           (game_id,)).fetchone()
    assert row is not None, f"no stored record {game_id}"
    record: dict[str, Any] = json.loads(row[0])
    return record


async def signed_in(p: Platform, name: str) -> Client:
    c = Client(p.gateway_url, lambda ev: None)
    await c.connect()
    await c.call("login", name=name)
    return c


async def refusal(c: Client, cmd: str, **args: Any) -> str:
    with pytest.raises(BotError) as err:
        await c.call(cmd, **args)
    print(f"{cmd} refused: {err.value}")  # shown where a test fails
    return err.value.code


def hand_minus(hand: list[str], cards: list[str]) -> Counter[str]:
    left = Counter(hand)
    left.subtract(Counter(cards))
    assert min(left.values(), default=0) >= 0, f"{cards} not all in {hand}"
    return +left


async def test_history_matches_the_record(played: tuple[Platform, list[str]]) -> None:
    p, names = played
    c = await signed_in(p, names[0])
    try:
        reply = await c.call("history")
    finally:
        await c.close()
    assert len(reply["games"]) == 1 and reply["next"] == 0
    g = reply["games"][0]
    record = stored_record(p, g["game_id"])
    assert record["reason"] in ("normal", "escape") and record["server"] == SERVER
    mine = next(x for x in record["players"] if x["name"] == names[0])
    row = next(r for r in record["settlement"] if r["seat"] == mine["seat"])
    points = record["result"]["points"][mine["seat"]]
    assert (g["server"], g["room"], g["game"], g["seat"]) == (
        SERVER, record["room"], "doudizhu", mine["seat"])
    assert (g["points"], g["coins"], g["fee"]) == (points, row["coins"], row["fee"])
    assert g["result"] == ("win" if points > 0 else "loss" if points < 0 else "draw")
    assert sorted(g["opponents"]) == sorted(n for n in names if n != names[0])
    assert g["partners"] is True  # 斗地主: the farmers play together (seed 002)
    assert abs(g["ts_ms"] - record["finished_at"]) < 60_000
    assert [(x["seat"], x["name"], x["points"], x["coins"]) for x in g["players"]] == [
        (x["seat"], x["name"], record["result"]["points"][x["seat"]],
         next(r["coins"] for r in record["settlement"] if r["seat"] == x["seat"]))
        for x in record["players"]]


async def test_replay_steps_through_the_record(played: tuple[Platform, list[str]]) -> None:
    p, names = played
    c = await signed_in(p, names[1])
    try:
        game_id = (await c.call("history"))["games"][0]["game_id"]
        record = stored_record(p, game_id)
        first = await c.call("replay", game_id=game_id)
        actions = record["actions"]
        assert first["steps"] == len(actions) + 1 and first["step"] == 0
        deal = record["deal"]
        assert [Counter(h) for h in first["frame"]["hands"]] == [Counter(h) for h in deal["hands"]]
        frames = [first["frame"]]
        for step in range(1, first["steps"]):
            frames.append((await c.call("replay", game_id=game_id, step=step))["frame"])
        # every step is the record's action, and the hands change as the rules say
        for i, (before, after) in enumerate(itertools.pairwise(frames), start=1):
            action = actions[i - 1]
            assert after["action"] == action and after["ok"]
            seat = action.get("seat")
            hands_b, hands_a = before["hands"], after["hands"]
            for s in range(3):
                if action["type"] == "play" and s == seat:
                    assert Counter(hands_a[s]) == hand_minus(hands_b[s], action["cards"])
                elif Counter(hands_a[s]) != Counter(hands_b[s]):
                    # the only other change: the landlord takes the kitty (records.md deal.bottom)
                    assert Counter(hands_a[s]) == Counter(hands_b[s]) + Counter(deal["bottom"])
                    assert after["table"]["landlord"] == s
        assert frames[-1]["result"] == record["result"]
        if record["reason"] == "normal":
            assert min(len(h) for h in frames[-1]["hands"]) == 0  # someone went out
        last = await c.call("replay", game_id=game_id, step=first["steps"] - 1)
        assert last["tricks"] and last["tricks"][-1] <= first["steps"] - 1
        assert await refusal(c, "replay", game_id=game_id, step=first["steps"]) == "no_such_step"
        assert await refusal(c, "replay", game_id="no-such-game") == "no_record"
    finally:
        await c.close()
    metrics = urllib.request.urlopen(
        f"http://127.0.0.1:{p.metrics['gateway']}/metrics", timeout=5).read().decode()
    assert 'paiju_gateway_replays_opened_total{viewer="player"} 1.0' in metrics


async def test_replay_is_for_players_and_operator_links(
        played: tuple[Platform, list[str]]) -> None:
    p, names = played
    c = await signed_in(p, names[2])
    try:
        game_id = (await c.call("history"))["games"][0]["game_id"]
    finally:
        await c.close()
    stranger = await signed_in(p, f"stranger-{secrets.token_hex(3)}")
    try:
        assert await refusal(stranger, "replay", game_id=game_id) == "not_your_game"
    finally:
        await stranger.close()

    def link(game: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "paiju.cli", "replay-link", game, "--ttl", "600"],
            check=True, capture_output=True, text=True,
            env={**os.environ, "PAIJU_DEV_MODE": "1"}).stdout.strip()
        return out.rsplit("link=", 1)[1]

    anonymous = Client(p.gateway_url, lambda ev: None)
    await anonymous.connect()
    try:
        assert await refusal(anonymous, "replay", game_id=game_id) == "unauthenticated"
        assert await refusal(anonymous, "history") == "unauthenticated"
        seen = await anonymous.call("replay", game_id=game_id, link=link(game_id), step=1)
        assert (seen["viewer"], seen["step"]) == ("operator", 1)
        assert seen["frame"]["action"] == stored_record(p, game_id)["actions"][0]
        assert await refusal(anonymous, "replay", game_id=game_id,
                             link=link("other-game")) == "bad_link"
        forged = link(game_id)[:-4] + "AAAA"
        assert await refusal(anonymous, "replay", game_id=game_id, link=forged) == "bad_link"
        # a replay link is no sign-in token
        assert await refusal(anonymous, "auth", token=link(game_id)) == "bad_token"
    finally:
        await anonymous.close()


async def test_rankings_of_the_server(played: tuple[Platform, list[str]]) -> None:
    p, names = played
    c = await signed_in(p, names[0])
    try:
        game_id = (await c.call("history"))["games"][0]["game_id"]
        record = stored_record(p, game_id)
        reply = await c.call("rankings", server=SERVER)
        assert await refusal(c, "rankings", server="Bad Server!") == "no_such_server"
        other = await c.call("rankings", server="doudizhu-100")
    finally:
        await c.close()
    name_of = {x["seat"]: x["name"] for x in record["players"]}
    coins = [(r["coins"], name_of[r["seat"]]) for r in record["settlement"]]
    assert sorted((r["name"], r["coins"], r["games"]) for r in reply["rows"]) == sorted(
        (n, won, 1) for won, n in coins)
    listed = [r["coins"] for r in reply["rows"]]
    assert listed == sorted(listed, reverse=True)
    expected_rank = {n: 1 + sum(1 for w2, _ in coins if w2 > w) for w, n in coins}
    assert {r["name"]: r["rank"] for r in reply["rows"]} == expected_rank
    assert reply["players"] == 3 and reply["me"]["rank"] == expected_rank[names[0]]
    assert other["rows"] == [] and other["me"] is None
