"""Signing a connection in and out: the player's private subjects, one live
connection per player (a newer one replaces the older), and resuming the
player's seat and game after a reconnect."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from nats.aio.msg import Msg

from paiju import natsconn, subjects
from paiju.ledger.v1 import ledger_pb2
from paiju.lobby.v1 import lobby_pb2
from services.gateway import auth, convert
from services.gateway.backends import call
from services.gateway.protocol import ClientError

if TYPE_CHECKING:
    from services.gateway.session import Session


async def sign_in(s: Session, identity: auth.Identity) -> dict[str, Any]:
    """Make ``identity`` the player of connection ``s``: its private subjects,
    closing its older connections, and resuming its seat and game. Returns
    the reply fields of ``login`` / ``auth``: ``player``, ``name``, ``coins``,
    ``room`` (as in ``room_changed``, or ``None``). ``bad_request`` where the
    connection is signed in as another player."""
    s.identify(identity)
    player = identity.player
    await s.subscribe("player", subjects.player_events(player))
    control = subjects.player_control(player)

    async def on_control(msg: Msg) -> None:
        event = natsconn.decode(msg.data)
        if event.get("type") == "session_started" and event.get("session") != s.id:
            await s.close_replaced()

    await s.subs.own("control", control, on_control)
    await natsconn.publish(s.gw.nats, control, "session_started",
                           {"player": player, "session": s.id})
    account = await call(s.gw.backends.ledger.GetBalance,
                         ledger_pb2.GetBalanceRequest(player=player))
    room = await resume(s)
    return {"player": player, "name": identity.name, "coins": account.coins,
            "room": convert.room(room) if room is not None else None}


async def resume(s: Session) -> lobby_pb2.Room | None:
    """Find the player's seat (after a reconnect) and have its game's view
    sent; the room, or ``None`` where the player sits nowhere (or the lobby
    is away: the client asks again)."""
    room = await s.route.where_is()
    if room is None:
        return None
    await s.seated(room)
    if s.route.seat and s.route.seat.table:
        # The table answers with the player's whole `view` on its subject.
        with contextlib.suppress(ClientError):
            await s.table_call("PlayerReconnected", s.player_request)
    return room


async def sign_out(s: Session) -> None:
    """The connection of a signed-in player ended: the table holds its seat
    (unless a newer connection of the player replaced this one)."""
    if s.identity is None or s.route.seat is None or s.replaced:
        return
    with contextlib.suppress(ClientError):
        await s.table_call("PlayerDisconnected", s.player_request)
