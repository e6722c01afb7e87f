"""Relief coins (救济金) end to end, against the whole platform as real
processes (gateway → lobby → ledger over mutual TLS, as paiju up runs them,
with the default relief: 2000 coins, 3 claims a relief day).

A development player starts with 100000 coins: below the only 混战 server
(200000 to sit), not below the 斗地主 one (1000). Expectations by hand: a
claim pays 2000 once, a retry of the same claim pays nothing more, three
claims a day, then ``relief_spent``; the ledger counts each result and its
audit still sums to zero with house:relief at -6000."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fixtures import samples
from tests.gateway.test_guarantees import Capture, refused
from tests.platform_procs import Platform, rooms_env, running_platform

pytestmark = pytest.mark.timeout(300)

#: 斗地主 at 1000 coins, 大A at 101000 (one claim reaches it: the browser
#: test, tests/web/test_web_relief.py), 混战 at 200000 (three claims do not).
ROOMS = """\
defaults: {fee_rate: 0.02, rooms: 1, ready_seconds: 20}
servers:
  - {server: dz, name: 斗地主 10, game: doudizhu, base: 10, min_coins: 1000}
  - {server: daa-high, name: 大A 高手, game: daa, base: 100, min_coins: 101000}
  - {server: hz-rich, name: 混战 富豪, game: hunzhan, base: 1000, min_coins: 200000}
"""


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    """The platform with this module's rooms file."""
    with running_platform(rooms_env(tmp_path_factory, ROOMS)) as p:
        yield p


async def balance_event(c: Capture, coins: int) -> dict[str, Any]:
    """The ``balance_changed`` event that brought the balance to ``coins``."""
    for _ in range(100):
        for e in c.events:
            if e.get("type") == "balance_changed" and e.get("coins") == coins:
                return e
        await asyncio.sleep(0.05)
    raise AssertionError(f"no balance_changed to {coins}: {c.events}")


async def test_a_broke_player_claims_relief_once_per_claim_three_times_a_day(
        platform: Platform) -> None:
    async with Capture(platform.gateway_url) as c:
        login = await c.login("pobre")
        assert login["coins"] == 100000
        listed = await c.client.call("servers")
        assert listed["relief"] == {"coins": 2000, "per_day": 3, "day_starts_utc_hour": 16}
        # 斗地主 is affordable: no relief for it, nothing moves
        assert await refused(c.client, "relief", game="doudizhu", claim="c0") == "not_eligible"
        assert await refused(c.client, "relief", game="mahjong", claim="c0") == \
            "no_such_game_type"
        assert await refused(c.client, "relief", game="hunzhan", claim="no spaces") == "bad_request"
        first = await c.client.call("relief", game="hunzhan", claim="c1")
        assert {k: first[k] for k in ("coins", "granted", "claims_left", "repeated")} == {
            "coins": 102000, "granted": 2000, "claims_left": 2, "repeated": False}
        event = await balance_event(c, 102000)
        assert (event["delta"], event["reason"]) == (2000, "relief")
        # the double click / the retry: the same claim id pays nothing more
        again = await c.client.call("relief", game="hunzhan", claim="c1")
        assert (again["coins"], again["granted"], again["repeated"]) == (102000, 2000, True)
        both = await asyncio.gather(c.client.call("relief", game="hunzhan", claim="c2"),
                                    c.client.call("relief", game="hunzhan", claim="c2"))
        assert sorted(r["repeated"] for r in both) == [False, True]
        third = await c.client.call("relief", game="hunzhan", claim="c3")
        assert (third["coins"], third["claims_left"]) == (106000, 0)
        assert await refused(c.client, "relief", game="hunzhan", claim="c4") == "relief_spent"
    relief = samples(platform.metrics["ledger"], "paiju_ledger_relief_total")
    assert relief == {'{result="granted"}': 3.0, '{result="repeated"}': 2.0,
                      '{result="not_eligible"}': 1.0, '{result="spent"}': 1.0}
