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
                                 allow_spectators=s.spectators, practice=s.practice)
            for s in self.lobby.config.servers], relief=lobby_pb2.Relief(
                coins=self.lobby.relief.coins, per_day=self.lobby.relief.per_day,
                day_starts_utc_hour=self.lobby.relief.day_starts_utc_hour))

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
            request.player, request.name, request.room, request.seat, ai=request.ai)))

    async def Stand(self, request: lobby_pb2.PlayerRequest,
                    context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """Stand up."""
        return room_message(await _guard(context, self.lobby.stand(request.player)))

    async def Ready(self, request: lobby_pb2.PlayerRequest,
                    context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """Press start; a game is placed within the caller's deadline."""
        return room_message(await _guard(context, self.lobby.ready(
            request.player, context.time_remaining())))

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

    async def ClaimRelief(self, request: lobby_pb2.ClaimReliefRequest,
                          context: grpc.aio.ServicerContext) -> lobby_pb2.ClaimReliefResponse:
        """救济金: relief coins for a player below every server of a game."""
        granted = await _guard(context, self.lobby.claim_relief(
            request.player, request.game, request.claim_id))
        return lobby_pb2.ClaimReliefResponse(
            coins=granted.account.coins, granted=granted.coins,
            claims_left=granted.claims_left, day_ends_ms=granted.day_ends_ms,
            repeated=granted.repeated)

    async def Kick(self, request: lobby_pb2.KickRequest,
                   context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """An operator stands a player up from a waiting room."""
        return room_message(await _guard(context, self.lobby.kick(
            request.player, request.reason, operator.who(context))))

    async def OpenRoom(self, request: lobby_pb2.OpenRoomRequest,
                       context: grpc.aio.ServicerContext) -> lobby_pb2.OpenRoomResponse:
        """好友房: open a private room, the player seated as its owner."""
        room, code = await _guard(context, self.lobby.open_room(
            request.player, request.name, request.server, request.options_json))
        return lobby_pb2.OpenRoomResponse(room=room_message(room), code=code)

    async def JoinCode(self, request: lobby_pb2.JoinCodeRequest,
                       context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """Sit in the private room of an invite code."""
        return room_message(await _guard(context, self.lobby.join_code(
            request.player, request.name, request.code, request.seat)))

    async def RoomByCode(self, request: lobby_pb2.RoomByCodeRequest,
                         context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """The private room of an invite code (to watch it)."""
        return room_message(await _guard(context, self.lobby.room_by_code(
            request.player, request.code)))

    async def RemoveSeat(self, request: lobby_pb2.RemoveSeatRequest,
                         context: grpc.aio.ServicerContext) -> lobby_pb2.Room:
        """The owner of a private room stands a player up (踢出)."""
        return room_message(await _guard(context, self.lobby.remove_seat(
            request.player, request.seat)))
