"""Quick chat (快捷聊天): a fixed set of phrases and emotes, no free
text (so nothing to moderate).

``chat`` with ``say`` (an id of :data:`PHRASES` or :data:`EMOTES`): the
gateway publishes ``{"type": "chat", "room", "seat", "player", "name", "say",
"kind", "ts"}`` on ``paiju.chat.<room>`` (:func:`paiju.runtime.subjects.chat`; no
table ``seq``) for the sender, and every gateway hands it to the room's
seated players and spectators. Only a seated player may send (spectators
cannot: ``spectators_cannot_chat``; nobody seated: ``not_seated``); an id
outside the set is ``no_such_phrase``; a player may send :data:`CHAT_BURST`
at once and one more every :data:`CHAT_EVERY_SECONDS` (``chat_rate_limited``),
counted per player over all its connections to the gateway (signing in again
does not reset it; services.gateway.domain.limits.PlayerBuckets).
The words and drawings are the client's (services/gateway/static/js/chat.js).
"""

from __future__ import annotations

from typing import Any

from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import natsconn, subjects
from services.gateway import metrics
from services.gateway.adapters.backends import call
from services.gateway.application.connection import Connection
from services.gateway.domain.protocol import ClientError, field, shown

#: The phrases (ids; the client shows 快点吧, 打得好, ...).
PHRASES = ("hurry", "well_played", "thanks", "sorry", "hello", "bye", "good_luck",
           "oops")
#: The emotes (ids; drawn as SVG by the client).
EMOTES = ("smile", "laugh", "cry", "angry", "thumbs_up", "surprised")
#: Messages a player may send at once, and seconds per message after that.
CHAT_BURST = 3
CHAT_EVERY_SECONDS = 2.0


def kind_of(say: str) -> str:
    """``phrase`` or ``emote`` for an id of the set; ``no_such_phrase`` else."""
    if say in PHRASES:
        return "phrase"
    if say in EMOTES:
        return "emote"
    raise ClientError("no_such_phrase", f"{shown(say)} is not a quick chat phrase or emote")


async def chat(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Send phrase or emote ``say`` to the player's room (module docstring);
    reply ``say`` and ``kind``."""
    say = field(args, "say", str)
    kind = kind_of(say)
    if s.watching is not None and s.route.seat is None:
        raise ClientError("spectators_cannot_chat", "spectators cannot send quick chat")
    if not s.gw.chat_rate.take(s.player):
        raise ClientError("chat_rate_limited", "too many chat messages; wait a moment")
    try:
        room = await call(s.gw.backends.lobby.WhereIs, lobby_pb2.PlayerRequest(player=s.player))
    except ClientError as e:
        if e.code == "not_seated":
            raise ClientError("not_seated", "sit in a room to chat") from None
        raise
    seat = next((x.seat for x in room.seats if x.player == s.player), None)
    if seat is None:
        raise ClientError("not_seated", "sit in a room to chat")
    assert s.identity is not None
    await natsconn.publish(s.gw.nats, subjects.chat(room.room), "chat", {
        "room": room.room, "seat": seat, "player": s.player, "name": s.identity.name,
        "say": say, "kind": kind})
    metrics.CHAT_MESSAGES.labels(kind).inc()
    return {"say": say, "kind": kind}
