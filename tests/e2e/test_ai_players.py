"""End to end: AI players (``paiju ai``'s worker) play a whole game of each
of the four games through the real gateway (the platform as ``paiju up``
runs it), deciding from ``seat_view``; each seat's ``seat_view`` replies are
checked against the table's stored record after the game, and a spectator's
and an unseated player's ``seat_view`` are refused."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client import REGISTRY

from bench.chaos_checks import KITTY_OWNER
from paiju.tools.ai_worker import AiBot, run_ai
from paiju.tools.bots import BotError, Client, sitting
from paiju.tools.hidden_cards import (
    SEAT_VIEW,
    CapturingBot,
    hidden_cards_shown,
    of_game,
    shown_by_history,
)
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]

#: The server each game is played at, and its seats (the seeds: 斗地主 3,
#: 混战 4, 大A 5, 升级 4).
SERVERS = {"doudizhu": ("doudizhu-100", 3), "hunzhan": ("hunzhan-100", 4),
           "daa": ("daa-100", 5), "shengji": ("shengji-2deck-100", 4)}


class CapturingAi(AiBot, CapturingBot):
    """An AI player that keeps every frame it receives and its ``seat_view``
    replies (frames of type ``seat_view``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_seat_view = self.keep

    def keep(self, reply: dict[str, Any]) -> None:
        self.events.append({**reply, "type": SEAT_VIEW})
        self.arrived.append(time.monotonic())


class Played:
    """The AIs of every game and what the refusals answered."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.bots: dict[str, list[CapturingAi]] = {}
        self.summaries: dict[str, dict[str, Any]] = {}
        self.refusals: dict[str, str] = {}
        self.stopped: tuple[dict[str, Any], list[CapturingAi]] = ({}, [])


async def refusal(client: Client, cmd: str, **args: Any) -> str:
    with pytest.raises(BotError) as e:
        await client.call(cmd, **args)
    return e.value.code


async def spectate(p: Platform, out: Played) -> None:
    """Ask ``seat_view`` signed in but seated nowhere; then, once 升级's AI
    room has started (its paced deal makes it the longest game), watch it
    and ask again."""
    client = Client(p.gateway_url, lambda ev: None)
    await client.connect()
    try:
        await client.call("login", name="ai-spectator")
        out.refusals["unseated"] = await refusal(client, "seat_view")
        server, _ = SERVERS["shengji"]
        deadline = time.monotonic() + 120
        room: str | None = None
        rooms: list[dict[str, Any]] = []
        while room is None:
            assert time.monotonic() < deadline, f"升级's AI room started: {rooms}"
            rooms = (await client.call("rooms", server=server))["rooms"]
            room = next((r["room"] for r in rooms if r["state"] == "started"), None)
            if room is None:
                await asyncio.sleep(0.1)
        await client.call("watch", room=room)
        out.refusals["spectator"] = await refusal(client, "seat_view")
    finally:
        await client.close()


async def play_all(p: Platform) -> Played:
    out = Played(p)

    async def one(game: str) -> None:
        server, seats = SERVERS[game]
        made: list[CapturingAi] = []

        def bot(*args: Any, **kw: Any) -> CapturingAi:
            b = CapturingAi(*args, **kw)
            made.append(b)
            return b

        out.summaries[game] = await run_ai(p.gateway_url, game, seats, server=server,
                                           games=1, think=(0.0, 0.02),
                                           prefix=f"机器人{game[:3]}", seed=7, bot=bot)
        out.bots[game] = made

    await asyncio.gather(*(one(g) for g in SERVERS), spectate(p, out))
    out.stopped = await stop_mid_game(p)
    return out


async def stop_mid_game(p: Platform) -> tuple[dict[str, Any], list[CapturingAi]]:
    """AIs told to play on (no number of games) are stopped at their first
    decision: the summary and the AIs."""
    stop = asyncio.Event()
    made: list[CapturingAi] = []

    def bot(*args: Any, **kw: Any) -> CapturingAi:
        b = CapturingAi(*args, **kw)
        keep = b.keep

        def then_stop(reply: dict[str, Any]) -> None:
            keep(reply)
            stop.set()

        b.on_seat_view = then_stop
        made.append(b)
        return b

    server, seats = SERVERS["doudizhu"]
    summary = await asyncio.wait_for(run_ai(
        p.gateway_url, "doudizhu", seats, server=server, games=None, think=(0.0, 0.02),
        prefix="机器人stop", seed=3, bot=bot, stop=stop), timeout=300)
    return summary, made


@pytest.fixture(scope="module")
def played() -> Iterator[Played]:
    with running_platform() as p:
        yield asyncio.run(play_all(p))


def finished_game(bot: CapturingAi) -> dict[str, Any]:
    ends = [e for e in bot.events if e["type"] == "game_finished" and e.get("reason") != "redeal"]
    assert ends, "the game ended"
    return ends[-1]


@pytest.mark.parametrize("game", list(SERVERS))
def test_ai_players_play_a_whole_game(played: Played, game: str) -> None:
    summary = played.summaries[game]
    assert summary["games_finished"] == {game: 1}
    # normal where the game has it, else random (docs/ai.md)
    assert summary["level"] in ("normal", "random")
    # The only refusal a fair player may meet: a declaration overtaken by a
    # stronger one made at the same moment (rulings.md: the weaker is refused).
    assert set(summary["errors"]) <= {"declare_too_weak"}, summary["errors"]
    bots = played.bots[game]
    assert [b.name for b in bots] == [f"机器人{game[:3]}{i + 1}" for i in range(len(bots))]
    end = finished_game(bots[0])
    assert end["reason"] == "normal", end["reason"]
    for b in bots:
        assert [e for e in of_game(b.events, end["game_id"]) if e["type"] == SEAT_VIEW], \
            f"{b.name} decided from seat_view"
    # the worker's metrics: every decision counted and timed
    decisions = REGISTRY.get_sample_value("paiju_ai_decisions_total", {"game": game})
    timed = REGISTRY.get_sample_value("paiju_ai_decision_seconds_count", {"game": game})
    assert decisions is not None and decisions >= summary["actions"] > 0
    assert timed == decisions


@pytest.mark.parametrize("game", list(SERVERS))
def test_seat_view_shows_a_seat_no_other_seats_hidden_card(played: Played, game: str) -> None:
    """Every ``seat_view`` reply of a seat, with the frames it received,
    against the stored deal: no card of another seat's hand before the rules
    showed it, the kitty only to its taker, 升级's buried cards only to the
    burier, the record's actions its own seat's legal ones only."""
    bots = played.bots[game]
    end = finished_game(bots[0])
    record = played.platform.stored_record(end["game_id"])
    hands, bottom = record["deal"]["hands"], record["deal"]["bottom"]
    detail = (end.get("result") or {}).get("detail", {})
    owner = detail.get(KITTY_OWNER[game]) if game in KITTY_OWNER else None
    buriers = {a["seat"] for a in record["actions"] if a["type"] == "bury"}
    checked = 0
    for b in bots:
        s = b.seat
        events = of_game(b.events, end["game_id"])
        replies = [e for e in events if e["type"] == SEAT_VIEW]
        assert replies
        for r in replies:
            assert r["view"]["seat"] == s and r["view"]["game_id"] == end["game_id"]
            assert "deal" not in r and "deal" not in r["view"]
            assert all(a["seat"] == s for a in r["legal"])
            for a in r["history"]:
                if a["type"] == "bury" and a["seat"] != s:
                    assert "cards" not in a, f"seat {s} saw seat {a['seat']}'s bury"
            # the history is the stored record's beginning, masked for the seat
            stored = record["actions"][:len(r["history"])]
            assert [(a["seat"], a["type"]) for a in r["history"]] == \
                   [(a["seat"], a["type"]) for a in stored]
            # the seat's hand holds its own dealt cards, the kitty it took and
            # cards played already (daa's 4s take them back: rulings.md)
            hand = Counter(r["view"].get("hand") or [])
            extra = hand - Counter(hands[s]) - Counter(bottom if s == owner else [])
            assert not extra - shown_by_history(r["history"]), (s, extra)
        if s in buriers:
            assert any(a["type"] == "bury" and a.get("cards") for r in replies
                       for a in r["history"]), "the burier sees its own bury"
        kitty = bottom if s == owner else None
        held = hands[s][-1] if game == "daa" else None
        n, shown = hidden_cards_shown(events, hands[s], kitty, held)
        assert not shown, shown[0]
        checked += n
    assert checked > 0


def test_seat_view_is_refused_to_a_spectator_and_an_unseated_player(played: Played) -> None:
    assert played.refusals == {"unseated": "no_game", "spectator": "spectators_cannot_act"}


def test_a_stopped_worker_finishes_the_game_in_play(played: Played) -> None:
    """Stopped at its first decision, the worker plays that game to its end
    (no escape) and starts no other."""
    summary, bots = played.stopped
    assert summary["games_finished"] == {"doudizhu": 1}
    end = finished_game(bots[0])
    assert end["reason"] == "normal"
    assert played.platform.stored_record(end["game_id"])["reason"] == "normal"
    for b in bots:
        # a deal and its redeals are one game
        started = {sitting(e["game_id"]) for e in b.events if e["type"] == "game_started"}
        assert started == {sitting(end["game_id"])}, "no game after the one in play"
