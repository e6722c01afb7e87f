"""The public view of a running game: what a spectator (旁观) may see.

A spectator gets the public events and a public view, never a hand
and never a hidden card, by the same rule as the public subject: what the
rules show to every seat alike. So the view keeps, of the engine's views of
all the seats, only the fields every seat sees the same (a seat's hand, the
kitty its taker alone holds, daa's held-back card and anything else one seat
sees otherwise are left out), plus the table's public state: the seats, whose
turn, deadlines, the paced deal's progress and card counts, and the public
``seq``. Pure: the caller passes the game and the time.
"""

from __future__ import annotations

import copy
from typing import Any

from services.table.domain.outgoing import ms
from services.table.domain.sitting import Sitting, seat_state

#: Engine view fields a spectator never gets, even where they look alike.
PRIVATE_FIELDS = frozenset({"seat", "hand"})


def common_fields(views: list[dict[str, Any]]) -> dict[str, Any]:
    """The fields (outside :data:`PRIVATE_FIELDS`) that every view of
    ``views`` holds with one same value."""
    if not views:
        return {}
    first = views[0]
    return {k: copy.deepcopy(v) for k, v in first.items()
            if k not in PRIVATE_FIELDS and all(k in w and w[k] == v for w in views[1:])}


def public_view(game: Sitting, now: float) -> dict[str, Any]:
    """The spectator's view of ``game`` at ``now`` (unix s): the engine
    fields common to all seats (:func:`common_fields`), ``spectator: true``,
    ``seat: None``, ``hand: []``, and the table's ``game_id``, ``room``,
    ``game``, ``phase``, ``seats`` (as :meth:`Sitting.view` gives them),
    ``to_act``, ``deadlines`` (seat -> unix ms), ``hand_counts`` (the paced
    deal's while it runs), ``dealing``, ``declaring_until`` (unix ms or None),
    ``seq``, ``public_seq``, and as the seats' views have them ``roles``
    (``public_roles``), ``rules`` (``client_rules``) and ``display``, and
    ``counter``, the 记牌器 of public information only, where the room has
    it on and the game has one."""
    engine = game.engine
    v = common_fields([engine.view(s) for s in range(engine.seats)])
    counts = game.steps.counts() if game.dealing else [
        len(engine.view(s).get("hand") or []) for s in range(engine.seats)]
    v.update({
        "spectator": True,
        "seat": None,
        "hand": [],
        "hand_counts": counts,
        "game_id": game.game_id,
        "room": game.room,
        "game": game.name,
        "phase": game.phase,
        "seats": [seat_state(game, s, now) for s in game.seats],
        "to_act": engine.to_act(),
        "deadlines": {str(s): ms(t) for s, t in game.turns.deadlines.items()},
        **game.steps.view_fields(),
        "seq": game.public_seq,
        "public_seq": game.public_seq,
        # what the seats' views show beside the cards, all public: the roles
        # everyone knows, the client's rules, the display (trump, badges,
        # multiplier, the kitty as the rules show it)
        "roles": engine.public_roles(),
        "rules": engine.client_rules(),
        "display": engine.display(),
    })
    if game.shown.counter:
        v["counter"] = engine.card_counter(None)
    return v
