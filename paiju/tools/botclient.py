"""The WebSocket client the bots (``paiju bots``) speak the protocol with:
commands with ids and their replies (docs/client-protocol.md), paced under the
gateway's rate limit; events go to a callback."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from paiju.runtime import jsontext

#: Commands per second a bot sends at most (the gateway allows 20).
BOT_RATE = 15.0


class BotError(Exception):
    """A reply with ``ok: false`` (``code`` is its error code)."""

    def __init__(self, code: str, message: str, retry_after_ms: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        #: The wait a ``busy`` refusal asks for (ms), if it gave one.
        self.retry_after_ms = retry_after_ms


class Client:
    """A WebSocket client of the protocol: commands with ids, replies matched
    to them, events delivered to ``on_event``."""

    def __init__(self, url: str, on_event: Any) -> None:
        self.url = url
        self.on_event = on_event
        self.ws: ClientConnection | None = None
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()
        self.next_send = 0.0

    async def connect(self) -> None:
        """Open the connection and start reading."""
        self.closed.clear()
        # No pings of its own (a browser sends none; the gateway pings an idle
        # connection): 2,000 bots pinging every 20 s were 100 pongs a second.
        self.ws = await websockets.connect(self.url, max_size=4 * 1024 * 1024,
                                           open_timeout=20, ping_interval=None,
                                           compression=None)
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                msg = jsontext.loads(frame)
                if isinstance(msg.get("id"), float):
                    # orjson reads an integer beyond 64 bits (a command id a
                    # caller chose) as a float: the standard library exactly.
                    msg = json.loads(frame)
                if msg.get("type") == "reply":
                    fut = self.pending.pop(msg.get("id"), None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                else:
                    self.on_event(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection closed"))
            self.pending.clear()
            self.closed.set()

    async def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Send a command and wait for its reply; raises :class:`BotError` for a
        refusal and ``ConnectionError`` when the connection drops."""
        await self.pace()
        return await self.call_now(cmd, **args)

    async def pace(self) -> None:
        """Wait until one more command keeps under ``BOT_RATE`` (the gateway's
        rate limit is respected, as a well-behaved client does)."""
        now = time.monotonic()
        if self.next_send > now:
            await asyncio.sleep(self.next_send - now)
        self.next_send = max(now, self.next_send) + 1 / BOT_RATE

    async def call_now(self, cmd: str, **args: Any) -> dict[str, Any]:
        """:meth:`call` without pacing (after :meth:`pace`)."""
        if self.ws is None or self.closed.is_set():
            raise ConnectionError("not connected")
        cid = next(self.ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[cid] = fut
        try:
            await self.ws.send(jsontext.dumps({"id": cid, "cmd": cmd, **args}))
        except websockets.ConnectionClosed as e:
            self.pending.pop(cid, None)
            raise ConnectionError("connection closed") from e
        # asyncio.timeout, not wait_for: Python 3.11's wait_for drops a
        # cancellation that comes as the reply does, and the bot plays on.
        async with asyncio.timeout(60):
            reply = await fut
        if not reply.get("ok"):
            after = reply.get("retry_after_ms")
            raise BotError(str(reply.get("error")), str(reply.get("message")),
                           after if isinstance(after, int) else None)
        return reply

    async def close(self) -> None:
        """Close the connection."""
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            # the reader's own end (an error, its cancellation) is no error of
            # the close; a cancellation of the caller still cancels the caller
            await asyncio.gather(self.reader, return_exceptions=True)
