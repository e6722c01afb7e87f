"""Where a sitting stands in the pool: its lease holder and its log.

The lobby's reconciler asks this (``LocateGame``) before it voids a game
(services/lobby/application/reconcile.py): a game is lost only when nobody holds its
lease and its log cannot be read or replayed; a game whose log replays is
taken over by a live instance (services/table/application/takeover.py), and is
listed live first where it was not (a creation cut off after its first entry).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from paiju.runtime.natsconn import NATS_ERRORS
from services.table.application.runner import Table
from services.table.domain.outgoing import GameError
from services.table.domain.sitting import restore

log = logging.getLogger("paiju.table")

READABLE, MISSING, UNREADABLE = "readable", "missing", "unreadable"


@dataclass(frozen=True)
class Located:
    """``owner``: the lease holder's gRPC address ("" none); ``log``:
    :data:`READABLE`, :data:`MISSING` or :data:`UNREADABLE`; ``ended``: the
    log says the sitting's last deal finished."""

    owner: str
    log: str
    ended: bool = False


async def locate(table: Table, game_id: str) -> Located:
    """Read ``game_id``'s lease and log (and replay the log). Raises
    ``GameError(unavailable)`` (UNAVAILABLE) while JetStream does not answer."""
    try:
        holder = await table.leases.holder(game_id)
    except NATS_ERRORS as e:
        raise GameError("unavailable", f"JetStream did not answer: {e}", "UNAVAILABLE") from e
    owner = str((holder or {}).get("address", ""))
    try:
        logged = await table.log.read(game_id)
    except NATS_ERRORS as e:
        raise GameError("unavailable", f"JetStream did not answer: {e}", "UNAVAILABLE") from e
    except Exception as e:  # entries that are no JSON, a stream that is broken
        log.error("the log of %s cannot be read: %s", game_id, e)
        return Located(owner, UNREADABLE)
    if not logged:
        return Located(owner, MISSING)
    try:
        sitting = restore([e for _, e in logged])
    except Exception as e:
        log.error("the log of %s cannot be replayed: %s", game_id, e)
        return Located(owner, UNREADABLE)
    ended = sitting.finished_logged and sitting.reason != "redeal"
    if not owner and not ended:
        await list_orphan(table, game_id, sitting.spec.room, sitting.spec.game)
    return Located(owner, READABLE, ended)


async def list_orphan(table: Table, game_id: str, room: str, game: str) -> None:
    """List a going game that nobody holds live where it is not (its creation
    was cut off after its first entry was logged: the lobby stopped mid
    CreateGame), so that an instance takes it over and the log's promise,
    "an instance will take it over", holds. Raises ``GameError(unavailable)``
    while JetStream does not answer."""
    try:
        if await table.leases.live_info(game_id) is None:
            log.warning("game %s has a log but was never listed live: listed now, "
                        "to be taken over", game_id)
            await table.leases.add_live(game_id, room, game)
    except NATS_ERRORS as e:
        raise GameError("unavailable", f"JetStream did not answer: {e}", "UNAVAILABLE") from e
