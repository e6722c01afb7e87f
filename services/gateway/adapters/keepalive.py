"""Noticing a silently lost connection: a WebSocket ping every
``PING_INTERVAL`` seconds, and a connection whose pong has not come
``PING_TIMEOUT`` seconds after is aborted (browsers answer pings
natively, so no client change is needed).

A connection lost without a close frame (a network gone, a machine asleep) is
therefore closed, and its player's presence ``disconnect`` published, at most
``PING_INTERVAL + PING_TIMEOUT`` seconds (10 s by default) after its last
sign of life. websockets' own keepalive (``serve(ping_interval=,
ping_timeout=)``) times out the same way but then starts a closing handshake
and waits ``close_timeout`` more for a peer that is gone (up to 12 s in
all); here the socket is aborted at once. Uses the connection's public
``ping()`` and its asyncio transport's ``abort()``. A frame from the client is
a sign of life too: no ping goes to a connection heard from within the last
``PING_INTERVAL`` (2,000 playing connections were 400 pings and pongs a
second; docs/performance.md), so the bound above holds
from the last frame or pong.

Settings (paiju/config.py; seconds, above 0): ``PAIJU_GATEWAY_PING_INTERVAL_SECONDS``
(default 5) and ``PAIJU_GATEWAY_PING_TIMEOUT_SECONDS`` (default 5); tests run shorter.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from services.gateway import metrics

log = logging.getLogger("paiju.gateway")

async def keepalive(ws: ServerConnection, conn_id: str, interval: float,
                    timeout: float, heard: Callable[[], float] = lambda: 0.0) -> None:
    """Ping ``ws`` once ``interval`` seconds passed without a ping or a frame
    from the client (``heard()``: when the last frame came, ``time.monotonic()``
    seconds); abort it where sending the ping and getting its pong take more
    than ``timeout`` seconds. Returns when the connection closes or was aborted."""
    last = time.monotonic()
    while True:
        await asyncio.sleep(max(0.0, max(last, heard()) + interval - time.monotonic()))
        last = max(last, heard())
        if time.monotonic() - last < interval:
            continue  # a frame came meanwhile
        try:
            async with asyncio.timeout(timeout):
                pong = await ws.ping()
                await pong
        except ConnectionClosed:
            return
        except TimeoutError:
            metrics.PING_TIMEOUTS.inc()
            log.info("no pong: connection aborted", extra={"conn": conn_id})
            ws.transport.abort()
            return
        last = time.monotonic()
