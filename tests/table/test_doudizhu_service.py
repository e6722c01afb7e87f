"""doudizhu through the table service's RPCs: a hand-written full game (spring),
illegal and duplicate actions, timeouts, disconnects, no-call redeals."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest

from paiju.common.v1 import common_pb2
from paiju.table.v1 import table_pb2
from paiju.tools.replay import replay
from tests.table.conftest import Harness

# A deal written by hand: seat 0 holds the rocket, four bombs (2, A, K, Q with the
# kitty's QD) and 33; seats 1 and 2 hold the rest.
SPRING_DEAL: dict[str, Any] = {
    "hands": [
        ["BJ", "SJ", "2S", "2H", "2C", "2D", "AS", "AH", "AC", "AD",
         "KS", "KH", "KC", "KD", "QS", "QH", "QC"],
        ["3C", "4S", "4H", "4C", "4D", "5S", "5H", "5C", "5D",
         "6S", "6H", "6C", "6D", "7S", "7H", "7C", "7D"],
        ["3D", "8S", "8H", "8C", "8D", "9S", "9H", "9C", "9D",
         "TS", "TH", "TC", "TD", "JS", "JH", "JC", "JD"],
    ],
    "bottom": ["QD", "3S", "3H"],
    "first": 0,
}

#: Cards that must never appear on a public subject before being played/shown.
HIDDEN_FIELDS = ("hand", "cards")


def players(h: Harness, n: int = 3) -> list[str]:
    base = f"p{h.seq}{id(h) % 1000}"
    h.seq += 1
    return [f"{base}x{i}" for i in range(n)]


async def test_spring_full_game_settles_stores_and_replays(harness: Harness) -> None:
    h = harness
    ps = players(h)
    await h.open(ps, 1000)
    room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    a = h.act
    assert (await a(room, ps[0], "call")).ok
    assert (await a(room, ps[1], "no_rob")).ok
    assert (await a(room, ps[2], "no_rob")).ok
    for cards in (["BJ", "SJ"], ["2S", "2H", "2C", "2D"], ["AS", "AH", "AC", "AD"],
                  ["KS", "KH", "KC", "KD"], ["QS", "QH", "QC", "QD"]):
        assert (await a(room, ps[0], "play", cards)).ok
        assert (await a(room, ps[1], "pass")).ok
        assert (await a(room, ps[2], "pass")).ok
    assert (await a(room, ps[0], "play", ["3S", "3H"])).ok
    fin = await h.wait_event(room, "game_finished")
    # rulings.md doudizhu: rocket + 4 bombs double 5 times, spring once: m = 64;
    # landlord wins +2m, farmers -m each.
    assert fin["reason"] == "normal"
    assert fin["result"]["points"] == [128, -64, -64]
    assert fin["result"]["detail"]["multiplier"] == 64
    # Settlement: the landlord receives 128, fee floor(128 * 0.02) = 2.
    rows = {r["player"]: r for r in fin["settlement"]}
    assert rows[ps[0]]["coins"] == 126 and rows[ps[0]]["fee"] == 2
    assert rows[ps[1]]["coins"] == -64 and rows[ps[2]]["coins"] == -64
    assert [await h.balance(p) for p in ps] == [1126, 936, 936]
    # The lobby hears about it once the record is stored.
    call = await h.wait(lambda: h.lobby.calls, "GameOver")
    assert call[0].game_id == gid and call[0].room == room and list(call[0].escaped) == []
    # Nothing carried: a finished game starts the room's no-call streak anew
    # (rulings.md doudizhu: two no-call deals *in a row*).
    assert json.loads(call[0].carry_json) == {}
    record = await h.table.store.get(gid)
    assert record is not None
    assert record["deal"]["hands"] == SPRING_DEAL["hands"]
    assert len(record["actions"]) == 19
    verdict = replay(record)
    assert verdict["finished"] and all(v["ok"] for v in verdict["actions"])
    assert verdict["result"] == fin["result"]
    # The room is free again.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await h.view(room, ps[0])
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    # Sequence numbers: public 1..n without gaps; each player's 1..m.
    pub = h.public(room)
    assert [e["seq"] for e in pub] == list(range(1, len(pub) + 1))
    for p in ps:
        mine = h.private(p)
        assert [e["seq"] for e in mine] == list(range(1, len(mine) + 1))
    # No hidden card on the public subject: 'hand' events are private only;
    # public 'cards' fields carry only played cards or the shown kitty.
    assert all(e["type"] not in ("hand", "your_turn", "kitty", "view") for e in pub)
    for e in pub:
        if e["type"] == "played":
            assert e["seat"] == 0
        elif "cards" in e:
            assert e["type"] == "kitty_shown" and sorted(e["cards"]) == ["3H", "3S", "QD"]
    # Private events reach only their player: each hand is that seat's own cards.
    for seat, p in enumerate(ps):
        hands = [e for e in h.private(p) if e["type"] == "hand"]
        assert hands[0]["cards"] and set(hands[0]["cards"]) <= set(
            SPRING_DEAL["hands"][seat] + SPRING_DEAL["bottom"])
    kitty = [e for p in ps for e in h.private(p) if e["type"] == "kitty"]
    assert len(kitty) == 1 and kitty[0] in h.private(ps[0])


async def test_illegal_action_changes_nothing_and_duplicate_answered_once(
        harness: Harness) -> None:
    h = harness
    ps = players(h)
    await h.open(ps)
    room, _ = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    before = await h.view(room, ps[0])
    n_events = len(h.public(room))
    bad = await h.act(room, ps[1], "call")
    assert not bad.ok and bad.error == "not_your_turn"
    bad2 = await h.act(room, ps[0], "play", ["3S"])
    assert not bad2.ok and bad2.error == "wrong_phase"
    after = await h.view(room, ps[0])
    assert after == before and len(h.public(room)) == n_events
    first = await h.act(room, ps[0], "call", client_seq=7)
    again = await h.act(room, ps[0], "call", client_seq=7)
    assert first.ok and again == first
    await h.wait_event(room, "bid")
    v = await h.view(room, ps[0])
    assert [b["kind"] for b in v["bids"]] == ["call"]
    assert len([e for e in h.public(room) if e["type"] == "bid"]) == 1
    # A fresh client_seq with the same action is a new (now illegal) action.
    third = await h.act(room, ps[0], "call", client_seq=8)
    assert not third.ok and third.error == "wrong_phase"  # calling is over
    # Check changes nothing.
    chk = await h.stub.Check(table_pb2.ActRequest(room=room, player=ps[1],
                                                  action=common_pb2.Action(type="rob")))
    assert chk.ok
    assert (await h.view(room, ps[1]))["to_act"] == [1]
    # Not seated; no game.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await h.act(room, "stranger", "pass")
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "not_seated" in (err.value.details() or "")


async def test_fourth_timeout_is_an_escape_settled_by_the_ledger(harness: Harness) -> None:
    h = harness
    ps = players(h)
    await h.open(ps, 1000)
    room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    assert (await h.act(room, ps[0], "call")).ok
    assert (await h.act(room, ps[1], "no_rob")).ok
    assert (await h.act(room, ps[2], "no_rob")).ok
    # Seat 0 (landlord) leads and lets its turn run out, the farmers pass.
    # Default lead: the lowest legal play with the fewest cards (3S, then 3H, then QS).
    for n in (1, 2, 3):
        h.clock.advance(19.9)
        assert not [e for e in h.public(room) if e["type"] == "timed_out" and e["count"] == n]
        h.clock.advance(0.1)
        ev = await h.wait_event(room, "timed_out", n)
        assert ev == {**ev, "seat": 0, "count": n}
        played = await h.wait_event(room, "played", n)
        assert played["seat"] == 0 and len(played["cards"]) == 1
        assert (await h.act(room, ps[1], "pass")).ok
        assert (await h.act(room, ps[2], "pass")).ok
    played_cards = [e["cards"][0] for e in h.public(room) if e["type"] == "played"]
    assert played_cards[:2] in (["3S", "3H"], ["3H", "3S"])
    h.clock.advance(20)
    fin = await h.wait_event(room, "game_finished")
    # rulings.md: the landlord escaping at multiplier 1 pays 2 to each farmer.
    assert fin["reason"] == "escape"
    assert fin["result"]["points"] == [-4, 2, 2]
    assert [await h.balance(p) for p in ps] == [996, 1002, 1002]
    call = await h.wait(lambda: h.lobby.calls, "GameOver")
    assert list(call[0].escaped) == [ps[0]]
    record = await h.table.store.get(gid)
    assert record is not None
    assert [a["type"] for a in record["actions"]][-4:] == ["timeout", "pass", "pass", "timeout"]
    assert replay(record)["result"] == fin["result"]


async def test_disconnect_held_90s_then_resumed_with_full_view(harness: Harness) -> None:
    h = harness
    ps = players(h)
    await h.open(ps)
    room, _ = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    await h.stub.PlayerDisconnected(table_pb2.PlayerRequest(room=room, player=ps[0]))
    ev = await h.wait_event(room, "seat_disconnected")
    assert ev["seat"] == 0 and ev["hold_until"] == round((h.clock.now() + 90) * 1000)
    h.clock.advance(89.9)  # far past the 20 s turn: the game waits at seat 0
    assert not [e for e in h.public(room) if e["type"] in ("timed_out", "game_finished")]
    reply = await h.stub.PlayerReconnected(table_pb2.PlayerRequest(room=room, player=ps[0]))
    view = json.loads(reply.view_json)
    assert sorted(view["hand"]) == sorted(SPRING_DEAL["hands"][0])
    assert view["to_act"] == [0] and view["phase"] == "bidding"
    assert view["time_left_ms"] == 20000
    await h.wait_event(room, "seat_reconnected")
    mine = await h.wait(lambda: [e for e in h.private(ps[0]) if e["type"] == "view"], "view")
    assert sorted(mine[0]["hand"]) == sorted(SPRING_DEAL["hands"][0])
    assert not [e for p in ps[1:] for e in h.private(p) if e["type"] == "view"]
    assert (await h.act(room, ps[0], "call")).ok


async def test_disconnect_not_resumed_is_an_escape(harness: Harness) -> None:
    h = harness
    ps = players(h)
    await h.open(ps, 1000)
    room, _ = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    assert (await h.act(room, ps[0], "call")).ok
    await h.stub.PlayerDisconnected(table_pb2.PlayerRequest(room=room, player=ps[2]))
    await h.wait_event(room, "seat_disconnected")
    assert (await h.act(room, ps[1], "rob")).ok  # multiplier 2
    h.clock.advance(90)
    fin = await h.wait_event(room, "game_finished")
    # A farmer escaping at multiplier 2 pays 2 to each other seat.
    assert fin["reason"] == "escape" and fin["result"]["points"] == [2, 2, -4]
    assert [await h.balance(p) for p in ps] == [1002, 1002, 996]
    assert not [e for e in h.public(room) if e["type"] == "timed_out"]


async def test_two_no_call_deals_in_a_row_charge_the_fee(harness: Harness) -> None:
    h = harness
    ps = players(h)
    await h.open(ps, 1000)
    room, gid = await h.create("doudizhu", ps, deal=SPRING_DEAL)
    for p in ps:
        assert (await h.act(room, p, "no_call")).ok
    first = await h.wait_event(room, "game_finished")
    assert first["reason"] == "redeal" and first["game_id"] == gid
    started = await h.wait_event(room, "game_started", 2)
    assert started["game_id"] == f"{gid}.r1"
    # The redeal is a new game: its public seq starts at 1 again.
    assert next(e["seq"] for e in h.public(room) if e.get("game_id") == f"{gid}.r1") == 1
    v = await h.view(room, ps[0])
    order = [(v["first"] + i) % 3 for i in range(3)]
    for seat in order:
        assert (await h.act(room, ps[seat], "no_call")).ok
    second = await h.wait_event(room, "game_finished", 2)
    assert second["reason"] == "redeal"
    await h.wait_event(room, "game_started", 3)
    # Two no-call deals in a row: every seated player pays 20 to the house.
    assert [await h.balance(p) for p in ps] == [980, 980, 980]
    assert await h.table.store.get(gid) is not None
    assert await h.table.store.get(f"{gid}.r1") is not None


async def test_your_turn_carries_the_hints_of_that_moment(harness: Harness) -> None:
    """``your_turn.hints`` (and the view's ``hints``) are what the ``Hints`` RPC
    answers at that moment, so a client need not ask (docs/client-protocol.md).
    rulings.md doudizhu: the first bidder may ``call`` or ``no_call``; after
    ``call`` the next seat may ``rob`` or ``no_rob``; the landlord (seat 0 with
    the kitty) leads, so it may not pass."""
    h = harness
    ps = players(h)
    await h.open(ps)
    room, _ = await h.create("doudizhu", ps, deal=SPRING_DEAL)

    async def turn_of(p: str, n: int) -> dict[str, Any]:
        turns = await h.wait(lambda: [e for e in h.private(p) if e["type"] == "your_turn"]
                             if len([e for e in h.private(p) if e["type"] == "your_turn"]) >= n
                             else None, f"{p}'s your_turn #{n}")
        turn: dict[str, Any] = turns[n - 1]
        return turn

    async def rpc_hints(p: str) -> list[dict[str, Any]]:
        resp = await h.stub.Hints(table_pb2.ViewRequest(room=room, player=p))
        return [{"type": a.type, "cards": list(a.cards)} if a.cards else {"type": a.type}
                for a in resp.actions]

    first = await turn_of(ps[0], 1)
    assert sorted(a["type"] for a in first["hints"]) == ["call", "no_call"]
    assert first["hints"] == await rpc_hints(ps[0])
    assert (await h.view(room, ps[0]))["hints"] == first["hints"]
    assert (await h.act(room, ps[0], "call")).ok
    second = await turn_of(ps[1], 1)
    assert sorted(a["type"] for a in second["hints"]) == ["no_rob", "rob"]
    assert second["hints"] == await rpc_hints(ps[1])
    assert (await h.act(room, ps[1], "no_rob")).ok
    assert (await h.act(room, ps[2], "no_rob")).ok
    lead = await turn_of(ps[0], 2)
    assert lead["phase"] == "play" and lead["hints"] == await rpc_hints(ps[0])
    types = {a["type"] for a in lead["hints"]}
    assert types == {"play"} and ["3S"] in [a["cards"] for a in lead["hints"]]
    assert (await h.view(room, ps[1]))["hints"] == []  # not its turn
