"""Unit tests of shengji's play: leads, follows, tricks, 抠底 and the table
result (seed 004 发牌 / 跟牌 / 一轮结束 / 抠底 / 局分计算 / 上台; rulings.md
"shengji", "Settlement").

Every expectation below is typed by hand from the seed and the rulings.
Positions in play are made with ``Shengji.from_position``: every seat holds as
many cards at a trick's start, and no card more often than the decks hold it.
"""

from __future__ import annotations

import pytest

from tests.rules.shengji_helpers import (
    SCORE_CASES,
    act,
    after_default_bury,
    cardsets,
    legal,
    position,
    rejects,
)


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
    hands = [["KH", "KH", "QH", "AD"], ["4C", "6C", "7C", "8C"], ["4C", "6C", "7C", "8C"],
             ["9C", "JC", "QC", "AC"]]
    g = position(2, "S", 0, hands, 0)
    rejects(g, act(0, "play", "KH", "QH"), "invalid_combination")
    rejects(g, act(0, "play", "AD", "AD"), "cards_not_in_hand")
    assert legal(g, 0) == cardsets(*{("AD",), ("KH",), ("KH", "KH"), ("QH",)})


def test_follow_pair() -> None:
    hands = [["KH", "KH", "4S"], ["9H", "9H", "7H"], ["8H", "4D", "6C"], ["6S", "6S", "7C"]]
    g = position(2, "S", 0, hands, 0)
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
    g = position(2, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH"))
    g.apply(act(1, "play", "9H", "9H"))
    g.apply(act(2, "play", "4S", "7C"))  # a trump and a club: a discard
    ev = g.apply(act(3, "play", "2D", "2D"))  # a trump pair (other-suit 2s) wins
    assert next(e.data for e in ev if e.type == "trick_won")["seat"] == 3


def test_higher_pair_of_the_suit_wins() -> None:
    hands = [["KH", "KH"], ["AH", "AH"], ["4S", "4S"], ["5S", "5S"]]
    g = position(2, "C", 0, hands, 0)  # spades are not trump: 4S 4S is a discard
    g.apply(act(0, "play", "KH", "KH"))
    g.apply(act(1, "play", "AH", "AH"))
    g.apply(act(2, "play", "4S", "4S"))
    ev = g.apply(act(3, "play", "5S", "5S"))  # 5s are trumps everywhere
    assert next(e.data for e in ev if e.type == "trick_won") == {
        "seat": 3, "points": 30, "next_leader": 3}


def test_follow_triple_three_decks() -> None:
    hands = [["KH"] * 3 + ["4C", "6C"], ["7H"] * 3 + ["9H"] * 2, ["8H", "8H", "JH", "QH", "7C"],
             ["9H", "JH", "QH", "4H", "8C"]]
    g = position(3, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH", "KH"))
    assert legal(g, 1) == cardsets(*{("7H", "7H", "7H")})
    rejects(g, act(1, "play", "7H", "7H", "9H"), "must_follow_shape")
    g.apply(act(1, "play", "7H", "7H", "7H"))
    assert legal(g, 2) == cardsets(*{("8H", "8H", "JH"), ("8H", "8H", "QH")})
    rejects(g, act(2, "play", "8H", "JH", "QH"), "must_follow_shape")
    g.apply(act(2, "play", "8H", "8H", "QH"))
    assert legal(g, 3) == cardsets(*{("9H", "JH", "QH"), ("4H", "9H", "JH"), ("4H", "9H", "QH"),
                           ("4H", "JH", "QH")})


#: Cards for the seats a test does not look at (no hearts, at most two of a kind).
OTHERS = ["8S", "9S", "TS", "JS", "QS", "KS", "AS"]


def test_follow_triple_may_keep_quad_whole() -> None:
    hands = [["KH"] * 3 + ["4C", "6C", "7C", "8C"], ["7H"] * 4 + ["9H"] * 2 + ["JH"], OTHERS,
             OTHERS]
    g = position(4, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH", "KH"))
    assert legal(g, 1) == cardsets(*{("7H", "7H", "7H"), ("7H", "7H", "9H"), ("7H", "7H", "JH"),
                           ("7H", "9H", "9H"), ("9H", "9H", "JH")})
    rejects(g, act(1, "play", "7H", "9H", "JH"), "must_follow_shape")


def test_follow_pair_may_keep_triple_whole() -> None:
    hands = [["KH"] * 2 + ["4C", "6C", "7C"], ["7H"] * 3 + ["9H", "JH"], OTHERS[:5], OTHERS[:5]]
    g = position(3, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH"))
    assert legal(g, 1) == cardsets(*{("7H", "7H"), ("7H", "9H"), ("7H", "JH"), ("9H", "JH")})


def quad_lead(follower: list[str]) -> list[list[str]]:
    """Seat 0 leads KH KH KH KH (plus 8C 9C to fill), seat 1 follows with
    ``follower``; every hand as large as the follower's."""
    n = len(follower)
    return [["KH"] * 4 + ["8C", "9C"][: n - 4], follower, OTHERS[:n], OTHERS[:n]]


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
    g = position(4, "S", 0, quad_lead(follower), 0)
    g.apply(act(0, "play", "KH", "KH", "KH", "KH"))
    assert legal(g, 1) == cardsets(*expected)


def test_quad_default_follow_lowest() -> None:
    g = position(4, "S", 0, quad_lead(["7H", "7H", "9H", "JH", "QH"]), 0)
    g.apply(act(0, "play", "KH", "KH", "KH", "KH"))
    assert g.default_action(1) == act(1, "play", "7H", "7H", "9H", "JH")


def test_void_quad_of_trumps_wins_other_trumps_discard() -> None:
    hands = [["KH"] * 4, ["5S", "5S", "5S", "4C"], ["AH"] * 4, ["2C"] * 4]
    g = position(4, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH", "KH", "KH"))
    g.apply(act(1, "play", "5S", "5S", "5S", "4C"))  # three trumps and a club: no win
    g.apply(act(2, "play", "AH", "AH", "AH", "AH"))  # a higher quad of hearts
    ev = g.apply(act(3, "play", "2C", "2C", "2C", "2C"))  # a trump quad
    assert next(e.data for e in ev if e.type == "trick_won") == {
        "seat": 3, "points": 55, "next_leader": 3}


def test_played_event_names() -> None:
    hands = [["KH", "KH"], ["9H", "8H"], ["AH", "AH"], ["6S", "6S"]]
    g = position(2, "S", 0, hands, 0)
    names = [g.apply(act(s, "play", *hands[s]))[0].data["combination"] for s in range(4)]
    assert names == ["pair", "follow", "pair", "pair"]


# -- the last trick (抠底) and the table's result ---------------------------------------


def test_kitty_bonus_when_defenders_take_the_last_trick() -> None:
    """抠底: a pair wins the last trick for the defenders: kitty points × 4."""
    hands = [["9D", "9C"], ["AH", "AH"], ["4C", "6C"], ["7D", "8D"]]
    buried = ["KC", "KC", "TC", "5H", "4D", "6D", "7C", "8C"]  # 35 points
    g = position(2, "S", 0, hands, 1, buried=buried, captured=[0, 20, 0, 0])
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
    buried = ["KC", "TC", "5H", "4D", "6D", "7C"]
    g = position(1, "S", 0, hands, 0, buried=buried, captured=[40, 0, 0, 15])
    for seat in range(4):
        g.apply(act(seat, "play", *hands[seat]))
    r = g.result()
    assert r.detail["kitty_multiplier"] == 0
    assert r.detail["defender_points"] == 15
    assert r.points == [2, -2, 2, -2]
    assert r.detail["next_dealer"] == 2


def test_single_kitty_bonus_one_deck() -> None:
    hands = [["AD"], ["BJ"], ["QD"], ["JD"]]
    buried = ["KC", "TC", "5H", "4D", "6D", "7C"]  # 25
    g = position(1, "S", 0, hands, 0, buried=buried)
    for seat in range(4):
        g.apply(act(seat, "play", *hands[seat]))
    r = g.result()
    assert r.detail["kitty_multiplier"] == 2
    assert r.detail["defender_points"] == 50  # 40—55 with one deck: the defenders go up
    assert r.points == [-1, 1, -1, 1]


@pytest.mark.parametrize(("decks", "p", "dealer_pts", "defender_pts", "change"),
                         [c for c in SCORE_CASES if c[1] <= 100 * c[0]])
def test_result_from_table(decks: int, p: int, dealer_pts: int, defender_pts: int,
                           change: bool) -> None:
    """Points per seat: 庄家得分 to both dealer-side seats, 非庄家得分 to both
    defenders; next dealer: the dealer's 下家 when the defenders go up (上台),
    else the dealer's partner. Defender seat 0 took ``p`` points; the dealer
    (seat 3) wins the pointless last trick (rows above 100 per deck need 抠底:
    ``test_score_tables`` covers them)."""
    hands = [["6C"], ["7C"], ["8C"], ["AC"]]
    g = position(decks, "S", 3, hands, 0, captured=[p, 0, 0, 0])
    for seat in range(4):
        g.apply(act(seat, "play", *hands[seat]))
    assert g.finished
    r = g.result()
    assert r.points == [defender_pts, dealer_pts, defender_pts, dealer_pts]
    assert r.detail["next_dealer"] == (0 if change else 1)
    assert r.detail["defender_points"] == p
    assert r.detail["up"] is change
