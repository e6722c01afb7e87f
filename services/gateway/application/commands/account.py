"""Commands of the connection itself: ``ping``, ``login`` (development mode)
and ``auth`` (docs/client-protocol.md, "Signing in")."""

from __future__ import annotations

from typing import Any

from services.gateway.adapters import auth
from services.gateway.application import signin
from services.gateway.application.connection import Connection
from services.gateway.domain.protocol import ClientError, field, now_ms


async def ping(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """``pong``: the server time (unix ms)."""
    return {"pong": now_ms()}


async def login(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Development login by ``name`` (1 to 24 printable characters; ``ai``:
    true for an AI player, 机器人, whose seats are marked): the account is made
    once and a token issued; ``login_disabled`` outside development mode."""
    if not s.gw.config.dev_mode:
        raise ClientError("login_disabled", "login by name is for development mode only")
    name = field(args, "name", str).strip()
    if not auth.NAME.fullmatch(name):
        raise ClientError("bad_request", "a name has 1 to 24 printable characters")
    ai = args.get("ai", False)
    if not isinstance(ai, bool):
        raise ClientError("bad_request", "ai must be true or false")
    player = auth.dev_player_id(name)
    token, account = await s.gw.dev_account(player, name, ai)
    return {"token": token,
            **await s.sign_in(auth.Identity(player, name, ai=ai), account)}


async def auth_(s: Connection, args: dict[str, Any]) -> dict[str, Any]:
    """Sign in with a ``token`` (services.gateway.adapters.auth); ``bad_token`` where
    it is forged, expired, lives too long or comes from another issuer, and the
    refusals of :func:`services.gateway.application.signin.sign_in`. A refused ``auth``
    leaves the connection signed out, also where it was signed in before."""
    try:
        try:
            identity = await s.gw.verifier.verify_async(args.get("token"))
        except auth.BadToken as e:
            raise ClientError("bad_token", str(e)) from e
        return await s.sign_in(identity)
    except ClientError:
        await signin.sign_out_connection(s)
        raise
