"""After a NATS outage every seated client is level again: the
whole platform as real processes, three players through the gateway's
WebSocket in a doudizhu game; NATS is stopped for a few seconds mid-game and
started again. Each client's events are checked as a client checks them
(docs/client-protocol.md: a jump in the public ``seq`` or the private
``player_seq`` is a gap, repaired by a ``view`` that is at least as new, its
``public_seq`` and ``player_seq``):
after the outage every client got a fresh ``view``, no gap is left
unrepaired, and each client's last known numbers are the table's (a ``view``
asked for at the end)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from paiju.tools.bots import PRIVATE_EVENTS, Client
from tests.platform_procs import Platform, running_platform

pytestmark = [pytest.mark.timeout(300)]

PLAYERS = ("out0", "out1", "out2")
ROOM_SEATS = 3


def public_seq(view: dict[str, Any]) -> int:
    """The table's public number a ``view`` carries: its ``public_seq``; a
    ``view`` event's own ``seq`` is the player's (docs/client-protocol.md)."""
    return int(view["public_seq"])


@dataclass
class Watcher:
    """One player's client: every event in arrival order."""

    name: str
    events: list[dict[str, Any]] = field(default_factory=list)
    client: Client | None = None

    def on_event(self, ev: dict[str, Any]) -> None:
        self.events.append(ev)

    def gaps(self, game_id: str) -> list[str]:
        """The gaps of ``game_id``'s numbers that no later ``view`` repaired,
        as a client sees them: public ``seq`` and private ``player_seq``."""
        seq = player_seq = 0
        open_gaps: list[tuple[str, int]] = []
        for ev in self.events:
            if ev.get("game_id") != game_id:
                continue
            if ev.get("type") == "view":
                seq = max(seq, public_seq(ev))
                player_seq = max(player_seq, int(ev["player_seq"]))
                open_gaps = [(k, n) for k, n in open_gaps
                             if (seq if k == "seq" else player_seq) < n]
                continue
            n = ev.get("seq")
            if not isinstance(n, int):
                continue
            if ev.get("type") in PRIVATE_EVENTS:
                if player_seq and n > player_seq + 1:
                    open_gaps.append(("player_seq", n - 1))
                player_seq = max(player_seq, n)
            else:
                if seq and n > seq + 1:
                    open_gaps.append(("seq", n - 1))
                seq = max(seq, n)
        return [f"{self.name}: {k} before {n + 1} never seen" for k, n in open_gaps]

    def last_numbers(self, game_id: str) -> tuple[int, int]:
        """The newest public and private numbers this client knows of the game."""
        seq = player_seq = 0
        for ev in self.events:
            if ev.get("game_id") != game_id or not isinstance(ev.get("seq"), int):
                continue
            if ev["type"] == "view":
                seq, player_seq = max(seq, public_seq(ev)), max(player_seq, ev["player_seq"])
            elif ev["type"] in PRIVATE_EVENTS:
                player_seq = max(player_seq, ev["seq"])
            else:
                seq = max(seq, ev["seq"])
        return seq, player_seq


async def seat_players(p: Platform) -> tuple[list[Watcher], str]:
    """Three clients sign in, sit in one idle doudizhu room and ready: the
    game's id once each has its hand."""
    watchers = [Watcher(n) for n in PLAYERS]
    probe = Client(p.gateway_url, lambda ev: None)
    await probe.connect()
    await probe.call("login", name="out-probe")
    servers = [s for s in (await probe.call("servers"))["servers"] if s["game"] == "doudizhu"]
    rooms = (await probe.call("rooms", server=servers[0]["server"]))["rooms"]
    room = next(r["room"] for r in rooms if r["state"] == "idle")
    await probe.close()
    for seat, w in enumerate(watchers):
        w.client = Client(p.gateway_url, w.on_event)
        await w.client.connect()
        await w.client.call("login", name=w.name)
        await w.client.call("sit", room=room, seat=seat)
    for w in watchers:
        assert w.client is not None
        await w.client.call("ready")
    deadline = time.monotonic() + 60
    while not all(any(e["type"] == "hand" for e in w.events) for w in watchers):
        assert time.monotonic() < deadline, "the game did not start"
        await asyncio.sleep(0.05)
    game_id = str(next(e for e in watchers[0].events if e["type"] == "hand")["game_id"])
    return watchers, game_id


async def outage(p: Platform) -> None:
    watchers, game_id = await seat_players(p)
    try:
        # the game is under way (bidding, a turn clock running); NATS goes away
        await asyncio.sleep(0.5)
        marks = [len(w.events) for w in watchers]
        p.nats.stop()
        await asyncio.sleep(4)
        p.nats.start()
        # every seated client gets its whole view after the outage
        deadline = time.monotonic() + 60
        while not all(any(e["type"] == "view" and e.get("game_id") == game_id
                          for e in w.events[m:]) for w, m in zip(watchers, marks, strict=True)):
            assert time.monotonic() < deadline, [
                (w.name, [e["type"] for e in w.events[m:]])
                for w, m in zip(watchers, marks, strict=True)]
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)  # anything still on its way
        for w in watchers:
            assert w.gaps(game_id) == []
            assert w.client is not None
            view = (await w.client.call("view"))["view"]
            assert w.last_numbers(game_id) == (public_seq(view), view["player_seq"]), w.name
    finally:
        for w in watchers:
            if w.client is not None:
                await w.client.close()


def test_after_a_nats_outage_every_seated_client_is_level() -> None:
    with running_platform({"TABLE_DEAL_INTERVAL_MS": "0"}) as p:
        asyncio.run(outage(p))
