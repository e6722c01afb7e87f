"""Property tests of 混战 hunzhan over random deals and random legal play.

For every game: it ends; cards are conserved (every card of the 84 is played
once, or none on a redeal); captured points total 240 and ``points`` are
captured − 60; ``legal_actions`` is exactly what ``apply`` accepts (listed
actions apply on a copy, sampled unlisted card sets are refused and change
nothing); every follow set equals the one computed by the small independent
reference below, written straight from rulings.md ("Order in trump",
"Leads", "Following", "Point rules"), so the point rules hold in every
accepted play; views and events never carry another seat's hand; replaying
the record gives the same result; escapes score as rulings.md "Settlement".
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.games.hunzhan import Hunzhan
from paiju.rules.cards import deck
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError
from paiju.rules.selfplay import play_random, random_step
from paiju.tools.replay import replay

DECK84 = deck(2, without_ranks="346")
CHECK_LISTED = 4
CHECK_UNLISTED = 12

# -- the reference (rulings.md, written independently of the engine) ------------------


def ref_strength(card: str, trump: str | None) -> tuple[str, int]:
    """(group, strength): group "T" for trumps; strength compares within a group."""
    if card == "BJ":
        return "T", 100
    if card == "SJ":
        return "T", 99
    r, s = card[0], card[1]
    by_suit = "DCHS".index(s)  # ♠ > ♥ > ♣ > ♦ (no-trump only)
    if r == "T":
        if trump is None:
            return "T", 90 + by_suit
        return "T", 95 if s == trump else 94
    if r == "2":
        if trump is None:
            return "T", 80 + by_suit
        return "T", 93 if s == trump else 92
    return ("T" if s == trump else s), "5789JQKA".index(r)


def ref_chain(card: str, trump: str | None) -> int | None:
    """Position on the run chain (consecutive positions may form a run)."""
    _g, v = ref_strength(card, trump)
    if v < 8:
        return v
    if trump is None:
        return {99: 12, 100: 13}.get(v)  # only SJ-BJ among no-trump trumps
    return {92: 8, 93: 9, 94: 10, 95: 11, 99: 12, 100: 13}[v]


def ref_combo(cards: tuple[str, ...], trump: str | None) -> tuple[int, str, int] | None:
    """(number of cards, group, strength) of a single / pair / run, else None."""
    if len(cards) == 1:
        g, v = ref_strength(cards[0], trump)
        return 1, g, v
    if len(cards) % 2 or not cards:
        return None
    count = Counter(cards)
    if any(n != 2 for n in count.values()):
        return None
    groups = {ref_strength(c, trump)[0] for c in count}
    if len(groups) != 1:
        return None
    if len(count) == 1:
        c = cards[0]
        return 2, groups.pop(), ref_strength(c, trump)[1]
    chain = [ref_chain(c, trump) for c in count]
    if any(p is None for p in chain):
        return None
    pos = sorted(p for p in chain if p is not None)
    if pos != list(range(pos[0], pos[0] + len(pos))):
        return None
    return len(cards), groups.pop(), pos[-1]


def ref_beats(play: tuple[str, ...], best: tuple[int, str, int], trump: str | None) -> bool:
    c = ref_combo(play, trump)
    if c is None or c[0] != best[0]:
        return False
    if c[1] == best[1]:
        return c[2] > best[2]
    return c[1] == "T"


def ref_points(cards: tuple[str, ...] | list[str]) -> int:
    return sum(5 if c[0] == "5" else 10 if c[0] in "TK" or c in ("BJ", "SJ") else 0
               for c in cards)


def ref_point_cards(cards: tuple[str, ...]) -> int:
    """How many cards of ``cards`` carry points (5, 10, K, joker)."""
    return sum(1 for c in cards if ref_points([c]))


def ref_follows(hand: list[str], trick: list[tuple[str, ...]],
                trump: str | None) -> set[tuple[str, ...]]:
    """Every legal follow (sorted tuples) by brute force over the hand's subsets."""
    lead = trick[0]
    m = len(lead)
    best = ref_combo(lead, trump)
    assert best is not None
    for p in trick[1:]:
        if ref_beats(p, best, trump):
            best = ref_combo(p, trump)
            assert best is not None
    led = ref_strength(lead[0], trump)[0]

    def grp(c: str) -> str:
        return ref_strength(c, trump)[0]

    suited = [c for c in hand if grp(c) == led]
    suited_pairs = sum(1 for n in Counter(suited).values() if n >= 2)
    must_pairs = min(m // 2, suited_pairs) if m > 1 else 0
    follows = []
    for p in set(combinations(sorted(hand), m)):
        in_suit = [c for c in p if grp(c) == led]
        if len(in_suit) != min(m, len(suited)):
            continue  # follow suit
        if sum(1 for n in Counter(in_suit).values() if n == 2) < must_pairs:
            continue  # pairs by pairs
        follows.append(p)
    beating = [p for p in follows if ref_beats(p, best, trump)]
    if ref_points([c for t in trick for c in t]) > 0 and beating:
        return set(beating)  # rule (2): points must be beaten
    # rule (1), card by card: a play that does not beat may hold a point card
    # only where no other card would do in its place, i.e. no more point cards
    # than the fewest any follow must hold; a beating play holds no point card
    # that does not beat, so it is such another card
    def dumped(p: tuple[str, ...]) -> int:
        return 0 if ref_beats(p, best, trump) else ref_point_cards(p)

    fewest = min(dumped(p) for p in follows)
    return {p for p in follows if dumped(p) == fewest}


# -- helpers ------------------------------------------------------------------------------


def _accepts(game: Hunzhan, action: Action) -> bool:
    g = copy.deepcopy(game)
    # drop the copy's cached legal list: apply must then check the rules itself
    g._cache_version = -1
    try:
        g.apply(action)
    except RulesError:
        return False
    return True


def _hand(game: Hunzhan, seat: int) -> list[str]:
    return [c for c, n in game.hands[seat].items() for _ in range(n)]


def _state(game: Hunzhan) -> Any:
    return ([game.view(s) for s in range(4)],
            [[a.to_json() for a in game.legal_actions(s)] for s in range(4)])


def _check_step(game: Hunzhan, rng: random.Random) -> None:
    if game.phase == "declaring":
        for seat in range(4):
            declares = {a.cards for a in game.legal_actions(seat)}
            for cards in [("BJ", "BJ"), ("SJ", "SJ"), ("TS",), ("TH",), ("TC",), ("TD",),
                          ("SJ",), ("2S",)]:
                assert _accepts(game, Action(seat, "declare", cards)) == (cards in declares)
        return
    seat = game.to_act()[0]
    for other in range(4):
        if other != seat:
            assert game.legal_actions(other) == []
    listed = game.legal_actions(seat)
    keys = [tuple(sorted(a.cards)) for a in listed]
    assert len(keys) == len(set(keys)), "duplicates in legal_actions"
    assert listed, "no legal play"
    for a in rng.sample(listed, min(CHECK_LISTED, len(listed))):
        assert _accepts(game, a), a
    hand = _hand(game, seat)
    trump = game.trump
    listed_set = set(keys)
    if game.trick:
        m = len(game.trick[0][1])
        if m <= 4:
            ref = ref_follows(hand, [p for _, p in game.trick], trump)
            assert listed_set == ref, (game.trick, sorted(hand))
        sizes = [m, m, m, 1, 2]
    else:
        for k in listed_set:
            assert ref_combo(k, trump) is not None, k
        ref_leads = {p for n in (1, 2, 4) for p in set(combinations(sorted(hand), n))
                     if ref_combo(p, trump) is not None}
        assert ref_leads == {k for k in listed_set if len(k) <= 4}
        sizes = [1, 2, 3, 4]
    before = None
    for _ in range(CHECK_UNLISTED):
        n = rng.choice(sizes)
        if n > len(hand):
            continue
        cards = tuple(sorted(rng.sample(hand, n)))
        if cards not in listed_set:
            before = before or _state(game)
            try:
                game.apply(Action(seat, "play", cards))
            except RulesError:
                pass
            else:
                raise AssertionError(f"unlisted play accepted: {cards}")
            assert _state(game) == before
    d = game.default_action(seat)
    assert tuple(sorted(d.cards)) in listed_set
    assert len(d.cards) == min(len(k) for k in listed_set)


def _check_views(game: Hunzhan) -> None:
    for s in range(4):
        v = game.view(s)
        assert Counter(v["hand"]) == Counter(_hand(game, s))
        assert v["hand_counts"] == [len(_hand(game, t)) for t in range(4)]
        assert v["seat"] == s


def _check_events(game: Hunzhan, events: list[Event], played: Counter[str]) -> None:
    for e in events:
        if e.to is not None:
            assert e.type == "hand"
            assert Counter(e.data["cards"]) == Counter(_hand(game, e.to))
        else:
            assert e.type in {"declared", "declaring_closed", "played", "trick_won",
                              "scores", "timed_out", "escaped"}
            if e.type == "played":
                played.update(e.data["cards"])


def _play_checked(seed: int, declare_p: float, timeout_p: float,
                  check_every: int) -> tuple[Hunzhan, dict[str, Any], Counter[str]]:
    rng = random.Random(seed)
    deal = Hunzhan.random_deal({}, rng)
    game = Hunzhan({}, deal)
    actions: list[dict[str, Any]] = []
    played: Counter[str] = Counter()
    step = 0
    while not game.finished:
        if step % check_every == 0:
            _check_step(game, rng)
            _check_views(game)
        step += 1
        seats = game.to_act()
        if seats and rng.random() < timeout_p:
            action = Action(seats[0], "timeout")
        else:
            action = random_step(game, rng, declare_p)
        events = game.apply(action)
        _check_events(game, events, played)
        actions.append(action.to_json())
        assert step < 1000
    record = {"game": "hunzhan", "options": {}, "deal": deal, "actions": actions}
    return game, record, played


@pytest.mark.slow  # 150 whole games: about 30 to 70 s
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), declare_p=st.sampled_from([0.3, 1.0]),
       timeout_p=st.sampled_from([0.0, 0.1]))
def test_random_games(seed: int, declare_p: float, timeout_p: float) -> None:
    game, record, played = _play_checked(seed, declare_p, timeout_p, check_every=1)
    assert game.finished
    res = game.result()
    if game.escaped is None and game.redeal:
        assert res.points == [0, 0, 0, 0] and played == Counter()
    elif game.escaped is None:
        assert played == Counter(DECK84)
        assert sum(game.captured) == 240
        assert res.detail["captured"] == game.captured
        assert res.points == [c - 60 for c in game.captured]
        assert sum(res.points) == 0
        assert res.detail["last_trick_winner"] in range(4)
        assert sum(d["points"] for d in game.scores_detail()) == 240
        assert all(ref_points(d["cards"]) == d["points"] for d in game.scores_detail())
    out = replay(record)
    assert all(a["ok"] for a in out["actions"])
    assert out["finished"] and out["result"] == res.to_json()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stop=st.integers(0, 120), who=st.integers(0, 3))
def test_escape_points(seed: int, stop: int, who: int) -> None:
    rng = random.Random(seed)
    game = Hunzhan({}, Hunzhan.random_deal({}, rng))
    for _ in range(stop):
        if game.finished:
            return
        game.apply(random_step(game, rng, 1.0))
    if game.finished:
        return
    captured = list(game.captured)
    game.apply(Action(who, "escape"))
    res = game.result()
    x = captured[who]
    for s in range(4):
        if s == who:
            assert res.points[s] == (-3 * (60 - x) if x < 60 else -10)
        else:
            assert res.points[s] == max(0, captured[s] - 60)
    assert res.detail["escaped"] == who and res.detail["captured"] == captured


def test_many_quick_games_end_with_240() -> None:
    for seed in range(150):
        game, _record = play_random("hunzhan", random.Random(seed), declare_p=1.0)
        assert isinstance(game, Hunzhan)
        if not game.redeal:
            assert sum(game.captured) == 240
            assert sum(game.result().points) == 0
