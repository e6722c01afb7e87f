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

import itertools
import os
import secrets
import subprocess
import sys
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from paiju.tools.bots import BotError, Client
from tests.platform_procs import Platform, after_one_game

#: The platform starts and bots play a game first: about 25 s.
pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SERVER = "doudizhu-10"


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[Platform, list[str]]]:
    """A platform where three bots (names returned) played one doudizhu game
    at room ``doudizhu-10-01``."""
    with after_one_game("rec", f"{SERVER}-01") as played:
        yield played


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
    record = p.stored_record(g["game_id"])
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
        record = p.stored_record(game_id)
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
        assert seen["frame"]["action"] == p.stored_record(game_id)["actions"][0]
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
        record = p.stored_record(game_id)
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


async def test_rankings_windows_hold_the_one_game(played: tuple[Platform, list[str]]) -> None:
    """The only game of this platform is in every window: week (the
    default), season and all list the same rows; a window out of the three,
    or no string, is ``bad_request``."""
    p, names = played
    c = await signed_in(p, names[0])
    try:
        replies = {w: await c.call("rankings", server=SERVER, window=w)
                   for w in ("week", "season", "all")}
        plain = await c.call("rankings", server=SERVER)
        codes = [await refusal(c, "rankings", server=SERVER, window=w) for w in ("month", 7)]
    finally:
        await c.close()
    assert codes == ["bad_request", "bad_request"]
    assert {w: r["window"] for w, r in replies.items()} == {
        "week": "week", "season": "season", "all": "all"}
    assert plain["window"] == "week" and plain["rows"] == replies["week"]["rows"]
    assert replies["season"]["rows"] == replies["all"]["rows"] == replies["week"]["rows"]
    assert replies["all"]["from_ms"] == 0
    assert replies["week"]["to_ms"] == replies["season"]["to_ms"] == replies["all"]["to_ms"]
    assert replies["week"]["from_ms"] == replies["week"]["to_ms"] - 7 * 86_400_000


async def test_stats_of_me_and_of_another(played: tuple[Platform, list[str]]) -> None:
    """``stats`` of one settled doudizhu game per player, against the stored
    record: 1 game, a win where its points are positive, best = worst = its
    coins, the time played its finished_at − started_at; another player's by
    id (from the rankings); refusals."""
    p, names = played
    c = await signed_in(p, names[0])
    try:
        game_id = (await c.call("history"))["games"][0]["game_id"]
        record = p.stored_record(game_id)
        mine = await c.call("stats")
        ids = {r["name"]: r["player"] for r in (await c.call("rankings", server=SERVER))["rows"]}
        theirs = await c.call("stats", player=ids[names[1]], game="doudizhu")
        none = await c.call("stats", game="hunzhan")
        codes = [await refusal(c, "stats", **args) for args in (
            {"player": "no such id!"}, {"player": "nobody-at-all-here"}, {"game": "chess"},
            {"player": 5})]
    finally:
        await c.close()
    assert codes == ["bad_request", "no_such_player", "bad_request", "bad_request"]
    assert none["games"] == []
    anonymous = Client(p.gateway_url, lambda ev: None)
    await anonymous.connect()
    try:  # signed-in players only
        assert await refusal(anonymous, "stats", player=ids[names[1]]) == "unauthenticated"
        assert await refusal(anonymous, "rankings", server=SERVER,
                             window="all") == "unauthenticated"
    finally:
        await anonymous.close()

    def expected(name: str) -> dict[str, Any]:
        seat = next(x["seat"] for x in record["players"] if x["name"] == name)
        points = record["result"]["points"][seat]
        coins = next(r["coins"] for r in record["settlement"] if r["seat"] == seat)
        won = 1 if points > 0 else 0
        lost = 1 if points < 0 else 0
        return {"game": "doudizhu", "games": 1, "wins": won, "losses": lost,
                "draws": 1 - won - lost, "win_rate": float(won), "best": coins, "worst": coins,
                "escapes": 1 if record["reason"] == "escape" and points < 0 else 0,
                "coins": coins, "played_ms": record["finished_at"] - record["started_at"]}

    for reply, name in ((mine, names[0]), (theirs, names[1])):
        assert reply["name"] == name
        assert [{k: g[k] for k in expected(name)} for g in reply["games"]] == [expected(name)]
        assert abs(reply["games"][0]["last_ms"] - record["finished_at"]) < 60_000
