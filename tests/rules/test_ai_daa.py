"""大A (daa) AI players: legal and deterministic over full games, the plays
the rules make clear, and the sampler's games consistent with a seat's view.

Expectations come from seed 003 and rulings.md "daa": a seat whose whole hand
is one combination goes out with it; the big-A side is the two holders of
the big A (the declarer holds one), a side wins when all its seats are out,
so a seat leaves its known partner's play standing and stops an opponent
with two cards left."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from paiju.games.daa import Daa
from paiju.games.daa.ai import LEVELS, HardPlayer, NormalPlayer
from paiju.games.daa.aihand import read_record
from paiju.games.daa.aisample import determinize
from paiju.rules.ai import SeatView, levels, make_player, play_game, seat_view
from paiju.rules.engine import Action
from tests.rules.ai_support import Checked
from tests.rules.test_daa import c, make_deal


def act(g: Daa, history: list[Action], seat: int | None, typ: str, cards: str = "") -> None:
    a = Action(seat, typ, tuple(c(cards)))
    g.apply(a)
    history.append(a)


def view_of(g: Daa, history: list[Action], seat: int) -> SeatView:
    return seat_view(g, "daa", {}, seat, history)


def test_levels_found() -> None:
    assert set(levels("daa")) == {"random", "normal", "hard"}
    assert set(LEVELS) == {"normal", "hard"}
    assert isinstance(make_player("daa", "normal", random.Random(1)), NormalPlayer)


@pytest.mark.parametrize("seed", range(6))
def test_normal_full_games_are_legal(seed: int) -> None:
    deal = Daa.random_deal({}, random.Random(seed))
    players = [Checked(make_player("daa", "normal", random.Random(seed * 5 + s)))
               for s in range(5)]
    game, history = play_game("daa", {}, deal, players)
    assert game.finished
    assert sum(p.decisions for p in players) == sum(1 for a in history if a.type != "declare"
                                                   and a.seat is not None)


def _hard(seed: int) -> HardPlayer:
    # a count of samples, not the clock, so that the game depends only on the seed
    return HardPlayer(random.Random(seed), budget_s=60.0, max_samples=2, search_cards=50)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_hard_full_games_are_legal(seed: int) -> None:
    deal = Daa.random_deal({}, random.Random(100 + seed))
    players: list[Any] = [Checked(make_player("daa", "normal", random.Random(s)))
                          for s in range(5)]
    players[seed % 5] = Checked(_hard(seed))
    game, _ = play_game("daa", {}, deal, players)
    assert game.finished


def test_deterministic_for_a_seed() -> None:
    def run() -> list[Action]:
        deal = Daa.random_deal({}, random.Random(7))
        players: list[Any] = [make_player("daa", "normal", random.Random(s)) for s in range(4)]
        players.append(_hard(4))
        return play_game("daa", {}, deal, players)[1]

    assert run() == run()


PAIRS_4_TO_K = ("4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H TS TH JS JH QS QH KS KH")


def test_leads_the_whole_hand_when_it_is_one_play() -> None:
    # seat 0: pairs 4…A, one 双龙 of 11 pairs (22 cards); it declares ♠A,
    # which inside a 双龙 is an ordinary A (rulings.md "daa")
    g = Daa({}, make_deal({0: "AS AC " + PAIRS_4_TO_K}))
    history: list[Action] = []
    act(g, history, 0, "declare", "AS")
    act(g, history, None, "end_declare")
    a = NormalPlayer(random.Random(1)).decide(view_of(g, history, 0))
    assert a.type == "play" and Counter(a.cards) == Counter(c("AS AC " + PAIRS_4_TO_K))


def _after_big_lead(partner_of_leader: int) -> tuple[Daa, list[Action]]:
    """Seat 2 declares ♥A and leads a 双龙 of 10 pairs (4…K), keeping ♥A and
    ♠3: two cards left. Seat 3, next to play, holds four 9s (a 大蛋子, which
    beats any 双龙); the other ♥A is at ``partner_of_leader``."""
    spec = {2: "AH " + PAIRS_4_TO_K + " 3S", 3: "9C 9C 9D 9D"}
    spec[partner_of_leader] = "AH " + spec.get(partner_of_leader, "")
    g = Daa({}, make_deal(spec))
    history: list[Action] = []
    act(g, history, 2, "declare", "AH")
    act(g, history, None, "end_declare")
    act(g, history, 2, "play", PAIRS_4_TO_K)
    assert g.to_act() == [3] and g.view(3)["hand_counts"][2] == 2
    return g, history


def test_stops_an_opponent_with_two_cards_left() -> None:
    # seat 3 holds no ♥A: the declarer (seat 2) is on the other side and goes
    # out with one more play if nobody beats this one
    g, history = _after_big_lead(partner_of_leader=4)
    sv = view_of(g, history, 3)
    assert any(a.type == "play" for a in sv.legal)
    for level in (NormalPlayer(random.Random(1)), _hard(1)):
        a = level.decide(sv)
        assert a.type == "play", level


def test_leaves_a_known_partners_play_standing() -> None:
    # seat 3 holds the other ♥A: the declarer (seat 2) is its partner (主方 and
    # 次方); beating the partner's play only spends its own cards
    g, history = _after_big_lead(partner_of_leader=3)
    a = NormalPlayer(random.Random(1)).decide(view_of(g, history, 3))
    assert a.type in ("pass", "reveal")


def test_leaves_a_partners_low_single_standing() -> None:
    # seat 0 declares ♠A and leads a 5; seat 1 holds the other ♠A (次方) and
    # higher singles; every opponent holds 21 or 22 cards
    g = Daa({}, make_deal({0: "AS 5D", 1: "AS KD QD"}))
    history: list[Action] = []
    act(g, history, 0, "declare", "AS")
    act(g, history, None, "end_declare")
    act(g, history, 0, "play", "5D")
    sv = view_of(g, history, 1)
    assert any(a.type == "play" for a in sv.legal)
    a = NormalPlayer(random.Random(1)).decide(sv)
    assert a.type in ("pass", "reveal")


PUBLIC = ("hand", "hand_counts", "to_act", "declarer", "counter_declarer", "big_a", "leader",
          "named", "revealed", "named_solo", "big_a_played_by", "trick", "standing",
          "last_trick", "trick_no", "finish_order")


@pytest.mark.parametrize("seed", range(4))
def test_determinize_is_consistent_with_the_view(seed: int) -> None:
    deal = Daa.random_deal({}, random.Random(50 + seed))
    players = [make_player("daa", "normal", random.Random(s)) for s in range(5)]
    g = Daa({}, deal)
    history: list[Action] = []
    for s in range(5):  # one declaration at most, as play_game polls
        sv = view_of(g, history, s)
        choice = players[s].declare(sv) if sv.legal else None
        if choice is not None:
            g.apply(choice)
            history.append(choice)
            break
    act(g, history, None, "end_declare")
    checked = 0
    rng = random.Random(seed)
    while not g.finished:
        seat = g.to_act()[0]
        sv = view_of(g, history, seat)
        if len(history) % 9 == 0:
            world = determinize(sv, rng)
            assert world.hands[seat] == g.hands[seat]  # type: ignore[attr-defined]
            shown, truth = world.view(seat), g.view(seat)
            assert {k: shown[k] for k in PUBLIC} == {k: truth[k] for k in PUBLIC}
            assert Counter(world.played_cards()) == Counter(g.played_cards())
            assert world.legal_actions(seat) == g.legal_actions(seat)
            checked += 1
        a = players[seat].decide(sv)
        g.apply(a)
        history.append(a)
    assert checked >= 5


def test_determinize_deals_the_unseen_cards_anew() -> None:
    deal = Daa.random_deal({}, random.Random(3))
    g = Daa({}, deal)
    history: list[Action] = []
    act(g, history, None, "end_declare")
    seat = g.to_act()[0]
    sv = view_of(g, history, seat)
    others = {tuple(sorted(determinize(sv, random.Random(k)).hands[(seat + 1) % 5].elements()))  # type: ignore[attr-defined]
              for k in range(5)}
    assert len(others) > 1


def test_cards_taken_back_stay_with_the_taker() -> None:
    # 取回 (rulings.md "daa"): seat 1 answers seat 0's 蛋子 of 7s with two 4s
    # and the three 7s go into its hand, face up for everyone
    g = Daa({}, make_deal({0: "AS 7S 7H 7C", 1: "4S 4H"}))
    history: list[Action] = []
    act(g, history, 0, "declare", "AS")
    act(g, history, None, "end_declare")
    act(g, history, 0, "play", "7S 7H 7C")
    act(g, history, 1, "play", "4S 4H")
    rec = read_record(history, 0)
    assert rec.taken[1] == Counter(c("7S 7H 7C"))
    assert rec.table == Counter(c("4S 4H"))
    sv = view_of(g, history, 2)
    for k in range(5):
        world = determinize(sv, random.Random(k))
        assert Counter(c("7S 7H 7C")) <= world.hands[1]  # type: ignore[attr-defined]
        assert world.view(2)["hand_counts"] == g.view(2)["hand_counts"]
