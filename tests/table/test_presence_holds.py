"""The disconnect hold as a budget per seat per sitting, driven by presence
(rulings.md "Shared by all games"; docs/table.md "Disconnects").

Real NATS, a real ledger and the table service on loopback gRPC; presence is
published on NATS as a gateway does (paiju.presence.publisher.PresencePublisher). The
table runs on the injected clock (the watcher's book too), with a presence
timeout far beyond the test so that no gateway of the test counts as dead;
the last test kills a real gateway process (SIGKILL) on the real clock.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from paiju.presence.publisher import PresencePublisher
from paiju.rules import load
from paiju.table.v1 import table_pb2
from services.table.application.clock import SystemClock
from tests.table.conftest import Harness, harness_running
from tests.table.test_doudizhu_service import SPRING_DEAL

NO_EXPIRY = {"presence_timeout_seconds": 10.0**7}


def ms(t: float) -> int:
    return round(t * 1000)


@pytest.fixture
async def ph(nats_server: str, tmp_path: Path) -> AsyncIterator[Harness]:
    """A harness whose table watches presence on the injected clock."""
    async with harness_running(nats_server, tmp_path, table_config=NO_EXPIRY) as h:
        yield h


class Gateway:
    """Publishes presence as a gateway does: one session per player."""

    def __init__(self, h: Harness) -> None:
        assert h.nc is not None
        self.h = h
        self.pub = PresencePublisher(h.nc, f"gw.p{uuid.uuid4().hex[:8]}", heartbeat_seconds=1000)

    async def connect(self, *players: str) -> None:
        for p in players:
            await self.pub.connect(p, f"s-{p}")

    async def leave(self, room: str, player: str) -> None:
        """``player``'s session closes; returns once the table holds its seat."""
        await self.pub.disconnect(player, f"s-{player}")
        runner = self.h.table.rooms[room]
        seat = runner.sitting.seat_of(player)
        await self.h.wait(lambda: seat in runner.sitting.holds, f"{player} held")

    async def back(self, room: str, player: str) -> None:
        """``player`` signs in again; returns once the table ended its hold."""
        await self.pub.connect(player, f"s-{player}")
        runner = self.h.table.rooms[room]
        seat = runner.sitting.seat_of(player)
        await self.h.wait(lambda: seat not in runner.sitting.holds, f"{player} back")


def quiet(h: Harness, room: str) -> bool:
    """Nothing of ``room`` is due or under way at the injected clock's time."""
    r = h.table.rooms.get(room)
    if r is None:
        return True
    if h.table.background or r.ending is not None:
        return False
    d = r.sitting.next_deadline()
    return d is None or d > h.clock.now()


async def advance(h: Harness, room: str, seconds: float, step: float = 1.0) -> None:
    """Move the injected clock ``seconds`` on, ``step`` at a time, letting the
    table catch up after each step (timers, ends, redeals)."""
    target = h.clock.now() + seconds
    while h.clock.now() < target - 1e-6:
        h.clock.advance(min(step, target - h.clock.now()))
        await h.wait(lambda: quiet(h, room), "the table to catch up")


def of(h: Harness, room: str, type_: str, game_id: str | None = None) -> list[dict[str, Any]]:
    return [e for e in h.public(room) if e["type"] == type_
            and (game_id is None or e["game_id"] == game_id)]


async def test_budget_is_spent_across_disconnects_and_the_turn_goes_on_with_its_time(
        ph: Harness) -> None:
    h = ph
    ps = [f"bud{i}" for i in range(3)]
    await h.open(ps)
    gw = Gateway(h)
    await gw.connect(*ps)
    room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL)  # seat 0 bids first
    t0 = h.clock.now()
    await gw.leave(room, ps[0])
    ev = await h.wait_event(room, "seat_disconnected", 1)
    assert ev == {**ev, "seat": 0, "hold_until": ms(t0 + 90), "budget_left_ms": 90_000}
    await advance(h, room, 30)  # past the 20 s turn: the game waits at seat 0
    await gw.back(room, ps[0])
    ev = await h.wait_event(room, "seat_reconnected", 1)
    assert ev["seat"] == 0 and ev["budget_left_ms"] == 60_000
    view = await h.view(room, ps[0])
    assert view["time_left_ms"] == 20_000
    assert view["seats"][0] == {**view["seats"][0], "disconnected": False,
                                "budget_left_ms": 60_000}
    # Away again after 4 s of the turn (16 s left), for 6 s.
    await advance(h, room, 4)
    await gw.leave(room, ps[0])
    ev = await h.wait_event(room, "seat_disconnected", 2)
    assert ev["hold_until"] == ms(t0 + 34 + 60) and ev["budget_left_ms"] == 60_000
    await advance(h, room, 6)
    await gw.back(room, ps[0])
    assert (await h.wait_event(room, "seat_reconnected", 2))["budget_left_ms"] == 54_000
    assert (await h.view(room, ps[0]))["time_left_ms"] == 16_000  # not a fresh 20 s
    # Away with 1 s of the turn left: back with 10 s (the floor).
    await advance(h, room, 15)
    await gw.leave(room, ps[0])
    await advance(h, room, 5)
    await gw.back(room, ps[0])
    assert (await h.wait_event(room, "seat_reconnected", 3))["budget_left_ms"] == 49_000
    assert (await h.view(room, ps[0]))["time_left_ms"] == 10_000
    turn = await h.wait(lambda: [e for e in of(h, room, "turn")
                                 if e["deadline"] == ms(t0 + 70)], "the resumed turn")
    assert turn[0]["seat"] == 0
    # Away for good: 49 s of budget left, then the escape.
    await gw.leave(room, ps[0])
    ev = await h.wait_event(room, "seat_disconnected", 4)
    assert ev["hold_until"] == ms(t0 + 60 + 49)
    await advance(h, room, 48.9)
    assert room in h.table.rooms and not h.table.rooms[room].sitting.finished
    assert not of(h, room, "timed_out")
    await advance(h, room, 0.1)
    fin = await h.wait_event(room, "game_finished")
    assert fin["reason"] == "escape" and fin["game_id"] == gid
    call = await h.wait(lambda: h.lobby.calls, "GameOver")
    assert list(call[0].escaped) == [ps[0]]


async def test_a_redeal_goes_on_with_the_away_seat_and_its_budget(ph: Harness) -> None:
    """doudizhu: the seat that left during bidding stays away in the redeal; it
    escapes when its 90 s are spent (no second no-call deal, so no fee)."""
    h = ph
    ps = [f"rd{i}" for i in range(3)]
    await h.open(ps, 1000)
    gw = Gateway(h)
    await gw.connect(*ps)
    room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    t0 = h.clock.now()
    assert (await h.act(room, ps[0], "no_call")).ok
    await gw.leave(room, ps[0])
    assert (await h.act(room, ps[1], "no_call")).ok
    assert (await h.act(room, ps[2], "no_call")).ok
    started = await h.wait_event(room, "game_started", 2)
    r1 = f"{gid}.r1"
    assert started["game_id"] == r1
    ev = await h.wait(lambda: of(h, room, "seat_disconnected", r1), "r1 seat_disconnected")
    assert ev[0] == {**ev[0], "seat": 0, "hold_until": ms(t0 + 90), "budget_left_ms": 90_000}
    view = await h.view(room, ps[1])
    assert view["game_id"] == r1
    assert view["seats"][0]["disconnected"] and view["seats"][0]["budget_left_ms"] == 90_000
    # The others' turns time out (no_call); seat 0's turn waits for it.
    await advance(h, room, 89.9)
    runner = h.table.rooms[room]
    assert runner.sitting.game_id == r1 and not runner.sitting.finished
    await advance(h, room, 0.1)
    fin = await h.wait_event(room, "game_finished", 2)
    assert fin["game_id"] == r1 and fin["reason"] == "escape"
    call = await h.wait(lambda: h.lobby.calls, "GameOver")
    assert call[0].game_id == gid and list(call[0].escaped) == [ps[0]]
    # The room's last result: the deal played out, its settlement table.
    assert call[0].record_id == r1
    assert [(r.player, r.coins) for r in call[0].settlement] == [
        (r["player"], r["coins"]) for r in fin["settlement"]]
    # The coins moved by the escape's settlement only: no no-call fee.
    rows = {r["player"]: r for r in fin["settlement"]}
    for p in ps:
        assert await h.balance(p) == 1000 + rows[p]["coins"]
    assert len(of(h, room, "game_started")) == 2


async def test_a_table_with_every_seat_gone_ends_by_escape(ph: Harness) -> None:
    """hunzhan: all four leave during the deal; the table redeals (nobody
    declares) until a budget is spent. Seats 0 and 1 run out at the same time:
    seat 1 left first, so seat 1 escapes."""
    h = ph
    ps = [f"gone{i}" for i in range(4)]
    await h.open(ps, 1000)
    gw = Gateway(h)
    await gw.connect(*ps)
    deal = load("hunzhan").random_deal({}, random.Random(7))
    # 84 cards at 0.3 s, then 5 s to declare: about 30 s a deal.
    room, gid = await h.create("hunzhan", ps, deal=deal, options={
        "deal_interval_ms": 300, "declare_grace_seconds": 5})
    await advance(h, room, 0.5)
    await gw.leave(room, ps[0])                     # start + 0.5
    await advance(h, room, 10)
    await gw.back(room, ps[0])                      # 10 s spent: 80 left
    await gw.leave(room, ps[1])                     # start + 10.5: out at t0 + 100.5
    await advance(h, room, 4.5)
    await gw.leave(room, ps[2])                     # start + 15: out at t0 + 105
    await gw.leave(room, ps[3])
    await advance(h, room, 5.5)
    await gw.leave(room, ps[0])                     # start + 20.5: out at t0 + 100.5
    await advance(h, room, 80)                      # start + 100.5
    fin = await h.wait(lambda: [e for e in of(h, room, "game_finished")
                                if e["reason"] != "redeal"], "the end")
    assert fin[0]["reason"] == "escape"
    call = await h.wait(lambda: h.lobby.calls, "GameOver")
    assert list(call[0].escaped) == [ps[1]]
    escaped = of(h, room, "escaped", fin[0]["game_id"])
    assert [e["seat"] for e in escaped] == [1]
    record = await h.table.store.get(fin[0]["game_id"])
    assert record is not None and record["actions"][-1] == {"seat": 1, "type": "escape"}
    # It redealt meanwhile (a deal is about 30 s), and every redeal began with
    # the seats still away.
    games = [e["game_id"] for e in of(h, room, "game_started")]
    assert games[0] == gid and 3 <= len(games) <= 5
    for g in games[1:]:
        assert {e["seat"] for e in of(h, room, "seat_disconnected", g)} == {0, 1, 2, 3}


async def test_the_reconnect_view_has_declare_options_and_both_seqs(ph: Harness) -> None:
    h = ph
    ps = [f"rv{i}" for i in range(4)]
    await h.open(ps)
    gw = Gateway(h)
    await gw.connect(*ps)
    deal = load("hunzhan").random_deal({}, random.Random(5))
    order, first = deal["order"], deal["first"]
    i = next(k for k, c in enumerate(order) if c[0] == "T")  # the first ten dealt
    seat = (first + i) % 4
    room, _ = await h.create("hunzhan", ps, deal=deal, options={
        "deal_interval_ms": 100, "declare_grace_seconds": 5})
    # A round (a card to each seat) every 0.4 s: the ten's round is r.
    r = i // 4
    await advance(h, room, 0.4 * r + 0.05, step=0.1)
    assert h.table.rooms[room].sitting.dealt == 4 * (r + 1)
    await gw.leave(room, ps[seat])
    await gw.back(room, ps[seat])
    reconnected = await h.wait_event(room, "seat_reconnected")
    ev = (await h.wait(lambda: [e for e in h.private(ps[seat]) if e["type"] == "view"],
                       "the view event"))[0]
    # seed 000 / rulings.md hunzhan: one ten declares its suit, a pair of equal
    # jokers no-trump; the seat holds only the cards dealt to it so far.
    held = Counter(order[k] for k in range(4 * (r + 1)) if (first + k) % 4 == seat)
    want = [[c] for c in held if c[0] == "T"] + [
        [c, c] for c in ("SJ", "BJ") if held[c] >= 2]
    assert sorted(ev["declare_options"]) == sorted(want) and [order[i]] in want
    # The event's own seq is the player's (and its player_seq); public_seq is
    # the game's public seq at that moment (the seat_reconnected event's).
    assert ev["seq"] == ev["player_seq"]
    assert ev["public_seq"] == reconnected["seq"]
    view = await h.view(room, ps[seat])
    last_public = max(e["seq"] for e in h.public(room) if e["game_id"] == view["game_id"])
    assert view["seq"] == view["public_seq"] == last_public
    assert view["declare_options"] == ev["declare_options"]


async def test_the_lobby_hears_game_over_before_game_finished_goes_out(ph: Harness) -> None:
    h = ph
    ps = [f"go{i}" for i in range(3)]
    await h.open(ps)
    h.lobby.gate = asyncio.Event()
    room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    await h.stub.Leave(table_pb2.PlayerRequest(room=room, player=ps[2]))
    call = await h.wait(lambda: h.lobby.calls, "GameOver")
    assert call[0].game_id == gid and list(call[0].escaped) == [ps[2]]
    # The lobby has not answered: game_finished waits for it. The room's next
    # game (the lobby may start it as soon as it answered) waits for the end.
    create = asyncio.create_task(h.create("doudizhu", ps, room=room, game_id=f"{gid}-next",
                                          deal=SPRING_DEAL))
    await asyncio.sleep(0.3)
    assert not of(h, room, "game_finished") and not create.done()
    h.lobby.gate.set()
    fin = await h.wait_event(room, "game_finished")
    assert fin["game_id"] == gid and fin["reason"] == "escape"
    assert await create == (room, f"{gid}-next")
    await h.wait(lambda: len(of(h, room, "game_started")) == 2, "the next game")
    types = [(e["type"], e["game_id"]) for e in h.public(room)
             if e["type"] in ("game_finished", "game_started")]
    assert types == [("game_started", gid), ("game_finished", gid),
                     ("game_started", f"{gid}-next")]


GATEWAY_SCRIPT = """
import asyncio, sys
import nats
from paiju.presence.publisher import PresencePublisher

async def main():
    nc = await nats.connect(sys.argv[1])
    pub = PresencePublisher(nc, sys.argv[2], heartbeat_seconds=0.3)
    await pub.start()
    for p in sys.argv[3:]:
        await pub.connect(p, "s-" + p)
    await nc.flush()
    print("ready", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.mark.timeout(90)
async def test_a_killed_gateway_leads_to_holds_and_an_escape(
        nats_server: str, tmp_path: Path) -> None:
    """Real clock: presence timeout 1 s, heartbeats every 0.3 s, a 4 s budget.
    The gateway process is killed (SIGKILL, no goodbye): its players are gone
    as of its last heartbeat, their seats are held from then, and the table
    ends by escape (all out at once: the lowest seat)."""
    async with harness_running(nats_server, tmp_path, table_clock=SystemClock(),
                               table_config={"presence_timeout_seconds": 1.0}) as h:
        ps = [f"kill{i}" for i in range(3)]
        await h.open(ps)
        gw = subprocess.Popen(
            [sys.executable, "-c", GATEWAY_SCRIPT, nats_server, "gwkill.p1", *ps],
            stdout=subprocess.PIPE, text=True)
        try:
            assert gw.stdout is not None
            line = await asyncio.get_running_loop().run_in_executor(None, gw.stdout.readline)
            assert line.strip() == "ready"
            await asyncio.sleep(0.5)  # a heartbeat or two reach the table
            room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL, options={
                "reconnect_seconds": 4, "turn_seconds": 60})
            killed = time.time()
            gw.send_signal(signal.SIGKILL)
            gw.wait(5)
            fin = await h.wait_event(room, "game_finished", timeout=30)
            assert fin["reason"] == "escape"
            holds = of(h, room, "seat_disconnected", gid)
            assert holds and all(e["budget_left_ms"] == 4000 for e in holds)
            for e in holds:
                # Held from the last heartbeat (0.3 s before the kill at most),
                # not from when the table noticed (about 1-2 s after it).
                assert ms(killed - 0.3 - 0.1 + 4) <= e["hold_until"] <= ms(killed + 4)
            call = await h.wait(lambda: h.lobby.calls, "GameOver")
            assert list(call[0].escaped) == [ps[0]]
            assert json.loads(call[0].carry_json) == {}  # a finished game: no streak
        finally:
            if gw.poll() is None:
                gw.kill()
                gw.wait(5)



async def at_each_deadline(h: Harness, room: str, until: float) -> None:
    """Move the injected clock to each of the room's deadlines in turn, exactly
    (as a real timer fires: at its time, not a millisecond later), up to ``until``
    (unix s); the table must act at each one (what is due is done, the next
    deadline is later)."""
    runner = h.table.rooms[room]
    while True:
        d = runner.sitting.next_deadline()
        if d is None or d > until:
            break
        h.clock.advance(max(0.0, d - h.clock.now()))

        def acted(d: float = d) -> bool:
            return h.table.rooms.get(room) is not runner or (
                not h.table.background and (runner.sitting.next_deadline() or math.inf) > d)

        await h.wait(acted, f"the table to act at its deadline {d!r} (now {h.clock.now()!r})")
        if h.table.rooms.get(room) is not runner or runner.sitting.finished:
            break


async def test_a_seat_away_during_the_paced_deal_does_not_stop_it(ph: Harness) -> None:
    """hunzhan: a seat whose session closes in the middle of the paced deal and
    comes back: the deal goes on to its last card, the declaring window closes
    ``declare_grace_seconds`` after it and play begins (rulings.md "Shared by
    all games": the game waits only at the turn of a seat away; dealing is no
    one's turn). The clock stops exactly at each deadline, which (a deal
    started at ...000.002 with 60 ms a card, so a round of 4 every 240 ms)
    lies between two milliseconds for most rounds (in floating point): the
    timer's entry is logged in whole milliseconds."""
    h = ph
    ps = [f"dd{i}" for i in range(4)]
    await h.open(ps)
    gw = Gateway(h)
    await gw.connect(*ps)
    deal = load("hunzhan").random_deal({}, random.Random(11))
    h.clock.advance(round(h.clock.now()) + 0.002 - h.clock.now())
    room, gid = await h.create("hunzhan", ps, deal=deal, options={
        "deal_interval_ms": 60, "declare_grace_seconds": 5})
    runner = h.table.rooms[room]
    t0 = runner.sitting.steps.started_at
    total = len(deal["order"])
    await at_each_deadline(h, room, t0 + 0.24 * 2)
    assert runner.sitting.dealt == 12
    await gw.leave(room, ps[2])
    await at_each_deadline(h, room, t0 + 0.24 * 12)
    assert runner.sitting.dealt == 52
    await gw.back(room, ps[2])
    await at_each_deadline(h, room, t0 + 0.24 * (total // 4 - 1))
    assert runner.sitting.dealt == total
    dealing = of(h, room, "dealing", gid)
    assert dealing[-1]["done"] is True and dealing[-1]["dealt"] == total
    for p in ps:  # the first seat that can declare does (no redeal)
        options = (await h.view(room, p))["declare_options"]
        if options:
            await h.act(room, p, "declare", options[0])
            break
    else:
        pytest.fail("no seat can declare with this deal")
    await at_each_deadline(h, room, h.clock.now() + 5)
    closed = await h.wait_event(room, "declaring_closed")
    assert closed["game_id"] == gid and not closed.get("redeal")
    assert runner.sitting.phase == "play"
