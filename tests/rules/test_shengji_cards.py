"""Unit tests of shengji's card tables, follow combinatorics and score rows
(seed 004 分牌 / 主牌 / 牌的大小 / 牌型 / 跟牌 / 局分计算; rulings.md "shengji").

Every expectation below is typed by hand from the seed and the rulings.
"""

from __future__ import annotations

import pytest

from paiju.games.shengji.game import (
    card_class,
    card_points,
    card_power,
    group_size,
    multiset_combinations,
    partition,
    required_pattern,
    score_row,
    shaped_combinations,
)
from tests.rules.shengji_helpers import SCORE_CASES

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


@pytest.mark.parametrize(("decks", "p", "dealer_pts", "defender_pts", "change"), SCORE_CASES)
def test_score_tables(decks: int, p: int, dealer_pts: int, defender_pts: int, change: bool) -> None:
    assert score_row(decks, p) == (dealer_pts, defender_pts, change)


def test_shaped_combinations() -> None:
    # 777 99 J on a triple lead (required (2, 1)): 777, 77+9, 77+J, 7+99, 99+J; not 7+9+J
    items = [("7H", 3), ("9H", 2), ("JH", 1)]
    assert shaped_combinations(items, 3, (2, 1)) == [
        ("7H", "7H", "7H"), ("7H", "7H", "9H"), ("7H", "7H", "JH"), ("7H", "9H", "9H"),
        ("9H", "9H", "JH")]
    assert shaped_combinations(items, 3, (3,)) == [("7H", "7H", "7H")]
    assert shaped_combinations([("7H", 1), ("9H", 1)], 2, (2,)) == []
