"""No seq gap or repeat reaches a client: the pure line of one numbered stream
(services.gateway.domain.sequence) and a connection's lines between NATS and
its send queue (services.gateway.application.sequencing), the view that
repairs a gap given by a plain function (the real table and NATS are in
tests/e2e/test_nats_cluster.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from services.gateway import metrics
from services.gateway.application.sequencing import Sequencer
from services.gateway.domain.sequence import SeqLine, numbered

GAME = "g1"


def test_a_line_forwards_the_next_drops_repeats_and_stops_at_a_gap() -> None:
    line = SeqLine()
    assert [line.check(GAME, s) for s in (4, 5, 5, 3, 7)] == [
        "forward", "forward", "repeat", "repeat", "gap"]
    assert line.last == 5  # unchanged by the gap
    line.level(GAME, 6)
    assert line.check(GAME, 7) == "forward"
    line.level(GAME, 2)  # an older view lowers nothing
    assert line.last == 7
    assert line.check("g2", 9) == "forward" and (line.game, line.last) == ("g2", 9)


def test_only_a_game_id_and_a_positive_integer_seq_number_an_event() -> None:
    assert numbered({"game_id": GAME, "seq": 3}) == (GAME, 3)
    for event in ({"seq": 3}, {"game_id": GAME}, {"game_id": GAME, "seq": 0},
                  {"game_id": GAME, "seq": True}, {"game_id": GAME, "seq": "4"},
                  {"game_id": 5, "seq": 4}, {"game_id": "", "seq": 4}):
        assert numbered(event) is None, event


def public(seq: int, game: str = GAME) -> dict[str, Any]:
    return {"type": "turn", "game_id": game, "seq": seq}


def private(seq: int, public_seq: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "your_turn", "game_id": GAME, "seq": seq}
    if public_seq is not None:
        event.update(type="view", public_seq=public_seq, player_seq=seq)
    return event


def seat_view(player_seq: int, public_seq: int) -> dict[str, Any]:
    """A seat's ``view`` event as the gateway sends it (its ``seq`` the player's)."""
    return {"type": "view", "game_id": GAME, "seq": player_seq, "player_seq": player_seq,
            "public_seq": public_seq}


class Client:
    """What one connection was sent, and the views it was asked for."""

    def __init__(self, view: dict[str, Any] | None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.asked: list[str] = []
        self.view = view

    def deliver(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def fetch(self, key: str) -> dict[str, Any] | None:
        self.asked.append(key)
        await asyncio.sleep(0)
        return self.view

    def sequencer(self) -> Sequencer:
        return Sequencer(self.deliver, self.fetch)

    def seqs(self) -> list[tuple[str, int]]:
        return [(e["type"], e["seq"]) for e in self.sent]


def offer(seq: Sequencer, key: str, event: dict[str, Any]) -> None:
    seq.offer(key, event, json.dumps(event))


async def settle(seq: Sequencer) -> None:
    while seq.repairing:
        await asyncio.sleep(0.01)


def count(kind: str) -> float:
    value = metrics.SEQ_REPAIRS.labels(kind)._value.get()
    assert isinstance(value, float)
    return value


def test_a_repeat_is_dropped_and_counted() -> None:
    client = Client(None)
    seq = client.sequencer()
    before = count("repeat")
    for s in (1, 2, 2, 1, 3):
        offer(seq, "table", public(s))
    assert client.seqs() == [("turn", 1), ("turn", 2), ("turn", 3)]
    assert count("repeat") == before + 2


def test_a_gap_is_repaired_with_the_seats_view_before_the_events_go_on() -> None:
    async def run() -> Client:
        client = Client({**seat_view(4, 6), "hand": ["3S"]})
        seq = client.sequencer()
        for s in (1, 2):
            offer(seq, "table", public(s))
        offer(seq, "player", private(3))
        before = count("gap")
        offer(seq, "table", public(5))  # 3 and 4 lost
        offer(seq, "table", public(6))  # held, then covered by the view
        offer(seq, "player", private(5))  # held: after the view
        offer(seq, "table", public(7))
        await settle(seq)
        assert count("gap") == before + 1
        offer(seq, "table", public(8))
        return client

    client = asyncio.run(run())
    assert client.asked == ["table"]
    assert client.seqs() == [("turn", 1), ("turn", 2), ("your_turn", 3), ("view", 4),
                             ("your_turn", 5), ("turn", 7), ("turn", 8)]


def test_a_private_gap_is_repaired_too() -> None:
    async def run() -> Client:
        client = Client(seat_view(6, 2))
        seq = client.sequencer()
        offer(seq, "table", public(1))
        offer(seq, "player", private(4))
        offer(seq, "player", private(6))
        offer(seq, "table", public(2))
        await settle(seq)
        offer(seq, "player", private(7))
        offer(seq, "table", public(3))
        return client

    client = asyncio.run(run())
    assert client.seqs() == [("turn", 1), ("your_turn", 4), ("view", 6), ("your_turn", 7),
                             ("turn", 3)]


def test_a_tables_view_event_levels_the_public_line() -> None:
    client = Client(None)
    seq = client.sequencer()
    offer(seq, "table", public(1))
    offer(seq, "player", private(1))
    offer(seq, "player", private(2, public_seq=4))  # a takeover's view
    offer(seq, "table", public(3))  # covered by it
    offer(seq, "table", public(5))
    assert client.asked == []
    assert client.seqs() == [("turn", 1), ("your_turn", 1), ("view", 2), ("turn", 5)]


def test_a_tables_view_older_than_the_public_events_sent_is_replaced() -> None:
    """The table's view event of public seq 2 comes after public events 3 and
    4 (another subscription): the client would go back; a fresh view goes
    instead."""
    async def run() -> Client:
        client = Client({**seat_view(3, 4), "fresh": True})
        seq = client.sequencer()
        for s in (1, 2, 3, 4):
            offer(seq, "table", public(s))
        offer(seq, "player", private(1))
        offer(seq, "player", private(2, public_seq=2))  # stale
        offer(seq, "table", public(5))  # held, then after the fresh view
        await settle(seq)
        return client

    client = asyncio.run(run())
    assert client.asked == ["table"]
    assert client.seqs()[-3:] == [("your_turn", 1), ("view", 3), ("turn", 5)]
    assert client.sent[-2]["fresh"] is True


def test_without_a_view_the_events_go_on_as_they_are() -> None:
    async def run() -> Client:
        client = Client(None)  # the game ended meanwhile
        seq = client.sequencer()
        offer(seq, "table", public(1))
        offer(seq, "table", public(4))
        offer(seq, "table", public(5))
        await settle(seq)
        offer(seq, "table", public(6))
        return client

    client = asyncio.run(run())
    assert client.seqs() == [("turn", 1), ("turn", 4), ("turn", 5), ("turn", 6)]


def test_a_view_older_than_the_gap_is_asked_again_then_given_up() -> None:
    async def run() -> Client:
        client = Client(seat_view(1, 1))
        seq = client.sequencer()
        offer(seq, "table", public(1))
        offer(seq, "table", public(9))
        await settle(seq)
        return client

    client = asyncio.run(run())
    assert client.asked == ["table"] * 3
    assert client.seqs()[-1] == ("turn", 9)


def test_unnumbered_events_and_other_keys_go_on_during_a_repair() -> None:
    async def run() -> Client:
        client = Client(seat_view(1, 3))
        seq = client.sequencer()
        offer(seq, "table", public(1))
        offer(seq, "table", public(3))
        offer(seq, "table", {"type": "spectators", "room": "r", "count": 2})
        offer(seq, "chat", {"type": "chat", "room": "r", "seq": 1, "game_id": GAME})
        assert [e["type"] for e in client.sent] == ["turn", "spectators", "chat"]
        await settle(seq)
        return client

    client = asyncio.run(run())
    assert [e["type"] for e in client.sent] == ["turn", "spectators", "chat", "view"]


def test_after_a_reconnect_a_spectator_gets_the_public_view() -> None:
    async def run() -> Client:
        client = Client({"type": "view", "game_id": GAME, "seq": 7, "public_seq": 7,
                         "spectator": True, "seat": None, "hand": []})
        seq = client.sequencer()
        seq.resync({"chat", "watch_chat"})  # no table followed: nothing
        offer(seq, "watch", public(6))
        seq.resync({"watch", "watch_chat"})
        offer(seq, "watch", public(7))  # held, then covered
        await settle(seq)
        offer(seq, "watch", public(8))
        return client

    client = asyncio.run(run())
    assert client.asked == ["watch"]
    assert client.seqs() == [("turn", 6), ("view", 7), ("turn", 8)]
