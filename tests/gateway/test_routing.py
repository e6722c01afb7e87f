"""The gateway routes game commands to the table instance that ``game_started``
names (the address the lobby placed the game at), without asking the lobby
(``WhereIs``) after every start. Whole platform, real processes."""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.fixtures import until
from tests.gateway.test_guarantees import seat_three
from tests.platform_procs import Platform

pytestmark = pytest.mark.timeout(300)


def where_is_calls(p: Platform) -> float:
    """WhereIs calls the lobby has completed (its grpc_server_handled_total)."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{p.metrics['lobby']}/metrics",
                                  timeout=10).read().decode()
    return sum(s.value for f in text_string_to_metric_families(text)
               for s in f.samples
               if s.name == "grpc_server_handled_total"
               and s.labels.get("grpc_method") == "WhereIs")


async def test_game_commands_after_the_start_do_not_ask_the_lobby(platform: Platform) -> None:
    clients, room = await seat_three(platform, ["route-a", "route-b", "route-c"])
    try:
        await until(lambda: all(any(e["type"] == "game_started" for e in c.events)
                                for c in clients), "game_started at every seat", timeout=30)
        started = [next(e for e in c.events if e["type"] == "game_started") for c in clients]
        rooms = (await clients[0].client.call("rooms", server="doudizhu-10"))["rooms"]
        placed = next(r for r in rooms if r["room"] == room)
        assert placed["state"] == "started" and placed["table_instance"]
        assert {e["table_instance"] for e in started} == {placed["table_instance"]}

        before = where_is_calls(platform)
        for c in clients:
            view = (await c.client.call("view"))["view"]
            assert view["game_id"] == started[0]["game_id"]
            await c.client.call("hints")
        assert where_is_calls(platform) == before
    finally:
        for c in clients:
            await c.__aexit__()
