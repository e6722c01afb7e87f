"""JetStream publishes with their acks awaited through one shared reply
subscription, cheaper per call than nats-py's ``js.publish``.

One wildcard subscription on ``<inbox>.*`` (made on first use); each publish
gets its own token and a future in a dict; the timeout is a
``loop.call_later`` handle cancelled when the ack comes; the ack is parsed
with orjson. Errors are nats-py's own classes, as ``js.publish`` raises them:
``nats.js.errors.APIError`` (and its subclasses, via ``APIError.from_error``)
for an error answer, ``nats.js.errors.NoStreamResponseError`` for a 503
no-responders status, ``nats.errors.TimeoutError`` when no answer comes in
time, ``nats.errors.ConnectionClosedError`` when the connection is closed
at the call (a publish pending when it closes ends by its timeout). nats-py
subscribes the reply subscription again after a reconnect, as any other.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import nats.errors
import nats.js.errors
import orjson
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

EXPECTED_LAST_SUBJECT_SEQUENCE = "Nats-Expected-Last-Subject-Sequence"


class JetStreamPublisher:
    """Publishes to JetStream on ``nc`` and returns the ack's stream sequence."""

    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        self._prefix = ""
        self._sub: Any = None
        self._subscribing = asyncio.Lock()
        self._pending: dict[str, asyncio.Future[Msg]] = {}
        self._tokens = itertools.count()

    async def _ensure_sub(self) -> None:
        async with self._subscribing:  # one subscription, however many first calls
            if self._sub is None:
                inbox = self.nc.new_inbox()
                self._prefix = inbox + "."
                self._sub = await self.nc.subscribe(inbox + ".*", cb=self._on_reply)

    async def _on_reply(self, msg: Msg) -> None:
        fut = self._pending.pop(msg.subject[len(self._prefix):], None)
        if fut is not None and not fut.done():
            fut.set_result(msg)

    @property
    def pending(self) -> int:
        """Publishes awaiting their ack (0 when none leaked)."""
        return len(self._pending)

    async def publish(self, subject: str, payload: bytes, *, timeout: float,
                      headers: dict[str, str] | None = None) -> int:
        """Publish ``payload`` on ``subject`` with ``headers``; the stream
        sequence it was stored at. ``timeout`` in seconds. Raises as the
        module docstring says."""
        if self.nc.is_closed:
            raise nats.errors.ConnectionClosedError
        if self._sub is None:
            await self._ensure_sub()
        token = format(next(self._tokens), "x")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Msg] = loop.create_future()
        self._pending[token] = fut
        handle = loop.call_later(timeout, _expire, fut)
        try:
            await self.nc.publish(subject, payload, reply=self._prefix + token,
                                  headers=headers)
            msg = await fut
        except TimeoutError:
            raise nats.errors.TimeoutError from None
        finally:
            handle.cancel()
            self._pending.pop(token, None)
        if msg.headers and msg.headers.get("Status") == "503":
            raise nats.js.errors.NoStreamResponseError
        resp = orjson.loads(msg.data)
        if "error" in resp:
            raise nats.js.errors.APIError.from_error(resp["error"])
        return int(resp["seq"])

    async def kv_update(self, bucket: str, key: str, value: bytes, last: int,
                        timeout: float) -> int:
        """KeyValue ``update(key, value, last)`` on ``bucket``: the new
        revision. A wrong ``last`` raises ``KeyWrongLastSequenceError``."""
        try:
            return await self.publish(f"$KV.{bucket}.{key}", value, timeout=timeout,
                                      headers={EXPECTED_LAST_SUBJECT_SEQUENCE: str(last)})
        except nats.js.errors.APIError as e:
            if e.err_code in (10071, 10164):
                raise nats.js.errors.KeyWrongLastSequenceError(description=e.description) from e
            raise


def _expire(fut: asyncio.Future[Msg]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError())
