"""AI players signing in as they do outside development mode: with tokens of
``PAIJU_AI_TOKEN_SECRET`` made by ``paiju ai`` (``ai_token``), through the
real gateway. Such a player is an AI (its seat marked ``ai``), its id starts
``ai-``, and its account is opened and granted ``PAIJU_AI_START_COINS``
(100,000 by default, docs/configuration.md) from the house once; a token of
another key, or an AI token naming a person's id, is refused ``bad_token``.
Then ``paiju ai``'s worker, so signed in, plays a whole 斗地主 game."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest

from paiju.tools.ai_worker import ai_player_id, ai_token, run_ai
from paiju.tools.bots import BotError, Client
from tests.e2e.test_admin import admin
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

AI_KEY = "paiju-tests-ai-players-token-key-0123"
#: PAIJU_AI_START_COINS's default.
START_COINS = 100_000


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    with running_platform({"AI_TOKEN_SECRET": AI_KEY}) as p:
        yield p


async def auth(p: Platform, token: str) -> tuple[Client, dict[str, Any]]:
    """A client signed in by ``auth`` with ``token``, and the reply."""
    client = Client(p.gateway_url, lambda ev: None)
    await client.connect()
    try:
        return client, await client.call("auth", token=token)
    except BaseException:
        await client.close()
        raise


async def refused(p: Platform, token: str) -> str:
    """The error code ``auth`` with ``token`` is answered."""
    with pytest.raises(BotError) as err:
        client, _ = await auth(p, token)
        await client.close()
    return err.value.code


def test_an_ai_token_signs_in_a_marked_ai_funded_once_by_the_house(platform: Platform) -> None:
    async def run() -> None:
        client, reply = await auth(platform, ai_token(AI_KEY, "机器人甲"))
        try:
            assert reply["player"] == ai_player_id("机器人甲")
            assert reply["player"].startswith("ai-") and reply["name"] == "机器人甲"
            assert reply["coins"] == START_COINS
            room = (await client.call("rooms", server="doudizhu-10"))["rooms"][0]
            sat = (await client.call("sit", room=room["room"], seat=0))["room"]
            assert [(s["seat"], s["ai"]) for s in sat["seats"]] == [(0, True)]
            await client.call("stand")
        finally:
            await client.close()
        # Signed in again with a fresh token: the house granted once.
        client, again = await auth(platform, ai_token(AI_KEY, "机器人甲"))
        await client.close()
        assert (again["player"], again["coins"]) == (reply["player"], START_COINS)
        # Another key's AI token, and an AI token naming a person: refused.
        assert await refused(platform, ai_token("x" * 32, "机器人乙")) == "bad_token"
        person = jwt.encode({"sub": "alice", "name": "alice", "ai": True,
                             "exp": int(time.time()) + 600}, AI_KEY, algorithm="HS256")
        assert await refused(platform, person) == "bad_token"

    asyncio.run(run())


def test_paiju_ai_signed_in_by_ai_tokens_plays_a_whole_game(platform: Platform) -> None:
    summary = asyncio.run(asyncio.wait_for(run_ai(
        platform.gateway_url, "doudizhu", 3, server="doudizhu-100", games=1,
        think=(0.0, 0.02), prefix="机器人令", seed=5, token_secret=AI_KEY), timeout=240))
    assert summary["games_finished"] == {"doudizhu": 1}, summary
    assert not summary["errors"] and summary["actions"] > 0, summary


def test_the_operator_funds_the_ai_players_accounts_from_the_house(platform: Platform) -> None:
    """``paiju admin fund-ai``: each AI player whose account is open is brought
    up to the balance asked for by an adjustment (a journal entry of its
    own against the house: the audit still balances); one not signed in
    yet is listed apart; run again, it moves nothing."""
    async def sign_in(name: str) -> int:
        client, reply = await auth(platform, ai_token(AI_KEY, name))
        await client.close()
        return int(reply["coins"])

    assert asyncio.run(sign_in("机器人资1")) == START_COINS
    out = admin(platform, "fund-ai", "--count", "2", "--prefix", "机器人资",
                "--coins", "250000")
    assert out["funded"] == [{"name": "机器人资1", "player": ai_player_id("机器人资1"),
                              "coins": 150_000}]
    assert out["not_signed_in_yet"] == ["机器人资2"]
    assert asyncio.run(sign_in("机器人资1")) == 250_000
    again = admin(platform, "fund-ai", "--count", "1", "--prefix", "机器人资",
                  "--coins", "250000")
    assert again["funded"] == []
    assert admin(platform, "audit")["ok"] is True
