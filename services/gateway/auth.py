"""Client tokens: JWT (HS256) signed with ``PAIJU_TOKEN_SECRET``.

The secret may be a comma-separated list of keys: the first signs, every one
verifies, so that a key can be rotated without logging anyone out
(docs/operations.md). Claims: ``sub`` (the player id), ``name``, ``iat``,
``exp``. The player id of a connection comes only from a verified token.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass

import jwt

ALGORITHM = "HS256"


class BadToken(Exception):
    """A token that is malformed, forged (no key verifies it) or expired."""


@dataclass(frozen=True)
class Identity:
    """Who a verified token speaks for."""

    player: str
    name: str


def keys(secret: str) -> list[str]:
    """The keys of ``PAIJU_TOKEN_SECRET`` (comma separated; the first signs)."""
    found = [k.strip() for k in secret.split(",") if k.strip()]
    if not found:
        raise ValueError("PAIJU_TOKEN_SECRET holds no key")
    return found


def issue(secret: str, player: str, name: str, ttl_seconds: int,
          now: float | None = None) -> str:
    """A signed token for ``player`` valid ``ttl_seconds`` from ``now`` (unix s)."""
    issued = int(time.time() if now is None else now)
    claims = {"sub": player, "name": name, "iat": issued, "exp": issued + ttl_seconds}
    return jwt.encode(claims, keys(secret)[0], algorithm=ALGORITHM)


def verify(secret: str, token: object) -> Identity:
    """The identity of ``token``; raises :class:`BadToken` unless one of the keys
    verifies it, it has not expired, and it names a player."""
    if not isinstance(token, str) or not token:
        raise BadToken("no token")
    for key in keys(secret):
        try:
            claims = jwt.decode(token, key, algorithms=[ALGORITHM],
                                options={"require": ["sub", "exp"]})
        except jwt.ExpiredSignatureError as e:
            raise BadToken("the token has expired") from e
        except jwt.InvalidTokenError:
            continue
        player = claims.get("sub")
        if not isinstance(player, str) or not PLAYER_ID.fullmatch(player):
            raise BadToken("the token names no valid player")
        return Identity(player, str(claims.get("name") or player))
    raise BadToken("the token's signature does not verify")


#: Player ids are safe as one NATS subject token.
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
NAME = re.compile(r"[^\x00-\x1f]{1,24}")


def dev_player_id(name: str) -> str:
    """The player id of a development login by ``name``: stable, subject-safe."""
    return "dev-" + hashlib.sha256(name.encode()).hexdigest()[:16]
