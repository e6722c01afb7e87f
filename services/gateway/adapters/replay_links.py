"""Operators' replay links (docs/client-protocol.md "Replays"; docs/operations.md
"Replay links"): a short-lived HS256 JWT naming one game, made by
``paiju replay-link GAME_ID`` and opened by the web client's replay viewer
without a player's sign-in.

A link is signed with a key derived from each ``PAIJU_TOKEN_SECRET`` key
(HMAC-SHA256 of the key and ``paiju-replay-link``), never with the key
itself, so that a link is no sign-in token and a sign-in token no link.
Claims: ``typ`` = ``replay``, ``game`` (the record's game id), ``sub`` (who
asked for it, for the logs), ``iat``, ``exp``. As sign-in tokens, outside
development mode the development key neither signs nor verifies.

A player's shared replay link (:func:`issue_share`) is the same token with a
``share`` claim (the table service's share id) and a life of
:data:`SHARE_LINK_SECONDS`: it is good until its owner revokes the share,
which the gateway checks at each opening.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import NamedTuple

import jwt

from paiju.config import DEV_TOKEN_SECRET
from services.gateway.adapters.auth import ALGORITHM, keys

#: Longest life of a replay link, seconds (a day).
MAX_LINK_SECONDS = 86400
#: Life of a player's shared replay link, seconds (a year; revoking ends it).
SHARE_LINK_SECONDS = 366 * 86400
_PURPOSE = b"paiju-replay-link"


class BadLink(Exception):
    """A replay link that is forged, expired, too long-lived or for no game."""


def _derived(key: str) -> str:
    return hmac.new(key.encode(), _PURPOSE, hashlib.sha256).hexdigest()


def link_keys(secret: str, dev_mode: bool) -> list[str]:
    """The derived keys of ``secret`` (the first signs); the development key
    is left out outside development mode."""
    return [_derived(k) for k in keys(secret) if dev_mode or k != DEV_TOKEN_SECRET]


class Link(NamedTuple):
    """A verified replay link: its game id and share id ("" for an
    operator's link)."""

    game: str
    share: str


def issue(secret: str, game_id: str, viewer: str = "operator", ttl_seconds: int = 3600,
          dev_mode: bool = False, now: float | None = None) -> str:
    """A replay link token for ``game_id`` valid ``ttl_seconds`` (1 to a day).
    Raises ``ValueError`` for a bad lifetime, no game id or no usable key."""
    if not 0 < ttl_seconds <= MAX_LINK_SECONDS:
        raise ValueError(f"a replay link lives 1-{MAX_LINK_SECONDS} s")
    return _signed(secret, game_id, viewer, ttl_seconds, dev_mode, now, {})


def issue_share(secret: str, game_id: str, share: str, player: str,
                dev_mode: bool = False, now: float | None = None) -> str:
    """A player's shared replay link for ``game_id`` naming ``share``, valid
    :data:`SHARE_LINK_SECONDS`. Raises ``ValueError`` as :func:`issue`."""
    if not share:
        raise ValueError("a shared replay link names its share")
    return _signed(secret, game_id, player, SHARE_LINK_SECONDS, dev_mode, now,
                   {"share": share})


def _signed(secret: str, game_id: str, viewer: str, ttl_seconds: int, dev_mode: bool,
            now: float | None, extra: dict[str, str]) -> str:
    if not game_id:
        raise ValueError("a replay link names a game id")
    found = link_keys(secret, dev_mode)
    if not found:
        raise ValueError("PAIJU_TOKEN_SECRET holds no key usable outside development mode")
    issued = int(time.time() if now is None else now)
    claims: dict[str, object] = {"typ": "replay", "game": game_id, "sub": viewer,
                                 "iat": issued, "exp": issued + ttl_seconds, **extra}
    return jwt.encode(claims, found[0], algorithm=ALGORITHM)


def verify(secret: str, token: object, dev_mode: bool) -> Link:
    """The game and share of the replay link ``token``; :class:`BadLink`
    unless one of the derived keys verifies it, it is a ``replay`` link with
    ``exp`` not passed and a life of at most :data:`MAX_LINK_SECONDS` (an
    operator's) or :data:`SHARE_LINK_SECONDS` (a player's shared one)."""
    if not isinstance(token, str) or not token:
        raise BadLink("no replay link")
    for key in link_keys(secret, dev_mode):
        try:
            claims = jwt.decode(token, key, algorithms=[ALGORITHM],
                                options={"require": ["exp", "iat", "game"]})
        except jwt.InvalidSignatureError:
            continue
        except jwt.ExpiredSignatureError as e:
            raise BadLink("the replay link has expired") from e
        except jwt.PyJWTError as e:
            raise BadLink(f"the replay link is not valid ({type(e).__name__})") from e
        game, typ = claims.get("game"), claims.get("typ")
        if typ != "replay" or not isinstance(game, str) or not game:
            raise BadLink("not a replay link")
        share = claims.get("share", "")
        if not isinstance(share, str):
            raise BadLink("not a replay link")
        longest = SHARE_LINK_SECONDS if share else MAX_LINK_SECONDS
        if claims["exp"] - claims["iat"] > longest:
            raise BadLink("the replay link lives too long")
        return Link(game, share)
    raise BadLink("the replay link's signature does not verify")
