"""The ``rules`` command (规则说明) through the real gateway: public before
sign-in, each game's sections, refusals for a bad request and an unknown game."""

from __future__ import annotations

import pytest

from tests.gateway.test_guarantees import Capture, refused
from tests.platform_procs import Platform

pytestmark = pytest.mark.timeout(300)


async def test_rules_before_sign_in_and_refusals(platform: Platform) -> None:
    async with Capture(platform.gateway_url) as c:
        for game, title in (("doudizhu", "斗地主 规则说明"), ("hunzhan", "混战 规则说明"),
                            ("shengji", "升级 规则说明"), ("daa", "大A 规则说明")):
            reply = await c.client.call("rules", game=game)
            assert (reply["game"], reply["title"]) == (game, title)
            assert all(s["id"] and s["title"] and s["text"] for s in reply["sections"])
        ids = [s["id"] for s in (await c.client.call("rules", game="shengji"))["sections"]]
        assert "kitty" in ids and "trumps" in ids
        lines = (await c.client.call("rules", game="shengji"))["lines"]
        assert lines["底牌"] == "kitty" and lines["上台"] == "up"
        assert await refused(c.client, "rules", game="chess") == "no_such_game"
        assert await refused(c.client, "rules", game="../daa") == "no_such_game"
        assert await refused(c.client, "rules") == "bad_request"
        assert await refused(c.client, "rules", game=3) == "bad_request"
        # Still public only: the rest asks for a sign-in.
        assert await refused(c.client, "servers") == "unauthenticated"
