"""The gateway's guarantees, against the whole platform (real processes):
tokens, acting only for oneself, bad frames, slow clients, reconnects, and
that a client never receives another player's hidden cards."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections import Counter
from typing import Any

import jwt
import nats
import pytest

from bench.chaos_checks import KITTY_OWNER
from paiju.config import DEV_TOKEN_SECRET
from paiju.runtime import natsconn
from paiju.tools.bots import Bot, BotError, Client, Stats, run_bots
from paiju.tools.hidden_cards import PUBLIC_CARDS as PUBLIC_CARDS
from paiju.tools.hidden_cards import CapturingBot as CapturingBot
from paiju.tools.hidden_cards import counters as counters
from paiju.tools.hidden_cards import hidden_cards_shown
from paiju.tools.hidden_cards import of_game as of_game
from tests.fixtures import until
from tests.platform_procs import Platform

pytestmark = pytest.mark.timeout(600)

#: Per game, the cards of each rank in its deck, as the seeds deal them (斗地主
#: one deck; 混战 two without 3 4 6; 大A and 升级 two, as the test rooms deal them).
DECK_COUNTS: dict[str, dict[str, int]] = {
    "doudizhu": {"BJ": 1, "SJ": 1} | {r: 4 for r in "23456789TJQKA"},
    "hunzhan": {"BJ": 2, "SJ": 2} | {r: 8 for r in "25789TJQKA"},
    "daa": {"BJ": 2, "SJ": 2} | {r: 8 for r in "23456789TJQKA"},
    "shengji": {"BJ": 2, "SJ": 2} | {r: 8 for r in "23456789TJQKA"},
}



class Capture:
    """A client that keeps every message it receives."""

    def __init__(self, url: str) -> None:
        self.events: list[dict[str, Any]] = []
        self.client = Client(url, self.events.append)
        self.token = ""

    async def __aenter__(self) -> Capture:
        await self.client.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.close()

    async def login(self, name: str) -> dict[str, Any]:
        reply = await self.client.call("login", name=name)
        self.token = str(reply["token"])
        return reply


async def refused(client: Client, cmd: str, **args: Any) -> str:
    """The error code of a command that must be refused."""
    with pytest.raises(BotError) as e:
        await client.call(cmd, **args)
    return str(e.value.code)


def idle_room(rooms: list[dict[str, Any]]) -> str:
    return str(next(r["room"] for r in rooms if r["state"] == "idle"))


async def test_forged_and_expired_tokens_are_refused(platform: Platform) -> None:
    async with Capture(platform.gateway_url) as c:
        forged = jwt.encode({"sub": "alice", "name": "alice", "exp": time.time() + 600},
                            "not-the-key-of-this-platform-at-all", algorithm="HS256")
        assert await refused(c.client, "auth", token=forged) == "bad_token"
        expired = jwt.encode({"sub": "alice", "exp": time.time() - 10}, DEV_TOKEN_SECRET,
                             algorithm="HS256")
        assert await refused(c.client, "auth", token=expired) == "bad_token"
        assert await refused(c.client, "auth", token="garbage") == "bad_token"
        # Still not signed in, and the connection stays.
        assert await refused(c.client, "servers") == "unauthenticated"
        assert (await c.client.call("ping"))["pong"] > 0


async def test_token_from_login_signs_in_again(platform: Platform) -> None:
    async with Capture(platform.gateway_url) as c:
        first = await c.login("tok-user")
    async with Capture(platform.gateway_url) as c:
        again = await c.client.call("auth", token=first["token"])
        assert again["player"] == first["player"]
        assert again["coins"] == first["coins"]


async def test_garbage_huge_and_out_of_order_frames(platform: Platform) -> None:
    """Each bad frame gets an error reply; the connection stays; a game played
    by others at the same time goes on to its end."""
    others = asyncio.create_task(run_bots(platform.gateway_url, ["doudizhu"], 1, 1,
                                          (0.0, 0.05), seed=3, show_progress=False))
    async with Capture(platform.gateway_url) as c:
        ws = c.client.ws
        assert ws is not None
        # Out of order: game commands before signing in, then before sitting.
        assert await refused(c.client, "act", action={"type": "pass"}) == "unauthenticated"
        await c.login("rogue")
        assert await refused(c.client, "act", action={"type": "pass"}) == "no_game"
        assert await refused(c.client, "view") == "no_game"
        assert await refused(c.client, "stand") == "not_seated"
        assert await refused(c.client, "nonsense") == "unknown_command"
        assert await refused(c.client, "sit", room=5, seat="x") == "bad_request"
        # The action is checked before the game is looked up.
        assert await refused(c.client, "act", action="pass") == "bad_request"
        # Numbers beyond what the services take: a clear refusal, not "internal".
        assert await refused(c.client, "sit", room="doudizhu-10-01", seat=2**40) == \
            "no_such_seat"
        assert await refused(c.client, "sit", room="doudizhu-10-01", seat=-1) == "no_such_seat"
        # Raw garbage: not JSON, not an object, no cmd, too large to read.
        for frame in ["{not json", "[1, 2]", '"text"', '{"id": "g9"}', "x" * (32 * 1024)]:
            await ws.send(frame)
        reply = await c.client.call("ping")
        assert reply["ok"]
    summary = await others
    assert summary["games_finished"] == {"doudizhu": 1}


async def test_bad_frames_get_error_replies_with_codes(platform: Platform) -> None:
    import websockets

    async with websockets.connect(platform.gateway_url, max_size=None) as ws:
        expected = [("{not json", "bad_frame"), ("[1, 2]", "bad_frame"),
                    ('{"id": 9}', "bad_frame"), ("x" * (32 * 1024), "frame_too_large"),
                    # 6000 characters, 18 000 bytes: the limit counts bytes.
                    ('{"id": 5, "cmd": "ping", "pad": "' + "好" * 6000 + '"}', "frame_too_large"),
                    ('{"id": 3, "cmd": "what"}', "unknown_command")]
        for frame, code in expected:
            await ws.send(frame)
            reply = json.loads(await ws.recv())
            assert reply["type"] == "reply" and reply["ok"] is False
            assert reply["error"] == code, frame[:20]
        await ws.send('{"id": 4, "cmd": "ping"}')
        assert json.loads(await ws.recv())["ok"] is True


async def test_rate_limit_answers_and_keeps_the_connection(platform: Platform) -> None:
    import websockets

    async with websockets.connect(platform.gateway_url) as ws:
        for i in range(100):
            await ws.send(json.dumps({"id": i, "cmd": "ping"}))
        replies = [json.loads(await ws.recv()) for _ in range(100)]
        codes = Counter(r.get("error", "ok") for r in replies)
        assert codes["rate_limited"] > 0 and codes["ok"] >= 40
        await asyncio.sleep(1.0)
        await ws.send(json.dumps({"id": "later", "cmd": "ping"}))
        assert json.loads(await ws.recv())["ok"] is True


async def seat_three(platform: Platform, names: list[str]) -> tuple[list[Capture], str]:
    clients = [Capture(platform.gateway_url) for _ in names]
    for c, name in zip(clients, names, strict=True):
        await c.__aenter__()
        await c.login(name)
    rooms = (await clients[0].client.call("rooms", server="doudizhu-10"))["rooms"]
    room = idle_room(rooms)
    for seat, c in enumerate(clients):
        await c.client.call("sit", room=room, seat=seat)
    for c in clients:
        await c.client.call("ready")
    return clients, room


def my_turn(c: Capture) -> dict[str, Any] | None:
    """The client's last ``your_turn`` while the turn is still its own: no
    ``turn`` for another seat and no ``game_finished`` came after it. The two
    subjects arrive in either order (the private ``your_turn`` may come before
    the public ``turn`` of the same seat), so a ``turn`` naming the client's
    seat never ends it."""
    mine: dict[str, Any] | None = None
    for e in c.events:
        if e["type"] == "your_turn":
            mine = e
        elif mine is not None and (e["type"] == "game_finished"
                                   or (e["type"] == "turn" and e["seat"] != mine["seat"])):
            mine = None
    return mine


async def a_turn(clients: list[Capture], timeout: float = 30) -> int:
    """The index of the client whose turn it is, once one is; on timeout the
    error lists each client's event types, so a lost event can be told from a
    game that never started."""
    try:
        await until(lambda: any(my_turn(c) for c in clients), "a turn", timeout=timeout)
    except TimeoutError as e:
        seen = [[ev["type"] for ev in c.events] for c in clients]
        raise TimeoutError(f"{e}; events seen: {seen}") from None
    return next(i for i, c in enumerate(clients) if my_turn(c))


async def test_a_player_cannot_act_for_another_seat(platform: Platform) -> None:
    clients, _room = await seat_three(platform, ["act-a", "act-b", "act-c"])
    try:
        turn_holder = clients[await a_turn(clients)]
        other = next(c for c in clients if c is not turn_holder)
        view_before = (await other.client.call("view"))["view"]
        holder_seat = my_turn(turn_holder)["seat"]  # type: ignore[index]
        # The seat comes from the token's player only: a seat in the command is ignored.
        code = await refused(other.client, "act", action={"type": "call"}, seat=holder_seat)
        assert code == "not_your_turn"
        # A command id beyond int64 still works as its de-duplication key.
        other.client.ids = itertools.count(2**70)
        assert await refused(other.client, "act", action={"type": "call"}) == "not_your_turn"
        assert (await other.client.call("view"))["view"] == view_before
    finally:
        for c in clients:
            await c.__aexit__()


def check_no_hidden_cards(events: list[dict[str, Any]], own: list[str],
                          kitty: list[str] | None, held_back: str | None = None,
                          deck: dict[str, int] | None = None) -> int:
    """:func:`~paiju.tools.hidden_cards.hidden_cards_shown` (with the game's
    ``deck``, rank → cards, every 记牌器 too), failing on the first card shown
    that the seat did not know; returns how many lists and counters it checked."""
    checked, shown = hidden_cards_shown(events, own, kitty, held_back, deck)
    assert not shown, shown[0]
    return checked


#: Players of a game (the seeds: 斗地主 3, 混战 4, 大A 5, 升级 4).
SEATS = {"doudizhu": 3, "hunzhan": 4, "daa": 5, "shengji": 4}


@pytest.mark.parametrize(("game", "server"), [
    ("doudizhu", "doudizhu-100"),
    # About 25 s, and 30-40 s for the paced deals of daa and shengji.
    pytest.param("hunzhan", "hunzhan-100", marks=pytest.mark.slow),
    pytest.param("daa", "daa-100", marks=pytest.mark.slow),
    pytest.param("shengji", "shengji-2deck-100", marks=pytest.mark.slow)])
async def test_a_client_never_receives_hidden_cards(platform: Platform, game: str,
                                                    server: str) -> None:
    """Capture everything each seat receives in a full game; check by field
    against the stored deal (events.md): no other seat's hand, the kitty only
    to its taker (or once shown to all), daa's held-back card not even to
    its owner before the big A is settled."""
    async with Capture(platform.gateway_url) as probe:
        await probe.login(f"probe-{game}")
        room = idle_room((await probe.client.call("rooms", server=server))["rooms"])
    seats = SEATS[game]
    stats = Stats()
    bots = [CapturingBot(platform.gateway_url, f"cap-{game}-{s}", game, room, s, 1,
                         (0.0, 0.02), stats, random.Random(s)) for s in range(seats)]
    await asyncio.gather(*(b.run() for b in bots))
    finished = [e for e in bots[0].events if e["type"] == "game_finished"
                and e.get("reason") != "redeal"]
    assert finished
    game_id = finished[-1]["game_id"]
    record = platform.stored_record(game_id)
    hands = record["deal"]["hands"]
    assert len(hands) == seats
    detail = (finished[-1].get("result") or {}).get("detail", {})
    owner = detail.get(KITTY_OWNER[game]) if game in KITTY_OWNER else None
    assert (owner is not None) == bool(record["deal"]["bottom"]), detail
    total = 0
    for s, bot in enumerate(bots):
        events = of_game(bot.events, game_id)
        kitty = record["deal"]["bottom"] if s == owner else None
        held = hands[s][-1] if game == "daa" else None
        total += check_no_hidden_cards(events, hands[s], kitty, held, DECK_COUNTS[game])
        assert counters(events), "each player is sent its 记牌器"
        assert [e for e in events if e["type"] == "hand"], "each player is sent its hand"
        assert bool([e for e in events if e["type"] == "kitty"]) == (s == owner)
        if held is not None:  # the held-back card's check had hands to look at
            closed = next(i for i, e in enumerate(events) if e["type"] == "declaring_closed")
            assert any(e["type"] == "hand" for e in events[:closed])
    assert total > 0


async def test_a_slow_client_is_cut_off_without_slowing_others(platform: Platform) -> None:
    """A client that stops reading is dropped once its queue is full; a client
    watching the same events gets all of them and keeps answering."""
    import socket

    import websockets

    server = "daa-10"
    # The slow client: a tiny receive buffer (set before connecting) and, once
    # signed in and watching, no reading at all.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", platform.gateway_port))
    slow_ws = await websockets.connect(platform.gateway_url, sock=sock, max_queue=1)
    await slow_ws.send(json.dumps({"id": 1, "cmd": "login", "name": "slow-reader"}))
    await slow_ws.send(json.dumps({"id": 2, "cmd": "watch_server", "server": server}))
    replies = 0
    while replies < 2:
        msg = json.loads(await slow_ws.recv())
        if msg["type"] == "reply":
            assert msg["ok"]
            replies += 1
    slow_ws.transport.pause_reading()
    async with Capture(platform.gateway_url) as fast:
        await fast.login("fast-reader")
        await fast.client.call("watch_server", server=server)
        nc = await nats.connect(platform.nats.url)
        payload = {"server": server, "room": f"{server}-01", "state": "idle", "seats": [],
                   "pad": "x" * 16000}
        n = 1500
        for i in range(n):
            await natsconn.publish(nc, f"paiju.lobby.{server}.rooms", "room_changed",
                                   {**payload, "version": i})
        await nc.flush()
        await until(lambda: sum(1 for e in fast.events if e["type"] == "room_changed"
                                and e.get("pad")) >= n, "the padded events", timeout=180)
        assert (await fast.client.call("ping"))["ok"]
        await nc.close()
    slow_ws.transport.resume_reading()
    received = 0
    with pytest.raises(websockets.ConnectionClosed):
        while True:
            await asyncio.wait_for(slow_ws.recv(), timeout=10)
            received += 1
    assert received < n, "the slow client was cut off before getting every event"


async def test_reconnect_within_the_hold_resumes(platform: Platform) -> None:
    """A player whose connection drops and who signs in again within the 90 s
    hold gets its full view and its seat; the others see it go and come back."""
    clients, _room = await seat_three(platform, ["rc-a", "rc-b", "rc-c"])
    try:
        await until(lambda: any(e["type"] == "hand" for e in clients[0].events), "a hand",
                    timeout=30)
        token = clients[0].token
        hand = [e for e in clients[0].events if e["type"] == "hand"][-1]["cards"]
        await clients[0].client.close()
        await until(lambda: any(e["type"] == "seat_disconnected" for e in clients[1].events),
                    "seat_disconnected", timeout=30)
        again = Capture(platform.gateway_url)
        await again.__aenter__()
        clients[0] = again
        await again.client.call("auth", token=token)
        await until(lambda: any(e["type"] == "view" for e in again.events), "a view", timeout=30)
        view = next(e for e in again.events if e["type"] == "view")
        assert sorted(view["hand"]) == sorted(hand)
        assert (await again.client.call("view"))["view"]["hand"] == view["hand"]
        await until(lambda: any(e["type"] == "seat_reconnected" for e in clients[1].events),
                    "seat_reconnected", timeout=30)
    finally:
        for c in clients:
            await c.__aexit__()


async def test_signing_in_again_closes_the_older_connection(platform: Platform) -> None:
    """A player has one live connection (architecture.md, flow 5)."""
    async with Capture(platform.gateway_url) as first:
        login = await first.login("twice")
        async with Capture(platform.gateway_url) as second:
            await second.client.call("auth", token=login["token"])
            await asyncio.wait_for(first.client.closed.wait(), timeout=10)
            assert first.client.ws is not None
            assert first.client.ws.close_code == 4001
            assert (await second.client.call("ping"))["ok"]


class LateFinishBot(Bot):
    """A bot whose ``game_finished`` comes after the room's way back to waiting
    (the order NATS may deliver them in): it is held until the room plays
    again, or for at most 5 s after the room's return."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.held: list[dict[str, Any]] = []
        self.released = False
        #: the game ids of the table events this bot received
        self.seen: set[str] = set()

    def _release(self) -> None:
        if not self.released:
            self.released = True
            for ev in self.held:
                super()._on_event(ev)

    def _on_event(self, ev: dict[str, Any]) -> None:
        t = ev.get("type")
        if t != "room_changed" and ev.get("game_id"):
            self.seen.add(str(ev["game_id"]))
        if t == "game_finished" and ev.get("reason") != "redeal" and not self.released:
            self.held.append(ev)
            return
        super()._on_event(ev)
        if t == "room_changed" and ev.get("room") == self.room:
            if ev.get("state") == "playing" and self.held:
                self._release()  # a new game started: the old one's end comes now
            elif ev.get("state") != "playing" and (ev.get("last_result") or {}).get(
                    "game_id") in self.seen:
                asyncio.get_running_loop().call_later(5.0, self._release)


async def test_bots_never_start_a_game_beyond_the_ones_asked_for(platform: Platform) -> None:
    """``paiju bots --games 1`` where the room's ``room_changed`` (waiting)
    comes before the table's ``game_finished``: the bots do not ready up for a
    second game, and leave no game running."""
    async with Capture(platform.gateway_url) as probe:
        await probe.login("late-probe")
        room = idle_room((await probe.client.call("rooms", server="doudizhu-100"))["rooms"])
        stats = Stats()
        bots = [LateFinishBot(platform.gateway_url, f"late-{s}", "doudizhu", room, s, 1,
                              (0.0, 0.02), stats, random.Random(s)) for s in range(3)]
        await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), timeout=300)
        assert all(b.held for b in bots)  # each saw the room's return before the end
        assert stats.games == Counter({"doudizhu": 1})
        games = set().union(*(b.seen for b in bots))
        assert games == {bots[0].held[0]["game_id"]}  # no second game was dealt
        rooms = (await probe.client.call("rooms", server="doudizhu-100"))["rooms"]
        state = next(r["state"] for r in rooms if r["room"] == room)
        assert state != "playing"
