"""paiju.presence.book: the book's rules (pure, clock passed in) and the watcher and
publisher over a real NATS, with a gateway process that dies (PRESENCE.md)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from paiju.config import presence_seconds
from paiju.presence.book import (
    Change,
    PresenceBook,
    PresenceError,
    PresenceWatcher,
    Session,
    parse,
)
from paiju.presence.publisher import PresencePublisher, new_gateway_id
from paiju.runtime import subjects
from paiju.runtime.natsconn import connect as nats_connect
from paiju.security import natsauth
from tests.fixtures import REPO, NatsServer

T0 = 1_700_000_000_000
TIMEOUT = 6000
AFTER_WARMUP = T0 + TIMEOUT + 1


def conn(gateway: str, player: str, session: str, at: int = 0) -> dict[str, Any]:
    return {"kind": "connect", "gateway": gateway, "at": at, "player": player,
            "session": session}


def disc(gateway: str, player: str, session: str, at: int = 0) -> dict[str, Any]:
    return {"kind": "disconnect", "gateway": gateway, "at": at, "player": player,
            "session": session}


def beat(gateway: str, *sessions: tuple[str, str], at: int = 0) -> dict[str, Any]:
    return {"kind": "heartbeat", "gateway": gateway, "at": at,
            "sessions": [{"player": p, "session": s} for p, s in sessions]}


def down(gateway: str, at: int = 0) -> dict[str, Any]:
    return {"kind": "gateway_down", "gateway": gateway, "at": at}


def warm_book() -> PresenceBook:
    """A book past its warm-up."""
    book = PresenceBook(T0, TIMEOUT)
    assert book.expire(AFTER_WARMUP) == []
    return book


# ----------------------------------------------------------------- the book
def test_connect_makes_a_player_present_and_disconnect_absent() -> None:
    book, t = warm_book(), AFTER_WARMUP
    assert not book.present("p1")
    assert book.apply(conn("g1", "p1", "s1"), t + 10) == [Change("p1", True, t + 10)]
    assert book.present("p1") and book.sessions("p1") == {Session("g1", "s1")}
    assert book.apply(disc("g1", "p1", "s1"), t + 20) == [Change("p1", False, t + 20)]
    assert not book.present("p1") and book.sessions("p1") == frozenset()
    assert book.absent_since("p1") == t + 20


def test_a_gateway_of_thousands_flips_only_the_player_that_moves() -> None:
    # A connect or disconnect is one session, however many the gateway has
    # (the ramp of 2,000 logins was quadratic: 3 s of CPU).
    book, t = warm_book(), AFTER_WARMUP
    for i in range(2000):
        assert book.apply(conn("g1", f"p{i}", f"s{i}"), t + i) == [Change(f"p{i}", True, t + i)]
    assert all(book.present(f"p{i}") for i in range(2000))
    # the same connect again, and a second session of a player: no flip
    assert book.apply(conn("g1", "p5", "s5"), t + 3000) == []
    assert book.apply(conn("g1", "p5", "s5b"), t + 3001) == []
    assert book.apply(disc("g1", "p5", "s5"), t + 3002) == []
    assert book.apply(disc("g1", "p5", "s5b"), t + 3003) == [Change("p5", False, t + 3003)]
    # a session id taken over by another player moves the presence with it
    assert book.apply(conn("g1", "q7", "s7"), t + 3004) == [Change("p7", False, t + 3004),
                                                          Change("q7", True, t + 3004)]
    # a heartbeat that drops one session flips that player alone
    alive = [(f"p{i}", f"s{i}") for i in range(2000) if i not in (5, 7, 9)] + [("q7", "s7")]
    assert book.apply(beat("g1", *alive), t + 3005) == [Change("p9", False, t + 3005)]
    assert book.present("p8") and not book.present("p9") and book.present("q7")


def test_two_sessions_of_one_player_flip_only_with_the_last() -> None:
    book, t = warm_book(), AFTER_WARMUP
    assert book.apply(conn("g1", "p1", "s1"), t) == [Change("p1", True, t)]
    assert book.apply(conn("g2", "p1", "s2"), t + 1) == []  # already present
    assert book.apply(disc("g1", "p1", "s1"), t + 2) == []  # s2 still live on g2
    assert book.present("p1") and book.sessions("p1") == {Session("g2", "s2")}
    assert book.apply(disc("g2", "p1", "s2"), t + 3) == [Change("p1", False, t + 3)]


def test_the_same_session_id_on_two_gateways_are_two_sessions() -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(conn("g1", "p1", "s"), t)
    book.apply(conn("g2", "p1", "s"), t)
    assert book.apply(disc("g1", "p1", "s"), t + 1) == []
    assert book.present("p1")


def test_a_heartbeat_repairs_a_lost_disconnect_and_a_lost_connect() -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(conn("g1", "p1", "s1"), t)
    # p1's disconnect was lost, p2's connect was lost: the heartbeat says so.
    changes = book.apply(beat("g1", ("p2", "s2")), t + 2000)
    assert changes == [Change("p1", False, t + 2000), Change("p2", True, t + 2000)]
    assert not book.present("p1") and book.present("p2")


def test_a_heartbeat_of_one_gateway_leaves_the_others_sessions_alone() -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(conn("g1", "p1", "s1"), t)
    assert book.apply(beat("g2", ("p2", "s2")), t + 1) == [Change("p2", True, t + 1)]
    assert book.present("p1")


def test_a_dead_gateways_players_are_gone_as_of_its_last_heartbeat() -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(beat("g1", ("p1", "s1"), ("p2", "s2")), t)
    book.apply(beat("g2", ("p2", "s3")), t)
    book.apply(beat("g1", ("p1", "s1"), ("p2", "s2")), t + 2000)  # last sign of life
    book.apply(beat("g2", ("p2", "s3")), t + 6000)
    assert book.expire(t + 8000) == []  # exactly the timeout: not yet dead
    assert book.expire(t + 8001) == [Change("p1", False, t + 2000)]
    assert book.present("p2")  # still on g2
    assert book.gateways() == {"g2"}
    assert book.absent_since("p1") == t + 2000


def test_a_gateway_heard_again_after_death_brings_its_players_back() -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(beat("g1", ("p1", "s1")), t)
    assert book.expire(t + 7000) == [Change("p1", False, t)]
    assert book.apply(beat("g1", ("p1", "s1")), t + 9000) == [Change("p1", True, t + 9000)]


def test_after_the_watchers_own_outage_gateways_get_a_fresh_timeout() -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(beat("g1", ("p1", "s1")), t)
    book.hear_all(t + 10_000)  # the watcher heard nothing for 10 s: its own fault
    assert book.expire(t + 16_000) == []
    assert book.expire(t + 16_001) == [Change("p1", False, t + 10_000)]


def test_gateway_down_ends_all_its_sessions_at_once() -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(beat("g1", ("p1", "s1"), ("p2", "s2")), t)
    assert book.apply(down("g1"), t + 5) == [Change("p1", False, t + 5),
                                             Change("p2", False, t + 5)]
    assert book.gateways() == frozenset()
    assert book.apply(down("g1"), t + 6) == []  # twice: nothing more


def test_warm_up_counts_never_seen_players_present_then_absent_without_a_change() -> None:
    book = PresenceBook(T0, TIMEOUT)
    assert book.warming_up() and book.present("p9")
    assert book.absent_since("p9") is None
    assert book.expire(T0 + TIMEOUT - 1) == [] and book.present("p9")
    assert book.expire(T0 + TIMEOUT) == []  # warm-up over: no Change for p9 ...
    assert not book.present("p9")  # ... but asking says absent
    assert book.absent_since("p9") == T0 + TIMEOUT


def test_during_warm_up_a_seen_player_that_goes_is_absent_at_once() -> None:
    book = PresenceBook(T0, TIMEOUT)
    assert book.apply(conn("g1", "p1", "s1"), T0 + 100) == []  # present either way
    assert book.apply(disc("g1", "p1", "s1"), T0 + 200) == [Change("p1", False, T0 + 200)]
    assert not book.present("p1")
    # A disconnect of a session the book never knew (it started after the connect):
    assert book.apply(disc("g1", "p2", "s2"), T0 + 300) == [Change("p2", False, T0 + 300)]
    assert not book.present("p2")


def test_connect_of_a_player_never_seen_after_warm_up_is_a_change() -> None:
    book = warm_book()
    assert book.apply(beat("g1", ("p3", "s3")), AFTER_WARMUP) == [
        Change("p3", True, AFTER_WARMUP)]


def test_absences_are_forgotten_after_forget_ms_and_read_as_never_seen() -> None:
    book = PresenceBook(T0, TIMEOUT, forget_ms=60_000)
    book.apply(conn("g1", "p1", "s1"), T0)
    book.apply(disc("g1", "p1", "s1"), T0 + 10_000)
    book.expire(T0 + 70_001)
    assert not book.present("p1")
    assert book.absent_since("p1") == T0 + TIMEOUT  # the end of the warm-up


@pytest.mark.parametrize("message", [
    None, [], {"kind": "hello", "gateway": "g1", "at": 1},
    {"kind": "connect", "at": 1, "player": "p1", "session": "s1"},
    {"kind": "connect", "gateway": "g1", "at": "now", "player": "p1", "session": "s1"},
    {"kind": "connect", "gateway": "g1", "at": True, "player": "p1", "session": "s1"},
    {"kind": "disconnect", "gateway": "g1", "at": 1, "player": "", "session": "s1"},
    {"kind": "heartbeat", "gateway": "g1", "at": 1, "sessions": {"p1": "s1"}},
    {"kind": "heartbeat", "gateway": "g1", "at": 1,
     "sessions": [{"player": "p1", "session": "s1"}, {"player": "p2"}]},
])
def test_a_malformed_message_is_refused_and_changes_nothing(message: Any) -> None:
    book, t = warm_book(), AFTER_WARMUP
    book.apply(conn("g1", "p1", "s1"), t)
    with pytest.raises(PresenceError):
        book.apply(message, t + 1)
    assert book.players() == {"p1"} and book.gateways() == {"g1"}


def test_timing_comes_from_the_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAIJU_PRESENCE_HEARTBEAT_SECONDS", raising=False)
    monkeypatch.delenv("PAIJU_PRESENCE_TIMEOUT_SECONDS", raising=False)
    assert presence_seconds() == (2.0, 6.0)
    monkeypatch.setenv("PAIJU_PRESENCE_HEARTBEAT_SECONDS", "0.2")
    monkeypatch.setenv("PAIJU_PRESENCE_TIMEOUT_SECONDS", "0.7")
    assert presence_seconds() == (0.2, 0.7)
    monkeypatch.setenv("PAIJU_PRESENCE_TIMEOUT_SECONDS", "0.1")
    with pytest.raises(ValueError, match="PAIJU_PRESENCE_HEARTBEAT_SECONDS"):
        presence_seconds()


def test_gateway_ids_are_the_replica_name_then_a_process_token() -> None:
    gid = new_gateway_id("gateway-3")
    name, process = gid.split(".")
    assert name == "gateway-3" and " " not in process and str(os.getpid()) in process
    assert subjects.presence(gid) == f"paiju.presence.gateway-3.{process}"
    assert natsauth.matches(subjects.own_presence("gateway-3"), subjects.presence(gid))
    assert not natsauth.matches(subjects.own_presence("gateway-30"), subjects.presence(gid))
    assert natsauth.matches(subjects.PRESENCE_ALL, subjects.presence(gid))
    with pytest.raises(ValueError):
        new_gateway_id("gateway.3")
    for bad in ("gateway-3", "a.b.c", "host.example.com"):
        with pytest.raises(ValueError):
            PresencePublisher(None, bad)  # type: ignore[arg-type]


def test_a_message_counts_only_on_its_own_gateways_subject() -> None:
    beat = json.dumps({"kind": "heartbeat", "gateway": "gateway-0.p1", "at": 1,
                       "sessions": []}).encode()
    assert parse(beat, "paiju.presence.gateway-0.p1")["gateway"] == "gateway-0.p1"
    for elsewhere in ("paiju.presence.gateway-1.p1", "paiju.presence.gateway-1.x"):
        with pytest.raises(PresenceError, match="another gateway's subject"):
            parse(beat, elsewhere)


# ------------------------------------------------- over a real NATS server
GATEWAY_SCRIPT = """
import asyncio, sys
from paiju.runtime.natsconn import connect
from paiju.presence.publisher import PresencePublisher

async def main() -> None:
    nc = await connect(sys.argv[1], None, "test-gateway")
    pub = PresencePublisher(nc, sys.argv[2], heartbeat_seconds=0.2)
    await pub.start()
    await pub.connect("p-doomed", "s-1")
    await nc.flush()
    print("up", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


async def wait_change(changes: asyncio.Queue[Change], timeout: float) -> Change:
    return await asyncio.wait_for(changes.get(), timeout)


async def test_watcher_follows_a_publisher_and_a_gateway_that_dies(nats_server: str) -> None:
    timeout_s = 2.0  # ten heartbeats: a loaded machine does not kill a live gateway
    changes: asyncio.Queue[Change] = asyncio.Queue()

    async def on_change(change: Change) -> None:
        await changes.put(change)

    watcher_nc = await nats_connect(nats_server, None, "test-watcher")
    gateway_nc = await nats_connect(nats_server, None, "test-publisher")
    watcher = PresenceWatcher(watcher_nc, on_change, timeout_ms=int(timeout_s * 1000),
                              tick_seconds=0.1)
    publisher = PresencePublisher(gateway_nc, "gw-clean.p1", heartbeat_seconds=0.2)
    proc: subprocess.Popen[str] | None = None
    try:
        await watcher.start()
        await watcher_nc.flush()
        await publisher.start()
        # During the warm-up a player never seen already counts present: no Change.
        await publisher.connect("p1", "s1")
        await publisher.disconnect("p1", "s1")
        c = await wait_change(changes, 5)
        assert (c.player, c.present) == ("p1", False)
        await publisher.connect("p1", "s2")
        c = await wait_change(changes, 5)
        assert (c.player, c.present) == ("p1", True)
        while watcher.book.warming_up(int(time.time() * 1000)):
            await asyncio.sleep(0.05)

        # A gateway process that is SIGKILLed sends no gateway_down.
        proc = subprocess.Popen(
            [sys.executable, "-c", GATEWAY_SCRIPT, nats_server, "gw-doomed.p1"],
            cwd=REPO, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60) == "up\n"
        c = await wait_change(changes, 5)
        assert (c.player, c.present) == ("p-doomed", True)
        os.kill(proc.pid, signal.SIGKILL)
        killed_ms = int(time.time() * 1000)
        c = await wait_change(changes, timeout_s + 3)
        found_ms = int(time.time() * 1000)
        assert (c.player, c.present) == ("p-doomed", False)
        # Dated at its last heartbeat (received about one interval, 0.2 s, before the
        # kill, or just after it when one was on the wire).
        assert killed_ms - timeout_s * 1000 <= c.at_ms <= killed_ms + 500
        # Found once the timeout passed since that heartbeat, within a tick or so.
        assert c.at_ms + timeout_s * 1000 <= found_ms <= killed_ms + timeout_s * 1000 + 1500
        assert watcher.book.present("p1")  # the other gateway's player stays

        # A clean stop: gateway_down ends its sessions at once. A second watcher with
        # a 60 s timeout sees it too, so it cannot be an expiry.
        slow_changes: asyncio.Queue[Change] = asyncio.Queue()
        slow = PresenceWatcher(watcher_nc, slow_changes.put, timeout_ms=60_000)
        await slow.start()
        while not slow.book.sessions("p1"):  # the next heartbeat lists p1
            await asyncio.sleep(0.05)
        await publisher.stop()
        c = await wait_change(changes, 5)
        assert (c.player, c.present) == ("p1", False)
        assert watcher.book.gateways() == frozenset()
        c = await wait_change(slow_changes, 5)
        assert (c.player, c.present) == ("p1", False)
        await slow.stop()
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        if proc is not None:
            proc.wait(timeout=10)
        await watcher.stop()
        await watcher_nc.close()
        await gateway_nc.close()


async def test_a_watcher_cut_off_from_nats_does_not_declare_gateways_dead(
        nats_process: NatsServer) -> None:
    changes: list[Change] = []

    async def on_change(change: Change) -> None:
        changes.append(change)

    watcher_nc = await nats_connect(nats_process.url, None, "test-watcher")
    gateway_nc = await nats_connect(nats_process.url, None, "test-publisher")
    watcher = PresenceWatcher(watcher_nc, on_change, timeout_ms=2000, tick_seconds=0.1)
    publisher = PresencePublisher(gateway_nc, "gw-1.p1", heartbeat_seconds=0.2)
    try:
        await watcher.start()
        await watcher_nc.flush()
        await publisher.start()
        await publisher.connect("p1", "s1")
        while not watcher.book.sessions("p1"):
            await asyncio.sleep(0.05)
        nats_process.stop()  # nobody hears anybody for twice the timeout
        await asyncio.sleep(4)
        nats_process.start()
        while not (watcher_nc.is_connected and gateway_nc.is_connected):
            await asyncio.sleep(0.05)
        heard = watcher.book.gateways()
        await asyncio.sleep(2.5)  # more than the timeout once both are back
        assert heard == {"gw-1.p1"} and watcher.book.present("p1")
        assert changes == []
    finally:
        await watcher.stop()
        await watcher_nc.close()
        await gateway_nc.close()
