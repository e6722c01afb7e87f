"""The AI pool (``paiju ai --pool`` workers) asked for a seat over NATS.

A request on ``paiju.ai.seat.<game>`` (:func:`paiju.runtime.subjects.ai_seat`)
with JSON ``{room, server, game, seat}``; one worker of the queue group
answers ``{ok: true, name}`` (its AI, of that display name, now sits there and
presses start) or ``{ok: false}`` (it has no free AI of the game). No answer
within the timeout, no worker listening or a NATS failure count as no AI: the
seat stays free and the room waits.
"""

from __future__ import annotations

import json
import logging

from nats.aio.client import Client as NATS

from paiju.runtime import subjects

log = logging.getLogger("paiju.lobby")

#: Seconds the lobby waits for the pool's answer to one seat request.
ASK_SECONDS = 2.0


async def ask(nc: NATS, room: str, server: str, game: str, seat: int,
              timeout: float = ASK_SECONDS) -> bool:
    """Ask the pool for an AI player at ``seat`` of ``room``; whether one
    said it comes (``ok: true``). Never raises for NATS or a bad answer."""
    payload = json.dumps({"room": room, "server": server, "game": game, "seat": seat})
    try:
        reply = await nc.request(subjects.ai_seat(game), payload.encode(), timeout=timeout)
        answer = json.loads(reply.data)
    except Exception as e:  # no responders, a timeout, a closed connection, bad JSON
        log.info("no AI player for a seat: %s", type(e).__name__,
                 extra={"room": room, "seat": seat})
        return False
    return isinstance(answer, dict) and answer.get("ok") is True
