"""After the table's NATS connection came back (services/table/application/outage.py):
every seat gets its whole view, but only once each gateway holding a seated
player's session has been heard from again, so that the views are not lost
on a gateway whose subscriptions are not back yet; a gateway that stays
silent is waited for at most the timeout. Real NATS, ledger and table on
loopback; a gateway's presence published on NATS as a gateway does."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

from paiju.presence.book import PresenceWatcher
from paiju.presence.publisher import PresencePublisher
from services.table.application.outage import level_after_outage, unheard
from tests.table.conftest import harness_running


async def test_views_wait_for_the_players_gateways(nats_server: str, tmp_path: Path) -> None:
    async with harness_running(nats_server, tmp_path) as h:
        assert h.nc is not None
        ps = ["lv0", "lv1", "lv2"]
        await h.open(ps)
        room, _ = await h.create("doudizhu", ps)
        runner = h.table.rooms[room]
        watcher = PresenceWatcher(h.nc, lambda change: asyncio.sleep(0))
        await watcher.start()
        gateway = PresencePublisher(h.nc, f"gw.p{uuid.uuid4().hex[:8]}", heartbeat_seconds=1000)
        try:
            for p in ps:
                await gateway.connect(p, f"s-{p}")
            await h.wait(lambda: all(watcher.book.sessions(p) for p in ps), "the sessions")
            since = watcher.clock()  # NATS came back now
            views_before = {p: len([e for e in h.private(p) if e["type"] == "view"]) for p in ps}
            levelled = asyncio.create_task(level_after_outage(h.table, watcher, since, 30))
            await asyncio.sleep(0.5)
            # the gateway was not heard from since: no view yet
            assert unheard(h.table, watcher, since) == {gateway.gateway_id}
            assert not levelled.done() and runner.entries[-1]["type"] != "level"
            await gateway.heartbeat()  # its subscriptions are back
            assert await asyncio.wait_for(levelled, 10) == 1
            assert runner.entries[-1]["type"] == "level"
            def new_views(player: str) -> list[dict[str, Any]]:
                return [e for e in h.private(player)
                        if e["type"] == "view"][views_before[player]:]

            for p in ps:
                view = await h.wait(lambda p=p: new_views(p), f"{p}'s view")  # type: ignore[misc]
                assert view[0]["game_id"] == runner.game_id and view[0]["hand"]
            # a gateway that stays silent is waited for only up to the timeout
            since = watcher.clock()
            started = time.monotonic()
            assert await level_after_outage(h.table, watcher, since, 0.5) == 1
            assert 0.4 < time.monotonic() - started < 10
        finally:
            await watcher.stop()
