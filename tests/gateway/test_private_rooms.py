"""Private rooms (好友房) through the real gateway, against the whole platform
as real processes: a player opens one and gets a code and a link; friends
join by code and play a game to its settlement (bots that join by code); an
outsider neither sees the room in the list nor sits or watches by its id;
watching needs the code; the owner removes a seat that is not playing; the
room is gone when its last player stands up; code tries are limited per
player and the wrong ones counted (expectations from docs/lobby.md "Private
rooms": 10 tries a minute by default); the opener of a 升级 room chooses its
decks, and its game is dealt with them (docs/rules/shengji.md: 1 deck, 12
cards each and a kitty of 6)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest

from paiju.tools.bots import BotError, Stats
from tests.fixtures import samples, until
from tests.gateway.test_guarantees import Capture, CapturingBot, refused
from tests.platform_procs import Platform, rooms_env, running_platform

pytestmark = pytest.mark.timeout(300)

ROOMS = """\
defaults: {fee_rate: 0.02, rooms: 2, ready_seconds: 20}
servers:
  - {server: dz, name: 斗地主 10, game: doudizhu, base: 10, min_coins: 1000}
  - {server: sj, name: 升级 两副, game: shengji, base: 10, min_coins: 1000, options: {decks: 2}}
"""
ALPHABET = set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    """The platform with this module's rooms file."""
    with running_platform(rooms_env(tmp_path_factory, ROOMS)) as p:
        yield p


class CodeBot(CapturingBot):
    """A bot that sits by the invite ``code`` (``join_code``) instead of ``sit``."""

    code = ""

    async def _sit(self) -> None:
        try:
            await self.client.call("join_code", code=self.code, seat=self.seat)
        except BotError as e:
            if e.code not in ("already_seated", "room_started"):
                raise
            await self._refresh_view()
        self.ready_sent = False


def friends(p: Platform, room: str, code: str, game: str = "doudizhu", seats: int = 3,
            prefix: str = "friend") -> list[CodeBot]:
    bots = [CodeBot(p.gateway_url, f"{prefix}-{s}", game, room, s, 1, (0.0, 0.02),
                    Stats(), random.Random(s)) for s in range(seats)]
    for b in bots:
        b.code = code
    return bots


async def test_friends_play_a_private_room_an_outsider_cannot_reach(
        platform: Platform) -> None:
    async with Capture(platform.gateway_url) as owner, \
            Capture(platform.gateway_url) as outsider:
        await owner.login("friend-0")
        await outsider.login("outsider")
        opened = await owner.client.call("open_room", server="dz")
        room, code = opened["room"], opened["code"]
        assert len(code) == 8 and set(code) <= ALPHABET
        assert opened["link"] == f"#join={code}"
        assert room["private"] is True and room["server"] == "dz"
        assert [(s["seat"], s["name"]) for s in room["seats"]] == [(0, "friend-0")]
        assert await refused(owner.client, "open_room", server="dz") == "already_seated"
        # The outsider: not listed, no sitting nor watching by the id.
        listed = (await outsider.client.call("rooms", server="dz"))["rooms"]
        assert room["room"] not in {r["room"] for r in listed} and len(listed) == 2
        assert await refused(outsider.client, "sit", room=room["room"], seat=1) == \
            "no_such_room"
        assert await refused(outsider.client, "watch", room=room["room"]) == "no_such_room"
        assert await refused(outsider.client, "join_code", code="22222222") == "no_such_code"
        assert await refused(outsider.client, "watch", code="22222222") == "no_such_code"
        assert await refused(outsider.client, "kick", seat=0) == "not_seated"
        await owner.client.close()

        # Three friends play one game (the owner's seat joins again by code).
        bots = friends(platform, room["room"], code)
        playing = asyncio.gather(*(b.run() for b in bots))
        # Once started, a player with the code watches it (one try).
        await until(lambda: any(e["type"] == "game_started" for e in bots[0].events),
                    "the game's start", 60)
        reply = await outsider.client.call("watch", code=code.lower())
        assert reply["seated"] is False
        assert reply["room"]["room"] == room["room"]
        await asyncio.wait_for(playing, 120)
        finished = [e for e in bots[0].events if e["type"] == "game_finished"
                    and e.get("reason") != "redeal"]
        assert finished and sorted(r["seat"] for r in finished[-1]["settlement"]) == [0, 1, 2]
        # The seats followed the room on its private subject.
        assert any(e["type"] == "room_changed" and e["room"] == room["room"]
                   for e in bots[1].events)
        await outsider.client.call("unwatch")

    # After the game: the owner removes seat 2, a friend may not; the last
    # to stand up closes the room and its code.
    async with Capture(platform.gateway_url) as own, Capture(platform.gateway_url) as one, \
            Capture(platform.gateway_url) as gone:
        await own.login("friend-0")
        await one.login("friend-1")
        await gone.login("friend-2")
        assert await refused(one.client, "kick", seat=2) == "not_owner"
        assert await refused(own.client, "kick", seat=0) == "bad_request"
        after = await own.client.call("kick", seat=2)
        assert [s["seat"] for s in after["room"]["seats"]] == [0, 1]
        assert await refused(own.client, "kick", seat=2) == "no_such_seat"
        # The removed player is told (a room_changed without it), then no more.
        await until(lambda: changes(gone, after["room"]["version"]), "friend-2 told", 20)
        assert await refused(gone.client, "stand") == "not_seated"
        stood = (await own.client.call("stand"))["room"]
        await until(lambda: changes(one, stood["version"]), "friend-1 told", 20)
        assert not changes(gone, stood["version"])
        await one.client.call("stand")
        assert await refused(one.client, "join_code", code=code) == "no_such_code"


def changes(c: Capture, version: int) -> list[dict[str, Any]]:
    """The ``room_changed`` events of version ``version`` ``c`` received."""
    return [e for e in c.events if e.get("type") == "room_changed"
            and e.get("version") == version]


async def test_code_tries_are_limited_and_counted(platform: Platform) -> None:
    name = "paiju_lobby_code_tries_total"
    before = samples(platform.metrics["lobby"], name)
    async with Capture(platform.gateway_url) as guesser:
        await guesser.login("guesser")
        for i in range(10):
            assert await refused(guesser.client, "join_code", code=f"{i + 2}" * 8) == \
                "no_such_code"
        assert await refused(guesser.client, "join_code", code="ABCDEFGH") == \
            "too_many_attempts"
        assert await refused(guesser.client, "watch", code="ABCDEFGH") == "too_many_attempts"
        assert await refused(guesser.client, "join_code", code="a" * 40) == "bad_request"
    after = samples(platform.metrics["lobby"], name)
    assert after['{result="wrong"}'] - before.get('{result="wrong"}', 0) == 10
    assert after['{result="limited"}'] - before.get('{result="limited"}', 0) == 2


async def test_the_opener_of_a_shengji_room_chooses_its_decks(platform: Platform) -> None:
    async with Capture(platform.gateway_url) as owner:
        await owner.login("deck-0")
        servers = {s["server"]: s for s in (await owner.client.call("servers"))["servers"]}
        assert servers["sj"]["choices"] == {"decks": [1, 2, 3, 4]}
        assert servers["dz"]["choices"] == {}
        for server, options in (("sj", {"decks": 5}), ("sj", {"escape_points": 1}),
                                ("sj", {"decks": True}), ("dz", {"decks": 1})):
            assert await refused(owner.client, "open_room", server=server,
                                 options=options) == "bad_options", (server, options)
        opened = await owner.client.call("open_room", server="sj", options={"decks": 1})
        room, code = opened["room"], opened["code"]
        assert room["options"] == {"decks": 1} and room["game"] == "shengji"
        await owner.client.close()

    bots = friends(platform, room["room"], code, "shengji", 4, "deck")
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 180)
    events = bots[0].events
    started = next(e for e in events if e["type"] == "game_started")
    assert started["options"]["decks"] == 1
    dealt = next(e for e in events if e["type"] == "dealing" and e.get("done"))
    assert dealt["cards_dealt_per_seat"] == [12, 12, 12, 12]
    assert any(e["type"] == "game_finished" and e.get("reason") != "redeal" for e in events)

