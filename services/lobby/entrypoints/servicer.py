"""The gRPC face of the lobby (``paiju.lobby.v1.LobbyService``): requests in,
:class:`~services.lobby.application.lobby.Lobby` calls, messages out, refusals as gRPC
status with the reason code (message prefix and trailing metadata ``paiju-error``)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

import grpc

from paiju.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from paiju.security import operator_calls as operator
from services.lobby.adapters.events import result_message, room_message
from services.lobby.application.lobby import Lobby
from services.lobby.domain.errors import METADATA_KEY, LobbyError

T = TypeVar("T")


async def _guard(context: grpc.aio.ServicerContext, call: Awaitable[T]) -> T:
    try:
        return await call
    except LobbyError as e:
        context.set_trailing_metadata(((METADATA_KEY, e.code),))
        await context.abort(e.status, f"{e.code}: {e.message}")
        raise  # not reached: abort raises


class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    """Translates LobbyService RPCs to :class:`Lobby` calls."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def ListServers(self, request: lobby_pb2.ListServersRequest,
                          context: grpc.aio.ServicerContext) -> lobby_pb2.ListServersResponse:
        """Every coin server of the configuration."""
        return lobby_pb2.ListServersResponse(servers=[
            lobby_pb2.CoinServer(server=s.server, name=s.name, game=s.game, base=s.base,
                                 min_coins=s.min_coins, fee_rate=s.fee_rate, unit=s.unit,
                                 options_json=s.options_json, rooms=s.rooms, seats=s.seats,
                                 ready_seconds=s.ready_seconds,
                                 idle_disconnect_seconds=s.idle_disconnect_seconds,
                                 allow_spectators=s.spectators)
            for s in self.lobby.config.servers])

    async def ListRooms(self, request: lobby_pb2.ListRoomsRequest,
                        context: grpc.aio.ServicerContext) -> lobby_pb2.ListRoomsResponse:
        """The rooms of one server."""
        rooms = await _guard(context, self.lobby.list_rooms(request.server))
        return lobby_pb2.ListRoomsResponse(rooms=[room_message(r) for r in rooms])

    async def GetRoom(self, request: lobby_pb2.GetRoomRequest,
                      context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """One room."""
        return room_message(await _guard(context, self.lobby.get_room(request.room)))

    async def Sit(self, request: lobby_pb2.SitRequest,
                  context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """Sit at a seat."""
        return room_message(await _guard(context, self.lobby.sit(
            request.player, request.name, request.room, request.seat)))

    async def Stand(self, request: lobby_pb2.PlayerRequest,
                    context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """Stand up."""
        return room_message(await _guard(context, self.lobby.stand(request.player)))

    async def Ready(self, request: lobby_pb2.PlayerRequest,
                    context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """Press start."""
        return room_message(await _guard(context, self.lobby.ready(request.player)))

    async def WhereIs(self, request: lobby_pb2.PlayerRequest,
                      context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """Where the player sits."""
        return room_message(await _guard(context, self.lobby.where_is(request.player)))

    async def GameOver(self, request: lobby_pb2.GameOverRequest,
                       context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """A finished game (from the table service)."""
        return room_message(await _guard(context, self.lobby.game_over(
            request.game_id, request.room, list(request.escaped), request.carry_json,
            list(request.settlement), request.record_id, list(request.lines))))

    async def GameMoved(self, request: lobby_pb2.GameMovedRequest,
                        context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """A table instance took a running game over."""
        return room_message(await _guard(context, self.lobby.game_moved(
            request.game_id, request.room, request.table_instance)))

    async def LastResult(self, request: lobby_pb2.PlayerRequest,
                         context: grpc.aio.ServicerContext) -> lobby_pb2.RoomResult:
        """The player's last finished game."""
        return result_message(await _guard(context, self.lobby.last_result(request.player)))

    async def QuickStart(self, request: lobby_pb2.QuickStartRequest,
                         context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """快速开始: the player sits at the best room of the game it can afford."""
        return room_message(await _guard(context, self.lobby.quick_start(
            request.player, request.name, request.game)))

    async def Kick(self, request: lobby_pb2.KickRequest,
                   context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """An operator stands a player up from a waiting room."""
        return room_message(await _guard(context, self.lobby.kick(
            request.player, request.reason, operator.who(context))))
