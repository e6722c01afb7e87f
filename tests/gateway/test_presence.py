"""The gateway's part of presence (PRESENCE.md) against the whole
platform as real processes: presence messages on sign-in and close, a client
that stops answering pings seen as gone, a gateway's clean stop, 退出
(``leave``), and signing in again from another device while seated."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import nats
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from paiju.runtime import subjects
from services.gateway.adapters.auth import dev_player_id
from tests.fixtures import free_port, start_service_process, stop_process, until, wait_for_port
from tests.gateway.test_guarantees import Capture, a_turn, refused, seat_three
from tests.platform_procs import Platform, running_platform

pytestmark = pytest.mark.timeout(300)

#: Short pings so that the test of a silent loss takes seconds: a loss is
#: noticed within PING_INTERVAL + PING_TIMEOUT (2 s here, 10 s by default).
PING_INTERVAL, PING_TIMEOUT = 1.0, 1.0
HEARTBEAT = 0.5


@pytest.fixture(scope="module")
def platform() -> Iterator[Platform]:
    """The platform with short ping and presence heartbeat settings."""
    env = {"GATEWAY_PING_INTERVAL_SECONDS": str(PING_INTERVAL),
           "GATEWAY_PING_TIMEOUT_SECONDS": str(PING_TIMEOUT),
           "PRESENCE_HEARTBEAT_SECONDS": str(HEARTBEAT)}
    with running_platform(env) as p:
        yield p


@dataclass
class PresenceLog:
    """Every presence message seen on NATS, with the monotonic time it came."""

    messages: list[tuple[float, dict[str, Any]]] = field(default_factory=list)

    def of(self, kind: str, player: str | None = None) -> list[dict[str, Any]]:
        return [m for _, m in self.messages if m["kind"] == kind
                and (player is None or m.get("player") == player)]

    def first_at(self, kind: str, player: str) -> float | None:
        return next((t for t, m in self.messages
                     if m["kind"] == kind and m.get("player") == player), None)

    def live(self, gateway: str) -> set[tuple[str, str]]:
        """The sessions of ``gateway``'s last heartbeat: {(player, session)}."""
        beats = [m for _, m in self.messages if m["kind"] == "heartbeat"
                 and m["gateway"] == gateway]
        return {(s["player"], s["session"]) for s in beats[-1]["sessions"]} if beats else set()


@pytest.fixture
async def presence(platform: Platform) -> AsyncIterator[PresenceLog]:
    """Listen to ``paiju.presence.*.*`` on the platform's NATS."""
    seen = PresenceLog()
    nc: NATS = await nats.connect(platform.nats.url)

    async def keep(msg: Msg) -> None:
        seen.messages.append((time.monotonic(), json.loads(msg.data)))

    await nc.subscribe(subjects.PRESENCE_ALL, cb=keep)
    await nc.flush()
    yield seen
    await nc.close()


async def test_sign_in_and_close_publish_the_session(platform: Platform,
                                                     presence: PresenceLog) -> None:
    async with Capture(platform.gateway_url) as c:
        player = (await c.login("pres-plain"))["player"]
        await until(lambda: presence.of("connect", player), timeout=10)
        connect = presence.of("connect", player)[0]
        assert isinstance(connect["session"], str) and connect["session"]
        assert isinstance(connect["at"], int) and connect["at"] > 1_600_000_000_000
        gateway = connect["gateway"]
        # The heartbeat lists the live session.
        await until(lambda: (player, connect["session"]) in presence.live(gateway),
                       timeout=10)
    await until(lambda: presence.of("disconnect", player), timeout=10)
    gone = presence.of("disconnect", player)[0]
    assert (gone["session"], gone["gateway"]) == (connect["session"], gateway)
    await until(lambda: (player, connect["session"]) not in presence.live(gateway)
                   and len(presence.of("heartbeat")) > 0, timeout=10)


CLIENT = textwrap.dedent("""
    import asyncio, json, sys
    import websockets

    async def main():
        async with websockets.connect(sys.argv[1]) as ws:
            await ws.send(json.dumps({"id": 1, "cmd": "login", "name": sys.argv[2]}))
            while json.loads(await ws.recv()).get("id") != 1:
                pass
            print("ready", flush=True)
            await asyncio.sleep(3600)

    asyncio.run(main())
""")


async def test_a_client_that_stops_answering_pings_is_gone_within_10_s(
        platform: Platform, presence: PresenceLog) -> None:
    """A client process stopped by SIGSTOP answers no ping and sends no close
    frame (a silent loss): its disconnect is published within 10 s (the default
    5 s + 5 s; here 1 s + 1 s). A client that answers stays present."""
    proc = subprocess.Popen([sys.executable, "-c", CLIENT, platform.gateway_url, "pres-frozen"],
                            stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), timeout=30)
        assert line.strip() == b"ready"
        async with Capture(platform.gateway_url) as alive:
            alive_player = (await alive.login("pres-alive"))["player"]
            frozen = presence.of("connect", dev_player_id("pres-frozen"))[0]
            os.kill(proc.pid, signal.SIGSTOP)
            stopped = time.monotonic()
            await until(lambda: presence.of("disconnect", frozen["player"]), timeout=10)
            gone_after = presence.first_at("disconnect", frozen["player"])
            assert gone_after is not None and gone_after - stopped <= 10.0
            # Not before a ping could go unanswered.
            assert gone_after - stopped >= PING_TIMEOUT * 0.5
            # The answering client lived through the same pings.
            assert not presence.of("disconnect", alive_player)
            assert (await alive.client.call("ping"))["ok"]
            gateway = frozen["gateway"]
            await until(lambda: any(p == alive_player for p, _ in presence.live(gateway))
                           and all(p != frozen["player"] for p, _ in presence.live(gateway)),
                           timeout=10)
    finally:
        proc.kill()
        proc.wait(timeout=10)


async def test_a_gateway_stopping_cleanly_says_so(platform: Platform,
                                                  presence: PresenceLog) -> None:
    """SIGTERM: each session's disconnect, then ``gateway_down``."""
    port = free_port()
    env = {**platform.env("gateway", {"PRESENCE_HEARTBEAT_SECONDS": str(HEARTBEAT)}),
           "PAIJU_GATEWAY_PORT": str(port), "PAIJU_GRPC_PORT": str(free_port()),
           "PAIJU_METRICS_PORT": str(free_port())}
    proc = start_service_process("gateway", env, platform.data / "gateway-2.log")
    try:
        await asyncio.to_thread(wait_for_port, port, 60)
        async with Capture(f"ws://127.0.0.1:{port}/ws") as c:
            player = (await c.login("pres-second-gw"))["player"]
            await until(lambda: presence.of("connect", player), timeout=10)
            gateway = presence.of("connect", player)[0]["gateway"]
            assert await asyncio.to_thread(stop_process, proc) == 0
            await until(lambda: [m for m in presence.of("gateway_down")
                                    if m["gateway"] == gateway], timeout=10)
        kinds = [m["kind"] for _, m in presence.messages if m["gateway"] == gateway
                 and m["kind"] != "heartbeat"]
        assert kinds == ["connect", "disconnect", "gateway_down"]
    finally:
        stop_process(proc)


async def test_leave_during_a_game_is_an_escape_and_outside_one_stands(
        platform: Platform) -> None:
    """退出 (seed 000 例外: 主动退出的玩家被视为逃跑)."""
    clients, room = await seat_three(platform, ["leave-a", "leave-b", "leave-c"])
    try:
        await until(lambda: all(any(e["type"] == "game_started" for e in c.events)
                                   for c in clients))
        leaver = clients[1]
        await leaver.client.call("watch_server", server="doudizhu-10")
        reply = await leaver.client.call("leave")
        assert reply["escaped"] is True
        await until(lambda: all(any(e["type"] == "game_finished" for e in c.events)
                                for c in clients), "game_finished at every seat")
        finished = next(e for e in clients[0].events if e["type"] == "game_finished")
        assert finished["reason"] == "escape"
        escaped = [e for e in clients[0].events if e["type"] == "escaped"]
        assert [e["seat"] for e in escaped] == [1]
        # The lobby removed the escapee at the game's end: it sits nowhere.
        await until(lambda: any(e["type"] == "room_changed" and e.get("room") == room
                                   and e.get("state") != "started" for e in leaver.events))
        left = next(e for e in leaver.events if e["type"] == "room_changed"
                    and e.get("room") == room and e.get("state") != "started")
        assert dev_player_id("leave-b") not in [s["player"] for s in left["seats"]]
        assert await refused(leaver.client, "leave") == "not_seated"
        assert await refused(leaver.client, "view") == "no_game"
        # Signing in again (another device): no room, but that game's settlement.
        async with Capture(platform.gateway_url) as back:
            again = await back.client.call("auth", token=leaver.token)
            assert again["room"] is None and again["view"] is None
            last = again["last_result"]
            assert last["game_id"] == finished["game_id"] and last["room"] == room

            def by_seat(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
                return sorted(rows, key=lambda r: int(r["seat"]))

            named = by_seat(last["settlement"])
            assert [r.pop("name") for r in named] == ["leave-a", "leave-b", "leave-c"]
            assert named == by_seat(finished["settlement"])  # and the names they sat with
            escapee = next(r for r in last["settlement"] if r["seat"] == 1)
            assert escapee["coins"] < 0
            # ... with the settlement screen's lines of game_finished:
            # the escapee named (seed 000 例外), kept by the lobby's LastResult
            assert last["lines"] == finished["lines"]
            assert last["lines"][0] == {"label": "逃跑", "seats": [1]}
        # Outside a game, 退出 stands up.
        stayer = clients[0]
        out = await stayer.client.call("leave")
        assert out["escaped"] is False and out["room"]["room"] == room
        assert dev_player_id("leave-a") not in [s["player"] for s in out["room"]["seats"]]
        assert await refused(stayer.client, "leave") == "not_seated"
    finally:
        for c in clients:
            await c.__aexit__()


#: Events a client gets on its own subject; every other game event is public.
PRIVATE = {"hand", "your_turn", "kitty", "view", "balance_changed", "counter"}


def public_seqs(c: Capture, game_id: str) -> list[int]:
    return [e["seq"] for e in c.events if e.get("game_id") == game_id
            and e["type"] not in PRIVATE and e["type"] != "reply"]


async def test_signing_in_on_another_device_goes_straight_back_to_the_game(
        platform: Platform, presence: PresenceLog) -> None:
    """A second device's sign-in while the game runs: the reply brings the room
    and the whole view (the table's public seq), the first connection is
    closed (4001), and the new one follows the table from there. The player
    never counts as gone: presence is by session, and the new session is
    announced before the old one closes."""
    clients, room = await seat_three(platform, ["dev-a", "dev-b", "dev-c"])
    other: Capture | None = None
    try:
        holder = await a_turn(clients)
        game_id = next(e["game_id"] for e in clients[1].events if e["type"] == "game_started")
        hand = [e for e in clients[0].events if e["type"] == "hand"][-1]["cards"]
        other = Capture(platform.gateway_url)
        await other.__aenter__()
        reply = await other.client.call("auth", token=clients[0].token)
        await asyncio.wait_for(clients[0].client.closed.wait(), timeout=10)
        assert clients[0].client.ws is not None and clients[0].client.ws.close_code == 4001
        assert reply["room"]["room"] == room and reply["room"]["state"] == "started"
        view = reply["view"]
        assert view["game_id"] == game_id and view["room"] == room and view["seat"] == 0
        assert sorted(view["hand"]) == sorted(hand)
        # The game waits at a turn: the view's seq is the last public seq the others saw.
        assert view["seq"] == max(public_seqs(clients[1], game_id))
        # The new connection is subscribed: the next public event reaches it, seq + 1.
        actor = other if holder == 0 else clients[holder]
        action = (await actor.client.call("hints"))["actions"][0]
        await actor.client.call("act", action=action)
        await until(lambda: view["seq"] + 1 in public_seqs(other, game_id))
        player = reply["player"]
        sessions = [m["session"] for m in presence.of("connect", player)]
        assert len(sessions) == 2
        await until(lambda: [m["session"] for m in presence.of("disconnect", player)]
                       == sessions[:1], timeout=10)
        # Two heartbeats later the table has had the old session's end for long.
        beats = len(presence.of("heartbeat"))
        await until(lambda: len(presence.of("heartbeat")) >= beats + 2, timeout=10)
        assert not [e for e in clients[1].events if e["type"] == "seat_disconnected"]
        seats = (await clients[1].client.call("view"))["view"]["seats"]
        assert seats[0]["disconnected"] is False
    finally:
        for c in [*clients, *([other] if other else [])]:
            await c.__aexit__()


async def test_signing_in_again_in_a_waiting_room_returns_the_room(platform: Platform) -> None:
    async with Capture(platform.gateway_url) as first:
        await first.login("wait-room")
        rooms = (await first.client.call("rooms", server="doudizhu-10"))["rooms"]
        room = next(r["room"] for r in rooms if r["state"] == "idle" and not any(
            s["player"] for s in r["seats"]))
        await first.client.call("sit", room=room, seat=2)
        async with Capture(platform.gateway_url) as again:
            reply = await again.client.call("auth", token=first.token)
            assert reply["room"]["room"] == room and reply["view"] is None
            assert reply["last_result"] is None  # never played
            assert [s["seat"] for s in reply["room"]["seats"]
                    if s["player"] == reply["player"]] == [2]
            await again.client.call("stand")


async def test_a_dropped_player_is_held_through_presence_and_comes_back(
        platform: Platform) -> None:
    """A closed connection is a presence disconnect: the table holds the seat
    (``seat_disconnected``); signing in again ends the hold, the reply brings
    the view, and the table's ``view`` event follows (its own ``seq`` is the
    player's, ``public_seq`` the table's)."""
    clients, room = await seat_three(platform, ["back-a", "back-b", "back-c"])
    again: Capture | None = None
    try:
        await a_turn(clients)
        game_id = next(e["game_id"] for e in clients[1].events if e["type"] == "game_started")
        token = clients[2].token
        await clients[2].client.close()
        await until(lambda: any(e["type"] == "seat_disconnected" and e["seat"] == 2
                                   for e in clients[1].events), timeout=10)
        again = Capture(platform.gateway_url)
        await again.__aenter__()
        reply = await again.client.call("auth", token=token)
        assert reply["room"]["room"] == room and reply["view"]["game_id"] == game_id
        assert reply["view"]["seat"] == 2
        await until(lambda: any(e["type"] == "seat_reconnected" and e["seat"] == 2
                                   for e in clients[1].events), timeout=10)
        await until(lambda: any(e["type"] == "view" for e in again.events), timeout=10)
        event = next(e for e in again.events if e["type"] == "view")
        assert event["game_id"] == game_id and event["seat"] == 2
        assert event["seq"] == event["player_seq"]
        # seat_reconnected is the last public event before the view was taken.
        back = next(e for e in clients[1].events if e["type"] == "seat_reconnected")
        assert event["public_seq"] >= back["seq"]
        assert event["public_seq"] in public_seqs(clients[1], game_id)
    finally:
        for c in [*clients, *([again] if again else [])]:
            await c.__aexit__()
