"""Signing a connection in and out: the player's private subjects, one live
connection per player (a newer one replaces the older), its presence
(``connect`` / ``disconnect`` of this session, PRESENCE.md), and resuming the
player's seat and game after a reconnect, from any device."""

from __future__ import annotations

import json
from typing import Any

from nats.aio.msg import Msg

from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from paiju.runtime import natsconn, subjects
from services.gateway.adapters import auth
from services.gateway.adapters.backends import call
from services.gateway.application.connection import Connection
from services.gateway.domain import convert
from services.gateway.domain.protocol import ClientError


async def sign_in(s: Connection, identity: auth.Identity,
                  account: ledger_pb2.Account | None = None) -> dict[str, Any]:
    """Make ``identity`` the player of connection ``s``: its private subjects,
    its presence ``connect``, closing its older connections, and resuming its
    seat and game. Returns the reply fields of ``login`` / ``auth``:
    ``player``, ``name``, ``coins``, ``room`` (as in ``room_changed``, or
    ``None``), ``view`` (the player's whole view of its running game, as
    the ``view`` command gives it, or ``None``) and ``last_result`` (the
    settlement table of the last game it played, or ``None``). ``bad_request`` where the
    connection is signed in as another player, ``too_many_sessions`` where the
    player signed in ``PAIJU_GATEWAY_SESSIONS_PER_PLAYER_PER_MINUTE`` times on
    this gateway in the last minute. ``account``: the player's ledger account
    as the caller just read it (the development login's grant); without it
    the account is asked of the ledger (``GetBalance``, or ``OpenAccount`` for
    an identity provider's player, and for an AI token's player ``OpenAccount``
    (granted its start coins in development mode), ``Gateway.ai_account``)."""
    if s.identity is not None and s.identity.player != identity.player:
        raise ClientError("bad_request", "this connection is signed in as another player")
    if not s.gw.session_rate.allow(identity.player):
        raise ClientError("too_many_sessions", "too many sign-ins of this player in a "
                          "minute; try again later")
    s.identify(identity)
    player = identity.player
    # Subscribed before presence says the player is here: the table answers a
    # return with a private `view` event.
    await s.subscribe("player", subjects.player_events(player))
    control = subjects.player_control(player)

    async def on_control(msg: Msg) -> None:
        event = natsconn.decode(msg.data)
        if event.get("type") == "session_started" and event.get("session") != s.id:
            await s.close_replaced()

    await s.subs.own("control", control, on_control)
    if not s.announced:
        s.announced = True
        await s.gw.presence.connect(player, s.id)
    await natsconn.publish(s.gw.nats, control, "session_started",
                           {"player": player, "session": s.id})
    if account is not None:
        pass  # the caller's fresh read (the development login: one ledger call less)
    elif identity.ai_token:  # an AI token's player: its account opened
        account = await s.gw.ai_account(player, identity.name)
    elif identity.provider:  # the identity provider's player: opens at first sign-in
        account = await call(s.gw.backends.ledger.OpenAccount,
                             ledger_pb2.OpenAccountRequest(player=player, name=identity.name))
    else:
        account = await call(s.gw.backends.ledger.GetBalance,
                             ledger_pb2.GetBalanceRequest(player=player))
    room, view = await resume(s)
    return {"player": player, "name": identity.name, "coins": account.coins,
            "room": convert.room(room) if room is not None else None, "view": view,
            "last_result": await last_result(s)}


async def last_result(s: Connection) -> dict[str, Any] | None:
    """The last finished game the player played (lobby ``LastResult``, also
    when it sits nowhere since: an escape, stood up after the game) as
    :func:`services.gateway.domain.convert.result`; ``None`` before any game (or
    with the lobby away)."""
    try:
        found = await call(s.gw.backends.lobby.LastResult,
                           lobby_pb2.PlayerRequest(player=s.player))
    except ClientError:
        return None
    return convert.result(found)


async def resume(s: Connection) -> tuple[lobby_pb2.Room | None, dict[str, Any] | None]:
    """Find the player's seat (after a reconnect, or a sign-in on another
    device) and follow its table; where its game runs, fetch the player's
    whole view (``GetView``). Returns the room and the view, each ``None``
    where there is none (or its service is away: the client asks again)."""
    room = await s.route.where_is()
    if room is None:
        return None, None
    await s.seated(room)
    if not (s.route.seat and s.route.seat.table):
        return room, None
    try:
        resp = await s.table_call("GetView", s.view_request)
    except ClientError:
        return room, None
    view: dict[str, Any] = json.loads(resp.json)
    return room, view


async def sign_out_connection(s: Connection) -> None:
    """Sign the connection out, keeping it open (a refused ``auth``): its
    presence ``disconnect``, nothing followed any more, no player."""
    if s.identity is None:
        return
    await s.stop_watching()
    await sign_out(s)
    s.announced = False
    for key in list(s.subs.keys()):
        await s.subs.drop(key)
    s.route.seat = None
    s.forget_identity()


async def sign_out(s: Connection) -> None:
    """The connection of a signed-in player ended: its presence
    ``disconnect`` (the table and the lobby watch presence; the table holds
    the seat while the player has no live session anywhere)."""
    if s.announced and s.identity is not None:
        await s.gw.presence.disconnect(s.player, s.id)
