"""A bot stops when its task is cancelled: closing the connection never
swallows the cancellation of the task that closes it (a bot that swallowed
it reconnected and played on, and a test's event loop never ended); and a
bot whose ``ready`` is refused for now presses again (paiju/tools/bots.py,
botclient.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from paiju.tools.botclient import Client
from paiju.tools.bots import Bot, Stats


async def test_a_close_that_is_cancelled_ends_cancelled() -> None:
    client = Client("ws://127.0.0.1:9/ws", lambda ev: None)

    async def read_on() -> None:  # a reader that has not ended
        await asyncio.Event().wait()

    client.reader = asyncio.create_task(read_on())
    closing = asyncio.create_task(client.close())
    await asyncio.sleep(0.05)
    assert not closing.done()
    closing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(closing, timeout=1)
    assert closing.cancelled()


async def test_a_close_ends_when_the_reader_failed() -> None:
    client = Client("ws://127.0.0.1:9/ws", lambda ev: None)

    async def fail() -> None:
        raise RuntimeError("the reader's own error")

    client.reader = asyncio.create_task(fail())
    await client.close()  # the reader's error is not the close's
    assert client.reader.done()


async def test_a_ready_refused_busy_is_pressed_again() -> None:
    """A ``ready`` refused ``busy`` (the gateway past its headroom) is sent
    again after the wait the refusal asks for, though no ``room_changed``
    came: a loopback peer answers the bot's commands, the first ``ready``
    with ``busy``."""
    readies: list[float] = []

    async def peer(ws: ServerConnection) -> None:
        async for frame in ws:
            msg = json.loads(frame)
            reply: dict[str, Any] = {"type": "reply", "id": msg["id"], "ok": True}
            if msg["cmd"] == "login":
                reply["token"] = "t"
            elif msg["cmd"] == "ready":
                readies.append(time.monotonic())
                if len(readies) == 1:
                    reply = {**reply, "ok": False, "error": "busy",
                             "message": "the server is busy", "retry_after_ms": 200}
            await ws.send(json.dumps(reply))

    async with serve(peer, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        bot = Bot(f"ws://127.0.0.1:{port}/ws", "b1", "doudizhu", "bdou000-01", 1, 1,
                  (0.0, 0.0), Stats(), random.Random(1))
        running = asyncio.create_task(bot.run())
        try:
            async with asyncio.timeout(5):
                while len(readies) < 2:
                    await asyncio.sleep(0.01)
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
    assert readies[1] - readies[0] >= 0.2  # the wait the refusal asked for
    assert bot.stats.retries == 1 and not bot.stats.errors
