"""What a running game last told every seat of the engine's public state
beside the cards: its public roles (``roles`` events) and its
display (the ``display`` field of a public event; see
docs/client-protocol.md), so each is sent again only when it changed."""

from __future__ import annotations

from typing import Any

from paiju.rules import Game
from services.table.domain.numbering import Numbering
from services.table.domain.outgoing import Outgoing


class Shown:
    """The roles and display last sent for one game (``engine``'s at start)."""

    def __init__(self, engine: Game) -> None:
        self.roles: list[str | None] = engine.public_roles()
        self.display: dict[str, Any] = engine.display()

    def roles_event(self, engine: Game, numbers: Numbering) -> list[Outgoing]:
        """A public ``roles`` event if ``engine``'s public roles changed, else none."""
        roles = engine.public_roles()
        if roles == self.roles:
            return []
        self.roles = roles
        return [numbers.public("roles", {"roles": roles})]

    def attach_display(self, engine: Game, out: list[Outgoing]) -> None:
        """Put ``engine``'s display on the last public event of ``out`` if it
        changed (the public state changes only with a public event)."""
        display = engine.display()
        if display == self.display:
            return
        last = next((o for o in reversed(out) if o.player is None), None)
        if last is not None:
            last.data["display"] = self.display = display
