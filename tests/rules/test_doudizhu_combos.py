"""斗地主 doudizhu combinations: hand-written expectations from seed 002 (§牌型,
§牌型的大小) and rulings.md "doudizhu": readings of rank counts, the options
that change them, lead readings, what beats what, the card order.
"""

from __future__ import annotations

import pytest

from paiju.games.doudizhu import combos as dc

_RANK_OF = {ch: i for i, ch in enumerate(dc.RANK_CHARS)} | {"w": dc.SJ_RANK, "W": dc.BJ_RANK}


def pc(ranks: str) -> list[int]:
    """Rank counts of a rank string: ``"33344455"``; ``w`` = SJ, ``W`` = BJ."""
    out = [0] * dc.NRANKS
    for ch in ranks:
        out[_RANK_OF[ch]] += 1
    return out


def rd(ranks: str, **opts: bool) -> set[tuple[str, str]]:
    """Readings of a rank string as {(kind, main rank char)}."""
    names = [*dc.RANK_CHARS, "w", "W"]
    return {(k, names[m]) for k, m in dc.readings(pc(ranks), **opts)}


# -- combinations (seed §牌型) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "expected"),
    [
        ("3", {("single", "3")}),
        ("w", {("single", "w")}),
        ("22", {("pair", "2")}),
        ("JJJ", {("trio", "J")}),
        ("7777", {("bomb", "7")}),
        ("wW", {("rocket", "W")}),
        ("3336", {("trio_single", "3")}),
        ("44499", {("trio_pair", "4")}),
        ("3334W", set()),  # trio with two singles is nothing
        ("45678", {("chain", "8")}),
        ("789TJQK", {("chain", "K")}),
        ("TJQKA", {("chain", "A")}),
        ("A2345", set()),  # 2 never in a chain
        ("JQKA2", set()),
        ("4567", set()),  # too short
        ("334455", {("pair_chain", "5")}),
        ("3344", set()),
        ("AA22KK", set()),
        ("333444", {("airplane", "4")}),
        ("AAA222", set()),
        ("33344479", {("airplane_singles", "4")}),
        ("33344455", {("airplane_singles", "4")}),  # rulings: wings 5, 5
        ("333444555777", {("airplane_singles", "5")}),  # rulings: wings 7, 7, 7
        ("34445555", set()),  # lead-legality case: 444555 may not take a 5
        ("33344345", set()),
        ("3334447799", {("airplane_pairs", "4")}),
        ("333444555779JJ", set()),  # mixed wings
        ("33344455577JJQQ", {("airplane_pairs", "5")}),
        ("555538", {("four_two_singles", "5")}),
        ("333344", {("four_two_singles", "3")}),  # a pair as two singles
        ("44445577", {("four_two_pairs", "4")}),
        ("4444557", set()),
        ("3333wW", set()),  # the rocket is no pair of kickers by default
        ("333444wW", set()),  # rulings: jokers may not both be wings
        ("333wW", set()),  # a trio with the rocket is nothing
    ],
)
def test_readings(ranks: str, expected: set[tuple[str, str]]) -> None:
    assert rd(ranks) == expected


def test_readings_several() -> None:
    # 555666777888: a four-trio airplane, or three trios with 3 single wings
    assert rd("555666777888") == {
        ("airplane", "8"), ("airplane_singles", "7"), ("airplane_singles", "8"),
    }
    assert rd("33334444") == {("four_two_pairs", "3"), ("four_two_pairs", "4")}


def test_reading_options() -> None:
    assert rd("333344", pair_as_two_singles=False) == set()
    assert rd("333345", pair_as_two_singles=False) == {("four_two_singles", "3")}
    assert rd("333444wW", jokers_as_wings=True) == {("airplane_singles", "4")}
    assert rd("3333wW", jokers_as_wings=True) == {("four_two_singles", "3")}


def test_lead_reading_order() -> None:
    # rulings: rocket, bomb, no kickers, the longer chain; paiju: then the higher main
    def lead(ranks: str) -> tuple[str, int]:
        c = pc(ranks)
        return dc.lead_reading(dc.readings(c), sum(c))

    assert lead("555666777888") == ("airplane", _RANK_OF["8"])
    assert lead("33334444") == ("four_two_pairs", _RANK_OF["4"])
    assert lead("3334445556667779") == ("airplane_singles", _RANK_OF["7"])


def test_beats() -> None:
    chain5 = ("chain", 5, _RANK_OF["7"])
    assert dc.beats(("chain", _RANK_OF["8"]), 5, chain5)
    assert not dc.beats(("chain", _RANK_OF["7"]), 5, chain5)  # equal does not beat
    assert not dc.beats(("chain", _RANK_OF["9"]), 6, chain5)  # other length
    assert dc.beats(("bomb", 0), 4, chain5)
    assert dc.beats(("bomb", 5), 4, ("bomb", 4, 4))
    assert not dc.beats(("bomb", 3), 4, ("bomb", 4, 4, ))
    assert dc.beats(("rocket", 14), 2, ("bomb", 4, 12))
    assert not dc.beats(("bomb", 12), 4, ("rocket", 2, 14))
    # four with two is not a bomb: any bomb beats it
    assert dc.beats(("bomb", 0), 4, ("four_two_singles", 6, 12))
    # singles: BJ > SJ > 2 > A
    assert dc.beats(("single", 14), 1, ("single", 1, 13))
    assert dc.beats(("single", 13), 1, ("single", 1, 12))
    assert dc.beats(("single", 12), 1, ("single", 1, 11))


def test_sort_order() -> None:
    assert dc.sort_cards(["BJ", "2S", "3D", "SJ", "3S", "AH", "TC"]) == [
        "3S", "3D", "TC", "AH", "2S", "SJ", "BJ",
    ]


def test_pair_kickers_may_repeat_a_rank() -> None:
    # paiju ruling: four of a rank may stand as two pair kickers
    assert rd("3334445555") == {("airplane_pairs", "4")}
    assert rd("33334444") == {("four_two_pairs", "3"), ("four_two_pairs", "4")}
