"""The dispatch of one frame to its command's handler
(:data:`services.gateway.application.commands.COMMANDS`)."""

from __future__ import annotations

import logging
import time
from typing import Any

from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind

from paiju.runtime import tracing
from services.gateway import metrics
from services.gateway.adapters.backends import IN_FLIGHT
from services.gateway.application.commands import COMMANDS, OPEN_COMMANDS, Handler
from services.gateway.application.connection import Connection
from services.gateway.domain.protocol import ClientError, CommandError, error, parse, reply, shown

log = logging.getLogger("paiju.gateway")


def refuse(session: Connection, cid: str | int | None, e: ClientError) -> None:
    """Send the error reply of command ``cid`` (counted by code)."""
    metrics.ERRORS.labels(e.code).inc()
    session.send(error(cid, e.code, e.message, e.retry_after_ms))


def admitted(session: Connection, name: str) -> None:
    """Refuse ``name`` with ``busy`` where the gateway is past its headroom
    (:class:`~services.gateway.domain.admission.Admission`; counted in
    ``paiju_gateway_shed_total``)."""
    shed = session.gw.admission.check(name, time.monotonic(), IN_FLIGHT.count)
    if shed is not None:
        metrics.SHED.labels(shed.reason).inc()
        raise ClientError("busy", "the server is busy; try again shortly", shed.retry_after_ms)


async def handle_frame(session: Connection, frame: str | bytes) -> None:
    """Handle one frame: parse it, check the rate, run its command, reply."""
    try:
        cmd = parse(frame)
    except CommandError as e:
        refuse(session, e.id, e.error)
        return
    except ClientError as e:
        refuse(session, None, e)
        return
    if not session.bucket.take():
        refuse(session, cmd.id, ClientError("rate_limited", "too many commands; slow down"))
        return
    await dispatch(session, cmd.id, cmd.cmd, cmd.args)


async def dispatch(session: Connection, cid: str | int | None, name: str,
                   args: dict[str, Any]) -> None:
    """Run command ``name`` with ``args`` and send its reply (or refusal):
    ``unknown_command``, ``unauthenticated`` before sign-in outside
    :data:`OPEN_COMMANDS`, ``busy`` past the gateway's headroom
    (:func:`admitted`), the handler's :class:`ClientError`, or ``internal``
    where the handler failed."""
    handler = COMMANDS.get(name)
    if handler is None:
        refuse(session, cid, ClientError("unknown_command", f"no command {shown(name)}"))
        return
    if not tracing.enabled():
        await _answer(session, cid, name, args, handler, None)
        return
    # The command is a trace's root (paiju.runtime.tracing).
    with tracing.span(f"ws {name}", SpanKind.SERVER, {"paiju.command": name,
                                                     "paiju.connection": session.id},
                      parent=Context()) as span:
        await _answer(session, cid, name, args, handler, span)


async def _answer(session: Connection, cid: str | int | None, name: str, args: dict[str, Any],
                  handler: Handler, span: Span | None) -> None:
    """Run ``handler`` and send its reply or refusal (inside ``span`` when tracing)."""
    start = time.perf_counter()
    try:
        if session.identity is None and name not in OPEN_COMMANDS:
            raise ClientError("unauthenticated", "sign in first (login or auth)")
        admitted(session, name)
        if span is not None and session.identity is not None:
            span.set_attribute("paiju.player", session.player)
        session.send(reply(cid, **await handler(session, args | {"_id": cid})))
    except ClientError as e:
        if span is not None:
            span.set_attribute("paiju.error", e.code)
        if e.code in metrics.PLATFORM_FAILURES:
            metrics.COMMANDS_FAILED.labels(name).inc()
        refuse(session, cid, e)
    except Exception:
        log.exception("command failed", extra={"cmd": name, "conn": session.id})
        metrics.COMMANDS_FAILED.labels(name).inc()
        refuse(session, cid, ClientError("internal", "the gateway failed on this command"))
    finally:
        seconds = time.perf_counter() - start
        metrics.COMMAND_SECONDS.labels(name).observe(seconds)
        if name == "act":
            session.gw.admission.act_seen(time.monotonic(), seconds)
