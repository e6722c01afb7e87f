"""One NATS subscription per subject for the whole gateway, fanned out to the
connections that follow it.

Every player at a table follows ``paiju.table.<room>.events`` and everyone
watching a coin server its ``paiju.lobby.<server>.rooms``: with a subscription
per connection, NATS sent each event once per follower and each copy was
decoded and serialised again. Here each subject has one subscription; an event
is decoded once and turned into its JSON text once, then handed to every
follower in the order NATS delivered it (found by profiling the gateway under
load: docs/performance.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from paiju.runtime import jsontext, natsconn, tracing

#: A follower: called with the decoded event (shared: read it, never change
#: it) and its JSON text as clients get it.
Listener = Callable[[dict[str, Any], str], None]


def to_text(event: dict[str, Any]) -> str:
    """The JSON text a client gets for ``event`` (compact, UTF-8 kept)."""
    return jsontext.dumps(event)


@dataclass
class _Subject:
    listeners: dict[int, Listener] = field(default_factory=dict)
    sub: Subscription | None = None


class Fanout:
    """Shared subscriptions of one NATS connection (see the module docstring)."""

    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        self._subjects: dict[str, _Subject] = {}
        self._next = 0

    def subjects(self) -> int:
        """How many subjects are subscribed now."""
        return len(self._subjects)

    async def follow(self, subject: str, listener: Listener) -> tuple[str, int]:
        """Call ``listener`` for every event of ``subject`` from now on; returns
        the handle :meth:`unfollow` takes."""
        self._next += 1
        handle = (subject, self._next)
        entry = self._subjects.get(subject)
        if entry is None:
            entry = self._subjects[subject] = _Subject()
            entry.listeners[handle[1]] = listener

            async def deliver(msg: Msg) -> None:
                if not entry.listeners:
                    return
                event = natsconn.decode(msg.data)
                text = to_text(event)
                if not tracing.enabled():
                    for fn in list(entry.listeners.values()):
                        fn(event, text)
                    return
                with tracing.consumer_span(event["type"], msg.subject, msg.headers) as span:
                    span.set_attribute("paiju.followers", len(entry.listeners))
                    for fn in list(entry.listeners.values()):
                        fn(event, text)

            try:
                entry.sub = await self.nc.subscribe(subject, cb=deliver)
            except BaseException:
                if self._subjects.get(subject) is entry:
                    del self._subjects[subject]
                raise
        else:
            entry.listeners[handle[1]] = listener
        return handle

    def inject(self, subject: str, event: dict[str, Any]) -> int:
        """Hand ``event`` to this gateway's followers of ``subject`` as if NATS
        had delivered it (the gateway's own notices, e.g. the spectator count
        of a room's table); returns how many followers got it."""
        entry = self._subjects.get(subject)
        if entry is None:
            return 0
        text = to_text(event)
        listeners = list(entry.listeners.values())
        for fn in listeners:
            fn(event, text)
        return len(listeners)

    async def unfollow(self, handle: tuple[str, int]) -> None:
        """Stop calling the listener of ``handle``; the subject's subscription
        ends with its last follower."""
        subject, key = handle
        entry = self._subjects.get(subject)
        if entry is None or entry.listeners.pop(key, None) is None or entry.listeners:
            return
        del self._subjects[subject]
        if entry.sub is not None:
            with contextlib.suppress(Exception):
                await entry.sub.unsubscribe()
