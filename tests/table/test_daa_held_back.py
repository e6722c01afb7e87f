"""daa's held-back card (扣下的最后一张) during the paced deal, by field.

rulings.md "daa": each seat's last card is held back face down until the big A
is settled, then given; it is hidden from its owner too. So no ``hand``,
``your_turn`` (declare options), view or other per-player message gives a seat
its held-back card before ``declaring_closed``; then the seat's ``hand`` has it.
records.md: the held-back card is the last card of a seat in ``deal.order``.

The deal is written out so that the held-back cards are telling: seat 1's is
A♥ (its only A♥: a declaration it may not make) and seat 0's a big joker (its
only one). Expectations are worked out from the deal by hand rules: card ``i``
goes to seat ``i % 5``; seats 0-2 get 22 cards, 3-4 get 21, so the held-back
positions are 105 (seat 0), 106 (seat 1), 107 (seat 2), 103 (seat 3), 104 (seat 4).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from paiju.games.daa import Daa
from paiju.rules.cards import deck
from paiju.table.v1 import table_pb2
from services.table.domain.entries import Created
from services.table.domain.options import TableOptions
from services.table.domain.outgoing import Outgoing, Seat, ms
from services.table.domain.sitting import Sitting, spec_json
from services.table.domain.spec import GameSpec, Terms
from tests.table.conftest import Harness

T0 = 1_700_000_000.0
HELD_AT = {0: 105, 1: 106, 2: 107, 3: 103, 4: 104}


def held_back_deal() -> dict[str, Any]:
    """Two decks dealt from seat 0: position 106 (seat 1's last) is A♥, the other
    A♥ goes to seat 2 (position 2); position 105 (seat 0's last) is BJ, the
    other BJ goes to seat 4 (position 4)."""
    fixed = {106: "AH", 2: "AH", 105: "BJ", 4: "BJ"}
    rest = Counter(deck(2))
    rest.subtract(fixed.values())
    it = iter(sorted(rest.elements()))
    order = [fixed[i] if i in fixed else next(it) for i in range(108)]
    hands = [order[s::5] for s in range(5)]
    return {"hands": hands, "bottom": [], "first": 0, "order": order}


def face_up(deal: dict[str, Any], seat: int, dealt: int = 108) -> Counter[str]:
    """The cards of ``seat`` among the first ``dealt``, less its held-back card."""
    return Counter(deal["order"][i] for i in range(min(dealt, 108))
                   if i % 5 == seat and i != HELD_AT[seat])


def test_the_deal_is_as_described() -> None:
    deal = held_back_deal()
    assert [len(h) for h in deal["hands"]] == [22, 22, 22, 21, 21]
    assert [deal["order"][HELD_AT[s]] for s in range(5)] == [h[-1] for h in deal["hands"]]
    assert deal["hands"][1][-1] == "AH" and deal["hands"][1].count("AH") == 1
    assert deal["hands"][0][-1] == "BJ" and deal["hands"][0].count("BJ") == 1
    assert Daa({}, deal).held_back_positions() == frozenset(HELD_AT.values())


def _game(deal: dict[str, Any]) -> Sitting:
    spec = GameSpec("g1", "r1", "s", "daa", {},
                    TableOptions(deal_interval_ms=100, declare_grace_seconds=5),
                    tuple(Seat(i, f"p{i}") for i in range(5)), Terms())
    return Sitting(Created(ms(T0), spec_json(spec), deal))


def test_running_game_never_sends_the_held_back_card_before_it_is_given() -> None:
    deal = held_back_deal()
    g = _game(deal)
    sent: list[Outgoing] = list(g.start(T0))
    now = T0
    while g.phase == "dealing":
        now += 0.25
        sent += g.on_time(now)
        for s in range(5):
            v = g.view(f"p{s}", now)
            assert Counter(v["hand"]) == face_up(deal, s, g.dealt), (s, g.dealt)
            assert v["hand_counts"][s] == len(range(s, g.dealt, 5))  # face down counted
    # the deal is done: each seat sees its face-up cards only (seat 1: 21 of 22)
    for s in range(5):
        assert Counter(g.view(f"p{s}", now)["hand"]) == face_up(deal, s)
    assert "AH" not in g.view("p1", now)["hand"]
    assert g.view("p1", now)["hand_counts"] == [22, 22, 22, 21, 21]
    answer, _ = g.act("p1", "declare", ["AH"], 1, now)
    assert not answer.ok and answer.error == "cards_not_in_hand"
    assert all(a.cards != ("AH",) for a in g.hints("p1"))
    for o in sent:
        assert o.player is not None or o.type not in ("hand", "your_turn", "view")
        if o.player is None:
            continue
        s = int(o.player[1:])
        if o.type == "hand":
            assert not Counter(o.data["cards"]) - face_up(deal, s), (s, o.data)
        elif o.type == "your_turn":
            assert all(not Counter(c) - face_up(deal, s) for c in o.data["declare_options"])
            assert all(not Counter(a.get("cards", [])) - face_up(deal, s)
                       for a in o.data["hints"])
    # the last hand of the deal is the whole face-up hand: it never shrinks
    last = {s: [o for o in sent if o.type == "hand" and o.player == f"p{s}"][-1]
            for s in range(5)}
    assert [len(last[s].data["cards"]) for s in range(5)] == [21, 21, 21, 20, 20]
    # the big A settled (nobody declared: hearts): now the held-back card is given
    out = g.on_time(now + 5)
    assert "declaring_closed" in [o.type for o in out if o.player is None]
    hands = {int(o.player[1:]): o.data["cards"] for o in out
             if o.type == "hand" and o.player is not None}
    assert {s: Counter(h) for s, h in hands.items()} == {
        s: Counter(deal["hands"][s]) for s in range(5)}
    assert hands[1].count("AH") == 1 and hands[0].count("BJ") == 1


async def test_table_service_never_sends_the_held_back_card_before_it_is_given(
        harness: Harness) -> None:
    h = harness
    deal = held_back_deal()
    ps = [f"held{i}" for i in range(5)]
    await h.open(ps)
    room, gid = await h.create("daa", ps, deal=deal,
                               options={"deal_interval_ms": 100, "declare_grace_seconds": 5})
    # The service deals a round (a card to each of the 5 seats) at a time,
    # round r at 0.5 r s (card i due at 0.1 i s, a round at its first card's
    # time). Halfway through the deal (rounds 0..10: cards 0..54), then with
    # one round left (cards 0..104: the held-back cards of seats 3 and 4, at
    # 103 and 104, dealt face down; the last round gives seats 0-2 theirs).
    h.clock.advance(5.4)
    await h.wait(lambda: any(e["type"] == "dealing" and e["dealt"] == 55
                             for e in h.public(room)), "55 cards dealt")
    for s, p in enumerate(ps):
        v = await h.view(room, p)
        assert Counter(v["hand"]) == face_up(deal, s, 55)
    h.clock.advance(4.8)
    await h.wait(lambda: any(e["type"] == "dealing" and e["dealt"] == 105
                             for e in h.public(room)), "105 cards dealt")
    for s, p in enumerate(ps):
        v = await h.view(room, p)
        assert Counter(v["hand"]) == face_up(deal, s, 105), s
        assert v["hand_counts"] == [21, 21, 21, 21, 21]
    h.clock.advance(1.4)
    await h.wait(lambda: any(e["type"] == "dealing" and e["done"] for e in h.public(room)),
                 "deal done")

    def counted(counter: list[list[Any]]) -> dict[str, int]:
        return {r: n for r, n in counter}

    def unseen_but(held: Counter[str]) -> dict[str, int]:
        """Two decks of 54 (8 of a rank, 2 of a joker) less ``held``, by rank."""
        full = {r: 8 for r in "AKQJT98765432"} | {"BJ": 2, "SJ": 2}
        for c, n in held.items():
            full[c if c in ("BJ", "SJ") else c[0]] -= n
        return full

    def last_hand(p: str) -> Counter[str] | None:
        hands = [e["cards"] for e in h.private(p) if e["type"] == "hand"]
        return Counter(hands[-1]) if hands else None

    def has_hand(p: str, want: Counter[str]) -> Callable[[], bool]:
        return lambda: last_hand(p) == want

    for s, p in enumerate(ps):
        await h.wait(has_hand(p, face_up(deal, s)), f"seat {s}'s hand")
        v = await h.view(room, p)
        assert Counter(v["hand"]) == face_up(deal, s)
        assert v["hand_counts"] == [22, 22, 22, 21, 21]
    bad = await h.act(room, ps[1], "declare", ["AH"])
    assert not bad.ok and bad.error == "cards_not_in_hand"
    # every private message so far, by field: never more than the face-up cards
    for s, p in enumerate(ps):
        for e in h.private(p):
            if e["type"] == "hand":
                assert not Counter(e["cards"]) - face_up(deal, s), (p, e)
            elif e["type"] == "your_turn":
                assert all(not Counter(c) - face_up(deal, s) for c in e["declare_options"])
                assert all(not Counter(a.get("cards", [])) - face_up(deal, s)
                           for a in e["hints"])
            elif e["type"] == "counter":
                # nothing played yet: unseen is the two decks less the face-up
                # cards only (the held-back card is unseen by its own seat too)
                assert counted(e["counter"]) == unseen_but(face_up(deal, s)), (p, e)
            else:
                assert e["type"] == "view" and not Counter(e["hand"]) - face_up(deal, s)
                assert all(not Counter(a.get("cards", [])) - face_up(deal, s)
                           for a in e["hints"])
                assert counted(e["counter"]) == unseen_but(face_up(deal, s))
    # the window closes: now each seat is given its held-back card
    h.clock.advance(5)
    await h.wait_event(room, "declaring_closed")
    for s, p in enumerate(ps):
        await h.wait(has_hand(p, Counter(deal["hands"][s])), f"seat {s}'s whole hand")
    v = await h.view(room, ps[1])
    assert Counter(v["hand"]) == Counter(deal["hands"][1]) and v["hand"].count("AH") == 1
    await h.stub.Leave(table_pb2.PlayerRequest(room=room, player=ps[0]))
    fin = await h.wait_event(room, "game_finished")
    assert fin["game_id"] == gid and fin["reason"] == "escape"
