"""What one connection follows on NATS, by key: the shared subscriptions of
the gateway's :class:`~services.gateway.adapters.fanout.Fanout` (the player's events,
its table's, a watched server's rooms) and the connection's own ones (its
player's control subject)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from services.gateway.adapters.fanout import Fanout, Listener

#: Called with each followed event (decoded; shared, never change it).
OnEvent = Callable[[dict[str, Any]], None]
#: Takes each followed event for the client: its key, the decoded event
#: (shared, never change it) and its JSON text.
Deliver = Callable[[str, dict[str, Any], str], None]


class Subscriptions:
    """The subscriptions of one connection; each key holds at most one, and a
    new one under a key replaces the old. ``deliver`` gets every followed
    event, in NATS order; ``forget(key)`` is called when ``key``'s follow ends
    or is replaced."""

    def __init__(self, nats: NATS, fanout: Fanout, deliver: Deliver,
                 forget: Callable[[str], None] = lambda key: None) -> None:
        self.nats = nats
        self.fanout = fanout
        self.deliver = deliver
        self.forget = forget
        #: True once the connection ended: nothing more is followed.
        self.closed = False
        self._follows: dict[str, tuple[str, int]] = {}
        self._own: dict[str, Subscription] = {}

    def keys(self) -> set[str]:
        """The keys followed now."""
        return set(self._follows) | set(self._own)

    async def follow(self, key: str, subject: str, on_event: OnEvent | None = None) -> None:
        """Forward every event of ``subject`` to the client (calling
        ``on_event`` first), replacing what ``key`` held."""
        await self.drop(key)
        deliver = self.deliver

        def forward(event: dict[str, Any], text: str) -> None:
            if on_event is not None:
                on_event(event)
            deliver(key, event, text)

        listener: Listener = forward
        handle = await self.fanout.follow(subject, listener)
        if self.closed:  # the connection ended while subscribing
            await self.fanout.unfollow(handle)
            return
        self._follows[key] = handle

    async def own(self, key: str, subject: str,
                  cb: Callable[[Msg], Awaitable[None]]) -> None:
        """Subscribe ``subject`` for this connection alone (``cb`` gets each
        message; nothing is forwarded), replacing what ``key`` held."""
        await self.drop(key)
        sub = await self.nats.subscribe(subject, cb=cb)
        if self.closed:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
            return
        self._own[key] = sub

    async def drop(self, key: str) -> None:
        """End what ``key`` holds, if anything."""
        handle = self._follows.pop(key, None)
        if handle is not None:
            self.forget(key)
            await self.fanout.unfollow(handle)
        sub = self._own.pop(key, None)
        if sub is not None:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

    async def close(self) -> None:
        """End every subscription; nothing more is followed."""
        self.closed = True
        for key in list(self.keys()):
            await self.drop(key)
