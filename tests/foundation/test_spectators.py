"""paiju.presence.spectators: spectator counts per room from the gateways'
presence messages (paiju/presence/book.py's ``watch`` and heartbeats), pure
bookkeeping; and the public view's rule (what every seat sees alike)."""

from __future__ import annotations

import pytest

from paiju.presence.book import PresenceError, check
from paiju.presence.spectators import SpectatorBook
from services.table.domain.public_view import common_fields


def msg(kind: str, gateway: str, **fields: object) -> dict[str, object]:
    return check({"kind": kind, "gateway": gateway, "at": 0, **fields})  # type: ignore[return-value]


def test_counts_across_gateways_from_watch_and_heartbeats() -> None:
    book = SpectatorBook(timeout_ms=6000)
    assert book.apply(msg("watch", "g1", player="a", session="s1", room="r1"), 0) == {"r1": 1}
    assert book.apply(msg("watch", "g2", player="b", session="s2", room="r1"), 10) == {"r1": 2}
    # Watching another room moves the count.
    assert book.apply(msg("watch", "g2", player="b", session="s2", room="r2"), 20) == \
        {"r1": 1, "r2": 1}
    # A heartbeat is authoritative for its gateway: s1 no longer watches.
    assert book.apply(msg("heartbeat", "g1", sessions=[{"player": "a", "session": "s1"}]),
                      30) == {"r1": 0}
    assert book.apply(msg("heartbeat", "g1", sessions=[
        {"player": "a", "session": "s1", "watching": "r2"}]), 40) == {"r2": 2}
    assert book.count("r2") == 2 and book.watching("g1", "s1") == "r2"
    # A stop, a disconnect, a gateway going down, a gateway gone silent.
    assert book.apply(msg("watch", "g1", player="a", session="s1", room=None), 50) == {"r2": 1}
    assert book.apply(msg("heartbeat", "g1", sessions=[
        {"player": "a", "session": "s1", "watching": "r3"}]), 60) == {"r3": 1}
    assert book.apply(msg("disconnect", "g1", player="a", session="s1"), 70) == {"r3": 0}
    assert book.apply(msg("gateway_down", "g2"), 80) == {"r2": 0}
    book.apply(msg("watch", "g3", player="c", session="s3", room="r4"), 100)
    assert book.expire(6100) == {}
    assert book.expire(6101) == {"r4": 0}
    assert book.counts() == {}


def test_a_bad_watch_message_is_refused() -> None:
    with pytest.raises(PresenceError):
        msg("watch", "g1", player="a", session="s1", room=7)
    with pytest.raises(PresenceError):
        msg("heartbeat", "g1", sessions=[{"player": "a", "session": "s", "watching": ""}])


def test_the_public_view_keeps_only_what_every_seat_sees_alike() -> None:
    views = [{"seat": 0, "hand": ["3S"], "trick": [["4H"]], "kitty": None, "buried": ["5D"]},
             {"seat": 1, "hand": ["6C"], "trick": [["4H"]], "kitty": None, "buried": None},
             {"seat": 2, "hand": ["7C"], "trick": [["4H"]], "kitty": None}]
    assert common_fields(views) == {"trick": [["4H"]], "kitty": None}
    same_hand = [{"seat": 0, "hand": []}, {"seat": 1, "hand": []}]
    assert common_fields(same_hand) == {}
