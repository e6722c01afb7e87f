"""斗地主 property tests over random deals and random legal play (hypothesis).

Every game ends; cards are conserved; points are landlord ±2m and farmers ∓m
(or all 0 on a redeal); ``legal_actions`` is exactly what ``apply`` accepts at
the rank level (every listed action applies; random subsets of the hand apply
iff their rank multiset is listed); a view never holds another seat's hidden
cards and public events carry only shown cards; replaying the record gives the
same result; the generators agree with the classifier on small hands.
"""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.games.doudizhu import Doudizhu
from paiju.games.doudizhu import combos as dc
from paiju.rules.cards import deck
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError
from paiju.tools.replay import replay

OPTIONS = st.fixed_dictionaries({
    "jokers_as_wings": st.booleans(),
    "pair_as_two_singles": st.booleans(),
    "bomb_doubles": st.booleans(),
    "spring_doubles": st.booleans(),
})


def _ranks(cards: tuple[str, ...] | list[str]) -> tuple[int, ...]:
    return tuple(sorted(dc.CARD_RANK[c] for c in cards))


def _cards_in(obj: Any) -> set[str]:
    """Every card string anywhere in a JSON-able object."""
    if isinstance(obj, str):
        return {obj} if obj in dc.CARD_RANK else set()
    if isinstance(obj, dict):
        return set().union(*(_cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(_cards_in(v) for v in obj)) if obj else set()
    return set()


def _accepts(game: Doudizhu, action: Action) -> bool:
    g = copy.deepcopy(game)
    try:
        g.apply(action)
    except RulesError:
        return False
    return True


def _check_legal(game: Doudizhu, seat: int, rng: random.Random) -> None:
    legal = game.legal_actions(seat)
    assert legal, "the seat to act always has a legal action"
    assert len(set(legal)) == len(legal)
    plays = [a for a in legal if a.type == "play"]
    hand = set(game.hand(seat))
    patterns = {_ranks(a.cards) for a in plays}
    assert len(patterns) == len(plays), "one action per rank multiset"
    for a in plays:
        assert list(a.cards) == dc.sort_cards(a.cards) and set(a.cards) <= hand
    for a in rng.sample(legal, min(len(legal), 12)):
        assert _accepts(game, a), a
    cards = game.hand(seat)
    for _ in range(10):
        k = rng.randint(1, min(len(cards), 12))
        sub = tuple(rng.sample(cards, k))
        assert _accepts(game, Action(seat, "play", sub)) == (_ranks(sub) in patterns), sub
    if game.phase == "play":
        can_pass = any(a.type == "pass" for a in legal)
        assert _accepts(game, Action(seat, "pass")) == can_pass


def _check_events(
    events: list[Event], game: Doudizhu, shown: set[str], played: set[str]
) -> None:
    for e in events:
        if e.to is None:
            assert e.type in {"bid", "kitty_shown", "played", "passed", "trick_won",
                              "timed_out", "escaped"}
            if e.type in ("played", "kitty_shown"):
                shown |= set(e.data["cards"])
            if e.type == "played":
                assert not played & set(e.data["cards"])
                played |= set(e.data["cards"])
            assert _cards_in(e.data) <= shown
        else:
            assert e.type in {"hand", "kitty"}
            if e.type == "hand":
                assert e.data["cards"] == game.hand(e.to)


def _play_one(seed: int, options: dict[str, Any], check_every: int) -> None:
    rng = random.Random(seed)
    deal = Doudizhu.random_deal(options, rng)
    game = Doudizhu(options, deal)
    actions: list[dict[str, Any]] = []
    shown: set[str] = set()
    played: set[str] = set()
    full = set(deck(1))
    step = 0
    while not game.finished:
        assert step < 400
        seat = game.to_act()[0]
        # conservation: hands + played (+ hidden kitty) = the deck
        held = [c for s in range(3) for c in game.hand(s)]
        hidden = set() if game.landlord is not None else set(game.bottom)
        assert len(held) + len(played) + len(hidden) == 54
        assert set(held) | played | hidden == full
        for s in range(3):
            view = game.view(s)
            assert view["hand"] == game.hand(s)
            assert _cards_in(view) <= set(game.hand(s)) | shown
        if step % check_every == 0:
            _check_legal(game, seat, rng)
        timeout = rng.random() < 0.03  # now and then the clock runs out
        action = Action(seat, "timeout") if timeout else rng.choice(game.legal_actions(seat))
        events = game.apply(action)
        _check_events(events, game, shown, played)
        actions.append(action.to_json())
        step += 1
    res = game.result()
    assert sum(res.points) == 0
    if game.escaped is not None:
        pass
    elif res.detail["redeal"]:
        assert res.points == [0, 0, 0]
    else:
        m, landlord = res.detail["multiplier"], res.detail["landlord"]
        sign = 1 if res.points[landlord] > 0 else -1
        assert res.points == [2 * m * sign if s == landlord else -m * sign for s in range(3)]
        assert min(len(game.hand(s)) for s in range(3)) == 0
    record = {"game": "doudizhu", "options": options, "deal": deal, "actions": actions}
    out = replay(record)
    assert all(a["ok"] for a in out["actions"])
    assert out["finished"] and out["result"] == res.to_json()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_random_games(seed: int, options: dict[str, Any]) -> None:
    _play_one(seed, options, check_every=1)


def test_many_quick_games() -> None:
    for seed in range(100):
        _play_one(seed, {}, check_every=10)


# -- generators against the classifier, exhaustively on small hands -----------------------


def _brute(c: list[int], ok: Any) -> set[tuple[int, ...]]:
    """Every sub-multiset of rank counts ``c`` with a reading that ``ok`` accepts."""
    out = set()
    for take in itertools.product(*(range(k + 1) for k in c)):
        n = sum(take)
        if not n:
            continue
        rs = dc.readings(list(take), *_FLAGS)
        if rs and ok(rs, n):
            out.add(tuple(r for r in range(dc.NRANKS) for _ in range(take[r])))
    return out


_FLAGS: list[bool] = [False, True]


def _pre(c: list[int]) -> list[list[tuple[str, ...]]]:
    pre = []
    for r in range(dc.NRANKS):
        names = [card for card in deck(1) if dc.CARD_RANK[card] == r]
        pre.append([tuple(names[:k]) for k in range(c[r] + 1)])
    return pre


@settings(max_examples=300, deadline=None)
@given(
    picks=st.lists(st.sampled_from(deck(1)), min_size=1, max_size=13, unique=True),
    jw=st.booleans(), p2s=st.booleans(), data=st.data(),
)
def test_generators_match_classifier(
    picks: list[str], jw: bool, p2s: bool, data: st.DataObject
) -> None:
    _FLAGS[:] = [jw, p2s]
    c = [0] * dc.NRANKS
    for card in picks:
        c[dc.CARD_RANK[card]] += 1
    pre = _pre(c)
    lead = {_ranks(p) for p in dc.lead_plays(c, pre, jw, p2s)}
    assert len(lead) == len(dc.lead_plays(c, pre, jw, p2s))
    assert lead == _brute(c, lambda rs, n: True)
    # a standing play: some lead of a random other hand
    other = data.draw(st.lists(st.sampled_from(deck(1)), min_size=1, max_size=14, unique=True))
    oc = [0] * dc.NRANKS
    for card in other:
        oc[dc.CARD_RANK[card]] += 1
    opts = dc.lead_plays(oc, _pre(oc), jw, p2s)
    play = data.draw(st.sampled_from(opts))
    pcount = [0] * dc.NRANKS
    for card in play:
        pcount[dc.CARD_RANK[card]] += 1
    kind, main = dc.lead_reading(dc.readings(pcount, jw, p2s), len(play))
    standing = (kind, len(play), main)
    follow = dc.follow_plays(c, pre, standing, jw, p2s)
    assert len({_ranks(p) for p in follow}) == len(follow)
    want = _brute(c, lambda rs, n: any(dc.beats(r, n, standing) for r in rs))
    assert {_ranks(p) for p in follow} == want
