"""大A combinations and power classes, with expectations written by hand from
seed 003 (牌套, 较为特殊牌种) and rulings.md "daa" (the power-class table).

The big-A suit is ♥ throughout (``AH`` is the big A)."""

from __future__ import annotations

import pytest

from paiju.games.daa.combos import (
    KIND_BIG_A_PAIR,
    KIND_BOMB4,
    KIND_CHAIN3,
    KIND_FAKE8,
    KIND_FAKE14,
    KIND_JOKERS2,
    KIND_PAIR,
    KIND_PAIR_RUN,
    KIND_RUN,
    KIND_SINGLE,
    KIND_TAKE_BACK,
    KIND_TRIO,
    beats,
    classify,
    run_high,
    sort_cards,
)
from paiju.games.daa.moves import HandInfo, generate

BIG = "AH"


def c(text: str) -> list[str]:
    return text.split()


def combo(text: str) -> tuple[int, int, int]:
    got = classify(c(text), BIG)
    assert got is not None, text
    return got


# One representative of every kind of the rulings' table (low ranks where a
# rank exists, so that a "beats" below is about the kind, never the rank).
REPS: dict[str, str] = {
    "single": "9S",
    "small_joker": "SJ",
    "big_joker": "BJ",
    "big_a": "AH",
    "pair": "9S 9D",
    "run3": "5S 6D 7C",
    "pair_run3": "5S 5D 6S 6D 7C 7C",
    "trio": "9S 9D 9C",
    "bomb4": "9S 9D 9C 9H",
    "bomb5": "9S 9D 9C 9H 9S",
    "bomb6": "9S 9D 9C 9H 9S 9D",
    "two_jokers": "SJ SJ",
    "chain3": "9S 9D 9C TS TD TC JS JD JC",
    "fake8": "9S 9D 9C 9H TS TD TC TH",
    "seven": "9S 9D 9C 9H 9S 9D 9C",
    "three_jokers": "SJ SJ BJ",
    "eight": "9S 9D 9C 9H 9S 9D 9C 9H",
    "fake10": "9S 9D 9C 9H 9S TS TD TC TH TS",
    "chain4": "5S 5D 5C 6S 6D 6C 7S 7D 7C 8S 8D 8C",
    "fake12": "9S 9D 9C 9H 9S 9D TS TD TC TH TS TD",
    "chain5": "5S 5D 5C 6S 6D 6C 7S 7D 7C 8S 8D 8C 9S 9D 9C",
    "four_jokers": "SJ SJ BJ BJ",
    "fake14": "9S 9D 9C 9H 9S 9D 9C TS TD TC TH TS TD TC",
    "chain6": "5S 5D 5C 6S 6D 6C 7S 7D 7C 8S 8D 8C 9S 9D 9C TS TD TC",
    "chain7": "5S 5D 5C 6S 6D 6C 7S 7D 7C 8S 8D 8C 9S 9D 9C TS TD TC JS JD JC",
    "big_a_pair": "AH AH",
}

# What each kind beats among the OTHER kinds, written out from the table:
# class 1 beats no other kind except the joker / big-A single lines; 蛋子 beats
# singles, pairs, 龙 (not 双龙, jokers, big A); 4-大蛋子 beats classes 1-2 and
# single jokers but not the big A; 5/6-大蛋子 also the big A; from 双王 up each
# class beats every class below it; the pair of big As beats everything.
CLASS_1_AND_2 = ["single", "small_joker", "big_joker", "pair", "run3", "pair_run3", "trio"]
BEATS: dict[str, list[str]] = {
    "single": [],
    "small_joker": ["single"],
    "big_joker": ["single", "small_joker"],
    "big_a": ["single", "small_joker", "big_joker"],
    "pair": [],
    "run3": [],
    "pair_run3": [],
    "trio": ["single", "pair", "run3"],
    "bomb4": CLASS_1_AND_2,
    "bomb5": [*CLASS_1_AND_2, "big_a", "bomb4"],
    "bomb6": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5"],
    "two_jokers": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6"],
    "chain3": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers"],
    "fake8": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3"],
    "seven": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
              "fake8"],
    "three_jokers": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers",
                     "chain3", "fake8", "seven"],
    "eight": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
              "fake8", "seven", "three_jokers"],
    "fake10": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
               "fake8", "seven", "three_jokers", "eight"],
    "chain4": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
               "fake8", "seven", "three_jokers", "eight", "fake10"],
    "fake12": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
               "fake8", "seven", "three_jokers", "eight", "fake10", "chain4"],
    "chain5": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
               "fake8", "seven", "three_jokers", "eight", "fake10", "chain4", "fake12"],
    "four_jokers": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers",
                    "chain3", "fake8", "seven", "three_jokers", "eight", "fake10", "chain4",
                    "fake12", "chain5"],
    "fake14": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
               "fake8", "seven", "three_jokers", "eight", "fake10", "chain4", "fake12",
               "chain5", "four_jokers"],
    "chain6": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
               "fake8", "seven", "three_jokers", "eight", "fake10", "chain4", "fake12",
               "chain5", "four_jokers", "fake14"],
    "chain7": [*CLASS_1_AND_2, "big_a", "bomb4", "bomb5", "bomb6", "two_jokers", "chain3",
               "fake8", "seven", "three_jokers", "eight", "fake10", "chain4", "fake12",
               "chain5", "four_jokers", "fake14", "chain6"],
    "big_a_pair": [k for k in REPS if k != "big_a_pair"],
}

PAIRS = [(new, old) for new in REPS for old in REPS if new != old]


def test_table_is_complete() -> None:
    assert set(BEATS) == set(REPS)
    for new, olds in BEATS.items():
        assert set(olds) <= set(REPS) - {new}, new


@pytest.mark.parametrize(("new", "old"), PAIRS, ids=[f"{n}-vs-{o}" for n, o in PAIRS])
def test_power_classes(new: str, old: str) -> None:
    assert beats(combo(REPS[new]), combo(REPS[old])) == (old in BEATS[new])


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("3S", KIND_SINGLE),
        ("AS AH", KIND_PAIR),  # one big A in a pair: an ordinary pair of A
        ("AH AH", KIND_BIG_A_PAIR),
        ("AS 2S 3S", KIND_RUN),
        ("QS KS AH", KIND_RUN),  # the big A inside a run is an ordinary A
        ("2S 3S 4S 5S", KIND_RUN),
        ("AS AD 2S 2D 3S 3D", KIND_PAIR_RUN),
        ("AS AS AD", KIND_TRIO),
        ("2S 2S 2D 3S 3S 3D 4S 4S 4D", KIND_CHAIN3),  # seed: 222 333 444
        ("AS AD AC AH 2S 2D 2C 2H", KIND_FAKE8),  # seed: AAAA+2222
        ("KS KD KC KH AS AD AC AH", KIND_FAKE8),
        ("AS AD AC AH AS AD AC 2S 2D 2C 2H 2S 2D 2C", KIND_FAKE14),
        ("BJ SJ", KIND_JOKERS2),
        ("BJ BJ", KIND_JOKERS2),
        ("9S 9S 9D 9D", KIND_BOMB4),
    ],
)
def test_classify(text: str, kind: int) -> None:
    assert combo(text)[0] == kind


@pytest.mark.parametrize(
    "text",
    [
        "KS AS 2S",  # A in the middle: KA2 is no run
        "QS KS AS 2S",
        "4S 5S",  # two singles are no run
        "4S 4D 5S 5D",  # two pairs are no 双龙
        "4S 4D 4C 5S 5D 5C",  # two trios are no 连珠蛋
        "4S 4D 4C 4H 5S 5D 5C 5H 6S 6D 6C 6H",  # three 4-of-a-kinds: not a 假八
        "4S 4D 4C 4H 6S 6D 6C 6H",  # not consecutive
        "4S 4D 4C 5S 5D",  # unequal groups
        "BJ 3S",
        "4S 6S 7S",
    ],
)
def test_not_a_combination(text: str) -> None:
    assert classify(c(text), BIG) is None


def test_run_high_uses_natural_sequence() -> None:
    assert run_high("A23") == 3
    assert run_high("234") == 4
    assert run_high("QKA") == 14
    assert run_high("KA2") is None
    assert run_high("A23456789TJQK") == 14  # all 13: A taken high


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        ("5S", "4S", True),
        ("4S", "4D", False),  # equal cards tie
        ("3S", "2S", True),  # 3 is the highest ordinary single
        ("AS", "KS", True),
        ("2D", "AS", True),
        ("SJ", "3S", True),
        ("BJ", "SJ", True),
        ("SJ", "BJ", False),
        ("SJ", "SJ", False),
        ("AH", "BJ", True),  # the big A beats every single
        ("AS", "BJ", False),
        ("AH", "AH", False),
        ("3S 3D", "2S 2D", True),
        ("AH AS", "KS KD", True),  # an ordinary pair of A
        ("2S 3S 4S", "AS 2S 3S", True),  # A23 is the lowest 龙
        ("QS KS AS", "JS QS KS", True),  # QKA the highest
        ("5S 6S 7S 8S", "4S 5S 6S", False),  # same length only
        ("4S 5S 6S", "5S 6S 7S 8S", False),
        ("5S 5D 6S 6D 7S 7D", "4S 4D 5S 5D 6S 6D", True),
        ("5S 5D 5C", "4S 4D 4C", True),
        ("4S 4D 4C 4H 4S", "3S 3D 3C 3H", True),  # seed: more cards beat fewer
        ("7S 7D 7C 7H 7S 7D", "KS KD KC KH", True),  # seed: 六个7可以管四个K
        ("2S 2D 2C 2H", "3S 3D 3C", True),  # seed: 四个2可以管三个3
        ("3S 3D 3C 3H", "4S 4D 4C 4H 4S", False),
        ("SJ SJ", "BJ BJ", False),  # 双王: any two jokers, no order among them
        ("BJ BJ", "SJ SJ", False),
        ("5S 5D 5C 6S 6D 6C 7S 7D 7C", "4S 4D 4C 5S 5D 5C 6S 6D 6C", True),
        ("5S 5D 5C 5H 6S 6D 6C 6H", "4S 4D 4C 4H 5S 5D 5C 5H", True),
        ("5S 5D 5C 5H 5S 5D 5C", "4S 4D 4C 4H 4S 4D 4C", True),
        ("AH", "4S 4D 4C 4H", False),
        ("4S 4D 4C 4H 4S", "AH", True),
    ],
)
def test_same_class_order(new: str, old: str, expected: bool) -> None:
    assert beats(combo(new), combo(old)) == expected


def test_take_back_standing() -> None:
    # 4s that took a trio (class 2): beaten by class 3 and up, not by a trio.
    standing = (KIND_TAKE_BACK, 2, 2)
    assert not beats(combo("3S 3D 3C"), standing)
    assert beats(combo("5S 5D 5C 5H"), standing)
    assert not beats(combo("BJ"), standing)
    # 4s that took a 4-of-a-kind (class 3): a 5-大蛋子 is class 3 too.
    standing = (KIND_TAKE_BACK, 3, 3)
    assert not beats(combo("5S 5D 5C 5H 5S"), standing)
    assert beats(combo("SJ BJ"), standing)


def plays(hand: str, standing: str | None) -> set[tuple[str, ...]]:
    info = HandInfo(c(hand), BIG)
    got = generate(info, None if standing is None else combo(standing))
    assert len(got) == len(set(got)), "duplicates"
    return set(got)


def t(text: str) -> tuple[str, ...]:
    return tuple(sort_cards(c(text)))


def test_generate_lead_small_hand() -> None:
    got = plays("4S 4D 5S 6S 6H", None)
    expected = {
        t("4S"), t("4D"), t("5S"), t("6S"), t("6H"),
        t("4S 4D"), t("6S 6H"),
        t("4S 5S 6S"), t("4S 5S 6H"), t("4D 5S 6S"), t("4D 5S 6H"),
    }
    assert got == expected


def test_generate_follow_single_and_take_back() -> None:
    assert plays("4S 5S AH AS BJ", "KS") == {t("AH"), t("AS"), t("BJ")}
    assert plays("4S 5S AS BJ", "AH") == set()
    assert plays("4S 4D 4C 9S", "KS KD KC") == {t("4S 4D"), t("4S 4C"), t("4D 4C")}
    assert plays("4S 4D 4C 9S", "KS KD KC KH") == {t("4S 4D 4C")}
    assert plays("4S 4D AH AH", "KS KD") == {t("AH AH")}  # the big-A pair only


def test_generate_thirteen_run_once() -> None:
    hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    got = plays(hand, None)
    assert t(hand) in got
    assert plays(hand, "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KD") == set()
