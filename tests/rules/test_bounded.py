"""Bounded engine work: what the table asks on a turn (hints, the
turn's non-play options, can-pass, the timeout's default action) is computed
without listing every play.

The worst positions come from bench/worst.py. Work is counted (candidate
plays built by the lazy generators, :data:`paiju.rules.bounded.WORK`), never
timed. Expectations are written from the rules: a void hunzhan follower adds
its lowest plain cards (rulings.md "Shared": the lowest legal play; "Point
rules"); every non-play option is always offered (docs/client-protocol.md).
"""

from __future__ import annotations

import copy
import gc
import random
from math import comb

import pytest

from bench.worst import (
    RUN6,
    RUN7,
    daa_follower_sets,
    daa_leader_runs,
    doudizhu_leader,
    hunzhan_void,
    shengji_quad_void,
)
from paiju.games.hunzhan.cards import multisets
from paiju.games.shengji.follow import multiset_combinations, shaped_combinations
from paiju.rules import load
from paiju.rules.bounded import HINT_PLAYS, WORK, iter_multisets
from paiju.rules.engine import Action, Game
from paiju.rules.selfplay import random_step

#: The documented bound (docs/performance.md "Engines"): a turn's path (hints,
#: default action, can-pass, non-play options) builds at most this many
#: candidate plays, however many legal plays there are.
TURN_WORK_BOUND = HINT_PLAYS


def turn_path(g: Game, seat: int) -> tuple[list[Action], Action, bool]:
    """What the table asks on ``seat``'s turn."""
    WORK.plays = 0
    hints = g.hints(seat)
    default = g.default_action(seat)
    can_pass = g.can_pass(seat)
    g.non_play_actions(seat)
    return hints, default, can_pass


@pytest.mark.parametrize("run", [RUN6, RUN7])
def test_hunzhan_void_follower_turn_is_bounded(run: str) -> None:
    g = hunzhan_void(run)
    hints, default, can_pass = turn_path(g, 1)
    assert WORK.plays <= TURN_WORK_BOUND
    # 21 distinct plain cards, no heart: any len(run) of them follow (C(21, k)
    # plays, far more than the hints show).
    assert comb(21, len(run.split())) > 10 * HINT_PLAYS
    plays = [a for a in hints if a.type == "play"]
    assert len(plays) == HINT_PLAYS and len(set(plays)) == HINT_PLAYS
    assert not can_pass and all(a.type == "play" for a in hints)
    for a in plays:  # every hint is a legal play
        copy.deepcopy(g).apply(a)
    # the lowest follow: the 12 clubs and diamonds, then the lowest trumps
    # (spades are trump: 7S, 8S), for 14 cards; 12 of them for 12.
    low = ["7C", "7D", "8C", "8D", "9C", "9D", "JC", "JD", "QC", "QD", "AC", "AD", "7S", "8S"]
    assert sorted(default.cards) == sorted(low[: len(run.split())])


def test_hunzhan_worst_position_full_list_is_large() -> None:
    """The bound matters: the lazy generator would give every follow."""
    g = hunzhan_void(RUN6)
    assert sum(1 for _ in g.iter_plays(1)) == comb(21, 12)


def test_shengji_void_against_quad_turn_is_bounded() -> None:
    g = shengji_quad_void()
    hints, default, can_pass = turn_path(g, 1)
    assert WORK.plays <= TURN_WORK_BOUND
    plays = [a for a in hints if a.type == "play"]
    assert len(plays) == HINT_PLAYS and not can_pass
    for a in [*plays, default]:
        copy.deepcopy(g).apply(a)


def test_daa_reveal_offered_beside_more_than_fifty_plays() -> None:
    g = daa_leader_runs()  # seat 0 holds both ♥A: a solo that may reveal
    legal = g.legal_actions(0)
    assert sum(a.type == "play" for a in legal) > HINT_PLAYS
    hints = g.hints(0)
    assert Action(0, "reveal") in legal
    assert Action(0, "reveal") in hints
    assert sum(a.type == "play" for a in hints) == HINT_PLAYS


@pytest.mark.parametrize("build", [daa_leader_runs, daa_follower_sets])
def test_daa_hints_are_the_first_fifty_plays_built_alone(build) -> None:  # type: ignore[no-untyped-def]
    """daa builds only the hinted plays (runs and sets up to the limit): they
    are the first 50 plays of the full list, in its order before the sort."""
    g = build()
    seat = g.to_act()[0]
    plays = [a for a in g.legal_actions(seat) if a.type == "play"]
    assert len(plays) > 20 * HINT_PLAYS
    hinted = [a for a in g.hints(seat) if a.type == "play"]
    assert sorted(hinted, key=repr) == sorted(plays[:HINT_PLAYS], key=repr)


def test_doudizhu_pass_offered_beside_more_than_fifty_plays() -> None:
    g = doudizhu_leader()
    seat = g.to_act()[0]
    lead = g.default_action(seat)
    g.apply(lead)
    nxt = g.to_act()[0]
    assert g.can_pass(nxt) and Action(nxt, "pass") in g.hints(nxt)
    assert not doudizhu_leader().can_pass(seat)  # a leader may not pass


def test_multisets_leave_no_cycle_for_the_collector() -> None:
    """A turn's candidate plays are freed by reference counting, whole or
    abandoned part way: nothing of them waits for the garbage collector
    (its pauses are the platform's slowest round trips, docs/performance.md)."""
    items = [("3H", 2), ("4S", 1), ("5D", 3)]
    gc.collect()
    gc.disable()
    try:
        for _ in range(20):
            assert len(multisets(items, 3)) == len(list(iter_multisets(items, 3)))
            assert len(multiset_combinations(items, 3)) == len(multisets(items, 3))
            assert shaped_combinations(items, 3, (2,)) == [
                c for c in multiset_combinations(items, 3) if len(set(c)) < 3]
            first = iter_multisets(items, 2)
            next(first)
            del first  # abandoned part way, as a bounded hint list does
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0


def test_iter_multisets_lowest_first() -> None:
    items = [("7C", 2), ("8C", 1), ("9C", 2)]
    got = list(iter_multisets(items, 2))
    assert got == [("7C", "7C"), ("7C", "8C"), ("7C", "9C"), ("8C", "9C"), ("9C", "9C")]
    assert list(iter_multisets(items, 0)) == [()]
    assert list(iter_multisets(items, 6)) == []


def _low_weight(g: Game, seat: int):  # type: ignore[no-untyped-def]
    """The rulings' order for the timeout's play, per game (rulings.md
    "Shared": fewest cards, then highest card lowest, then the next…)."""
    if g.name == "hunzhan":
        low = g.ord.low_key  # type: ignore[attr-defined]
        return lambda a: (len(a.cards), sorted((low[c] for c in a.cards), reverse=True))
    key = g.key  # type: ignore[attr-defined]
    return lambda a: (len(a.cards), sorted((key[c] for c in a.cards), reverse=True))


@pytest.mark.parametrize("name,options", [("hunzhan", {}), ("shengji", {"decks": 2}),
                                          ("shengji", {"decks": 4}), ("daa", {}),
                                          ("doudizhu", {})])
def test_bounded_calls_agree_with_the_full_list(name: str, options: dict[str, int]) -> None:
    """In random self-play positions: the non-play options are exactly the
    non-play legal actions, the hints' plays are legal and as many as
    min(50, all plays), can-pass is whether pass is legal, and the direct
    default play is the lowest of the full list (hunzhan, shengji follows)."""
    rng = random.Random(19)
    engine = load(name)
    for _ in range(3):
        g = engine(options, engine.random_deal(options, rng))
        while not g.finished:
            for seat in g.to_act():
                legal = g.legal_actions(seat)
                plays = [a for a in legal if a.type == "play"]
                others = [a for a in legal if a.type != "play"]
                assert g.non_play_actions(seat) == others
                assert g.can_pass(seat) == (Action(seat, "pass") in legal)
                hints = g.hints(seat)
                hinted = [a for a in hints if a.type == "play"]
                assert hints[: len(others)] == others
                assert len(hinted) == min(HINT_PLAYS, len(plays))
                assert set(hinted) <= set(plays)
                follows = name in ("hunzhan", "shengji") and g.phase == "play"
                if follows and plays:
                    best = min(plays, key=_low_weight(g, seat))
                    assert sorted(g.default_action(seat).cards) == sorted(best.cards)
            g.apply(random_step(g, rng))
