"""The client commands (docs/client-protocol.md) and their handlers, one table.

A handler is ``async def h(connection, args) -> reply fields``: ``connection``
is a :class:`~services.gateway.application.connection.Connection`, ``args`` the
whole command object plus ``_id`` (the command's ``id``); it raises
:class:`~services.gateway.domain.protocol.ClientError` to refuse. One module a
group of commands: ``account`` (ping, sign-in), ``lobby``, ``game``, ``watch``
(旁观, quick start), ``records`` (战绩, replays, rankings), ``chat`` and ``rules`` (规则说明).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from services.gateway.application.commands import (
    account,
    chat,
    game,
    lobby,
    records,
    rules,
    shares,
    watch,
)
from services.gateway.application.connection import Connection

Handler = Callable[[Connection, dict[str, Any]], Awaitable[dict[str, Any]]]

#: Every command by its name.
COMMANDS: Mapping[str, Handler] = {
    "ping": account.ping,
    "login": account.login,
    "auth": account.auth_,
    "chat": chat.chat,
    "act": game.act,
    "check": game.check,
    "hints": game.hints,
    "seat_view": game.seat_view,
    "view": game.view,
    "scores": game.scores,
    "last_trick": game.last_trick,
    "servers": lobby.servers,
    "rooms": lobby.rooms,
    "watch_server": lobby.watch_server,
    "sit": lobby.sit,
    "stand": lobby.stand,
    "ready": lobby.ready,
    "leave": lobby.leave,
    "relief": lobby.relief,
    "open_room": lobby.open_room,
    "join_code": lobby.join_code,
    "kick": lobby.kick,
    "history": records.history,
    "rankings": records.rankings,
    "stats": records.stats,
    "replay": records.replay,
    "share_replay": shares.share_replay,
    "shares": shares.shares,
    "revoke_share": shares.revoke_share,
    "watch": watch.watch,
    "unwatch": watch.unwatch,
    "quick_start": watch.quick_start,
    "rules": rules.rules,
}

#: Commands allowed before signing in (``replay`` only with a replay link,
#: an operator's or a player's shared one: its handler asks for a sign-in
#: otherwise; ``rules`` is public).
OPEN_COMMANDS = frozenset({"login", "auth", "ping", "replay", "rules"})
