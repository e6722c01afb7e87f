"""The gRPC face of the table service (paiju.table.v1.TableService): thin.

Refusals carry a stable reason code: the status details read
``<code>: <message>`` and the trailing metadata ``paiju-error`` is the code.
Codes: ``no_game`` (NOT_FOUND: no game in that room here), ``not_seated``
(FAILED_PRECONDITION: the player has no seat in it), ``draining``
(UNAVAILABLE: the instance takes no new games), ``room_busy`` (ALREADY_EXISTS),
``unknown_game``, ``bad_options``, ``bad_deal``, ``wrong_seats``,
``fixed_deal_not_allowed``, ``invalid_argument`` (INVALID_ARGUMENT),
``game_over`` (FAILED_PRECONDITION: EndGame of a game that finished). Rules
errors of an action are no gRPC error: ``ActResponse.ok`` false with the code.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, TypeVar

import grpc

from paiju.common.v1 import common_pb2
from paiju.rules import ENGINES, RulesError, load
from paiju.security import operator_calls as operator
from paiju.table.v1 import table_pb2, table_pb2_grpc
from services.table.adapters.models import ReplayShare
from services.table.adapters.shares import ShareError, ShareStore
from services.table.application.locate import locate
from services.table.application.runner import Table
from services.table.domain.options import DEFAULT_DEAL_INTERVAL_MS, OptionsError, split
from services.table.domain.outgoing import Answer, GameError, Seat
from services.table.domain.public_view import public_view
from services.table.domain.sitting import Sitting
from services.table.domain.spec import GameSpec, Terms

METADATA_KEY = "paiju-error"

log = logging.getLogger("paiju.table")

R = TypeVar("R")


async def _abort(context: grpc.aio.ServicerContext, status: grpc.StatusCode, code: str,
                 message: str) -> NoReturn:
    context.set_trailing_metadata(((METADATA_KEY, code),))
    await context.abort(status, f"{code}: {message}")
    raise AssertionError("unreachable")


async def _guard(context: grpc.aio.ServicerContext, body: Callable[[], Awaitable[R]]) -> R:
    try:
        return await body()
    except GameError as e:
        await _abort(context, grpc.StatusCode[e.status], e.code, e.message)


def _share(row: ReplayShare) -> table_pb2.Share:
    return table_pb2.Share(share=row.share, game_id=row.game_id, player=row.player,
                           created_ms=row.created_ms, revoked_ms=row.revoked_ms)


async def _shared(context: grpc.aio.ServicerContext,
                  body: Callable[[], Awaitable[ReplayShare]]) -> table_pb2.Share:
    try:
        return _share(await body())
    except ShareError as e:
        await _abort(context, grpc.StatusCode[e.status], e.code, e.message)


def _answer(a: Answer) -> table_pb2.ActResponse:
    return table_pb2.ActResponse(ok=a.ok, error=a.error, message=a.message, seq=a.seq)


def _json_object(text: str, what: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError as e:
        raise GameError("invalid_argument", f"{what} is not JSON: {e}",
                        "INVALID_ARGUMENT") from e
    if not isinstance(value, dict):
        raise GameError("invalid_argument", f"{what} must be a JSON object", "INVALID_ARGUMENT")
    return value


class TableServicer(table_pb2_grpc.TableServiceServicer):
    """TableService over a :class:`~services.table.application.runner.Table`."""

    def __init__(self, table: Table, deal_interval_ms: float = DEFAULT_DEAL_INTERVAL_MS) -> None:
        self.table = table
        #: a paced deal's pace where the room's options do not set it (PAIJU_TABLE_DEAL_INTERVAL_MS)
        self.deal_interval_ms = deal_interval_ms

    def spec(self, req: table_pb2.CreateGameRequest) -> GameSpec:
        """Validate a CreateGame request into a :class:`GameSpec`; ``GameError``."""
        if not req.game_id or not req.room:
            raise GameError("invalid_argument", "game_id and room are required",
                            "INVALID_ARGUMENT")
        if req.game not in ENGINES:
            raise GameError("unknown_game", f"no game {req.game!r}; known: {sorted(ENGINES)}",
                            "INVALID_ARGUMENT")
        try:
            engine = load(req.game)
        except ImportError as e:
            raise GameError("unknown_game", f"{req.game} is not installed here",
                            "INVALID_ARGUMENT") from e
        seats = tuple(sorted((Seat(s.seat, s.player, s.name) for s in req.seats),
                             key=lambda s: s.seat))
        if ([s.seat for s in seats] != list(range(engine.seats))
                or len({s.player for s in seats}) != len(seats)
                or not all(s.player for s in seats)):
            raise GameError("wrong_seats", f"{req.game} needs seats 0..{engine.seats - 1}, "
                            "each with its own player", "INVALID_ARGUMENT")
        options = _json_object(req.options_json, "options_json")
        try:
            engine_options, table_options = split(options, engine.seats, self.deal_interval_ms)
        except OptionsError as e:
            raise GameError("bad_options", str(e), "INVALID_ARGUMENT") from e
        deal = None
        if req.deal_json:
            if not self.table.allow_fixed_deal:
                raise GameError("fixed_deal_not_allowed",
                                "a fixed deal needs PAIJU_TABLE_ALLOW_FIXED_DEAL=1",
                                "INVALID_ARGUMENT")
            deal = _json_object(req.deal_json, "deal_json")
        terms = Terms(base=req.terms.base or 1, unit=req.terms.unit or 1,
                      fee_rate=req.terms.fee_rate)
        if terms.base < 0 or terms.unit < 0 or not 0 <= terms.fee_rate < 1:
            raise GameError("invalid_argument", "terms: base, unit >= 0, 0 <= fee_rate < 1",
                            "INVALID_ARGUMENT")
        return GameSpec(req.game_id, req.room, req.server, req.game, engine_options,
                        table_options, seats, terms, deal, req.table_instance)

    async def CreateGame(self, request: table_pb2.CreateGameRequest,
                         context: grpc.aio.ServicerContext) -> table_pb2.CreateGameResponse:
        """Create and start a game; idempotent by game_id."""
        async def body() -> table_pb2.CreateGameResponse:
            spec = self.spec(request)
            try:
                await self.table.create(spec)
            except RulesError as e:
                raise GameError(e.code, e.message, "INVALID_ARGUMENT") from e
            return table_pb2.CreateGameResponse(game_id=spec.game_id,
                                                table_instance=self.table.instance)
        return await _guard(context, body)

    async def Act(self, request: table_pb2.ActRequest,
                  context: grpc.aio.ServicerContext) -> table_pb2.ActResponse:
        """A player's action (rules errors in the reply, not as a status)."""
        async def body() -> table_pb2.ActResponse:
            runner = self.table.room(request.room)
            a = request.action
            return _answer(await runner.act(request.player, a.type, list(a.cards),
                                            request.client_seq))
        return await _guard(context, body)

    async def Check(self, request: table_pb2.ActRequest,
                    context: grpc.aio.ServicerContext) -> table_pb2.ActResponse:
        """Would this action be legal now? Nothing changes."""
        async def body() -> table_pb2.ActResponse:
            game = self.table.owned(request.room).sitting
            a = request.action
            return _answer(game.check(request.player, a.type, list(a.cards)))
        return await _guard(context, body)

    async def Hints(self, request: table_pb2.ViewRequest,
                    context: grpc.aio.ServicerContext) -> table_pb2.HintsResponse:
        """The player's legal actions now (capped)."""
        async def body() -> table_pb2.HintsResponse:
            game = self.table.owned(request.room).sitting
            return table_pb2.HintsResponse(actions=[
                common_pb2.Action(type=a.type, cards=list(a.cards))
                for a in game.hints(request.player)])
        return await _guard(context, body)

    async def GetView(self, request: table_pb2.ViewRequest,
                      context: grpc.aio.ServicerContext) -> table_pb2.ViewResponse:
        """The player's full view as JSON."""
        async def body() -> table_pb2.ViewResponse:
            game = self.table.owned(request.room).sitting
            view = game.view(request.player, self.table.clock.now())
            return table_pb2.ViewResponse(json=json.dumps(view, ensure_ascii=False))
        return await _guard(context, body)

    async def GetSeatView(self, request: table_pb2.ViewRequest,
                          context: grpc.aio.ServicerContext) -> table_pb2.ViewResponse:
        """A seated player's decision inputs as JSON (:meth:`Sitting.seat_view`)."""
        async def body() -> table_pb2.ViewResponse:
            game = self.table.owned(request.room).sitting
            inputs = game.seat_view(request.player, self.table.clock.now())
            return table_pb2.ViewResponse(json=json.dumps(inputs, ensure_ascii=False))
        return await _guard(context, body)

    async def GetPublicView(self, request: table_pb2.ViewRequest,
                            context: grpc.aio.ServicerContext) -> table_pb2.ViewResponse:
        """A spectator's view as JSON (services/table/domain/public_view.py)."""
        async def body() -> table_pb2.ViewResponse:
            game = self.table.owned(request.room).sitting
            view = public_view(game, self.table.clock.now())
            return table_pb2.ViewResponse(json=json.dumps(view, ensure_ascii=False))
        return await _guard(context, body)

    async def _seated_json(self, request: table_pb2.ViewRequest,
                           context: grpc.aio.ServicerContext,
                           read: Callable[[Sitting], dict[str, Any]]
                           ) -> table_pb2.ViewResponse:
        """``read(game)`` (public data, the same for every seat) as JSON for a
        player seated in the room's game, or for a spectator (旁观) when
        ``player`` is empty (the gateway asks so only for a session watching
        the room); ``no_game`` / ``not_seated`` otherwise."""
        async def body() -> table_pb2.ViewResponse:
            game = self.table.owned(request.room).sitting
            if request.player:
                game.seat_of(request.player)
            return table_pb2.ViewResponse(json=json.dumps(read(game), ensure_ascii=False))
        return await _guard(context, body)

    async def GetScores(self, request: table_pb2.ViewRequest,
                        context: grpc.aio.ServicerContext) -> table_pb2.ViewResponse:
        """看分 as JSON: each seat's captured points and their cards."""
        return await self._seated_json(request, context, Sitting.scores)

    async def GetLastTrick(self, request: table_pb2.ViewRequest,
                           context: grpc.aio.ServicerContext) -> table_pb2.ViewResponse:
        """上一轮 as JSON: the last finished trick and its winner."""
        return await self._seated_json(request, context, Sitting.last_trick)

    async def PlayerDisconnected(self, request: table_pb2.PlayerRequest,
                                 context: grpc.aio.ServicerContext
                                 ) -> table_pb2.PlayerResponse:
        """Hold the player's seat from now (its disconnect budget runs; the same
        as a presence change to absent, docs/table.md "Disconnects")."""
        async def body() -> table_pb2.PlayerResponse:
            await self.table.room(request.room).disconnected(request.player)
            return table_pb2.PlayerResponse(ok=True)
        return await _guard(context, body)

    async def PlayerReconnected(self, request: table_pb2.PlayerRequest,
                                context: grpc.aio.ServicerContext
                                ) -> table_pb2.PlayerResponse:
        """End the hold (its turn goes on with the time it had left, at least
        10 s); the reply carries the full view."""
        async def body() -> table_pb2.PlayerResponse:
            view = await self.table.owned(request.room).reconnected(request.player)
            return table_pb2.PlayerResponse(ok=True, view_json=json.dumps(view,
                                                                          ensure_ascii=False))
        return await _guard(context, body)

    async def Leave(self, request: table_pb2.PlayerRequest,
                    context: grpc.aio.ServicerContext) -> table_pb2.PlayerResponse:
        """The player leaves: an escape."""
        async def body() -> table_pb2.PlayerResponse:
            await self.table.room(request.room).leave(request.player)
            return table_pb2.PlayerResponse(ok=True)
        return await _guard(context, body)

    async def ListGames(self, request: table_pb2.ListGamesRequest,
                        context: grpc.aio.ServicerContext) -> table_pb2.ListGamesResponse:
        """The games of this instance and whether it takes new ones (each
        runner keeps its game's summary; only phase and seq are set anew)."""
        return table_pb2.ListGamesResponse(
            table_instance=self.table.instance,
            games=[runner.summary() for runner in list(self.table.rooms.values())],
            accepting=self.table.accepting)

    async def GetRecord(self, request: table_pb2.GetRecordRequest,
                        context: grpc.aio.ServicerContext) -> table_pb2.GetRecordResponse:
        """The stored record of ``game_id`` (finished games and redealt deals);
        NOT_FOUND ``no_record`` where the pool's store has none."""
        record = await self.table.store.get(request.game_id) if request.game_id else None
        if record is None:
            await _abort(context, grpc.StatusCode.NOT_FOUND, "no_record",
                         f"no record of game {request.game_id!r}")
        return table_pb2.GetRecordResponse(json=json.dumps(record, ensure_ascii=False))

    def _shares(self) -> ShareStore:
        return ShareStore(self.table.store.sessions)

    async def CreateShare(self, request: table_pb2.CreateShareRequest,
                          context: grpc.aio.ServicerContext) -> table_pb2.Share:
        """A new replay share (the gateway checked the player's seat);
        ``too_many_shares``, ``invalid_argument``."""
        if not request.game_id or not request.player or request.max_active < 1:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument",
                         "a share names a game, a player and a limit of at least 1")
        return await _shared(context, lambda: self._shares().create(
            request.game_id, request.player, request.max_active))

    async def ListShares(self, request: table_pb2.ListSharesRequest,
                         context: grpc.aio.ServicerContext) -> table_pb2.ListSharesResponse:
        """The player's active replay shares, newest first."""
        rows = await self._shares().active(request.player)
        return table_pb2.ListSharesResponse(shares=[_share(r) for r in rows])

    async def RevokeShare(self, request: table_pb2.RevokeShareRequest,
                          context: grpc.aio.ServicerContext) -> table_pb2.Share:
        """Revoke a player's replay share; ``no_share``, ``not_your_share``."""
        return await _shared(context, lambda: self._shares().revoke(
            request.share, request.player))

    async def GetShare(self, request: table_pb2.GetShareRequest,
                       context: grpc.aio.ServicerContext) -> table_pb2.Share:
        """One replay share (revoked ones too); ``no_share``."""
        return await _shared(context, lambda: self._shares().get(request.share))

    async def Kick(self, request: table_pb2.KickRequest,
                   context: grpc.aio.ServicerContext) -> table_pb2.PlayerResponse:
        """An operator removes a player from the room's game: its escape."""
        async def body() -> table_pb2.PlayerResponse:
            _reason_given(request.reason)
            by = operator.who(context)
            await self.table.room(request.room).leave(request.player)
            log.warning("player kicked from a game by an operator", extra={
                "operator": by, "player": request.player, "room": request.room,
                "reason": request.reason})
            return table_pb2.PlayerResponse(ok=True)
        return await _guard(context, body)

    async def EndGame(self, request: table_pb2.EndGameRequest,
                      context: grpc.aio.ServicerContext) -> table_pb2.EndGameResponse:
        """An operator voids the room's game (no settlement; record reason ``void``)."""
        async def body() -> table_pb2.EndGameResponse:
            _reason_given(request.reason)
            by = operator.who(context)
            game_id = await self.table.room(request.room).void(by, request.reason)
            log.warning("game voided by an operator", extra={
                "operator": by, "game_id": game_id, "room": request.room,
                "reason": request.reason})
            return table_pb2.EndGameResponse(game_id=game_id, room=request.room)
        return await _guard(context, body)


    async def LocateGame(self, request: table_pb2.LocateGameRequest,
                         context: grpc.aio.ServicerContext) -> table_pb2.LocateGameResponse:
        """The sitting's lease holder and whether its log replays
        (:func:`services.table.application.locate.locate`)."""
        async def body() -> table_pb2.LocateGameResponse:
            if not request.game_id:
                raise GameError("invalid_argument", "game_id is required", "INVALID_ARGUMENT")
            found = await locate(self.table, request.game_id)
            return table_pb2.LocateGameResponse(owner=found.owner, log=found.log,
                                                ended=found.ended)
        return await _guard(context, body)


def _reason_given(reason: str) -> None:
    if not reason.strip() or len(reason) > 200:
        raise GameError("invalid_argument", "an operator's action needs a reason "
                        "(1-200 characters)", "INVALID_ARGUMENT")
