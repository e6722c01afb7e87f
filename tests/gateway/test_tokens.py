"""Client tokens against a running platform: an identity
provider's RS256/ES256 tokens through its JWKS (a small one served on
loopback here), issuer and audience, key rotation, the maximum lifetime, a
refused ``auth`` signing the connection out, and sign-ins per player per minute."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from paiju.config import DEV_TOKEN_SECRET
from tests.gateway.test_guarantees import Capture, refused
from tests.platform_procs import Platform, running_platform

pytestmark = pytest.mark.timeout(300)

ISSUER = "https://idp.paiju.test/"
AUDIENCE = "paiju-test"
MAX_LIFETIME = 3600
SESSIONS_PER_MINUTE = 4


class Provider:
    """A test identity provider: signing keys by kid, and their JWKS served
    on loopback (``url``); ``fetches`` counts the JWKS requests."""

    def __init__(self) -> None:
        self.keys: dict[str, tuple[str, Any]] = {}
        self.fetches = 0
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                provider.fetches += 1
                body = json.dumps(provider.jwks()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"

    def add(self, kid: str, alg: str) -> None:
        """Make a new key ``kid`` for ``alg`` (RS256 or ES256) and publish it."""
        key: Any = (rsa.generate_private_key(public_exponent=65537, key_size=2048)
                    if alg == "RS256" else ec.generate_private_key(ec.SECP256R1()))
        self.keys[kid] = (alg, key)

    def jwks(self) -> dict[str, Any]:
        out = []
        for kid, (alg, key) in self.keys.items():
            codec = RSAAlgorithm if alg == "RS256" else ECAlgorithm
            jwk = codec.to_jwk(key.public_key(), as_dict=True)
            out.append({**jwk, "kid": kid, "alg": alg, "use": "sig"})
        return {"keys": out}

    def token(self, kid: str, sub: str, key: Any = None, **claims: Any) -> str:
        """A token of ``sub`` signed with key ``kid`` (or ``key`` under that kid)."""
        alg, own = self.keys.get(kid, ("RS256", None))
        now = int(time.time())
        body = {"sub": sub, "name": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now,
                "exp": now + 600, **claims}
        return jwt.encode({k: v for k, v in body.items() if v is not None}, key or own,
                          algorithm=alg, headers={"kid": kid})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    p.add("rsa-1", "RS256")
    p.add("ec-1", "ES256")
    try:
        yield p
    finally:
        p.close()


@pytest.fixture(scope="module")
def platform(provider: Provider) -> Iterator[Platform]:
    """The platform with the test identity provider configured."""
    with running_platform({"TOKEN_JWKS_URL": provider.url, "TOKEN_ISSUER": ISSUER,
                           "TOKEN_AUDIENCE": AUDIENCE, "TOKEN_JWKS_REFRESH_SECONDS": "0.2",
                           "TOKEN_MAX_LIFETIME_SECONDS": str(MAX_LIFETIME),
                           "TOKEN_TTL_SECONDS": "600",
                           "GATEWAY_SESSIONS_PER_PLAYER_PER_MINUTE":
                               str(SESSIONS_PER_MINUTE)}) as p:
        yield p


def player(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def test_a_provider_token_signs_in(platform: Platform, provider: Provider) -> None:
    for kid in ("rsa-1", "ec-1"):
        who = player(f"idp-{kid}")
        async with Capture(platform.gateway_url) as c:
            reply = await c.client.call("auth", token=provider.token(kid, who))
            assert (reply["player"], reply["name"], reply["coins"]) == (who, who, 0)
            assert (await c.client.call("servers"))["ok"]


async def test_a_token_of_another_key_issuer_or_audience_is_refused(
        platform: Platform, provider: Provider) -> None:
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    bad = [provider.token("rsa-1", player("forger"), key=stranger),  # the kid, another key
           provider.token("rsa-unknown", player("forger"), key=stranger),
           provider.token("rsa-1", player("elsewhere"), iss="https://other.example/"),
           provider.token("rsa-1", player("elsewhere"), aud="another-app"),
           provider.token("rsa-1", player("no-aud"), aud=None),
           provider.token("rsa-1", "not a player id")]
    async with Capture(platform.gateway_url) as c:
        for token in bad:
            assert await refused(c.client, "auth", token=token) == "bad_token"
        assert await refused(c.client, "servers") == "unauthenticated"


async def test_a_rotated_key_is_picked_up(platform: Platform, provider: Provider) -> None:
    """The provider rotates: a token of the new kid signs in (the JWKS is
    fetched again for a kid not seen); the retired key signs in no more."""
    old = provider.token("rsa-1", player("before"))
    async with Capture(platform.gateway_url) as c:
        await c.client.call("auth", token=old)
    provider.add("rsa-2", "RS256")
    retired = provider.keys.pop("rsa-1")
    try:
        await asyncio.sleep(0.5)  # past PAIJU_TOKEN_JWKS_REFRESH_SECONDS since the last fetch
        fetches = provider.fetches
        who = player("after")
        async with Capture(platform.gateway_url) as c:
            reply = await c.client.call("auth", token=provider.token("rsa-2", who))
            assert reply["player"] == who
        assert provider.fetches > fetches
        async with Capture(platform.gateway_url) as c:
            assert await refused(c.client, "auth", token=old) == "bad_token"
    finally:
        provider.keys["rsa-1"] = retired


def hs256(claims: dict[str, Any]) -> str:
    return jwt.encode(claims, DEV_TOKEN_SECRET, algorithm="HS256")


async def test_tokens_without_exp_or_living_too_long_are_refused(
        platform: Platform, provider: Provider) -> None:
    now = int(time.time())
    long_lived = [
        hs256({"sub": "alice", "iat": now}),  # no exp
        hs256({"sub": "alice", "exp": 253402300799}),  # the year 9999
        hs256({"sub": "alice", "iat": now, "exp": now + MAX_LIFETIME + 1}),
        hs256({"sub": "alice", "iat": now - MAX_LIFETIME, "exp": now + 60}),  # exp - iat too long
        provider.token("rsa-1", "alice", exp=now + 10 * MAX_LIFETIME),
        provider.token("rsa-1", "alice", exp=None),
    ]
    async with Capture(platform.gateway_url) as c:
        for token in long_lived:
            assert await refused(c.client, "auth", token=token) == "bad_token"
        within = hs256({"sub": player("fine"), "iat": now, "exp": now + MAX_LIFETIME})
        # Signed correctly and within the lifetime: only the account is missing.
        assert await refused(c.client, "auth", token=within) != "bad_token"


async def test_a_refused_auth_signs_the_connection_out(platform: Platform) -> None:
    async with Capture(platform.gateway_url) as c:
        await c.login(player("signed-in"))
        assert (await c.client.call("servers"))["ok"]
        assert await refused(c.client, "auth", token="garbage") == "bad_token"
        assert await refused(c.client, "servers") == "unauthenticated"
        # Signing in again on the same connection works.
        again = await c.client.call("auth", token=c.token)
        assert again["ok"] and (await c.client.call("servers"))["ok"]


async def test_sign_ins_per_player_per_minute_are_limited(platform: Platform) -> None:
    async with Capture(platform.gateway_url) as c:
        await c.login(player("often"))  # sign-in 1
        token = c.token
    for _ in range(SESSIONS_PER_MINUTE - 1):
        async with Capture(platform.gateway_url) as c:
            assert (await c.client.call("auth", token=token))["ok"]
    async with Capture(platform.gateway_url) as c:
        assert await refused(c.client, "auth", token=token) == "too_many_sessions"
        assert await refused(c.client, "servers") == "unauthenticated"
        assert (await c.client.call("ping"))["ok"]
    async with Capture(platform.gateway_url) as other:  # another player is not held back
        await other.login(player("seldom"))
