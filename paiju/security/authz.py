"""Who may call what: the one deny-by-default authorisation table of every
gRPC method paiju serves, and the guard that enforces it (each method's
handler wrapped once, when it is registered: :mod:`paiju.runtime.grpc_server`).

The caller is the identity of its client certificate
(:func:`paiju.security.identity.peer_identity`). A method missing from :data:`RULES`,
or called by an identity its rule does not name, is refused with
``PERMISSION_DENIED`` (``permission_denied: <identity> may not call
<method>``) before the servicer runs. ``dev`` callers are allowed only when
the server runs in development mode (``PAIJU_DEV_MODE``). On an insecure
development server (no ``PAIJU_TLS_DIR``) there is no caller identity and
nothing is checked. Every call by the ``operator`` identity (``paiju admin``)
is logged and counted with its outcome (:func:`paiju.security.operator_calls.observed`).

tests/foundation/test_authz.py checks that RULES names every RPC of every
proto and nothing else, and that docs/operations.md shows :func:`markdown`.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from prometheus_client import Counter

from paiju.security import operator_calls as operator
from paiju.security.identity import IDENTITIES, peer_identity

log = logging.getLogger("paiju.authz")

DENIED = Counter("paiju_grpc_calls_denied_total",
                 "gRPC calls refused by the authorisation table, by caller identity.",
                 ["caller"])

LOBBY, TABLE, LEDGER, GATEWAY, OPERATOR = "lobby", "table", "ledger", "gateway", "operator"
EVERY = frozenset(IDENTITIES)


@dataclass(frozen=True)
class Rule:
    """The identities that may call one method; ``dev`` are allowed as well
    in development mode only."""

    callers: frozenset[str]
    dev: frozenset[str] = frozenset()
    why: str = ""


def _rule(*callers: str, dev: tuple[str, ...] = (), why: str = "") -> Rule:
    return Rule(frozenset(callers), frozenset(dev), why)


_LOBBY = "/paiju.lobby.v1.LobbyService/"
_TABLE = "/paiju.table.v1.TableService/"
_LEDGER = "/paiju.ledger.v1.LedgerService/"

#: Full method name (``/package.Service/Method``) → who may call it.
RULES: Mapping[str, Rule] = {
    # lobby: players' requests come through the gateway; results from the table
    _LOBBY + "ListServers": _rule(GATEWAY, OPERATOR, why="a player lists coin servers"),
    _LOBBY + "ListRooms": _rule(GATEWAY, OPERATOR, why="a player lists rooms"),
    _LOBBY + "GetRoom": _rule(GATEWAY, OPERATOR, why="a room's state"),
    _LOBBY + "Sit": _rule(GATEWAY, why="a player sits"),
    _LOBBY + "Stand": _rule(GATEWAY, why="a player stands up"),
    _LOBBY + "Ready": _rule(GATEWAY, why="a player is ready"),
    _LOBBY + "WhereIs": _rule(GATEWAY, OPERATOR, why="a player's seat on (re)connect; "
                                                      "paiju admin find"),
    _LOBBY + "GameOver": _rule(TABLE, why="the table reports a finished game"),
    _LOBBY + "GameMoved": _rule(TABLE, why="a table instance took a game over"),
    _LOBBY + "LastResult": _rule(GATEWAY, OPERATOR, why="a returning player's last "
                                                         "settlement; paiju admin show"),
    _LOBBY + "QuickStart": _rule(GATEWAY, why="a player's quick start (快速开始)"),
    _LOBBY + "ClaimRelief": _rule(GATEWAY, why="a broke player's relief coins (救济金)"),
    _LOBBY + "OpenRoom": _rule(GATEWAY, why="a player opens a private room (好友房)"),
    _LOBBY + "JoinCode": _rule(GATEWAY, why="a player joins a private room by its code"),
    _LOBBY + "RoomByCode": _rule(GATEWAY, why="a player watches a private room by its code"),
    _LOBBY + "RemoveSeat": _rule(GATEWAY, why="a private room's owner removes a seat (踢出)"),
    # table: games are created by the lobby, played through the gateway
    _TABLE + "CreateGame": _rule(LOBBY, why="the lobby starts a full room's game"),
    _TABLE + "Act": _rule(GATEWAY, why="a seated player's move"),
    _TABLE + "Check": _rule(GATEWAY, why="a move checked without playing it"),
    _TABLE + "Hints": _rule(GATEWAY, why="a player's legal moves"),
    _TABLE + "GetView": _rule(GATEWAY, why="a seat's view (its own hand)"),
    _TABLE + "GetSeatView": _rule(GATEWAY, why="a seat's decision inputs (its own seat only)"),
    _TABLE + "GetPublicView": _rule(GATEWAY, OPERATOR,
                                    why="a spectator's view (no hand, no hidden card)"),
    _TABLE + "GetScores": _rule(GATEWAY, why="the scores"),
    _TABLE + "GetLastTrick": _rule(GATEWAY, why="the last trick"),
    _TABLE + "PlayerDisconnected": _rule(GATEWAY, why="a player's connection dropped "
                                         "(presence events do the same)"),
    _TABLE + "PlayerReconnected": _rule(GATEWAY, why="a player came back (as presence)"),
    _TABLE + "Leave": _rule(GATEWAY, why="a player leaves (escape)"),
    _TABLE + "ListGames": _rule(LOBBY, OPERATOR, why="placement and reconciliation"),
    _TABLE + "GetRecord": _rule(GATEWAY, OPERATOR, why="a finished game's record (replays: "
                                "the gateway checks the viewer)"),
    _TABLE + "CreateShare": _rule(GATEWAY, why="a player shares a finished game's replay"),
    _TABLE + "ListShares": _rule(GATEWAY, why="a player's active replay shares"),
    _TABLE + "RevokeShare": _rule(GATEWAY, why="a player revokes a replay share"),
    _TABLE + "GetShare": _rule(GATEWAY, why="a shared replay link is checked"),
    _TABLE + "LocateGame": _rule(LOBBY, OPERATOR, why="a game's lease and log, before the "
                                 "reconciler voids it"),
    # ledger: coins move only by the table's settlements, the operator's grants and
    # the lobby's relief
    _LEDGER + "OpenAccount": _rule(GATEWAY, why="a player's first sign-in"),
    _LEDGER + "GetBalance": _rule(GATEWAY, LOBBY, OPERATOR,
                                  why="a player's coins; the lobby checks a room's minimum"),
    _LEDGER + "GetHistory": _rule(GATEWAY, OPERATOR, why="a player's coin history"),
    _LEDGER + "Grant": _rule(OPERATOR, dev=(GATEWAY,),
                             why="coins from nowhere: the operator; development login's "
                                 "starting coins"),
    _LEDGER + "Settle": _rule(TABLE, why="a finished game's settlement"),
    _LEDGER + "ChargeFee": _rule(TABLE, why="the no-call fee"),
    _LEDGER + "GrantRelief": _rule(LOBBY, why="relief coins (救济金): the lobby checks the "
                                             "game's minimum, the ledger the balance and cap"),
    _LEDGER + "Audit": _rule(OPERATOR, why="the books' consistency check"),
    _LEDGER + "GetGames": _rule(GATEWAY, OPERATOR, why="a player's settled games (战绩)"),
    _LEDGER + "GetRankings": _rule(GATEWAY, OPERATOR, why="a coin server's rankings"),
    _LEDGER + "GetStats": _rule(GATEWAY, OPERATOR, why="a player's stats per game"),
    # the operator's console (paiju admin): only the operator
    _LEDGER + "FindAccounts": _rule(OPERATOR, why="paiju admin find: players by id or name"),
    _LEDGER + "Adjust": _rule(OPERATOR, why="paiju admin adjust: coins with a reason, "
                                            "against house:adjustments"),
    _LOBBY + "Kick": _rule(OPERATOR, why="paiju admin kick: a player out of a waiting room"),
    _TABLE + "Kick": _rule(OPERATOR, why="paiju admin kick: a player out of a running game "
                                         "(its escape)"),
    _TABLE + "EndGame": _rule(OPERATOR, why="paiju admin end-game: a stuck game voided"),
    # every authenticated caller: health and reflection on the main port
    "/grpc.health.v1.Health/Check": Rule(EVERY, why="health (also on the plain port)"),
    "/grpc.health.v1.Health/Watch": Rule(EVERY, why="health (also on the plain port)"),
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": Rule(
        EVERY, why="reflection"),
}


def allowed(rules: Mapping[str, Rule], method: str, caller: str, dev_mode: bool) -> bool:
    """True if ``caller`` may call ``method`` under ``rules`` (deny by default)."""
    rule = rules.get(method)
    if rule is None:
        return False
    return caller in rule.callers or (dev_mode and caller in rule.dev)


class Authorizer:
    """Refuses, with ``PERMISSION_DENIED``, every call its rules do not allow
    the caller's certificate identity (see the module docstring).
    :meth:`guard` wraps a method's handler once, when it is registered
    (:mod:`paiju.runtime.grpc_server`); nothing runs per call but the check itself."""

    def __init__(self, rules: Mapping[str, Rule] = RULES, dev_mode: bool = False) -> None:
        self.rules = rules
        self.dev_mode = dev_mode

    def guard(self, method: str, handler: grpc.RpcMethodHandler | None
              ) -> grpc.RpcMethodHandler | None:
        """``handler`` of full method name ``method`` with the check run
        first (a refusal aborts the call with ``PERMISSION_DENIED``) and the
        operator's calls reported to :func:`paiju.security.operator_calls.observed`; None
        stays None (no such method: ``UNIMPLEMENTED``)."""
        if handler is None:
            return None
        return _guarded(handler, lambda ctx: self._check(method, ctx),
                        lambda ctx, outcome: operator.observed(method, ctx, outcome))

    def _check(self, method: str, context: grpc.aio.ServicerContext[Any, Any]
               ) -> tuple[str | None, bool]:
        """(the refusal or None, whether the caller is the operator)."""
        caller = peer_identity(context)
        by_operator = caller == OPERATOR
        if caller is None or allowed(self.rules, method, caller, self.dev_mode):
            return None, by_operator
        DENIED.labels(caller if caller in EVERY else "other").inc()
        log.warning("call refused", extra={"caller": caller, "method": method})
        return f"permission_denied: {caller} may not call {method}", by_operator


Check = Callable[[grpc.aio.ServicerContext[Any, Any]], tuple[str | None, bool]]
Done = Callable[[grpc.aio.ServicerContext[Any, Any], str], None]


def _outcome(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    code = context.code()
    return "ok" if code in (None, grpc.StatusCode.OK) else "error"


def _guarded(handler: grpc.RpcMethodHandler, check: Check, done: Done,
             ) -> grpc.RpcMethodHandler:
    """``handler`` with ``check`` run first: a refusal aborts the call. Calls
    by the operator are reported to ``done`` with their outcome (``ok``,
    ``error``, ``denied``; paiju/security/operator_calls.py)."""
    kinds = {
        (False, False): ("unary_unary", grpc.unary_unary_rpc_method_handler),
        (False, True): ("unary_stream", grpc.unary_stream_rpc_method_handler),
        (True, False): ("stream_unary", grpc.stream_unary_rpc_method_handler),
        (True, True): ("stream_stream", grpc.stream_stream_rpc_method_handler),
    }
    attr, make = kinds[(bool(handler.request_streaming), bool(handler.response_streaming))]
    behaviour = getattr(handler, attr)
    async def admitted(context: grpc.aio.ServicerContext[Any, Any]) -> bool:
        """Run ``check`` (a refusal aborts); True for a call by the operator."""
        refusal, by_operator = check(context)
        if refusal is not None:
            if by_operator:
                done(context, "denied")
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, refusal)
        return by_operator

    @contextlib.contextmanager
    def reported(context: grpc.aio.ServicerContext[Any, Any], by_operator: bool
                 ) -> Iterator[None]:
        """Report an operator's call to ``done`` once it ended (``error`` if it raised)."""
        try:
            yield
        except BaseException:
            if by_operator:
                done(context, "error")
            raise
        if by_operator:
            done(context, _outcome(context))

    if inspect.isasyncgenfunction(behaviour):
        async def generator(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            by_operator = await admitted(context)
            with reported(context, by_operator):
                async for reply in behaviour(request, context):
                    yield reply
        wrapped: Any = generator
    else:  # a coroutine (or plain function) returning the reply or using context.write
        async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if not await admitted(context):  # not the operator: nothing to report
                result = behaviour(request, context)
                return await result if inspect.isawaitable(result) else result
            with reported(context, True):
                result = behaviour(request, context)
                return await result if inspect.isawaitable(result) else result
        wrapped = call
    return make(wrapped, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer)


def markdown(rules: Mapping[str, Rule] = RULES) -> str:
    """The table as a Markdown table (docs/operations.md shows it): method,
    callers, callers in development mode only, why."""
    rows = ["| method | callers | also in development mode | why |",
            "|---|---|---|---|"]
    for method, rule in rules.items():
        rows.append(f"| `{method.lstrip('/')}` | {', '.join(sorted(rule.callers))} | "
                    f"{', '.join(sorted(rule.dev)) or '-'} | {rule.why} |")
    return "\n".join(rows) + "\n"
