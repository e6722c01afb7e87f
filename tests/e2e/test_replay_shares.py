"""Players' shared replay links end to end: the platform as processes (real
NATS, the four services, their databases), three bots play a doudizhu game;
then one of them shares its replay (``share_replay``), the link opens on a
fresh connection that never signs in, another player cannot revoke it, its
owner revokes it and it is refused (``revoked``) at once; a forged link is
``bad_link``; a player holds at most 50 active shares (the default
``PAIJU_GATEWAY_MAX_REPLAY_SHARES``).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import urllib.request
from collections.abc import Iterator

import pytest

from paiju.tools.bots import Client
from tests.e2e.test_records import refusal, signed_in
from tests.platform_procs import Platform, after_one_game

#: The platform starts and bots play a game first: about 25 s.
pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

ROOM = "doudizhu-10-01"
#: The default limit of active shares per player (paiju/config.py).
LIMIT = 50


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[Platform, list[str]]]:
    """A platform where three bots (names returned) played one doudizhu game."""
    with after_one_game("shr", ROOM) as played:
        yield played


async def anonymous(p: Platform) -> Client:
    c = Client(p.gateway_url, lambda ev: None)
    await c.connect()
    return c


def stored_game_ids(p: Platform) -> list[str]:
    with sqlite3.connect(p.data / "table.db") as conn:
        rows = conn.execute("SELECT game_id, record_json FROM table_game_records "
                            "WHERE room = ?", (ROOM,)).fetchall()
    return [gid for gid, text in rows if json.loads(text).get("reason") != "redeal"]


def token_of(link: str, game_id: str) -> str:
    prefix = f"#replay={game_id}&link="
    assert link.startswith(prefix), link
    return link[len(prefix):]


async def test_share_open_revoke(played: tuple[Platform, list[str]]) -> None:
    p, names = played
    (game_id,) = stored_game_ids(p)
    owner = await signed_in(p, names[0])
    other = await signed_in(p, names[1])
    viewer = await anonymous(p)
    try:
        made = await owner.call("share_replay", game_id=game_id)
        assert made["game_id"] == game_id and made["share"]
        token = token_of(made["link"], game_id)
        listed = (await owner.call("shares"))["shares"]
        assert [s["share"] for s in listed] == [made["share"]]
        assert (await other.call("shares"))["shares"] == []

        seen = await viewer.call("replay", game_id=game_id, link=token, step=0)
        assert seen["viewer"] == "shared" and seen["step"] == 0
        assert await refusal(viewer, "history") == "unauthenticated"

        assert await refusal(other, "revoke_share", share=made["share"]) == "not_your_share"
        assert await refusal(other, "revoke_share", share="nosuchshare") == "no_share"
        assert (await viewer.call("replay", game_id=game_id, link=token, step=1))["step"] == 1

        revoked = await owner.call("revoke_share", share=made["share"])
        assert revoked["share"] == made["share"] and revoked["revoked_ms"] > 0
        assert await refusal(viewer, "replay", game_id=game_id, link=token,
                             step=1) == "revoked"
        fresh = await anonymous(p)
        try:
            assert await refusal(fresh, "replay", game_id=game_id, link=token) == "revoked"
        finally:
            await fresh.close()
        assert (await owner.call("shares"))["shares"] == []
        forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
        assert await refusal(viewer, "replay", game_id=game_id, link=forged) == "bad_link"
    finally:
        for c in (owner, other, viewer):
            await c.close()
    metrics = urllib.request.urlopen(
        f"http://127.0.0.1:{p.metrics['gateway']}/metrics", timeout=5).read().decode()
    assert 'paiju_gateway_replay_shares_total{event="made"} 1.0' in metrics
    assert 'paiju_gateway_replay_shares_total{event="revoked"} 1.0' in metrics
    # opened once: the second step is of the replay the connection keeps
    assert 'paiju_gateway_replay_shares_total{event="opened"} 1.0' in metrics
    assert 'paiju_gateway_replays_opened_total{viewer="shared"} 1.0' in metrics


async def test_only_players_share_and_the_limit(played: tuple[Platform, list[str]]) -> None:
    p, names = played
    (game_id,) = stored_game_ids(p)
    stranger = await signed_in(p, f"stranger-{secrets.token_hex(3)}")
    player = await signed_in(p, names[2])
    try:
        assert await refusal(stranger, "share_replay", game_id=game_id) == "not_your_game"
        assert await refusal(player, "share_replay", game_id="no-such-game") == "no_record"
        made = [await player.call("share_replay", game_id=game_id) for _ in range(LIMIT)]
        assert len({m["share"] for m in made}) == LIMIT
        assert await refusal(player, "share_replay", game_id=game_id) == "too_many_shares"
        await player.call("revoke_share", share=made[0]["share"])
        again = await player.call("share_replay", game_id=game_id)
        assert len((await player.call("shares"))["shares"]) == LIMIT
        assert again["share"] not in {m["share"] for m in made}
    finally:
        await stranger.close()
        await player.close()
