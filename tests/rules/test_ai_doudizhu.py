"""斗地主 AI (paiju/games/doudizhu/ai*.py): legal and deterministic play, and
situations whose right play follows from the rules (seed 002: the first seat
out of cards wins for its side; the farmers are one side; bombs and the
rocket beat everything and double the stakes)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from paiju.games.doudizhu import Doudizhu
from paiju.games.doudizhu import combos as dc
from paiju.games.doudizhu.ai import HardPlayer, NormalPlayer, determinize, sample_hands
from paiju.games.doudizhu.ai_play import DECK_COUNTS, Situation, choose, minus
from paiju.games.doudizhu.ai_split import split
from paiju.rules.ai import SeatView, play_game, seat_view
from paiju.rules.engine import Action
from tests.rules.ai_support import Capture

# -- helpers ----------------------------------------------------------------------------


def counts(ranks: str) -> tuple[int, ...]:
    """Rank counts from rank characters (``3``..``2``, ``w`` small joker, ``W`` big)."""
    c = [0] * dc.NRANKS
    for ch in ranks.replace(" ", ""):
        c[{"w": dc.SJ_RANK, "W": dc.BJ_RANK}.get(ch, dc.RANK_CHARS.find(ch))] += 1
    return tuple(c)


def sit(hand: str, *, seat: int, landlord: int = 0, sizes: tuple[int, int, int],
        standing: tuple[str, int, int] | None = None, by: int = -1,
        played: str = "") -> Situation:
    h = counts(hand)
    unseen = minus(minus(DECK_COUNTS, h), counts(played))
    sz = list(sizes)
    sz[seat] = sum(h)
    return Situation(seat, landlord, h, (sz[0], sz[1], sz[2]), standing, by, unseen)


def full_game(seed: int) -> tuple[Doudizhu, list[Action], list[SeatView]]:
    deal = Doudizhu.random_deal({}, random.Random(seed))
    seen: list[SeatView] = []
    players = [Capture(NormalPlayer(random.Random(seed)), seen) for _ in range(3)]
    game, history = play_game("doudizhu", {}, deal, players)
    assert isinstance(game, Doudizhu)
    return game, history, seen


# -- legal and deterministic ------------------------------------------------------------------


def test_normal_plays_legal_actions_and_repeats_itself() -> None:
    for seed in range(12):
        game, history, seen = full_game(seed)
        assert game.finished
        for sv, action in zip(seen, history, strict=True):
            assert action in sv.legal
        again = full_game(seed)[1]
        assert again == history


def test_hard_plays_legal_actions_to_the_end() -> None:
    deal = Doudizhu.random_deal({}, random.Random(3))
    seen: list[SeatView] = []
    players = [Capture(HardPlayer(random.Random(1), budget_s=0.01), seen),
               Capture(NormalPlayer(random.Random(1)), seen),
               Capture(NormalPlayer(random.Random(1)), seen)]
    game, history = play_game("doudizhu", {}, deal, players)
    assert game.finished
    for sv, action in zip(seen, history, strict=True):
        assert action in sv.legal


# -- the split -------------------------------------------------------------------------------


def test_split_finds_the_chain_and_the_airplane() -> None:
    # 34567 + 999TTT with 8 and J as wings: two plays (seed: 飞机带翅膀, 单顺)
    sp = split(counts("34567 999TTT 8 J"))
    assert sp.plays == 2
    kinds = sorted(g[0] for g in sp.groups)
    assert dc.CHAIN in kinds and dc.AIRPLANE in kinds


# -- leading ------------------------------------------------------------------------------------


def test_lead_goes_out_when_one_play_empties_the_hand() -> None:
    s = sit("777 99", seat=0, sizes=(0, 10, 12))  # 三带一对: one play
    assert choose(s) == counts("77799")


def test_farmer_does_not_lead_a_single_to_a_landlord_with_one_card() -> None:
    s = sit("3 5 88", seat=1, landlord=0, sizes=(1, 0, 9))
    play = choose(s)
    assert play == counts("88")


def test_farmer_leads_low_single_to_a_partner_with_one_card() -> None:
    s = sit("3 99 KK A", seat=1, landlord=0, sizes=(12, 0, 1))
    assert choose(s) == counts("3")


# -- following ----------------------------------------------------------------------------------


def test_follow_goes_out_when_the_last_cards_beat() -> None:
    s = sit("22", seat=1, landlord=0, sizes=(9, 0, 9), standing=(dc.PAIR, 2, 6), by=0)
    assert choose(s) == counts("22")


def test_farmer_does_not_beat_the_partners_winning_play() -> None:
    # the partner (seat 1) leads an A; the landlord has 12 cards: no need to top it
    s = sit("3 4 6 8 9 J 2 W", seat=2, landlord=0, sizes=(12, 9, 0),
            standing=(dc.SINGLE, 1, dc.RANK_CHARS.index("A")), by=1)
    assert choose(s) is None


def test_farmer_beats_the_landlords_low_single_without_a_bomb() -> None:
    s = sit("7 9 J Q 8888", seat=1, landlord=0, sizes=(15, 0, 17),
            standing=(dc.SINGLE, 1, dc.RANK_CHARS.index("5")), by=0)
    play = choose(s)
    assert play is not None and sum(play) == 1 and play[dc.RANK_CHARS.index("8")] == 0


def test_bomb_kept_against_an_early_low_pair() -> None:
    s = sit("9999 3 5 7 J K", seat=1, landlord=0, sizes=(15, 0, 17),
            standing=(dc.PAIR, 2, dc.RANK_CHARS.index("4")), by=0)
    assert choose(s) is None


def test_bomb_played_when_the_landlord_is_about_to_go_out() -> None:
    s = sit("9999 3 5 7", seat=1, landlord=0, sizes=(2, 0, 17),
            standing=(dc.PAIR, 2, dc.RANK_CHARS.index("K")), by=0)
    assert choose(s) == counts("9999")


def cards(text: str) -> list[str]:
    return text.split()


# -- bidding ---------------------------------------------------------------------------------------

STRONG = cards("SJ BJ 2S 2H 2C 2D AS AH KS KH 3S 4S 5S 6S 7S 9S TS")
WEAK = cards("3S 3H 4S 5H 6S 6H 8S 8H 9C TS JH JC QS QD KS KH 4H")


def deal_with(hand0: list[str], first: int = 0) -> dict[str, Any]:
    rest = [c for c in dc.sort_cards(list(Doudizhu({}, Doudizhu.random_deal(
        {}, random.Random(0))).deck_cards())) if c not in hand0]
    return {"hands": [hand0, rest[:17], rest[17:34]], "bottom": rest[34:37], "first": first}


def test_calls_with_the_rocket_and_a_bomb_and_passes_a_weak_hand() -> None:
    for hand, want in ((STRONG, "call"), (WEAK, "no_call")):
        game = Doudizhu({}, deal_with(hand))
        sv = seat_view(game, "doudizhu", {}, 0, [])
        assert NormalPlayer(random.Random(0)).decide(sv).type == want


def test_robs_with_a_strong_hand() -> None:
    game = Doudizhu({}, deal_with(STRONG, first=1))
    game.apply(Action(1, "call"))
    game.apply(Action(2, "no_rob"))
    sv = seat_view(game, "doudizhu", {}, 0, [Action(1, "call"), Action(2, "no_rob")])
    assert sv.view["phase"] == "robbing"
    assert NormalPlayer(random.Random(0)).decide(sv).type == "rob"


# -- hard's sampler -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_determinize_keeps_everything_the_seat_has_seen(seed: int) -> None:
    plays: list[SeatView] = []
    while not plays:  # a deal nobody calls is redealt: take the next one
        plays = [sv for sv in full_game(seed)[2] if sv.view["phase"] == "play"]
        seed += 100
    mid = plays[len(plays) // 3]
    me, landlord = mid.seat, mid.view["landlord"]
    sampled = determinize(mid, random.Random(seed))
    assert isinstance(sampled, Doudizhu)
    assert sampled.view(me) == mid.view  # own hand, counts, kitty, trick: as seen
    hands, bottom = sample_hands(mid, random.Random(seed))
    assert bottom == mid.view["kitty"]
    if me != landlord:
        played = {c for a in mid.history if a.type == "play" for c in a.cards}
        assert {c for c in bottom if c not in played} <= set(hands[landlord])
    played_all = [c for a in mid.history if a.type == "play" for c in a.cards]
    in_hands = sorted(c for h in hands for c in h)
    assert in_hands == sorted(c for c in sampled.deck_cards() if c not in played_all)
    assert [len(h) for h in hands] == mid.view["hand_counts"]
    assert hands[me] == mid.view["hand"]
