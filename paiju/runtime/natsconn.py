"""The NATS connection helper (nats-py) and event publishing.

:func:`connect` keeps trying until NATS answers, reconnects forever, and keeps
the ``nats`` dependency of :class:`~paiju.runtime.health.Health` up to date.
:func:`publish` and :func:`decode` put the events of shared/spec/events.md on
and off the wire as ``paiju.events.v1.Event`` protobuf messages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import nats
import nats.errors
from nats.aio.client import Client as NATS
from opentelemetry.trace import SpanKind

from paiju.events.v1.events_pb2 import Event
from paiju.runtime import jsontext, tracing
from paiju.runtime.health import Health

#: What a call to NATS (a request, a key-value or JetStream call) raises when
#: NATS is away or does not answer in time.
NATS_ERRORS = (nats.errors.Error, TimeoutError, OSError)


async def logged_step(step: Callable[[], Awaitable[object]], what: str,
                      log: logging.Logger) -> None:
    """Run one step of a loop that goes on for ever: a NATS error is logged as a
    warning (``<what> failed: <error>``), any other with its traceback; neither
    is raised."""
    try:
        await step()
    except NATS_ERRORS as e:
        log.warning("%s failed: %s", what, e)
    except Exception:
        log.exception("%s failed", what)

log = logging.getLogger("paiju.nats")

#: Seconds between the client's PINGs to its server.
PING_INTERVAL = 2.0
#: PINGs left unanswered before the connection is taken for dead (then
#: reconnected, to another server of a cluster where one is given).
MAX_OUTSTANDING_PINGS = 2


async def connect(url: str, health: Health | None, name: str,
                  first_attempt_timeout: float | None = None, *,
                  auth: Mapping[str, Any] | None = None,
                  on_reconnected: Callable[[], None] | None = None) -> NATS:
    """Connect to ``url`` (comma-separated servers allowed) and keep connected.

    ``auth`` holds more nats-py options: the service's credentials, inbox
    prefix and TLS (:func:`paiju.security.natsauth.client_options`). ``on_reconnected``
    is called after each reconnect (the subscriptions are back by then).

    While disconnected, ``health`` has ``nats`` down. The first connection is
    retried every half second, for ever unless ``first_attempt_timeout``
    (seconds) runs out (then ``TimeoutError``); after that nats-py reconnects
    for ever, and the subscriptions survive.
    """
    last_error = ""

    async def disconnected() -> None:
        if health:
            await health.set("nats", False)

    async def reconnected() -> None:
        nonlocal last_error
        last_error = ""
        if health:
            await health.set("nats", True)
        if on_reconnected is not None:
            on_reconnected()

    async def error(e: Exception) -> None:
        nonlocal last_error
        if str(e) != last_error:  # once per kind of failure, not every retry
            last_error = str(e)
            log.warning("nats error: %s", e, extra={"nats_url": url})

    if health:
        await health.set("nats", False)
    attempt = nats.connect(
        servers=[u.strip() for u in url.split(",") if u.strip()],
        name=name,
        allow_reconnect=True,
        max_reconnect_attempts=-1,  # also makes the first connect retry until it works
        reconnect_time_wait=0.5,
        connect_timeout=2,
        # A server that went silent (its host lost, a network cut: no TCP
        # close) is left after PING_INTERVAL · (MAX_OUTSTANDING_PINGS + 1)
        # seconds at most, for another server of the cluster; nats-py's
        # defaults (2 min, 2) left it four to six minutes.
        ping_interval=PING_INTERVAL,
        max_outstanding_pings=MAX_OUTSTANDING_PINGS,
        disconnected_cb=disconnected,
        reconnected_cb=reconnected,
        error_cb=error,
        **dict(auth or {}),
    )
    try:
        nc: NATS = await asyncio.wait_for(attempt, first_attempt_timeout)
    except TimeoutError as e:
        raise TimeoutError(f"NATS at {url} did not answer") from e
    last_error = ""
    if health:
        await health.set("nats", True)
    return nc


async def close(nc: NATS, step_seconds: float) -> None:
    """Stop ``nc`` at a service's end: drain it (what was published reaches
    NATS, the subscriptions' pending messages are handled) while connected,
    else close it at once. A connection that is reconnecting (NATS stopped
    with the service, as under ``paiju up`` when it is killed) cannot drain
    (nats-py raises ``ConnectionReconnectingError``): it is closed, which ends
    its reconnect loop, instead of left to retry while the process stops;
    so is one whose drain takes longer than half of ``step_seconds`` (a
    drain whose flush never returns: NATS died during it). ``step_seconds``
    is the bound of the stop step this runs in (a service's
    ``drain_seconds``): the other half leaves the close time to run after a
    drain cut short. Never raises."""
    if nc.is_closed:
        return
    if nc.is_connected:
        try:
            await asyncio.wait_for(nc.drain(), step_seconds / 2)
            return
        except Exception as e:  # any failure: close it instead
            log.info("nats drain failed (%r); closing", e)
    try:
        await nc.close()
    except Exception as e:  # closing is best effort at the end
        log.info("nats close failed: %r", e)


def encode(type_: str, data: dict[str, Any], *, seq: int = 0, game_id: str = "",
           room: str = "") -> bytes:
    """An event as the bytes of a ``paiju.events.v1.Event``."""
    return Event(
        type=type_, seq=seq, game_id=game_id, room=room, ts_ms=int(time.time() * 1000),
        data_json=jsontext.dumps(data),
    ).SerializeToString()


def decode(payload: bytes) -> dict[str, Any]:
    """The JSON form of an event as clients get it: its data plus ``type``,
    ``seq``, ``game_id``, ``room`` and ``ts`` (unix ms)."""
    ev = Event.FromString(payload)
    out: dict[str, Any] = jsontext.loads(ev.data_json) if ev.data_json else {}
    out["type"] = ev.type
    if ev.seq:
        out["seq"] = ev.seq
    if ev.game_id:
        out.setdefault("game_id", ev.game_id)
    if ev.room:
        out.setdefault("room", ev.room)
    out["ts"] = ev.ts_ms
    return out


async def publish(nc: NATS, subject: str, type_: str, data: dict[str, Any], *, seq: int = 0,
                  game_id: str = "", room: str = "") -> None:
    """Publish one event on ``subject`` (events.md "Subjects"). With tracing
    on, a PRODUCER span whose context goes in the message's headers
    (:mod:`paiju.runtime.tracing`)."""
    payload = encode(type_, data, seq=seq, game_id=game_id, room=room)
    if not tracing.enabled():
        await nc.publish(subject, payload)
        return
    with tracing.span(f"publish {type_}", SpanKind.PRODUCER, {
            "messaging.system": "nats", "messaging.destination.name": subject,
            "paiju.seq": seq, "paiju.game_id": game_id}):
        await nc.publish(subject, payload, headers=tracing.headers())
