"""After a NATS server restarts, new games start again on their own: the whole
platform as real processes on one NATS server (as ``paiju up`` runs it), a
doudizhu game under way; the server is killed, started again on the same port
(with its store, or with its store wiped), and three new players sit and
ready in another room. The table instances' registry bucket is in memory
storage and does not survive a restart, and a wiped store loses the game log
and the lease buckets too: the services must make them again themselves.
Within 10 s of NATS being back the new game has started (every new player
has their hand)."""

from __future__ import annotations

import asyncio
import shutil
import time
from typing import Any

import pytest

from paiju.tools.botclient import BotError
from paiju.tools.bots import Client
from tests.fixtures import NatsServer
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

#: How soon after NATS is back a new game must have started (seconds).
NEW_GAME_WITHIN = 10.0
#: When the new players come, after NATS is back (seconds).
PLAYERS_AFTER = 3.0


class Player:
    """One client through the gateway's WebSocket, with every event it got."""

    def __init__(self, p: Platform, name: str) -> None:
        self.name = name
        self.events: list[dict[str, Any]] = []
        self.client = Client(p.gateway_url, self.events.append)

    def has_hand(self) -> bool:
        return any(e["type"] == "hand" for e in self.events)


async def idle_room(p: Platform, probe_name: str) -> str:
    """An idle doudizhu room, as a client lists them."""
    probe = Client(p.gateway_url, lambda ev: None)
    await probe.connect()
    try:
        await probe.call("login", name=probe_name)
        servers = [s for s in (await probe.call("servers"))["servers"]
                   if s["game"] == "doudizhu"]
        rooms = (await probe.call("rooms", server=servers[0]["server"]))["rooms"]
        return str(next(r["room"] for r in rooms if r["state"] == "idle"))
    finally:
        await probe.close()


async def sit_and_ready(p: Platform, prefix: str, within: float) -> list[Player]:
    """Three new players sit in an idle room and ready; the last one readies
    again, as a player would, while the game is refused ``no_table_instance``
    (for ``within`` seconds at most)."""
    room = await idle_room(p, f"{prefix}-probe")
    players = [Player(p, f"{prefix}{seat}") for seat in range(3)]
    for seat, pl in enumerate(players):
        await pl.client.connect()
        await pl.client.call("login", name=pl.name)
        await pl.client.call("sit", room=room, seat=seat)
    for pl in players[:-1]:
        await pl.client.call("ready")
    deadline = time.monotonic() + within
    while True:
        try:
            await players[-1].client.call("ready")
            return players
        except BotError as e:
            if e.code != "no_table_instance" or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.5)


async def wait_hands(players: list[Player], within: float) -> float:
    """Seconds until every player has their hand; fails after ``within``."""
    started = time.monotonic()
    while not all(pl.has_hand() for pl in players):
        assert time.monotonic() - started < within, [
            (pl.name, [e["type"] for e in pl.events]) for pl in players]
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def restart_then_play(p: Platform, wipe_store: bool) -> float:
    before = await sit_and_ready(p, "first", 60.0)
    after: list[Player] = []
    try:
        await wait_hands(before, 60.0)  # the platform works before the restart
        assert isinstance(p.nats, NatsServer)
        p.nats.stop()
        if wipe_store:
            shutil.rmtree(p.nats.store / "data")
        await asyncio.sleep(2)
        p.nats.start()
        back = time.monotonic()
        # players come after the lobby has read the registry again (each
        # second) and the table instances have had a heartbeat (every 5/3 s)
        await asyncio.sleep(PLAYERS_AFTER)
        after = await sit_and_ready(p, "second", NEW_GAME_WITHIN - PLAYERS_AFTER)
        await wait_hands(after, NEW_GAME_WITHIN - (time.monotonic() - back))
        return time.monotonic() - back
    finally:
        for pl in before + after:
            await pl.client.close()


@pytest.mark.parametrize("wipe_store", [False, True], ids=["store-kept", "store-wiped"])
def test_a_new_game_starts_soon_after_nats_restarts(wipe_store: bool) -> None:
    with running_platform() as p:
        took = asyncio.run(restart_then_play(p, wipe_store))
    print(f"NATS back -> new game started in {took:.1f} s (store "
          f"{'wiped' if wipe_store else 'kept'})")
