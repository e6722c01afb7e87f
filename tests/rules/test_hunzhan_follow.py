"""混战 hunzhan: following and the point rules (rulings.md "Following", "Point
rules"), hand-written expectations from seed 000 and rulings.md.

Every expected value below was worked out by hand from the rulings, not
computed by the engine (deals: tests/rules/hunzhan_support.py).
"""

from __future__ import annotations

from paiju.rules.engine import Action
from tests.rules.hunzhan_support import cards, error, legal, play, start

# -- following and the point rules (rulings.md "Following", "Point rules") ---------

HEARTS_5_7_K = "5H 7H KH 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC"


def test_follow_single_no_dumping() -> None:
    g = start({0: "TS 9H", 1: HEARTS_5_7_K})
    play(g, 0, "9H")
    assert legal(g, 1) == cards("7H", "KH")  # K beats the 9, the 5 does not
    assert error(g, Action(1, "play", ("5H",))) == "cannot_dump_points"
    assert error(g, Action(1, "play", ("QC",))) == "must_follow_suit"
    assert error(g, Action(1, "play", ("TC",))) == "must_follow_suit"
    assert error(g, Action(1, "play", ("7H", "KH"))) == "must_follow_shape"
    assert g.default_action(1) == Action(1, "play", ("7H",))


def test_point_card_that_beats_is_played_before_one_that_does_not() -> None:
    # rulings.md "Point rules" on the seed's example (上两家出了9、J，则你不能出5，
    # 但是可以出K，若只有5则必须出5): holding only 5H and KH in hearts after a
    # 9H lead, the K beats and so is a play "without such a card"
    g = start({0: "TS 9H", 1: "5H KH 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC 8S"})
    play(g, 0, "9H")
    assert legal(g, 1) == cards("KH")
    assert error(g, Action(1, "play", ("5H",))) == "cannot_dump_points"
    assert g.default_action(1) == Action(1, "play", ("KH",))
    ev = g.apply(Action(1, "timeout"))
    assert ev[1].data["cards"] == ["KH"]


def test_only_a_non_beating_point_card_must_be_played() -> None:
    # the seed's 若只有5则必须出5: a follower whose one heart is the 5
    g = start({0: "TS 9H", 1: "5H 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC 8S 8S"})
    play(g, 0, "9H")
    assert legal(g, 1) == cards("5H")


def test_pair_of_points_that_beats_before_one_that_does_not() -> None:
    # a 9H 9H lead; the follower's hearts are 5H 5H KH KH: KK beats, 55 does not
    g = start({0: "TS 9H 9H", 1: "5H 5H KH KH 7C 8C 9C JC QC AC 7D 8D 9D JD QD AD 2C TC 8S 8S 9S"})
    play(g, 0, "9H 9H")
    assert legal(g, 1) == cards("KH KH")
    assert error(g, Action(1, "play", ("5H", "5H"))) == "cannot_dump_points"
    assert g.default_action(1) == Action(1, "play", ("KH", "KH"))


def test_follow_single_points_must_be_beaten() -> None:
    g = start({0: "TS 5H", 1: HEARTS_5_7_K})
    play(g, 0, "5H")
    assert legal(g, 1) == cards("7H", "KH")
    # the equal 5 does not beat (the first played wins)
    assert error(g, Action(1, "play", ("5H",))) == "must_beat_points"


def test_follow_single_cannot_beat_the_ace() -> None:
    g = start({0: "TS AH", 1: HEARTS_5_7_K})
    play(g, 0, "AH")
    assert legal(g, 1) == cards("7H")
    assert error(g, Action(1, "play", ("KH",))) == "cannot_dump_points"


def test_follow_single_points_that_cannot_be_beaten() -> None:
    g = start({0: "TS KH", 1: HEARTS_5_7_K})
    play(g, 0, "KH")
    assert legal(g, 1) == cards("7H")  # K only ties, so no duty to beat; no dumping


VOID_HEARTS = "5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC 8S 5S KS"


def test_void_follower_trumps_or_discards_without_points() -> None:
    g = start({0: "TS 9H", 1: VOID_HEARTS})
    play(g, 0, "9H")
    every = set(VOID_HEARTS.split())
    # non-beating point cards may not be discarded; trump point cards beat
    assert legal(g, 1) == {(c,) for c in every - {"5C", "KC", "5D", "KD"}}
    assert error(g, Action(1, "play", ("KD",))) == "cannot_dump_points"


def test_void_follower_must_trump_points() -> None:
    g = start({0: "TS KH", 1: VOID_HEARTS})
    play(g, 0, "KH")
    assert legal(g, 1) == cards("2C", "TC", "8S", "5S", "KS")
    assert error(g, Action(1, "play", ("7C",))) == "must_beat_points"
    assert g.default_action(1) == Action(1, "play", ("5S",))


def test_pair_must_be_followed_by_a_pair() -> None:
    g = start({0: "TS 9H 9H",
               1: "7H 7H KH KH 5H 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD"})
    play(g, 0, "9H 9H")
    assert legal(g, 1) == cards("7H 7H", "KH KH")
    assert error(g, Action(1, "play", ("7H", "KH"))) == "must_follow_shape"
    assert error(g, Action(1, "play", ("7H", "5H"))) == "must_follow_shape"
    assert error(g, Action(1, "play", ("5C", "7C"))) == "must_follow_suit"
    assert g.default_action(1) == Action(1, "play", ("7H", "7H"))


def test_pair_followed_by_singles_of_the_suit() -> None:
    g = start({0: "TS 9H 9H", 1: "5H 7H JH 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC"})
    play(g, 0, "9H 9H")
    assert legal(g, 1) == cards("7H JH")  # 5H with either would dump points
    assert error(g, Action(1, "play", ("5H", "7H"))) == "cannot_dump_points"
    assert error(g, Action(1, "play", ("7H", "QC"))) == "must_follow_suit"


def test_pair_partly_void_forced_point_card() -> None:
    hand = "5H 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC 8S 8S"
    g = start({0: "TS 9H 9H", 1: hand})
    play(g, 0, "9H 9H")
    # the 5H must go; the card added freely holds no point (rulings.md "Point
    # rules", card by card: a forced point card does not free the rest)
    free = ["7C", "8C", "9C", "JC", "QC", "AC", "7D", "8D", "9D", "JD", "QD", "AD", "2C", "8S"]
    assert legal(g, 1) == {tuple(sorted(("5H", c))) for c in free}
    assert error(g, Action(1, "play", ("5H", "KC"))) == "cannot_dump_points"
    assert error(g, Action(1, "play", ("5H", "TC"))) == "cannot_dump_points"
    assert error(g, Action(1, "play", ("8S", "8S"))) == "must_follow_suit"


#: The ruling's example (rulings.md "Point rules"): a follower holding QH QH AH
#: JH KH, 7C and 5C; the other 14 cards are all point cards.
RULING_HAND = "QH QH AH JH KH 7C 5C 5C KC KC KD KD 5D 5D TC TC TD TD SJ SJ BJ"


def test_forced_point_card_does_not_free_the_added_cards() -> None:
    # leading 7788 99 of hearts: the five hearts (KH among them) are forced,
    # the sixth card is added freely and must be 7C, not 5C
    g = start({0: "TS 7H 7H 8H 8H 9H 9H", 1: RULING_HAND})
    play(g, 0, "7H 7H 8H 8H 9H 9H")
    assert legal(g, 1) == cards("QH QH AH JH KH 7C")
    assert g.default_action(1) == Action(1, "play", ("AH", "KH", "QH", "QH", "JH", "7C"))
    assert error(g, Action(1, "play", ("QH", "QH", "AH", "JH", "KH", "5C"))) \
        == "cannot_dump_points"
    # a trump point card added to a play that cannot win (not the led shape)
    assert error(g, Action(1, "play", ("QH", "QH", "AH", "JH", "KH", "TC"))) \
        == "cannot_dump_points"
    ev = g.apply(Action(1, "timeout"))
    assert ev[0].type == "timed_out"
    assert sorted(ev[1].data["cards"]) == sorted(["QH", "QH", "AH", "JH", "KH", "7C"])


def test_added_point_card_only_where_no_other_card_would_do() -> None:
    # four hearts forced, two cards added: the one plain card (7C) must be one
    # of them; the other is a point card, any of them (none would do better)
    hand = "QH QH AH KH 7C 5C 5C KC KC KD KD 5D 5D TC TC TD TD SJ SJ BJ BJ"
    g = start({0: "TS 7H 7H 8H 8H 9H 9H", 1: hand})
    play(g, 0, "7H 7H 8H 8H 9H 9H")
    points = ["5C", "KC", "KD", "5D", "TC", "TD", "SJ", "BJ"]
    assert legal(g, 1) == {tuple(sorted(["QH", "QH", "AH", "KH", "7C", c])) for c in points}
    assert error(g, Action(1, "play", ("QH", "QH", "AH", "KH", "5C", "KC"))) \
        == "cannot_dump_points"


def test_suit_follow_takes_the_plain_card_before_a_second_point_card() -> None:
    # 7788 of hearts; the follower's hearts QH QH KH 5H 9H: the pair QQ and two
    # singles; one point card must go, but the 9H does in place of the other
    hand = "QH QH KH 5H 9H 7C 8C 9C JC QC AC 7D 8D 9D JD QD AD 7C 8C 9C JC"
    g = start({0: "TS 7H 7H 8H 8H", 1: hand})
    play(g, 0, "7H 7H 8H 8H")
    assert legal(g, 1) == cards("QH QH 9H KH", "QH QH 9H 5H")
    assert error(g, Action(1, "play", ("QH", "QH", "KH", "5H"))) == "cannot_dump_points"
    assert g.default_action(1) == Action(1, "play", ("QH", "QH", "9H", "5H"))


def test_void_follower_must_beat_a_pair_with_points() -> None:
    hand = "5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC 8S 8S 5S"
    g = start({0: "TS KH KH", 1: hand})
    play(g, 0, "KH KH")
    assert legal(g, 1) == cards("8S 8S")
    assert error(g, Action(1, "play", ("2C", "TC"))) == "must_beat_points"
    g2 = start({0: "TS 9H 9H", 1: hand})
    play(g2, 0, "9H 9H")
    got = legal(g2, 1)
    assert cards("8S 8S", "7C 8C") <= got
    assert tuple(sorted(("2C", "TC"))) not in got  # TC does not beat: not a pair
    assert error(g2, Action(1, "play", ("2C", "TC"))) == "cannot_dump_points"


def test_run_followed_by_pairs_then_singles() -> None:
    hand = "7H 7H 8H 5H QH 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD"
    g = start({0: "TS 9H 9H JH JH", 1: hand})
    play(g, 0, "9H 9H JH JH")
    assert legal(g, 1) == cards("7H 7H 8H QH")
    assert error(g, Action(1, "play", ("7H", "7H", "8H", "5H"))) == "cannot_dump_points"
    assert error(g, Action(1, "play", ("QH", "8H", "5H", "7H"))) == "must_follow_shape"
    assert error(g, Action(1, "play", ("7H", "7H", "8H", "5C"))) == "must_follow_suit"


def test_run_beaten_by_a_higher_run() -> None:
    hand = "QH QH KH KH 7H 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD"
    g = start({0: "TS 9H 9H JH JH", 1: hand})
    play(g, 0, "9H 9H JH JH")
    assert legal(g, 1) == cards("QH QH KH KH")
    play(g, 1, "QH QH KH KH")
    assert g.view(2)["trick_winner"] == 1


def test_run_trumped_by_a_trump_run() -> None:
    hand = "7S 7S 8S 8S 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C"
    g = start({0: "TS 9H 9H JH JH", 1: hand})
    play(g, 0, "9H 9H JH JH")
    assert tuple(sorted(["7S", "7S", "8S", "8S"])) in legal(g, 1)
    play(g, 1, "8S 8S 7S 7S")
    assert g.view(0)["trick_winner"] == 1


def test_lead_must_be_a_combination() -> None:
    g = start({0: "TS 9H 9H JH JH AH"})
    assert error(g, Action(0, "play", ("9H", "JH"))) == "invalid_combination"
    assert error(g, Action(0, "play", ("9H", "9H", "JH"))) == "invalid_combination"
    assert error(g, Action(0, "play", ())) == "invalid_combination"
    assert error(g, Action(0, "play", ("9H", "JH", "AH"))) == "invalid_combination"


def test_equal_other_suit_tens_tie_first_played_wins() -> None:
    hand = "TC 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 5H 7H 8H 9H"
    g = start({0: "TS TH", 1: hand})
    play(g, 0, "TH")
    assert legal(g, 1) == cards("TC")  # forced: the only trump, it ties
    play(g, 1, "TC")
    assert g.view(2)["trick_winner"] == 0


def test_no_trump_tens_ordered_by_suit() -> None:
    hand = "TS TD 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 5H 7H 8H"
    g = start({0: "BJ BJ TH", 1: hand}, declare=("BJ", "BJ"))
    play(g, 0, "TH")
    assert legal(g, 1) == cards("TS")  # ♠10 beats ♥10; ♦10 does not
    assert error(g, Action(1, "play", ("TD",))) == "must_beat_points"
    play(g, 1, "TS")
    assert g.view(2)["trick_winner"] == 1


def test_run_need_not_be_followed_by_a_run() -> None:
    # paiju ruling: rulings.md asks for pairs, not for a run: two pairs that are
    # not consecutive (7-7, Q-Q) follow a two-pair run, and must be played
    hand = "7H 7H QH QH 8H 5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD"
    g = start({0: "TS 9H 9H JH JH", 1: hand})
    play(g, 0, "9H 9H JH JH")
    assert legal(g, 1) == cards("7H 7H QH QH")
    assert error(g, Action(1, "play", ("7H", "7H", "QH", "8H"))) == "must_follow_shape"
    play(g, 1, "QH QH 7H 7H")
    assert g.view(2)["trick_winner"] == 0  # not a run: it cannot win


def test_long_run_void_follower_lists_point_free_sets() -> None:
    # 14 cards without points, no trump run to beat with: every 12 of them, C(14, 12) = 91
    hand = "5C 7C 8C 9C JC QC KC AC 5D 7D 8D 9D JD QD KD AD 2C TC 8S 5S KS"
    g = start({0: "TS 5H 5H 7H 7H 8H 8H 9H 9H JH JH QH QH", 1: hand})
    play(g, 0, "5H 5H 7H 7H 8H 8H 9H 9H JH JH QH QH")
    plain = ["7C", "8C", "9C", "JC", "QC", "AC", "7D", "8D", "9D", "JD", "QD", "AD", "2C", "8S"]
    got = legal(g, 1)
    assert len(got) == 91
    assert all(len(p) == 12 and set(p) <= set(plain) for p in got)
    assert error(g, Action(1, "play", tuple([*plain[:11], "KC"]))) == "cannot_dump_points"
