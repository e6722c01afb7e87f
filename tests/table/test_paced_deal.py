"""The paced deal of a :class:`services.table.domain.sitting.Sitting` (pure logic, no I/O;
:mod:`paiju.rules.timed` keeps its state).

What the table sends while it deals (docs/table.md "Behaviour", events.md
``dealing`` / ``hand`` / ``your_turn``): a round (a card to each seat) every
seats × ``deal_interval_ms`` for a new game (``deal_by_rounds``), one card
per ``deal_interval_ms`` for a sitting logged before rounds;
the cards due at one step come in one ``dealing`` event and one ``hand`` per
seat dealt to; a seat's declare options are sent when they change (a card
that makes a declaration possible, another seat's declaration).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from paiju.rules import load
from paiju.rules.cards import deck
from services.table.domain.entries import Created
from services.table.domain.options import TableOptions
from services.table.domain.outgoing import Outgoing, Seat, ms
from services.table.domain.sitting import Sitting, spec_json
from services.table.domain.spec import GameSpec, Terms

T0 = 1_700_000_000.0
PLAYERS = [f"p{i}" for i in range(5)]


def daa_deal() -> dict[str, Any]:
    """Two decks dealt from seat 0 (card i to seat i % 5): seat 0's 2nd card
    (i = 5) is A♠; seat 1's 1st and 2nd cards (i = 1, 6) are A♥ A♥; the other
    five aces come at i = 50..54 (one to each seat, none of them a seat's last,
    face-down card)."""
    rest = [c for c in deck(2) if c[0] != "A"]
    aces = {5: "AS", 1: "AH", 6: "AH", 50: "AS", 51: "AC", 52: "AC", 53: "AD", 54: "AD"}
    order: list[str] = []
    it = iter(rest)
    for i in range(108):
        order.append(aces[i] if i in aces else next(it))
    hands = [order[s::5] for s in range(5)]
    return {"hands": hands, "bottom": [], "first": 0, "order": order}


def new(game: str, deal: dict[str, Any], reconnect_seconds: float = 90,
        rounds: bool = False) -> Sitting:
    n = load(game).seats
    spec = GameSpec("g1", "r1", "s", game, {},
                    TableOptions(deal_interval_ms=100, declare_grace_seconds=5,
                                 reconnect_seconds=reconnect_seconds, deal_by_rounds=rounds),
                    tuple(Seat(i, PLAYERS[i]) for i in range(n)), Terms(),
                    table_instance="127.0.0.1:50052")
    return Sitting(Created(ms(T0), spec_json(spec), deal))


def of(out: list[Outgoing], type_: str) -> list[Outgoing]:
    return [o for o in out if o.type == type_]


def test_start_names_the_table_instance_and_sends_empty_hands_and_options() -> None:
    g = new("daa", daa_deal())
    out = g.start(T0)
    assert out[0].type == "game_started"
    assert out[0].data["table_instance"] == "127.0.0.1:50052"
    # Every seat: an empty hand and no declare option yet; then card 0 to seat 0.
    hands = [(o.player, o.data["cards"]) for o in of(out, "hand")]
    assert hands == [(p, []) for p in PLAYERS] + [("p0", [daa_deal()["order"][0]])]
    turns = of(out, "your_turn")
    assert [(o.player, o.data["declare_options"]) for o in turns] == [(p, []) for p in PLAYERS]
    dealing = of(out, "dealing")
    assert [(d.data["dealt"], d.data["cards_dealt_per_seat"]) for d in dealing] == [
        (1, [1, 0, 0, 0, 0])]


def test_cards_due_together_come_in_one_step() -> None:
    deal = daa_deal()
    order = deal["order"]
    g = new("daa", deal)
    g.start(T0)
    # Cards 1..6 are due by T0 + 0.65 (card i at T0 + 0.1 i): one step.
    out = g.on_time(T0 + 0.65)
    dealing = of(out, "dealing")
    assert len(dealing) == 1
    assert dealing[0].data == {"cards_dealt_per_seat": [2, 2, 1, 1, 1], "dealt": 7,
                               "total": 108, "done": False}
    # One hand per seat dealt to, each its whole hand so far.
    hands = {o.player: o.data["cards"] for o in of(out, "hand")}
    assert hands == {"p0": sorted([order[0], "AS"]), "p1": ["AH", "AH"],
                     "p2": [order[2]], "p3": [order[3]], "p4": [order[4]]}
    assert len(of(out, "hand")) == 5
    # Declare options: seat 0 now holds A♠, seat 1 A♥ (one A: 亮大A).
    turns = {o.player: o.data["declare_options"] for o in of(out, "your_turn")}
    assert turns == {"p0": [["AS"]], "p1": [["AH"]]}
    # Nothing more is due before card 7.
    assert g.on_time(T0 + 0.69) == []
    # Card 7 (no ace, to seat 2): its hand and progress, no declare options.
    out = g.on_time(T0 + 0.7)
    assert [o.type for o in out] == ["dealing", "hand"]
    assert out[1].player == "p2" and out[1].data["cards"] == sorted([order[2], order[7]])


def test_a_new_game_is_dealt_a_round_at_a_time() -> None:
    deal = daa_deal()
    order = deal["order"]
    g = new("daa", deal, rounds=True)
    out = g.start(T0)
    # Round 0 at the start: cards 0..4, one to each of the 5 seats.
    assert [d.data["cards_dealt_per_seat"] for d in of(out, "dealing")] == [[1, 1, 1, 1, 1]]
    assert {o.player: o.data["cards"] for o in of(out, "hand") if o.data["cards"]} == {
        f"p{s}": [order[s]] for s in range(5)}
    # Seat 1's first card is A♥: it may declare it (亮大A) from the start.
    assert [o.data["declare_options"] for o in of(out, "your_turn")
            if o.player == "p1"][-1] == [["AH"]]
    # Round 1 (cards 5..9) is due at its first card's time, 5 x 100 ms on.
    assert g.on_time(T0 + 0.49) == []
    out = g.on_time(T0 + 0.5)
    assert [d.data for d in of(out, "dealing")] == [
        {"cards_dealt_per_seat": [2, 2, 2, 2, 2], "dealt": 10, "total": 108, "done": False}]
    hands = {o.player: o.data["cards"] for o in of(out, "hand")}
    assert hands == {"p0": sorted([order[0], "AS"]), "p1": ["AH", "AH"],
                     **{f"p{s}": sorted([order[s], order[s + 5]]) for s in (2, 3, 4)}}
    # Seat 0 now holds A♠; seat 1's second A♥ changes none of its options.
    turns = {o.player: o.data["declare_options"] for o in of(out, "your_turn")}
    assert turns == {"p0": [["AS"]]}
    # A late timer deals every round due in one step: rounds 2..5 by 2.5 s.
    out = g.on_time(T0 + 2.7)
    assert [d.data["dealt"] for d in of(out, "dealing")] == [30]
    assert len(of(out, "hand")) == 5
    # 108 cards = 21 rounds of 5 and a last one of 3 (seats 0-2), at 21 x 0.5 s.
    assert of(g.on_time(T0 + 10.49), "dealing")[-1].data["dealt"] == 105
    last = of(g.on_time(T0 + 10.5), "dealing")
    assert [d.data for d in last] == [
        {"cards_dealt_per_seat": [22, 22, 22, 21, 21], "dealt": 108, "total": 108, "done": True}]
    assert g.steps.window_end() == T0 + 10.5 + 5


def test_a_declaration_changes_every_seats_options() -> None:
    g = new("daa", daa_deal())
    g.start(T0)
    g.on_time(T0 + 0.65)
    answer, out = g.act("p0", "declare", ["AS"], 1, T0 + 0.66)
    assert answer.ok
    assert of(out, "declared")[0].data["seat"] == 0
    # 亮 stands: seat 0 has nothing left, seat 1 may answer with two A♥ (反大A).
    turns = {o.player: o.data["declare_options"] for o in of(out, "your_turn")}
    assert turns == {"p0": [], "p1": [["AH", "AH"]]}
    assert not of(out, "hand")
    assert g.record()["actions"] == [{"seat": 0, "type": "declare", "cards": ["AS"],
                                      "dealt": 7}]
    # Hints during the deal offer only what the seat holds now.
    assert [(a.type, a.cards) for a in g.hints("p1")] == [("declare", ("AH", "AH"))]
    assert g.hints("p2") == []


def test_a_lagging_timer_does_not_deal_past_an_earlier_hold() -> None:
    g = new("daa", daa_deal(), reconnect_seconds=0.25)
    g.start(T0)
    g.disconnected("p3", T0 + 0.01)  # held until T0 + 0.26, then escape
    out = g.on_time(T0 + 2)
    # Cards 1 and 2 (due by T0 + 0.26) are dealt, then the escape ends the game.
    assert [d.data["dealt"] for d in of(out, "dealing")] == [3]
    assert g.finished and g.reason == "escape"


def _declare_options_oracle(g: Sitting, seat: int) -> list[list[str]]:
    """A seat's declare options by their definition: the engine's, for the cards
    dealt to the seat so far (straight from the deal's order)."""
    assert g.plan.order is not None
    held = Counter(g.plan.order[i] for i in range(g.dealt) if g.plan.seat_of(i) == seat)
    if g.dealt >= g.plan.total:
        held = Counter(g.engine.view(seat).get("hand", []))
    return [list(a.cards) for a in g.engine.legal_actions(seat)
            if a.type == "declare" and not Counter(a.cards) - held]


@pytest.mark.parametrize("rounds", [False, True])
@pytest.mark.parametrize("game", ["hunzhan", "shengji", "daa"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_what_was_sent_is_always_the_hand_and_options_so_far(game: str, seed: int,
                                                            rounds: bool) -> None:
    rng = random.Random(seed)
    engine = load(game)
    deal = engine.random_deal({}, rng)
    g = new(game, deal, rounds=rounds)
    n = engine.seats
    hands: dict[int, list[str]] = {}
    options: dict[int, list[list[str]]] = {}

    def take(out: list[Outgoing]) -> None:
        for o in out:
            if o.player is None:
                continue
            s = g.by_player[o.player]
            if o.type == "hand":
                hands[s] = o.data["cards"]
            elif o.type == "your_turn" and o.data["phase"] == "declaring":
                options[s] = o.data["declare_options"]

    # daa: each seat's last card is held back face down, its owner's too
    # (rulings.md "daa"): never in its hand while the deal runs
    total = len(deal["order"])
    held_back = {max(i for i in range(total) if (deal["first"] + i) % n == s)
                 for s in range(n)} if game == "daa" else set()
    take(g.start(T0))
    now = T0
    while g.phase == "dealing":
        now += 0.1 * rng.randint(1, 4)
        take(g.on_time(now))
        if rng.random() < 0.15:
            s = rng.randrange(n)
            declares = [a for a in g.hints(PLAYERS[s]) if a.type == "declare"]
            if declares:
                a = rng.choice(declares)
                answer, out = g.act(PLAYERS[s], "declare", list(a.cards), 0, now)
                assert answer.ok, answer
                take(out)
        assert g.plan.order is not None
        for s in range(n):
            dealt_to_s = [g.plan.order[i] for i in range(g.dealt)
                          if g.plan.seat_of(i) == s and i not in held_back]
            if g.phase == "dealing":
                assert hands[s] == sorted(dealt_to_s)
            assert options.get(s, []) == _declare_options_oracle(g, s), (s, g.dealt)
    assert g.dealt == g.plan.total


def test_a_declare_of_cards_not_dealt_yet_is_refused() -> None:
    g = new("daa", daa_deal())
    g.start(T0)
    answer, out = g.act("p1", "declare", ["AH"], 1, T0 + 0.01)
    assert not answer.ok and answer.error == "cards_not_in_hand" and out == []
