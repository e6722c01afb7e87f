"""The ``room_changed`` event (shared/spec/events.md) and the Room message.

Published on ``paiju.lobby.<server>.rooms`` after every committed change of a
room. Fields: server, room, state, game, size, seats [{seat, player, name,
coins, ready}] (occupied seats), game_id, table_instance, version (drop an
event older than one already seen), ready_deadline (unix ms or null).
"""

from __future__ import annotations

import logging
from typing import Any

from nats.aio.client import Client as NATS

from paiju import natsconn, subjects
from paiju.lobby.v1 import lobby_pb2
from services.lobby.domain import Room

log = logging.getLogger("paiju.lobby")


def room_data(room: Room) -> dict[str, Any]:
    """The fields of ``room_changed`` for ``room``."""
    return {
        "server": room.server, "room": room.room, "state": room.state, "game": room.game,
        "size": room.size,
        "seats": [{"seat": s.seat, "player": s.player, "name": s.name, "coins": s.coins,
                   "ready": s.ready} for _, s in sorted(room.seats.items())],
        "game_id": room.game_id, "table_instance": room.table_instance,
        "version": room.version, "ready_deadline": room.kick_at_ms,
    }


def room_message(room: Room) -> lobby_pb2.Room:
    """``room`` as a ``paiju.lobby.v1.Room``."""
    return lobby_pb2.Room(
        server=room.server, room=room.room, state=room.state, game=room.game,
        seats=[lobby_pb2.RoomSeat(seat=s.seat, player=s.player, name=s.name, coins=s.coins,
                                  ready=s.ready) for _, s in sorted(room.seats.items())],
        game_id=room.game_id, table_instance=room.table_instance, version=room.version,
        size=room.size, ready_deadline_ms=room.kick_at_ms or 0,
    )


async def publish_room(nc: NATS | None, room: Room) -> None:
    """Publish ``room_changed`` for ``room``; a NATS failure is logged, not raised
    (the change is committed; clients resync with ListRooms)."""
    if nc is None:
        return
    try:
        await natsconn.publish(nc, subjects.lobby_rooms(room.server), "room_changed",
                               room_data(room), game_id=room.game_id, room=room.room)
    except Exception as e:
        log.warning("room_changed not published: %s", e, extra={"room": room.room})
