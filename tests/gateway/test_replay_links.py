"""Replay link tokens: a player's shared link names its share and lives a
year; an operator's names none and lives at most a day; a token claiming a
longer life than its kind allows, or signed with another key, is refused."""

from __future__ import annotations

import time

import jwt
import pytest

from services.gateway.adapters import replay_links
from services.gateway.adapters.replay_links import BadLink, issue, issue_share, verify

SECRET = "a-test-key-of-enough-length-for-hs256-0123456789"
DAY = 86400


def test_a_shared_link_names_its_share_and_lives_a_year() -> None:
    now = time.time()
    token = issue_share(SECRET, "game-1", "share-1", "p1", now=now)
    assert verify(SECRET, token, dev_mode=False) == ("game-1", "share-1")
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == 366 * DAY
    assert (claims["typ"], claims["sub"], claims["share"]) == ("replay", "p1", "share-1")
    # still good 300 days on (a sign-in token or an operator's link would not be)
    old = issue_share(SECRET, "game-1", "share-1", "p1", now=now - 300 * DAY)
    assert verify(SECRET, old, dev_mode=False).share == "share-1"


def test_an_operators_link_names_no_share_and_lives_a_day_at_most() -> None:
    token = issue(SECRET, "game-1", ttl_seconds=600)
    assert verify(SECRET, token, dev_mode=False) == ("game-1", "")
    with pytest.raises(ValueError):
        issue(SECRET, "game-1", ttl_seconds=DAY + 1)


def signed(claims: dict[str, object]) -> str:
    key = replay_links.link_keys(SECRET, dev_mode=False)[0]
    return jwt.encode(claims, key, algorithm="HS256")


def test_a_life_longer_than_its_kind_allows_is_refused() -> None:
    now = int(time.time())
    no_share = signed({"typ": "replay", "game": "g", "iat": now, "exp": now + 2 * DAY})
    with pytest.raises(BadLink, match="lives too long"):
        verify(SECRET, no_share, dev_mode=False)
    too_long = signed({"typ": "replay", "game": "g", "share": "s", "iat": now,
                       "exp": now + 400 * DAY})
    with pytest.raises(BadLink, match="lives too long"):
        verify(SECRET, too_long, dev_mode=False)
    bad_share = signed({"typ": "replay", "game": "g", "share": 7, "iat": now, "exp": now + 60})
    with pytest.raises(BadLink, match="not a replay link"):
        verify(SECRET, bad_share, dev_mode=False)


def test_another_key_is_refused() -> None:
    token = issue_share("another-key-of-enough-length-for-hs256-987654321", "g", "s", "p1")
    with pytest.raises(BadLink, match="signature"):
        verify(SECRET, token, dev_mode=False)
