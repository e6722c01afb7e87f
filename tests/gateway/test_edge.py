"""The hardened client edge against real gateway processes:
malformed frames answered with stable codes and the connection kept, frames
over the WebSocket limit closed with 1009, and the limits on connections in
total and per address and on the bytes queued for all clients, each counted
by ``paiju_gateway_limit_refusals_total``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import socket
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import nats
import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from paiju.runtime import natsconn
from paiju.tools.bots import BotError
from tests.fixtures import free_port, start_service_process, stop_process, until, wait_for_port
from tests.gateway.test_guarantees import Capture
from tests.platform_procs import Platform

pytestmark = pytest.mark.timeout(300)


def metric(port: int, name: str, labels: str = "") -> float:
    """The value of sample ``name{labels}`` on the ``/metrics`` of ``port`` (0 if absent)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    want = f"{name}{{{labels}}}" if labels else name
    for line in text.splitlines():
        if line.startswith(want + " "):
            return float(line.split()[-1])
    return 0.0


async def reply_to(ws: ClientConnection, frame: str | bytes) -> dict[str, Any]:
    """Send ``frame`` and return the reply (events in between are skipped)."""
    await ws.send(frame)
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
        if msg.get("type") == "reply":
            return dict(msg)


DEEP = '{"id": 1, "cmd": "ping", "x": ' + "[" * 5000 + "]" * 5000 + "}"
MALFORMED: list[tuple[str | bytes, str, Any]] = [
    # Deep nesting within 16 KiB (it raised RecursionError once; close 1011).
    (DEEP, "bad_frame", None),
    ("[" * 16000, "bad_frame", None),
    ('{"id": 2, "cmd": "ping", "x": ' + "[" * 17 + "]" * 17 + "}", "bad_frame", None),
    # Lone surrogates in echoed and other fields (they aborted the connection).
    ('{"id": "\\ud800", "cmd": "ping"}', "bad_frame", None),
    ('{"id": 3, "cmd": "\\udfff"}', "bad_frame", 3),
    ('{"id": 4, "cmd": "login", "name": "x\\ud800"}', "bad_frame", 4),
    ('{"id": 5, "cmd": "ping", "\\ud83d": 1}', "bad_frame", 5),
    ('{"id": "ok", "cmd": "nope\\ud83d\\ude00"}', "unknown_command", "ok"),  # a pair is fine
    # Binary frames: UTF-8 JSON is read as such; other bytes are not JSON.
    (b"\xff\xfe\x00{", "bad_frame", None),
    ('{"id": 6, "cmd": "ping", "n": 1' + "0" * 5000 + "}", "bad_frame", None),
    ('{"id": 7, "cmd": "login", "name": NaN, "seat": Infinity}', "bad_request", 7),
    ('{"id": 8, "cmd": "auth", "token": "\\ud800.\\ud800.x"}', "bad_frame", 8),
]


@pytest.mark.parametrize(("frame", "code", "cid"), MALFORMED,
                         ids=[f"{i}" for i in range(len(MALFORMED))])
async def test_a_malformed_frame_gets_a_stable_code_and_the_connection_stays(
        platform: Platform, frame: str | bytes, code: str, cid: Any) -> None:
    async with websockets.connect(platform.gateway_url) as ws:
        reply = await reply_to(ws, frame)
        assert (reply["ok"], reply["error"], reply["id"]) == (False, code, cid)
        assert (await reply_to(ws, b'{"id": "bin", "cmd": "ping"}'))["ok"] is True
        assert (await reply_to(ws, '{"id": "txt", "cmd": "ping"}'))["ok"] is True


async def test_a_frame_over_the_websocket_limit_is_closed_with_1009(platform: Platform) -> None:
    before = metric(platform.metrics["gateway"], "paiju_gateway_limit_refusals_total",
                    'limit="frame_size"')
    async with Capture(platform.gateway_url) as bystander:
        await bystander.login("edge-bystander")
        async with websockets.connect(platform.gateway_url) as ws:
            await ws.send('{"id": 1, "cmd": "ping", "pad": "' + "x" * 100_000 + '"}')
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), timeout=10)
            assert ws.close_code == 1009
        assert (await bystander.client.call("ping"))["ok"]
    await until(lambda: metric(platform.metrics["gateway"],
                                  "paiju_gateway_limit_refusals_total",
                                  'limit="frame_size"') == before + 1, "the refusal counted",
                timeout=10)


@contextlib.asynccontextmanager
async def gateway(platform: Platform, **limits: str) -> AsyncIterator[tuple[str, int]]:
    """A second gateway process on the platform with ``limits`` (PAIJU_ names
    without the prefix); yields its URL and metrics port."""
    port, metrics_port = free_port(), free_port()
    env = {**platform.env("gateway", limits), "PAIJU_GATEWAY_PORT": str(port),
           "PAIJU_GRPC_PORT": str(free_port()), "PAIJU_METRICS_PORT": str(metrics_port)}
    proc = start_service_process("gateway", env, platform.data / f"gateway-{port}.log")
    try:
        await asyncio.to_thread(wait_for_port, port, 60)
        yield f"ws://127.0.0.1:{port}/ws", metrics_port
    finally:
        await asyncio.to_thread(stop_process, proc)
        log = (platform.data / f"gateway-{port}.log").read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]


async def connect_from(url: str, source: str) -> ClientConnection:
    """A WebSocket connection to ``url`` from the loopback address ``source``."""
    host, port = re.findall(r"ws://([^:/]+):(\d+)", url)[0]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect((host, int(port)))
    return await websockets.connect(url, sock=sock)


async def admitted(ws: ClientConnection) -> bool:
    """True where the gateway answers a ping; False where it closed the
    connection with 1013 (try again later)."""
    try:
        return bool((await reply_to(ws, '{"id": 1, "cmd": "ping"}'))["ok"])
    except websockets.ConnectionClosed:
        assert ws.close_code == 1013, ws.close_code
        return False


async def test_connections_per_address_and_in_total_are_limited(platform: Platform) -> None:
    async with gateway(platform, GATEWAY_MAX_CONNECTIONS="5",
                       GATEWAY_MAX_CONNECTIONS_PER_ADDRESS="3") as (url, metrics_port):
        opened: list[ClientConnection] = []
        try:
            for source, want in [("127.0.0.1", True), ("127.0.0.1", True), ("127.0.0.1", True),
                                 ("127.0.0.1", False),  # a fourth from one address
                                 ("127.0.0.2", True), ("127.0.0.2", True),
                                 ("127.0.0.3", False)]:  # a sixth in all
                ws = await connect_from(url, source)
                opened.append(ws)
                assert await admitted(ws) is want, (source, len(opened))
            assert metric(metrics_port, "paiju_gateway_limit_refusals_total",
                          'limit="connections_per_address"') == 1
            assert metric(metrics_port, "paiju_gateway_limit_refusals_total",
                          'limit="connections"') == 1
            await opened[0].close()
            await until(lambda: metric(metrics_port, "paiju_gateway_connections") == 4,
                        "the closed connection gone")
            again = await connect_from(url, "127.0.0.3")
            opened.append(again)
            assert await admitted(again)
            # The admitted ones were kept all along.
            assert all([await admitted(ws) for ws in (opened[1], opened[2], opened[4])])
        finally:
            for ws in opened:
                await ws.close()


BUDGET, STEP = 2_000_000, 40


def padded(c: Capture) -> int:
    return sum(1 for e in c.events if e.get("pad"))


def caught_up(c: Capture, n: int) -> bool:
    return padded(c) >= n


async def test_the_queued_bytes_of_all_clients_are_bounded(platform: Platform) -> None:
    """A client that stops reading is cut off once the gateway's send queues
    hold ``PAIJU_GATEWAY_MAX_QUEUED_BYTES`` (fewer messages than the per
    connection limit of 1000); a client reading the same events gets them all."""
    server, n, pad = "daa-10", 900, 16000
    async with gateway(platform, GATEWAY_MAX_QUEUED_BYTES=str(BUDGET)) as (url, metrics_port):
        host, port = re.findall(r"ws://([^:/]+):(\d+)", url)[0]
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((host, int(port)))
        slow = await websockets.connect(url, sock=sock, max_queue=1)
        assert (await reply_to(slow, json.dumps({"id": 1, "cmd": "login",
                                                 "name": "edge-slow"})))["ok"]
        assert (await reply_to(slow, json.dumps({"id": 2, "cmd": "watch_server",
                                                 "server": server})))["ok"]
        slow.transport.pause_reading()
        async with Capture(url) as fast:
            await fast.login("edge-fast")
            await fast.client.call("watch_server", server=server)
            nc = await nats.connect(platform.nats.url)
            try:
                # In steps the reading client keeps up with (its queue stays
                # far below the budget), while the other one's grows past it.
                for i in range(n):
                    await natsconn.publish(nc, f"paiju.lobby.{server}.rooms", "room_changed",
                                           {"server": server, "room": f"{server}-01",
                                            "state": "idle", "seats": [], "version": i,
                                            "pad": "x" * pad})
                    if i % STEP == STEP - 1:
                        await nc.flush()
                        await until(functools.partial(caught_up, fast, i + 1 - STEP),
                                    "the reading client's events", timeout=60)
                await nc.flush()
            finally:
                await nc.close()
            await until(lambda: padded(fast) >= n, "every event to the reading client",
                        timeout=60)
            await until(lambda: metric(metrics_port, "paiju_gateway_limit_refusals_total",
                                       'limit="queued_bytes"') >= 1, "the cut-off counted",
                        timeout=30)
            assert metric(metrics_port, "paiju_gateway_slow_client_disconnects_total") == 0
            assert metric(metrics_port, "paiju_gateway_queued_bytes") <= BUDGET
            assert (await fast.client.call("ping"))["ok"]
        slow.transport.resume_reading()
        got = 0
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await asyncio.wait_for(slow.recv(), timeout=10)
                got += 1
        assert got < n


async def chat_codes(c: Capture, n: int) -> list[str]:
    """Send ``n`` quick chat phrases at once: ``ok`` or the refusal code of each."""
    codes = []
    for _ in range(n):
        try:
            await c.client.call_now("chat", say="hello")
            codes.append("ok")
        except Exception as e:  # BotError
            codes.append(str(getattr(e, "code", e)))
    return codes


async def test_signing_in_again_does_not_reset_the_chat_rate(platform: Platform) -> None:
    """The quick chat's limit (3 at once, then one every 2 s) is the player's:
    a new connection of the same player finds the bucket as the old one left it."""
    async with Capture(platform.gateway_url) as c:
        await c.login("chat-again")
        rooms = (await c.client.call("rooms", server="doudizhu-100"))["rooms"]
        room = next(r["room"] for r in rooms if r["state"] == "idle")
        await c.client.call("sit", room=room, seat=0)
        first = await chat_codes(c, 5)
        assert first[:3] == ["ok"] * 3 and "chat_rate_limited" in first[3:]
    async with Capture(platform.gateway_url) as again:
        await again.client.call("auth", token=c.token)
        # At most one token came back while reconnecting (one per 2 s), not three.
        assert (await chat_codes(again, 3)).count("ok") <= 1
        await again.client.call("stand")


async def test_history_and_rankings_limit_is_1_to_100(platform: Platform) -> None:
    """docs/client-protocol.md: ``limit``? is 1–100 for both; 0 and 101 are
    ``bad_request`` (saying 1-100), absent is the default."""
    async with Capture(platform.gateway_url) as c:
        await c.login("limit-reader")
        for cmd, args in (("history", {}), ("rankings", {"server": "doudizhu-100"})):
            for bad in (0, 101, -1, "5", 2.5):
                with pytest.raises(BotError) as e:
                    await c.client.call_now(cmd, **args, limit=bad)
                assert e.value.code == "bad_request", (cmd, bad, e.value)
                assert "1-100" in str(e.value), str(e.value)
            assert (await c.client.call_now(cmd, **args, limit=1))["ok"]
            assert (await c.client.call_now(cmd, **args, limit=100))["ok"]
            assert (await c.client.call_now(cmd, **args))["ok"]


async def test_a_refusal_never_echoes_input_unbounded(platform: Platform) -> None:
    """A refusal shows at most 64 characters of a client's value (then "…"),
    and a message is at most 256 characters: a 10 KB room name or command name
    does not come back in full."""
    async with websockets.connect(platform.gateway_url) as ws:
        long = "房" + "x" * 10_000
        reply = await reply_to(ws, json.dumps({"id": 1, "cmd": long}))
        assert reply["error"] == "unknown_command"
        assert len(reply["message"]) <= 256 and "x" * 100 not in reply["message"]
        assert reply["message"].endswith("…"), reply["message"]
        await reply_to(ws, json.dumps({"id": 2, "cmd": "login", "name": "echo-bound"}))
        cases: list[tuple[str, dict[str, Any], str | None]] = [
            ("sit", {"room": long, "seat": 0}, "no_such_room"),
            ("sit", {"room": "doudizhu-10-01", "seat": 10**400}, "no_such_seat"),
            ("watch", {"room": long}, "no_such_room"),
            ("rankings", {"server": long}, "no_such_server"),
            ("replay", {"game_id": long}, None),
            ("chat", {"say": long}, "no_such_phrase")]
        for cmd, args, code in cases:
            reply = await reply_to(ws, json.dumps({"id": 3, "cmd": cmd, **args}))
            assert reply["ok"] is False and reply["id"] == 3, reply
            assert code is None or reply["error"] == code, reply
            assert len(reply["message"]) <= 256, (cmd, len(reply["message"]))
            assert "x" * 100 not in reply["message"] and "0" * 100 not in reply["message"]


@pytest.mark.parametrize(("cid", "ok"), [
    ("a" * 64, True), (10**64 - 1, True), (-(10**64 - 1), True), (2**70, True),
    ("a" * 65, False), (10**64, False), (10**400, False), (-(10**399), False)],
    ids=["str64", "digits64", "neg64", "int2^70", "str65", "digits65", "400digits", "neg400"])
async def test_a_command_id_is_bounded(platform: Platform, cid: Any, ok: bool) -> None:
    """docs/client-protocol.md: an ``id`` is a string of at most 64 characters
    or an integer of at most 64 digits; another is ``bad_frame`` with a null
    ``id`` (nothing of it echoed)."""
    async with websockets.connect(platform.gateway_url) as ws:
        reply = await reply_to(ws, json.dumps({"id": cid, "cmd": "ping"}))
        if ok:
            assert (reply["ok"], reply["id"]) == (True, cid)
        else:
            assert (reply["ok"], reply["error"], reply["id"]) == (False, "bad_frame", None)
            assert str(cid)[:20] not in reply["message"]
        assert (await reply_to(ws, '{"id": "next", "cmd": "ping"}'))["ok"] is True
