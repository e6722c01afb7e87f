"""The ``rules`` command (规则说明, docs/client-protocol.md): a game's rules
for players, from the game's package (:mod:`paiju.rules.guide`); public, so
it is answered before sign-in."""

from __future__ import annotations

from typing import Any

from paiju.rules.guide import NoSuchGame, rules_for
from services.gateway.application.connection import Connection
from services.gateway.domain.protocol import ClientError, field


async def rules(session: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``{game}`` → ``{game, title, sections: [{id, title, text}], lines:
    {settlement line label: section id}}``.
    Refusals: ``bad_request`` (``game`` missing or not a string),
    ``no_such_game`` (no game of that name)."""
    game = field(args, "game", str)
    try:
        return rules_for(game)
    except NoSuchGame as exc:
        raise ClientError("no_such_game", "no game of that name") from exc
