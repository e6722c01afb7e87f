"""Unit tests of shengji (seed 004; rulings.md "shengji", "Settlement").

Every expectation below is typed by hand from the seed and the rulings.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from paiju.replay import replay
from paiju.rules.engine import Action
from paiju.rules.errors import RulesError
from paiju.rules.shengji import (
    Shengji,
    card_class,
    card_points,
    card_power,
    group_size,
    multiset_combinations,
    partition,
    required_pattern,
    score_row,
)

# A one-deck deal typed by hand (12 cards each, a kitty of 6, no points in it).
HANDS_1 = [
    ["3S", "3H", "5S", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S"],
    ["3C", "5H", "AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "4H"],
    ["3D", "5C", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "4C"],
    ["BJ", "SJ", "5D", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D"],
]
KITTY_1 = ["4S", "4D", "2S", "2H", "2C", "2D"]
# Dealt one card at a time from seat 0: card i goes to seat i % 4.
ORDER_1 = [HANDS_1[i % 4][i // 4] for i in range(48)]

# The two-deck deal of shared/cases/shengji/declare-and-bury.json.
HANDS_2 = [
    ["2C", "2D", "2H", "2H", "3C", "4H", "4S", "5C", "5D", "6S", "7H", "7S", "8H",
     "9S", "AC", "AS", "JC", "JH", "JS", "JS", "KD", "KH", "KH", "TH", "TS"],
    ["2D", "2S", "2S", "3H", "3S", "3S", "6D", "6H", "6H", "6S", "7S", "8C", "8H",
     "9C", "9S", "AC", "AD", "AH", "BJ", "KD", "QC", "QD", "QH", "QH", "TD"],
    ["3H", "4C", "4C", "5C", "5H", "6C", "6C", "6D", "7D", "7D", "8D", "8S", "9D",
     "9H", "9H", "AD", "AH", "JD", "KC", "KS", "QS", "SJ", "TC", "TD", "TH"],
    ["2C", "3C", "3D", "3D", "4D", "4H", "4S", "5D", "5S", "7C", "7H", "8D", "8S",
     "9C", "9D", "AS", "BJ", "JC", "JH", "KC", "KS", "QC", "QS", "SJ", "TC"],
]
KITTY_2 = ["4D", "5H", "5S", "7C", "8C", "JD", "QD", "TS"]


def one_deck(order: bool = False, **options: Any) -> Shengji:
    deal: dict[str, Any] = {"hands": HANDS_1, "bottom": KITTY_1, "first": 0}
    if order:
        deal["order"] = ORDER_1
    return Shengji({"decks": 1, **options}, deal)


def two_decks(**options: Any) -> Shengji:
    return Shengji({"decks": 2, **options}, {"hands": HANDS_2, "bottom": KITTY_2, "first": 0})


def act(seat: int | None, typ: str, *cards: str, dealt: int | None = None) -> Action:
    return Action(seat, typ, tuple(cards), dealt)


def snapshot(g: Shengji) -> str:
    return json.dumps(
        [g.view(s) for s in range(4)]
        + [[a.to_json() for a in g.legal_actions(s)] for s in range(4)]
        + [g.to_act(), g.timeouts],
        sort_keys=True,
    )


def rejects(g: Shengji, action: Action, code: str) -> None:
    before = snapshot(g)
    with pytest.raises(RulesError) as e:
        g.apply(action)
    assert e.value.code == code
    assert snapshot(g) == before


def in_play(decks: int, trump: str, dealer: int, hands: list[list[str]], leader: int) -> Shengji:
    """A game put straight into play with hands typed by the test (white box:
    cards are not conserved; only the follow and trick logic is under test)."""
    g = Shengji({"decks": decks}, Shengji.random_deal({"decks": decks}, random.Random(0)))
    g.trump, g.dealer, g.declarer = trump, dealer, dealer
    g._fix_trump(trump)
    g.hands = [Counter(h) for h in hands]
    g._phase, g.leader, g.trick_no = "play", leader, 1
    return g


def legal(g: Shengji, seat: int) -> set[tuple[str, ...]]:
    """The listed plays (each already a sorted tuple, as checked here)."""
    out = {a.cards for a in g.legal_actions(seat)}
    assert all(t == tuple(sorted(t)) for t in out)
    return out


def cardsets(*plays: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Hand-written plays as sorted tuples."""
    return {tuple(sorted(p)) for p in plays}


# -- card order, combinations ----------------------------------------------------------


def test_card_order_trump_hearts() -> None:
    # seed 牌的大小: 大王、小王、主花色5、其他花色5、主花色3、其他3、
    # 主花色2、其他2、主花色A..4、付牌A..4
    high_to_low = ["BJ", "SJ", "5H", "5S", "3H", "3C", "2H", "2D", "AH", "KH", "4H", "AS",
                   "KS", "4S"]
    powers = [card_power(c, "H") for c in high_to_low]
    assert powers == sorted(powers, reverse=True)
    assert len(set(powers)) == len(powers)
    assert card_power("5S", "H") == card_power("5C", "H") == card_power("5D", "H")
    assert card_power("3S", "H") == card_power("3D", "H")
    assert card_power("2S", "H") == card_power("2C", "H")


def test_trump_class() -> None:
    assert [card_class(c, "C") for c in ["BJ", "5H", "3D", "2S", "4C", "AH", "KS", "TD"]] == [
        "T", "T", "T", "T", "T", "H", "S", "D"]


def test_points() -> None:
    assert card_points(["5S", "TH", "KD", "QC", "AS", "BJ"]) == 25


def test_group_and_partition() -> None:
    assert group_size(["KH"]) == 1
    assert group_size(["KH", "KH"]) == 2
    assert group_size(["KH", "KH", "KH", "KH"]) == 4
    assert group_size(["KH", "KD"]) is None
    assert group_size([]) is None
    assert group_size(["KH"] * 5) is None
    assert partition(["7H", "9H", "7H"]) == (2, 1)


@pytest.mark.parametrize(
    ("groups", "lead", "need", "expected"),
    [
        # pair lead: a pair, else singles; triples and quads may stay whole
        ([2, 1], 2, 2, (2,)),
        ([3, 1], 2, 2, (1,)),  # the triple is not counted: any two cards of the suit
        ([4], 2, 2, ()),
        ([3, 2], 2, 2, (2,)),
        ([1, 1, 1], 2, 2, (1, 1)),
        # triple lead: a triple, else pair + single, else singles; quads may stay whole
        ([3, 2], 3, 3, (3,)),
        ([4, 2, 1], 3, 3, (2, 1)),
        ([2, 2], 3, 3, (2, 1)),
        ([1, 1, 1], 3, 3, (1, 1, 1)),
        ([4], 3, 3, ()),
        # quad lead: quad, else triple + single, else two pairs, else singles
        ([4, 1], 4, 4, (4,)),
        ([3, 2], 4, 4, (3, 1)),
        ([3, 3], 4, 4, (3, 1)),
        ([2, 2, 1], 4, 4, (2, 2)),
        ([2, 1, 1], 4, 4, (2, 1, 1)),
        ([1, 1, 1, 1, 1], 4, 4, (1, 1, 1, 1)),
        # short of the suit: all of it
        ([2], 4, 2, (2,)),
    ],
)
def test_required_pattern(
    groups: list[int], lead: int, need: int, expected: tuple[int, ...]
) -> None:
    assert required_pattern(groups, lead, need) == expected


def test_multiset_combinations() -> None:
    assert multiset_combinations([("AH", 2), ("KH", 1)], 2) == [("AH", "AH"), ("AH", "KH")]
    assert multiset_combinations([("AH", 1)], 2) == []
    assert len(multiset_combinations([("AH", 4), ("KH", 4), ("QH", 4)], 4)) == 15


# -- score tables (seed 局分计算 一–四; rulings.md: "5—15" is 5<=p<=15, ">100" is p>=100) ---

SCORE_CASES = [
    # decks, defender points, 庄家得分, 非庄家得分, 是否换庄
    (1, 0, 3, -3, False), (1, 5, 2, -2, False), (1, 15, 2, -2, False), (1, 20, 1, -1, False),
    (1, 35, 1, -1, False), (1, 40, -1, 1, True), (1, 55, -1, 1, True), (1, 60, -2, 2, True),
    (1, 75, -2, 2, True), (1, 80, -3, 3, True), (1, 95, -3, 3, True), (1, 100, -4, 4, True),
    (1, 300, -4, 4, True),
    (2, 0, 3, -3, False), (2, 5, 2, -2, False), (2, 35, 2, -2, False), (2, 40, 1, -1, False),
    (2, 75, 1, -1, False), (2, 80, -1, 1, True), (2, 115, -1, 1, True), (2, 120, -2, 2, True),
    (2, 155, -2, 2, True), (2, 160, -3, 3, True), (2, 195, -3, 3, True), (2, 200, -4, 4, True),
    (2, 520, -4, 4, True),
    (3, 0, 3, -3, False), (3, 5, 2, -2, False), (3, 55, 2, -2, False), (3, 60, 1, -1, False),
    (3, 115, 1, -1, False), (3, 120, -1, 1, True), (3, 175, -1, 1, True), (3, 180, -2, 2, True),
    (3, 235, -2, 2, True), (3, 240, -3, 3, True), (3, 295, -3, 3, True), (3, 300, -4, 4, True),
    (3, 700, -4, 4, True),
    (4, 0, 3, -3, False), (4, 5, 2, -2, False), (4, 75, 2, -2, False), (4, 80, 1, -1, False),
    (4, 155, 1, -1, False), (4, 160, -1, 1, True), (4, 235, -1, 1, True), (4, 240, -2, 2, True),
    (4, 315, -2, 2, True), (4, 320, -3, 3, True), (4, 395, -3, 3, True), (4, 400, -4, 4, True),
    (4, 900, -4, 4, True),
]


@pytest.mark.parametrize(("decks", "p", "dealer_pts", "defender_pts", "change"), SCORE_CASES)
def test_score_tables(decks: int, p: int, dealer_pts: int, defender_pts: int, change: bool) -> None:
    assert score_row(decks, p) == (dealer_pts, defender_pts, change)


@pytest.mark.parametrize(("decks", "p", "dealer_pts", "defender_pts", "change"), SCORE_CASES)
def test_result_from_table(decks: int, p: int, dealer_pts: int, defender_pts: int,
                           change: bool) -> None:
    """Points per seat: 庄家得分 to both dealer-side seats, 非庄家得分 to both
    defenders; next dealer: the dealer's 下家 when the defenders go up (上台),
    else the dealer's partner."""
    g = in_play(decks, "S", 3, [[], [], [], []], 3)
    g._phase = "finished"
    g.captured = [p, 0, 0, 0]  # seat 0 is a defender of dealer 3
    r = g.result()
    assert r.points == [defender_pts, dealer_pts, defender_pts, dealer_pts]
    assert r.detail["next_dealer"] == (0 if change else 1)
    assert r.detail["defender_points"] == p


def test_bad_options() -> None:
    for opts in ({"decks": 0}, {"decks": 5}, {"decks": "2"}, {"dealer": 4}, {"dealer": True},
                 {"escape_points": -1}, {"colour": 1}, {"turn_seconds": 0}):
        with pytest.raises(RulesError) as e:
            Shengji(opts, {"hands": HANDS_2, "bottom": KITTY_2, "first": 0})
        assert e.value.code == "bad_options"


def test_bad_deal() -> None:
    with pytest.raises(RulesError) as e:
        Shengji({"decks": 2}, {"hands": HANDS_1, "bottom": KITTY_1, "first": 0})
    assert e.value.code == "bad_deal"
    bad_order = list(reversed(ORDER_1))
    with pytest.raises(RulesError) as e:
        Shengji({"decks": 1}, {"hands": HANDS_1, "bottom": KITTY_1, "first": 0, "order": bad_order})
    assert e.value.code == "bad_deal"


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_random_deal_sizes(decks: int) -> None:
    deal = Shengji.random_deal({"decks": decks}, random.Random(5))
    sizes = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}[decks]
    assert [len(h) for h in deal["hands"]] == [sizes[0]] * 4
    assert len(deal["bottom"]) == sizes[1]
    Shengji({"decks": decks}, deal)  # its order deals its hands


# -- declaring (亮主 / 冲主) ------------------------------------------------------------


def test_first_declarer_is_dealer_in_first_game() -> None:
    g = two_decks()
    assert g.phase == "declaring" and g.to_act() == []
    ev = g.apply(act(2, "declare", "3H"))
    assert ev[0].type == "declared" and ev[0].to is None
    assert ev[0].data == {"seat": 2, "cards": ["3H"], "trump": "H"}
    rejects(g, act(1, "declare", "3S"), "declare_too_weak")  # one is not more than one
    g.apply(act(1, "declare", "3S", "3S"))  # 冲主 with two
    rejects(g, act(3, "declare", "3D", "3D"), "declare_too_weak")  # two is not more than two
    rejects(g, act(1, "declare", "3H"), "not_eligible")  # the standing declarer
    rejects(g, act(2, "declare", "3H"), "declare_too_weak")
    assert g.trump == "S" and g.dealer == 2  # an overcall changes trump, not the dealer


def test_overcall_must_be_another_suit() -> None:
    g = two_decks()
    g.apply(act(0, "declare", "3C"))
    rejects(g, act(3, "declare", "3C", "3C"), "cards_not_in_hand")
    g2 = two_decks()
    g2.apply(act(2, "declare", "3H"))
    rejects(g2, act(1, "declare", "3H"), "declare_too_weak")


def test_declare_needs_a_pair_with_three_decks() -> None:
    rng = random.Random(11)
    for _ in range(20):
        deal = Shengji.random_deal({"decks": 3}, rng)
        seat, card = next(((s, c) for s in range(4) for c in set(deal["hands"][s])
                           if c[0] == "3" and deal["hands"][s].count(c) >= 2), (None, ""))
        if seat is not None:
            break
    assert seat is not None
    g = Shengji({"decks": 3}, deal)
    rejects(g, act(seat, "declare", card), "declare_too_weak")
    assert act(seat, "declare", card, card) in g.declare_options(seat)
    g.apply(act(seat, "declare", card, card))
    assert g.trump == card[1]


def test_bad_declarations() -> None:
    g = one_deck()
    rejects(g, act(0, "declare", "4S"), "invalid_combination")
    rejects(g, act(0, "declare", "3S", "3H"), "invalid_combination")
    rejects(g, act(0, "declare"), "invalid_combination")
    rejects(g, act(0, "declare", "3C"), "cards_not_in_hand")
    rejects(g, act(0, "declare", "3S", "3S"), "cards_not_in_hand")
    rejects(g, act(0, "play", "3S"), "wrong_phase")
    rejects(g, act(0, "bury", "3S"), "wrong_phase")
    rejects(g, act(0, "pass"), "unknown_action")


def test_declare_options() -> None:
    g = two_decks()
    assert g.declare_options(1) == [act(1, "declare", "3S"), act(1, "declare", "3S", "3S"),
                                    act(1, "declare", "3H")]
    g.apply(act(2, "declare", "3H"))
    assert g.legal_actions(1) == [act(1, "declare", "3S", "3S")]
    assert g.legal_actions(3) == [act(3, "declare", "3D", "3D")]
    assert g.legal_actions(2) == []
    assert g.legal_actions(0) == []


def test_declare_while_dealing() -> None:
    """deal.order: card i goes to seat (first + i) % 4; a declare with dealt=k
    counts the cards dealt so far."""
    g = one_deck(order=True)
    # seat 0's 3S is card 0, its 3H card 4; seat 1's 3C is card 1
    assert g.declare_options(0, dealt=1) == [act(0, "declare", "3S", dealt=1)]
    assert g.declare_options(0, dealt=5) == [act(0, "declare", "3S", dealt=5),
                                             act(0, "declare", "3H", dealt=5)]
    assert g.declare_options(1, dealt=1) == []
    rejects(g, act(0, "declare", "3H", dealt=4), "cards_not_in_hand")
    rejects(g, act(1, "declare", "3C", dealt=1), "cards_not_in_hand")
    rejects(g, act(1, "declare", "3C", dealt=49), "malformed_action")
    g.apply(act(1, "declare", "3C", dealt=2))
    assert g.dealer == 1 and g.trump == "C"


def test_declare_dealt_without_order_uses_whole_hand() -> None:
    g = one_deck()
    g.apply(act(0, "declare", "3H", dealt=0))
    assert g.trump == "H"


def test_redeal() -> None:
    g = one_deck()
    ev = g.apply(act(None, "end_declare"))
    assert ev[0].type == "declaring_closed"
    assert g.finished
    r = g.result()
    assert r.points == [0, 0, 0, 0] and r.detail["redeal"] is True


def test_later_game_dealer_is_the_option() -> None:
    g = one_deck(dealer=3)
    g.apply(act(1, "declare", "3C"))
    g.apply(act(None, "end_declare"))
    assert g.dealer == 3 and g.trump == "C" and g.to_act() == [3]
    rejects(g, act(None, "end_declare"), "wrong_phase")


# -- the kitty (底牌 / 扣底) --------------------------------------------------------------


def declared_one_deck() -> tuple[Shengji, list[Any]]:
    g = one_deck()
    g.apply(act(1, "declare", "3C"))
    return g, g.apply(act(None, "end_declare"))


def test_kitty_shown_then_taken() -> None:
    g, ev = declared_one_deck()
    types = [(e.type, e.to) for e in ev]
    assert types == [("declaring_closed", None), ("kitty_shown", None), ("kitty", 1), ("hand", 1)]
    assert ev[1].data["cards"] == KITTY_1
    assert len(ev[3].data["cards"]) == 18
    assert g.phase == "burying" and g.to_act() == [1]
    assert g.view(0)["kitty_shown"] == KITTY_1
    assert g.view(0)["hand_counts"] == [12, 18, 12, 12]


def test_bury_errors_and_hidden_kitty() -> None:
    g, _ = declared_one_deck()
    rejects(g, act(1, "bury", "4H", "6H", "7H", "8H", "9H"), "wrong_count")
    rejects(g, act(1, "bury", "4H", "6H", "7H", "8H", "9H", "AS"), "cards_not_in_hand")
    rejects(g, act(0, "bury", "3S", "5S", "AS", "KS", "QS", "JS"), "not_your_turn")
    rejects(g, act(1, "play", "AH"), "wrong_phase")
    ev = g.apply(act(1, "bury", "TH", "4H", "6H", "7H", "8H", "9H"))
    assert [(e.type, e.to) for e in ev] == [("hand", 1)]
    assert sorted(ev[0].data["cards"]) == sorted(
        ["3C", "5H", "AH", "KH", "QH", "JH", "4S", "4D", "2S", "2H", "2C", "2D"])
    assert g.phase == "play" and g.to_act() == [1]
    assert g.view(1)["buried"] == ["TH", "9H", "8H", "7H", "6H", "4H"]
    for seat in (0, 2, 3):
        v = g.view(seat)
        assert "buried" not in v
        assert v["kitty_shown"] == KITTY_1  # the original kitty only
    assert g.view(0)["hand"] == ["5S", "3S", "3H", "AS", "KS", "QS", "JS", "TS", "9S", "8S",
                                 "7S", "6S"]


def test_bury_timeout_buries_lowest() -> None:
    g, _ = declared_one_deck()
    assert g.default_action(1) == act(1, "bury", "4D", "4H", "4S", "6H", "7H", "8H")
    ev = g.apply(act(1, "timeout"))
    assert ev[0].type == "timed_out"
    assert sorted(g.buried) == ["4D", "4H", "4S", "6H", "7H", "8H"]
    assert g.timeouts[1] == 1


# -- play -----------------------------------------------------------------------------


def after_default_bury() -> Shengji:
    g, _ = declared_one_deck()
    g.apply(act(1, "timeout"))
    return g


def test_default_plays_and_trumping() -> None:
    g = after_default_bury()
    # dealer 1 leads; lowest card of 3C 5H AH KH QH JH TH 9H 2S 2H 2C 2D with trump C
    assert g.default_action(1) == act(1, "play", "9H")
    g.apply(act(1, "timeout"))
    assert g.default_action(2) == act(2, "play", "4C")  # void in hearts: lowest card, a trump
    g.apply(act(2, "timeout"))
    assert g.default_action(3) == act(3, "play", "6D")
    g.apply(act(3, "timeout"))
    assert g.default_action(0) == act(0, "play", "6S")
    ev = g.apply(act(0, "timeout"))
    won = [e for e in ev if e.type == "trick_won"]
    assert won[0].data == {"seat": 2, "points": 0, "next_leader": 2}
    assert g.to_act() == [2]
    assert g.view(3)["last_trick"]["winner"] == 2


def test_equal_fives_first_played_wins() -> None:
    g = after_default_bury()
    g.apply(act(1, "play", "9H"))
    g.apply(act(2, "play", "4C"))
    g.apply(act(3, "play", "6D"))
    g.apply(act(0, "play", "6S"))
    # seat 2 leads 3D (a trump); 5D (other 5) beats it, 5S and 5H tie with 5D
    g.apply(act(2, "play", "3D"))
    rejects(g, act(3, "play", "AD"), "must_follow_suit")
    g.apply(act(3, "play", "5D"))
    g.apply(act(0, "play", "5S"))
    ev = g.apply(act(1, "play", "5H"))
    won = [e for e in ev if e.type == "trick_won"]
    assert won[0].data["seat"] == 3 and won[0].data["points"] == 15


def test_lead_must_be_identical_cards() -> None:
    g = in_play(2, "S", 0, [["KH", "KH", "QH", "AD"], [], [], []], 0)
    rejects(g, act(0, "play", "KH", "QH"), "invalid_combination")
    rejects(g, act(0, "play", "AD", "AD"), "cards_not_in_hand")
    assert legal(g, 0) == cardsets(*{("AD",), ("KH",), ("KH", "KH"), ("QH",)})


def test_follow_pair() -> None:
    hands = [["KH", "KH"], ["9H", "9H", "7H", "6D"], ["8H", "4D", "6C"], ["6S", "6S", "7C"]]
    g = in_play(2, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH"))
    assert legal(g, 1) == cardsets(*{("9H", "9H")})
    rejects(g, act(1, "play", "7H", "9H"), "must_follow_shape")
    rejects(g, act(1, "play", "9H"), "wrong_count")
    g.apply(act(1, "play", "9H", "9H"))
    assert legal(g, 2) == cardsets(*{("4D", "8H"), ("6C", "8H")})
    rejects(g, act(2, "play", "4D", "6C"), "must_follow_suit")
    g.apply(act(2, "play", "8H", "4D"))
    assert legal(g, 3) == cardsets(*{("6S", "6S"), ("6S", "7C")})
    ev = g.apply(act(3, "play", "6S", "6S"))
    assert next(e.data for e in ev if e.type == "trick_won")["seat"] == 3


def test_void_trump_single_on_pair_does_not_win() -> None:
    hands = [["KH", "KH"], ["9H", "9H"], ["4S", "7C"], ["2D", "2D"]]
    g = in_play(2, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH"))
    g.apply(act(1, "play", "9H", "9H"))
    g.apply(act(2, "play", "4S", "7C"))  # a trump and a club: a discard
    ev = g.apply(act(3, "play", "2D", "2D"))  # a trump pair (other-suit 2s) wins
    assert next(e.data for e in ev if e.type == "trick_won")["seat"] == 3


def test_higher_pair_of_the_suit_wins() -> None:
    hands = [["KH", "KH"], ["AH", "AH"], ["4S", "4S"], ["5S", "5S"]]
    g = in_play(2, "C", 0, hands, 0)  # spades are not trump: 4S 4S is a discard
    g.apply(act(0, "play", "KH", "KH"))
    g.apply(act(1, "play", "AH", "AH"))
    g.apply(act(2, "play", "4S", "4S"))
    ev = g.apply(act(3, "play", "5S", "5S"))  # 5s are trumps everywhere
    assert next(e.data for e in ev if e.type == "trick_won") == {
        "seat": 3, "points": 30, "next_leader": 3}


def test_follow_triple_three_decks() -> None:
    hands = [["KH"] * 3, ["7H"] * 3 + ["9H"] * 2, ["9H", "9H", "JH", "QH"],
             ["9H", "JH", "QH", "4H"]]
    g = in_play(3, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH", "KH"))
    assert legal(g, 1) == cardsets(*{("7H", "7H", "7H")})
    rejects(g, act(1, "play", "7H", "7H", "9H"), "must_follow_shape")
    g.apply(act(1, "play", "7H", "7H", "7H"))
    assert legal(g, 2) == cardsets(*{("9H", "9H", "JH"), ("9H", "9H", "QH")})
    rejects(g, act(2, "play", "9H", "JH", "QH"), "must_follow_shape")
    g.apply(act(2, "play", "9H", "9H", "QH"))
    assert legal(g, 3) == cardsets(*{("9H", "JH", "QH"), ("4H", "9H", "JH"), ("4H", "9H", "QH"),
                           ("4H", "JH", "QH")})


def test_follow_triple_may_keep_quad_whole() -> None:
    hands = [["KH"] * 3, ["7H"] * 4 + ["9H"] * 2 + ["JH"], [], []]
    g = in_play(4, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH", "KH"))
    assert legal(g, 1) == cardsets(*{("7H", "7H", "7H"), ("7H", "7H", "9H"), ("7H", "7H", "JH"),
                           ("7H", "9H", "9H"), ("9H", "9H", "JH")})
    rejects(g, act(1, "play", "7H", "9H", "JH"), "must_follow_shape")


def test_follow_pair_may_keep_triple_whole() -> None:
    hands = [["KH"] * 2, ["7H"] * 3 + ["9H", "JH"], [], []]
    g = in_play(3, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH"))
    assert legal(g, 1) == cardsets(*{("7H", "7H"), ("7H", "9H"), ("7H", "JH"), ("9H", "JH")})


@pytest.mark.parametrize(
    ("follower", "expected"),
    [
        (["7H"] * 4 + ["9H"], {("7H", "7H", "7H", "7H")}),
        (["7H"] * 3 + ["9H", "9H", "JH"], {("7H", "7H", "7H", "9H"), ("7H", "7H", "7H", "JH")}),
        (["7H", "7H", "9H", "9H", "JH"], {("7H", "7H", "9H", "9H")}),
        (["7H", "7H", "9H", "JH", "QH"], {("7H", "7H", "9H", "JH"), ("7H", "7H", "9H", "QH"),
                                          ("7H", "7H", "JH", "QH")}),
        (["7H", "9H", "JH", "QH", "AH"], {("7H", "9H", "JH", "QH"), ("7H", "9H", "JH", "AH"),
                                          ("7H", "9H", "QH", "AH"), ("7H", "JH", "QH", "AH"),
                                          ("9H", "JH", "QH", "AH")}),
        (["7H", "7H", "4C", "6D"], {("4C", "6D", "7H", "7H")}),
        (["7H", "4C", "4C", "6D"], {("4C", "4C", "6D", "7H")}),
        (["5S", "5S", "4C", "6C"], {("4C", "5S", "5S", "6C")}),
    ],
)
def test_follow_quad(follower: list[str], expected: set[tuple[str, ...]]) -> None:
    g = in_play(4, "S", 0, [["KH"] * 4, follower, [], []], 0)
    g.apply(act(0, "play", "KH", "KH", "KH", "KH"))
    assert legal(g, 1) == cardsets(*expected)


def test_quad_default_follow_lowest() -> None:
    g = in_play(4, "S", 0, [["KH"] * 4, ["7H", "7H", "9H", "JH", "QH"], [], []], 0)
    g.apply(act(0, "play", "KH", "KH", "KH", "KH"))
    assert g.default_action(1) == act(1, "play", "7H", "7H", "9H", "JH")


def test_void_quad_of_trumps_wins_other_trumps_discard() -> None:
    hands = [["KH"] * 4, ["5S", "5S", "5S", "4C"], ["AH"] * 4, ["2C"] * 4]
    g = in_play(4, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH", "KH", "KH"))
    g.apply(act(1, "play", "5S", "5S", "5S", "4C"))  # three trumps and a club: no win
    g.apply(act(2, "play", "AH", "AH", "AH", "AH"))  # a higher quad of hearts
    ev = g.apply(act(3, "play", "2C", "2C", "2C", "2C"))  # a trump quad
    assert next(e.data for e in ev if e.type == "trick_won") == {
        "seat": 3, "points": 55, "next_leader": 3}


def test_kitty_bonus_when_defenders_take_the_last_trick() -> None:
    """抠底: a pair wins the last trick for the defenders: kitty points × 4."""
    hands = [["9D", "9C"], ["AH", "AH"], ["4C", "6C"], ["7D", "8D"]]
    g = in_play(2, "S", 0, hands, 1)
    g.buried = ["KC", "KC", "TC", "5H", "4D", "6D", "7C", "8C"]  # 35 points
    g.captured = [0, 20, 0, 0]
    for seat, cards in [(1, hands[1]), (2, hands[2]), (3, hands[3]), (0, hands[0])]:
        g.apply(act(seat, "play", *cards))
    assert g.finished
    r = g.result()
    assert r.detail["kitty_points"] == 35
    assert r.detail["kitty_multiplier"] == 4
    assert r.detail["defender_points"] == 20 + 140  # 160—195 with two decks
    assert r.points == [-3, 3, -3, 3]
    assert r.detail["next_dealer"] == 1


def test_no_kitty_bonus_when_the_dealer_side_takes_the_last_trick() -> None:
    hands = [["AD"], ["KD"], ["QD"], ["JD"]]
    g = in_play(1, "S", 0, hands, 0)
    g.buried = ["KC", "TC", "5H", "4D", "6D", "7C"]
    g.captured = [60, 0, 0, 15]
    for seat in range(4):
        g.apply(act(seat, "play", *hands[seat]))
    r = g.result()
    assert r.detail["kitty_multiplier"] == 0
    assert r.detail["defender_points"] == 15
    assert r.points == [2, -2, 2, -2]
    assert r.detail["next_dealer"] == 2


def test_single_kitty_bonus_one_deck() -> None:
    hands = [["AD"], ["BJ"], ["QD"], ["JD"]]
    g = in_play(1, "S", 0, hands, 0)
    g.buried = ["KC", "TC", "5H", "4D", "6D", "7C"]  # 25
    for seat in range(4):
        g.apply(act(seat, "play", *hands[seat]))
    r = g.result()
    assert r.detail["kitty_multiplier"] == 2
    assert r.detail["defender_points"] == 50  # 40—55 with one deck: the defenders go up
    assert r.points == [-1, 1, -1, 1]


# -- errors leave the state unchanged -------------------------------------------------


def test_bad_input_changes_nothing() -> None:
    g = after_default_bury()
    rejects(g, act(0, "play", "6S"), "not_your_turn")
    rejects(g, act(1, "play", "AS"), "cards_not_in_hand")
    rejects(g, act(1, "play", "AH", "KH"), "invalid_combination")
    rejects(g, act(1, "bury", "AH"), "wrong_phase")
    rejects(g, act(1, "declare", "3C"), "wrong_phase")
    rejects(g, act(1, "rob"), "unknown_action")
    rejects(g, act(None, "end_declare"), "wrong_phase")
    rejects(g, act(7, "play", "AH"), "malformed_action")


def test_malformed_cards_in_a_record() -> None:
    record = {"game": "shengji", "options": {"decks": 1},
              "deal": {"hands": HANDS_1, "bottom": KITTY_1, "first": 0},
              "actions": [{"seat": 1, "type": "declare", "cards": ["3X"]},
                          {"seat": 1, "type": "declare", "cards": ["3c"]}]}
    out = replay(record)
    assert out["actions"][0] == {"ok": False, "error": "malformed_cards",
                                 "message": out["actions"][0]["message"]}
    assert out["actions"][1] == {"ok": True}


# -- escape and timeouts --------------------------------------------------------------


def test_escape_points() -> None:
    g = after_default_bury()
    g.apply(act(2, "escape"))
    r = g.result()
    assert r.points == [2, 2, -6, 2]
    assert r.detail["escaped"] == 2


def test_escape_points_option_and_during_declaring() -> None:
    g = one_deck(escape_points=3)
    g.apply(act(3, "escape"))
    assert g.result().points == [3, 3, 3, -9]


def test_fourth_consecutive_timeout_is_an_escape() -> None:
    g = after_default_bury()
    count = 0
    while not g.finished:
        seat = g.to_act()[0]
        if seat == 0:
            g.apply(act(0, "timeout"))
            count += 1
        else:
            g.apply(g.default_action(seat))
    assert count == 4
    assert g.escaped == 0
    assert g.result().points == [-6, 2, 2, 2]


def test_no_timeout_while_declaring() -> None:
    g = one_deck()
    rejects(g, act(0, "timeout"), "not_your_turn")
    with pytest.raises(RulesError):
        g.default_action(0)


# -- paiju rulings (docs/rules/shengji.md) --------------------------------------------


def test_bury_options_are_runs_of_the_sorted_hand() -> None:
    g, _ = declared_one_deck()
    listed = g.legal_actions(1)
    # 18 cards, kitty 6: 13 runs of six consecutive cards (lowest first)
    assert len(listed) == 13
    assert listed[0] == act(1, "bury", "4D", "4H", "4S", "6H", "7H", "8H")
    assert g.legal_actions(0) == []


def test_redeal_and_escape_keep_the_dealer() -> None:
    g = one_deck(dealer=2)
    g.apply(act(None, "end_declare"))
    assert g.result().detail["next_dealer"] == 2
    g = after_default_bury()
    g.apply(act(0, "escape"))
    assert g.result().detail["next_dealer"] == 1
    assert g.result().detail["dealer"] == 1


def test_room_options_accepted() -> None:
    g = one_deck(turn_seconds=20, reconnect_seconds=90, base=1, unit=1, fee_rate=0.02)
    assert g.phase == "declaring"


def test_played_event_names() -> None:
    hands = [["KH", "KH"], ["9H", "8H"], ["AH", "AH"], ["6S", "6S"]]
    g = in_play(2, "S", 0, hands, 0)
    names = [g.apply(act(s, "play", *hands[s]))[0].data["combination"] for s in range(4)]
    assert names == ["pair", "follow", "pair", "pair"]
