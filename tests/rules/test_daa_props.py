"""Property tests of 大A over random deals and random legal play (hypothesis
draws the seeds): every game ends; cards are conserved (take-backs included);
points sum to zero; legal_actions is exactly what apply accepts; views and
public events hide other hands and the held-back cards; replay agrees."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.games.daa import Daa
from paiju.games.daa.combos import CARD_ORDER
from paiju.rules.cards import deck
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError
from paiju.rules.selfplay import play_random, random_step
from paiju.tools.replay import replay

DECK = Counter(deck(2))
#: Public events that may carry cards: they show cards the rules make public.
CARD_EVENTS = {"played", "declared", "taken_back"}
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def conserved(g: Daa) -> bool:
    total: Counter[str] = Counter(g.table)
    for s in range(5):
        total.update(g.hands[s])
        held = g.held_back(s)
        if held is not None:
            total[held] += 1
    return total == DECK


def state(g: Daa) -> Any:
    return ([g.view(s) for s in range(5)],
            [sorted(map(repr, g.legal_actions(s))) for s in range(5)],
            g.finished)


def check_view(g: Daa, seat: int) -> None:
    v = g.view(seat)
    assert Counter(v["hand"]) == g.hands[seat]
    assert v["hand"] == sorted(v["hand"], key=CARD_ORDER.__getitem__)
    # no other field holds cards except the public table
    for key, value in v.items():
        if key in {"hand", "trick", "last_trick", "standing"}:
            continue
        assert not (isinstance(value, list) and value and isinstance(value[0], str)
                    and len(value[0]) == 2 and value[0][0] in "23456789TJQKABS"), key
    if g.phase == "declaring":
        held = g.held_back(seat)
        assert held is not None
        assert len(v["hand"]) == sum(g.hands[seat].values())
        assert v["held_back"][seat] == 1


def check_events(events: list[Event], g: Daa) -> None:
    for e in events:
        if e.to is None:
            assert "cards" not in e.data or e.type in CARD_EVENTS, e
        else:
            assert e.type == "hand" and Counter(e.data["cards"]) == g.hands[e.to]


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_random_games(seed: int) -> None:
    rng = random.Random(seed)
    deal = Daa.random_deal({}, rng)
    g = Daa({}, deal)
    actions: list[dict[str, Any]] = []
    probe = rng.random() < 0.5
    while not g.finished:
        assert len(actions) < 3000
        assert conserved(g)
        if g.phase == "declaring":
            for s in range(5):
                check_view(g, s)
        seats = g.to_act()
        if seats and probe and rng.random() < 0.3:
            seat = seats[0]
            legal = g.legal_actions(seat)
            assert len(set(legal)) == len(legal)
            for a in rng.sample(legal, min(len(legal), 8)):
                g2 = copy.deepcopy(g)
                g2.apply(a)
            keys = {tuple(sorted(a.cards)) for a in legal if a.type == "play"}
            hand = list(g.hands[seat].elements())
            before = state(g)
            for _ in range(8):
                n = rng.randint(1, min(len(hand), 9))
                cards = tuple(sorted(rng.sample(hand, n)))
                if cards in keys:
                    continue
                try:
                    g.apply(Action(seat, "play", cards))
                except RulesError:
                    pass
                else:
                    raise AssertionError(f"unlisted play {cards} accepted")
                assert state(g) == before
            for other in range(5):
                if other != seat:
                    assert g.legal_actions(other) == []
        action = random_step(g, rng)
        events = g.apply(action)
        check_events(events, g)
        actions.append(action.to_json())
        for s in range(5):
            assert Counter(g.view(s)["hand"]) == g.hands[s]
    assert conserved(g)
    res = g.result()
    assert sum(res.points) == 0
    assert res.detail["big_a"] in {"S", "H", "C", "D"}
    assert len(res.detail["finish_order"]) >= 1
    record = {"game": "daa", "options": {}, "deal": deal, "actions": actions}
    out = replay(record)
    assert all(v["ok"] for v in out["actions"])
    assert out["finished"] and out["result"] == res.to_json()


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_play_random_ends_and_sums_to_zero(seed: int) -> None:
    g, record = play_random("daa", random.Random(seed))
    assert g.finished
    assert sum(g.result().points) == 0
    assert replay(record)["result"] == g.result().to_json()


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_legal_plays_match_apply_exactly_on_small_hands(seed: int) -> None:
    """With a small hand every sub-multiset can be tried: apply accepts exactly
    the listed plays."""
    rng = random.Random(seed)
    g = Daa({}, Daa.random_deal({}, rng))
    g.apply(Action(None, "end_declare"))
    seat = g.turn
    hand = list(g.hands[seat].elements())
    keep = rng.sample(hand, 7)
    g.table.update(hand)
    g.table.subtract(keep)
    g.hands[seat] = Counter(keep)
    g._info[seat] = None
    if rng.random() < 0.5:
        # a standing play of the next seat's: a random legal lead of theirs
        leader = (seat - 1) % 5
        g.turn = leader
        lead = rng.choice([a for a in g.legal_actions(leader) if a.type == "play"])
        g.apply(lead)
        for _ in range(5):
            if g.turn == seat:
                break
            g.apply(Action(g.turn, "pass"))
        if g.turn != seat:
            return
    listed = {a.cards for a in g.legal_actions(seat) if a.type == "play"}
    subsets: set[tuple[str, ...]] = set()
    for mask in range(1, 1 << len(keep)):
        subsets.add(tuple(sorted(keep[i] for i in range(len(keep)) if mask >> i & 1)))
    accepted = set()
    for cards in subsets:
        g2 = copy.deepcopy(g)
        try:
            g2.apply(Action(seat, "play", cards))
        except RulesError:
            continue
        accepted.add(cards)
    assert {tuple(sorted(x)) for x in listed} == accepted
