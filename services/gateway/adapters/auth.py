"""Client tokens (docs/client-protocol.md, "Signing in"; docs/operations.md,
"Keys and tokens").

Three kinds are accepted:

- HS256 tokens signed with ``PAIJU_TOKEN_SECRET``, the kind the gateway
  issues itself (development login). The secret may be a comma-separated list
  of keys: the first signs, every one verifies, so that a key can be rotated
  without logging anyone out. Claims: ``sub`` (the player id), ``name``,
  ``iat``, ``exp``, and in development mode ``ai`` (true: an AI player, 机器人).
- HS256 tokens signed with ``PAIJU_AI_TOKEN_SECRET`` (same form), which
  ``paiju ai`` makes for its AI players: the player is an AI, its id starts
  with ``ai-`` (:data:`AI_PLAYER_ID`), and its account is opened at sign-in
  (and, in development mode only, granted its start coins).
- RS256 / ES256 tokens of an identity provider, verified with the keys of its
  JWKS (``PAIJU_TOKEN_JWKS_URL``, fetched by PyJWT's ``PyJWKClient``, fetched
  again for a key id it does not hold yet: the provider's key rotation), whose
  ``iss`` and ``aud`` must be ``PAIJU_TOKEN_ISSUER`` and
  ``PAIJU_TOKEN_AUDIENCE``.

Every token needs ``exp``, and lives at most ``PAIJU_TOKEN_MAX_LIFETIME_SECONDS``
(``exp`` − ``iat`` where it has ``iat``, and ``exp`` − now). The player id of a
connection comes only from a verified token's ``sub``.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt
from jwt.types import Options

from paiju.config import DEV_TOKEN_SECRET, Config

ALGORITHM = "HS256"
#: The identity provider's algorithms (verified with its JWKS keys only).
PROVIDER_ALGORITHMS = ("RS256", "ES256")
#: Seconds ``exp`` − now may pass the maximum lifetime (clocks differ a little).
CLOCK_LEEWAY = 60
#: Seconds a JWKS fetch may take.
JWKS_TIMEOUT = 5.0


class BadToken(Exception):
    """A token that is malformed, forged (no key verifies it), expired, lives
    too long, or comes from another issuer or for another audience."""


@dataclass(frozen=True)
class Identity:
    """Who a verified token speaks for."""

    player: str
    name: str
    #: True for a token of the identity provider (its account is opened at sign-in).
    provider: bool = False
    #: An AI player (机器人): a token of ``PAIJU_AI_TOKEN_SECRET``, or in
    #: development mode a login that said so (its token's ``ai`` claim); its
    #: seats are marked ``ai``.
    ai: bool = False
    #: Signed in by an ``PAIJU_AI_TOKEN_SECRET`` token: its account is opened
    #: at sign-in (``Gateway.ai_account``).
    ai_token: bool = False


#: Player ids are safe as one NATS subject token.
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The player ids an AI token may name (``ai-`` and up to 61 more of PLAYER_ID's
#: characters), so that an AI key cannot sign in as a person.
AI_PLAYER_ID = re.compile(r"ai-[A-Za-z0-9_-]{1,61}")
#: Display names: 1 to 24 characters, no control characters, no lone surrogates.
NAME = re.compile(r"[^\x00-\x1f\ud800-\udfff]{1,24}")


def keys(secret: str) -> list[str]:
    """The keys of ``PAIJU_TOKEN_SECRET`` (comma separated; the first signs)."""
    found = [k.strip() for k in secret.split(",") if k.strip()]
    if not found:
        raise ValueError("PAIJU_TOKEN_SECRET holds no key")
    return found


def issue(secret: str, player: str, name: str, ttl_seconds: int,
          now: float | None = None, ai: bool = False) -> str:
    """A signed token for ``player`` valid ``ttl_seconds`` from ``now`` (unix
    s); ``ai``: for an AI player (the claim ``ai: true``)."""
    issued = int(time.time() if now is None else now)
    claims: dict[str, Any] = {"sub": player, "name": name, "iat": issued,
                              "exp": issued + ttl_seconds}
    if ai:
        claims["ai"] = True
    return jwt.encode(claims, keys(secret)[0], algorithm=ALGORITHM)


class Verifier:
    """Checks client tokens (see the module docstring).

    ``secret``: the HS256 keys ("" for none); ``max_lifetime``: seconds;
    ``jwks_url`` / ``issuer`` / ``audience``: the identity provider ("" for
    none); ``refresh_seconds``: shortest time between two JWKS fetches for an
    unknown key id; ``clock``: unix seconds (injectable for tests)."""

    def __init__(self, secret: str, max_lifetime: int, jwks_url: str = "", issuer: str = "",
                 audience: str = "", refresh_seconds: float = 30.0,
                 clock: Callable[[], float] = time.time, ai_secret: str = "",
                 ai_claims: bool = True) -> None:
        self.hmac_keys = keys(secret) if secret else []
        self.ai_keys = keys(ai_secret) if ai_secret else []
        #: Whether a token of ``secret`` may say it is an AI's (its ``ai`` claim):
        #: in development mode only.
        self.ai_claims = ai_claims
        self.max_lifetime = max_lifetime
        self.issuer, self.audience = issuer, audience
        self.clock = clock
        self.jwks = (jwt.PyJWKClient(jwks_url, cache_keys=False, lifespan=300,
                                     timeout=JWKS_TIMEOUT, cooldown_duration=refresh_seconds)
                     if jwks_url else None)

    @classmethod
    def from_config(cls, cfg: Config) -> Verifier:
        """The verifier of a gateway's configuration. Outside development mode
        the development key verifies nothing (paiju.config.check_keys lets it
        stand only as the unset value next to a JWKS)."""
        secret = cfg.token_secret
        if not cfg.dev_mode:
            secret = ",".join(k for k in secret.split(",") if k != DEV_TOKEN_SECRET)
        return cls(secret, cfg.token_max_lifetime_seconds, cfg.token_jwks_url or "",
                   cfg.token_issuer or "", cfg.token_audience or "",
                   cfg.token_jwks_refresh_seconds, ai_secret=cfg.ai_token_secret,
                   ai_claims=cfg.dev_mode)

    async def verify_async(self, token: object) -> Identity:
        """:meth:`verify` off the event loop where it may fetch the JWKS."""
        if self.jwks is not None and _algorithm(token) in PROVIDER_ALGORITHMS:
            return await asyncio.to_thread(self.verify, token)
        return self.verify(token)

    def verify(self, token: object) -> Identity:
        """The identity of ``token``; raises :class:`BadToken` unless a key
        verifies it, it has ``exp`` and has not expired, it lives no longer
        than the maximum lifetime, and it names a player (and, from the
        identity provider, has the issuer and audience). May block on a JWKS
        fetch."""
        alg = _algorithm(token)
        assert isinstance(token, str)
        provider = alg in PROVIDER_ALGORITHMS and self.jwks is not None
        by_ai_key = False
        if alg == ALGORITHM and (self.hmac_keys or self.ai_keys):
            claims, by_ai_key = self._hmac_claims(token)
        elif provider:
            claims = self._provider_claims(token)
        else:
            raise BadToken(f"tokens signed with {alg} are not accepted here")
        self._check_lifetime(claims)
        player = claims.get("sub")
        if not isinstance(player, str) or not PLAYER_ID.fullmatch(player):
            raise BadToken("the token names no valid player")
        name = claims.get("name") or claims.get("preferred_username")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            name = player
        if by_ai_key:
            if not AI_PLAYER_ID.fullmatch(player):
                raise BadToken("an AI token names a player id that does not start with ai-")
            return Identity(player, name, ai=True, ai_token=True)
        # Besides AI tokens, only the development login's tokens mark AI players.
        ai = self.ai_claims and not provider and claims.get("ai") is True
        return Identity(player, name, provider, ai=ai)

    def _hmac_claims(self, token: str) -> tuple[dict[str, Any], bool]:
        """The claims of an HS256 token and whether an AI key verified it."""
        for ai, key in [(False, k) for k in self.hmac_keys] + [(True, k) for k in self.ai_keys]:
            try:
                return _decode(token, key, [ALGORITHM], {"require": ["sub", "exp"]}), ai
            except jwt.InvalidSignatureError:
                continue
        raise BadToken("the token's signature does not verify")

    def _provider_claims(self, token: str) -> dict[str, Any]:
        assert self.jwks is not None
        try:
            key = self.jwks.get_signing_key_from_jwt(token)
        except jwt.PyJWKClientConnectionError as e:
            raise BadToken("the identity provider's keys cannot be fetched now") from e
        except jwt.PyJWTError as e:
            raise BadToken("the token's key is not one of the identity provider's") from e
        try:
            return _decode(token, key, list(PROVIDER_ALGORITHMS),
                           {"require": ["sub", "exp", "iss", "aud"]},
                           issuer=self.issuer, audience=self.audience)
        except jwt.InvalidSignatureError as e:
            raise BadToken("the token's signature does not verify") from e

    def _check_lifetime(self, claims: dict[str, Any]) -> None:
        exp, iat = claims["exp"], claims.get("iat")
        if iat is not None and exp - iat > self.max_lifetime:
            raise BadToken(f"the token lives longer than {self.max_lifetime} s")
        if exp - self.clock() > self.max_lifetime + CLOCK_LEEWAY:
            raise BadToken(f"the token lives longer than {self.max_lifetime} s")


def _algorithm(token: object) -> str:
    """The ``alg`` of ``token``'s header (unverified); :class:`BadToken` where
    it is no JWT."""
    if not isinstance(token, str) or not token:
        raise BadToken("no token")
    try:
        alg = jwt.get_unverified_header(token).get("alg")
    except (jwt.PyJWTError, ValueError, TypeError) as e:
        raise BadToken("the token is not a JWT") from e
    if not isinstance(alg, str):
        raise BadToken("the token names no algorithm")
    return alg


def _decode(token: str, key: Any, algorithms: list[str], options: Options,
            **checks: Any) -> dict[str, Any]:
    """``jwt.decode`` with PyJWT's refusals as :class:`BadToken` (a bad
    signature is re-raised as such, for the next key to try)."""
    try:
        claims: dict[str, Any] = jwt.decode(token, key, algorithms=algorithms,
                                            options=options, **checks)
    except jwt.InvalidSignatureError:
        raise
    except jwt.ExpiredSignatureError as e:
        raise BadToken("the token has expired") from e
    except jwt.InvalidIssuerError as e:
        raise BadToken("the token comes from another issuer") from e
    except jwt.InvalidAudienceError as e:
        raise BadToken("the token is meant for another audience") from e
    except (jwt.PyJWTError, ValueError, TypeError) as e:
        raise BadToken(f"the token is not valid ({type(e).__name__})") from e
    if not isinstance(claims.get("exp"), int | float) or isinstance(claims.get("exp"), bool):
        raise BadToken("the token's exp is not a number")
    iat = claims.get("iat")
    if iat is not None and (isinstance(iat, bool) or not isinstance(iat, int | float)):
        raise BadToken("the token's iat is not a number")
    return claims


def dev_player_id(name: str) -> str:
    """The player id of a development login by ``name``: stable, subject-safe."""
    return "dev-" + hashlib.sha256(name.encode()).hexdigest()[:16]
