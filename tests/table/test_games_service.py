"""hunzhan, shengji and daa through the RPCs from fixed deals; the paced deal."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from paiju.rules import load
from paiju.table.v1 import table_pb2
from paiju.tools.replay import replay
from tests.table.bots import play_room
from tests.table.conftest import Harness

SEATS = {"doudizhu": 3, "hunzhan": 4, "shengji": 4, "daa": 5}


@pytest.mark.parametrize(("game", "seed"), [
    ("doudizhu", 11), ("hunzhan", 12), ("shengji", 13), ("daa", 14)])
async def test_full_game_from_fixed_deal_matches_replay_and_ledger(
        harness: Harness, game: str, seed: int) -> None:
    h = harness
    ps = [f"{game}{seed}p{i}" for i in range(SEATS[game])]
    await h.open(ps, 10_000)
    options: dict[str, Any] = {"deal_interval_ms": 0}
    deal = load(game).random_deal({}, random.Random(seed))
    unit = 5 if game == "hunzhan" else 1
    room, gid = await h.create(game, ps, deal=deal, options=options, base=10, unit=unit)
    await play_room(h.stub, h.clock, room, ps, random.Random(seed))
    finals = await h.wait(lambda: [e for e in h.public(room) if e["type"] == "game_finished"
                                   and e["reason"] != "redeal"], "the final game_finished")
    assert len(finals) == 1
    fin = finals[0]
    record = await h.table.store.get(fin["game_id"])
    assert record is not None
    if fin["game_id"] == gid:
        assert record["deal"] == deal
    verdict = replay(record)
    assert verdict["finished"] and all(v["ok"] for v in verdict["actions"])
    assert verdict["result"] == fin["result"]
    # Ledger balances moved by the settlement table, and the table's rows sum
    # with the fees to what the points say winners may claim at most.
    rows = {r["player"]: r for r in fin["settlement"]}
    assert set(rows) == set(ps)
    for seat, p in enumerate(ps):
        assert await h.balance(p) == 10_000 + rows[p]["coins"]
        assert rows[p]["points"] == fin["result"]["points"][seat]
        claim = fin["result"]["points"][seat] * 10 // unit
        if claim < 0:
            assert rows[p]["coins"] == claim  # losers pay their claim (balances suffice)
    call = await h.wait(lambda: h.lobby.calls, "GameOver")
    assert call[0].game_id == gid
    carry = json.loads(call[0].carry_json)
    detail = fin["result"]["detail"]
    if game == "hunzhan":
        assert carry == {"first": detail["last_trick_winner"]}
    elif game == "shengji":
        assert carry == {"dealer": detail["next_dealer"]}
    else:  # a finished game starts the no-call streak anew: nothing to carry
        assert carry == {}
    # Every game of the room (redeals too) numbered 1..n on the public subject.
    by_game: dict[str, list[int]] = {}
    for e in h.public(room):
        by_game.setdefault(e["game_id"], []).append(e["seq"])
    for seqs in by_game.values():
        assert seqs == list(range(1, len(seqs) + 1))
    # No hand on a public subject; a hand only on its own player's subject.
    assert not [e for e in h.public(room) if e["type"] in ("hand", "kitty", "view")]
    for seat, p in enumerate(ps):
        first_hand = next(e for e in h.private(p) if e["type"] == "hand"
                          and e["game_id"] == fin["game_id"] and e["cards"])
        dealt_hand = record["deal"]["hands"][seat]
        assert not set(first_hand["cards"]) - set(dealt_hand)


async def test_paced_deal_declare_gets_dealt_count(harness: Harness) -> None:
    h = harness
    ps = [f"pace{i}" for i in range(4)]
    await h.open(ps)
    deal = load("hunzhan").random_deal({}, random.Random(5))
    order, first = deal["order"], deal["first"]
    # The first ten dealt after the first round whose seat holds no equal ten
    # before it, and who gets it (card i goes to seat (first + i) % 4).
    i = next(k for k, c in enumerate(order) if c[0] == "T" and k >= 4
             and c not in order[k % 4:k:4])
    seat = (first + i) % 4
    room, gid = await h.create("hunzhan", ps, deal=deal,
                               options={"deal_interval_ms": 100, "declare_grace_seconds": 5})
    # A round (a card to each of the 4 seats) at a time: round r, cards 4r..4r+3,
    # at 0.4 r s, the first at the start. Declaring the ten before its round
    # is dealt is refused.
    r = i // 4
    bad = await h.act(room, ps[seat], "declare", [order[i]])
    assert not bad.ok and bad.error == "cards_not_in_hand"
    h.clock.advance(0.4 * r)
    await h.wait(lambda: any(e["type"] == "dealing" and e["dealt"] == 4 * (r + 1)
                             for e in h.public(room)), "the ten's round dealt")
    ok = await h.act(room, ps[seat], "declare", [order[i]])
    assert ok.ok
    declared = await h.wait_event(room, "declared")
    assert declared["seat"] == seat and declared["cards"] == [order[i]]
    # Public dealing progress never names a card.
    for e in h.public(room):
        if e["type"] == "dealing":
            assert set(e) >= {"cards_dealt_per_seat", "done"} and "cards" not in e
    # Each seat's private hand is its own dealt cards so far.
    for s, p in enumerate(ps):
        hands = [e["cards"] for e in h.private(p) if e["type"] == "hand"]
        dealt_to_s = [order[k] for k in range(4 * (r + 1)) if (first + k) % 4 == s]
        assert sorted(hands[-1]) == sorted(dealt_to_s)
    # Finish the deal, then the 5 s grace; the window closes by itself.
    h.clock.advance(0.1 * len(order))
    await h.wait(lambda: any(e["type"] == "dealing" and e["done"] for e in h.public(room)),
                 "deal done")
    assert not [e for e in h.public(room) if e["type"] == "declaring_closed"]
    h.clock.advance(5)
    closed = await h.wait_event(room, "declaring_closed")
    assert closed["leader"] == seat
    await h.stub.Leave(table_pb2.PlayerRequest(room=room, player=ps[0]))
    fin = await h.wait_event(room, "game_finished")
    record = await h.table.store.get(gid)
    assert record is not None
    decl = [a for a in record["actions"] if a["type"] == "declare"]
    assert decl == [{"seat": seat, "type": "declare", "cards": [order[i]], "dealt": 4 * (r + 1)}]
    assert record["actions"][1] == {"seat": None, "type": "end_declare"}
    assert record["actions"][-1] == {"seat": 0, "type": "escape"}
    assert replay(record)["result"] == fin["result"]
