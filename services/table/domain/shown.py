"""What a running game last told every seat of the engine's public state
beside the cards: its public roles (``roles`` events) and its
display (the ``display`` field of a public event; see
docs/client-protocol.md), so each is sent again only when it changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paiju.rules import Game
from services.table.domain.numbering import Numbering
from services.table.domain.outgoing import Outgoing, Seat


class Shown:
    """The roles and display last sent for one game (``engine``'s at start)."""

    def __init__(self, engine: Game, counter: bool = False) -> None:
        self.roles: list[str | None] = engine.public_roles()
        self.display: dict[str, Any] = engine.display()
        public = engine.card_counter(None) if counter else None
        #: The room has the 记牌器 (its ``card_counter`` option) and the game one.
        self.counter = public is not None
        #: The 记牌器 last sent per seat, and the public one (key ``None``):
        #: a new deal's public one is in every view, so it is not sent.
        self.counters: dict[int | None, list[list[str | int]] | None] = {None: public}

    def roles_event(self, engine: Game, numbers: Numbering) -> list[Outgoing]:
        """A public ``roles`` event if ``engine``'s public roles changed, else none."""
        roles = engine.public_roles()
        if roles == self.roles:
            return []
        self.roles = roles
        return [numbers.public("roles", {"roles": roles})]

    def counter_events(self, engine: Game, numbers: Numbering, seats: list[Seat],
                       hand: Callable[[int], list[str]], out: list[Outgoing]) -> None:
        """Where the room has the 记牌器 and it changed: a private ``counter``
        event ``{"counter": [[rank, unseen], …]}`` to each of ``seats`` (its
        hand as sent: ``hand(seat)``), and the public one (a spectator's,
        public information only) as ``counter`` on the last public event of
        ``out``."""
        if not self.counter:
            return
        found = engine.card_counters({**{s.seat: hand(s.seat) for s in seats}, None: []})
        assert found is not None  # the game has one (self.counter)
        for s in seats:
            if self.counters.get(s.seat) != found[s.seat]:
                self.counters[s.seat] = found[s.seat]
                out.append(numbers.private(s.player, "counter", {"counter": found[s.seat]}))
        last = next((o for o in reversed(out) if o.player is None), None)
        # public cards move only with a public event
        if last is not None and self.counters.get(None) != found[None]:
            self.counters[None] = last.data["counter"] = found[None]

    def attach_display(self, engine: Game, out: list[Outgoing]) -> None:
        """Put ``engine``'s display on the last public event of ``out`` if it
        changed (the public state changes only with a public event)."""
        display = engine.display()
        if display == self.display:
            return
        last = next((o for o in reversed(out) if o.player is None), None)
        if last is not None:
            last.data["display"] = self.display = display
