"""The ``room_changed`` event (shared/spec/events.md) and the Room message.

Published on ``paiju.lobby.<server>.rooms`` after every committed change of a
room. Fields: server, room, state, game, size, seats [{seat, player, name,
coins, ready, connected, away_since, ai}] (occupied seats; ``connected``: the player
has a live session, ``away_since``: unix ms since when it is absent, or null),
missing (the absent seated players, by seat), game_id, table_instance, version
(drop an event older than one already seen), ready_deadline (unix ms or null),
last_result ({game_id, record_id, ended_ms, settlement: [{player, seat, points,
coins, fee}]} of the room's last finished game, or null), private, owner.

A private room's (好友房) events go to ``paiju.lobby.<server>.room.<room>``
instead, which only its seated players' sessions follow.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from nats.aio.client import Client as NATS

from paiju.common.v1 import common_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import natsconn, subjects
from services.lobby.domain.room_rules import Result, Room

log = logging.getLogger("paiju.lobby")


def room_data(room: Room) -> dict[str, Any]:
    """The fields of ``room_changed`` for ``room``."""
    return {
        "server": room.server, "room": room.room, "state": room.state, "game": room.game,
        "size": room.size,
        "seats": [{"seat": s.seat, "player": s.player, "name": s.name, "coins": s.coins,
                   "ready": s.ready, "connected": s.connected, "away_since": s.away_ms,
                   "ai": s.ai}
                  for _, s in sorted(room.seats.items())],
        "missing": room.missing,
        "game_id": room.game_id, "table_instance": room.table_instance,
        "version": room.version, "ready_deadline": room.kick_at_ms,
        "last_result": None if room.last_result is None else {
            k: v for k, v in room.last_result.to_json().items() if k != "room"},
        "private": room.private, "owner": room.owner, "options": room.options,
    }


def result_message(result: Result) -> lobby_pb2.RoomResult:
    """``result`` as a ``paiju.lobby.v1.RoomResult``."""
    return lobby_pb2.RoomResult(
        room=result.room, game_id=result.game_id, record_id=result.record_id,
        ended_ms=result.ended_ms,
        settlement=[common_pb2.SettlementRow(player=r.player, seat=r.seat, points=r.points,
                                             coins=r.coins, fee=r.fee) for r in result.rows],
        lines=[lobby_pb2.ResultLine(label=x.label, value=x.value, seats=x.seats)
               for x in result.lines],
        names=[r.name for r in result.rows])


def room_message(room: Room) -> lobby_pb2.Room:
    """``room`` as a ``paiju.lobby.v1.Room``."""
    return lobby_pb2.Room(
        server=room.server, room=room.room, state=room.state, game=room.game,
        seats=[lobby_pb2.RoomSeat(seat=s.seat, player=s.player, name=s.name, coins=s.coins,
                                  ready=s.ready, connected=s.connected,
                                  away_since_ms=s.away_ms or 0, ai=s.ai)
               for _, s in sorted(room.seats.items())],
        game_id=room.game_id, table_instance=room.table_instance, version=room.version,
        size=room.size, ready_deadline_ms=room.kick_at_ms or 0,
        last_result=None if room.last_result is None else result_message(room.last_result),
        private=room.private, owner=room.owner,
        options_json=json.dumps(room.options, sort_keys=True),
    )


async def publish_room(nc: NATS | None, room: Room) -> None:
    """Publish ``room_changed`` for ``room``; a NATS failure is logged, not raised
    (the change is committed; clients resync with ListRooms)."""
    if nc is None:
        return
    try:
        subject = (subjects.lobby_private_room(room.server, room.room) if room.private
                   else subjects.lobby_rooms(room.server))
        await natsconn.publish(nc, subject, "room_changed",
                               room_data(room), game_id=room.game_id, room=room.room)
    except Exception as e:
        log.warning("room_changed not published: %s", e, extra={"room": room.room})
