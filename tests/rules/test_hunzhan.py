"""混战 hunzhan: hand-written expectations from seed 000 and rulings.md "hunzhan".

Every expected value below was worked out by hand from the seed and the
rulings, not computed by the engine. Deals are written out card by card
(``SUITED`` gives each seat one suit, which makes every trick predictable) or
built by :func:`make_deal` from the cards that matter plus filler.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from paiju.replay import replay
from paiju.rules.cards import deck
from paiju.rules.engine import Action
from paiju.rules.errors import RulesError
from paiju.rules.hunzhan import Hunzhan
from paiju.rules.hunzhan_cards import ORDERS, card_points, classify, lead_options, sort_cards

PLAIN = "5789JQKA"


def plain(suit: str) -> list[str]:
    """The 16 plain cards (5 7 8 9 J Q K A, twice) of ``suit``."""
    return [r + suit for r in PLAIN for _ in (0, 1)]


#: Seat 0 spades, 1 hearts, 2 clubs, 3 diamonds, plus 10s / 2s / jokers.
#: Seat 0's list starts with BJ, TD and ends with the second BJ (for ``dealt``).
SUITED: list[list[str]] = [
    ["BJ", "TD", *plain("S"), "TS", "2S", "BJ"],
    [*plain("H"), "TH", "TH", "2H", "2H", "2S"],
    [*plain("C"), "TC", "TC", "2C", "2C", "SJ"],
    [*plain("D"), "TD", "2D", "2D", "SJ", "TS"],
]


def suited_deal(first: int = 0, order: bool = False) -> dict[str, Any]:
    deal: dict[str, Any] = {"hands": [list(h) for h in SUITED], "bottom": [], "first": first}
    if order:
        deal["order"] = [SUITED[(first + j) % 4][j // 4] for j in range(84)]
    return deal


def make_deal(spec: dict[int, str], first: int = 0) -> dict[str, Any]:
    """A deal where the seats of ``spec`` hold those cards (filled up to 21 from
    the rest of the deck in deck order); other seats get the rest."""
    pool = Counter(deck(2, without_ranks="346"))
    hands: list[list[str]] = [spec.get(s, "").split() for s in range(4)]
    for h in hands:
        pool.subtract(h)
    assert min(pool.values()) >= 0, "a card is used more than twice"
    rest = [c for c in deck(1, without_ranks="346") for _ in range(pool[c])]
    for h in hands:
        need = 21 - len(h)
        h.extend(rest[:need])
        rest = rest[need:]
    return {"hands": hands, "bottom": [], "first": first}


def start(spec: dict[int, str], declare: tuple[str, ...] = ("TS",)) -> Hunzhan:
    """Seat 0 declares ``declare`` and leads."""
    g = Hunzhan({}, make_deal(spec))
    g.apply(Action(0, "declare", declare))
    g.apply(Action(None, "end_declare"))
    assert g.phase == "play" and g.to_act() == [0]
    return g


def play(g: Hunzhan, seat: int, cards: str) -> list[Any]:
    return g.apply(Action(seat, "play", tuple(cards.split())))


def legal(g: Hunzhan, seat: int) -> set[tuple[str, ...]]:
    return {tuple(sorted(a.cards)) for a in g.legal_actions(seat)}


def cards(*plays: str) -> set[tuple[str, ...]]:
    return {tuple(sorted(p.split())) for p in plays}


def error(g: Hunzhan, action: Action) -> str:
    before = snapshot(g)
    with pytest.raises(RulesError) as e:
        g.apply(action)
    assert snapshot(g) == before, "a refused action changed the state"
    return e.value.code


def snapshot(g: Hunzhan) -> Any:
    return (
        [g.view(s) for s in range(4)],
        [[a.to_json() for a in g.legal_actions(s)] for s in range(4)],
        g.phase,
        list(g.timeouts),
    )


# -- card order and combinations (rulings.md "Order in trump", "Leads") -------------


def test_order_with_trump_spades() -> None:
    o = ORDERS["S"]
    high_to_low = ["BJ", "SJ", "TS", "TH", "2S", "2D", "AS", "KS", "QS", "JS", "9S", "8S",
                   "7S", "5S"]
    lv = [o.level[c] for c in high_to_low]
    assert lv == sorted(lv, reverse=True) and len(set(lv)) == len(lv)
    # other-suit 10s are equal, other-suit 2s are equal
    assert o.level["TH"] == o.level["TC"] == o.level["TD"]
    assert o.level["2H"] == o.level["2C"] == o.level["2D"]
    assert {o.group[c] for c in ["BJ", "SJ", "TD", "2H", "5S", "AS"]} == {"T"}
    assert o.group["AH"] == "H" and o.group["5D"] == "D"
    side = ["AH", "KH", "QH", "JH", "9H", "8H", "7H", "5H"]
    assert [o.level[c] for c in side] == sorted((o.level[c] for c in side), reverse=True)


def test_order_no_trump_suit_order_among_equal_values() -> None:
    o = ORDERS[None]
    high_to_low = ["BJ", "SJ", "TS", "TH", "TC", "TD", "2S", "2H", "2C", "2D"]
    lv = [o.level[c] for c in high_to_low]
    assert lv == sorted(lv, reverse=True) and len(set(lv)) == len(lv)
    assert all(o.group[c] == "T" for c in high_to_low)
    # no trump suit: the plain spades are a side suit
    assert o.group["AS"] == "S" and o.group["5S"] == "S"


def test_suit_order_does_not_apply_with_a_trump_suit() -> None:
    o = ORDERS["H"]
    assert o.level["TS"] == o.level["TD"] and o.level["2S"] == o.level["2C"]
    assert o.level["TH"] > o.level["TS"] and o.level["2H"] > o.level["2S"]


def test_points() -> None:
    assert card_points(["5H", "TC", "KD", "BJ", "SJ", "AS", "2H", "QS"]) == 5 + 10 + 10 + 10 + 10
    assert card_points(deck(2, without_ranks="346")) == 240


@pytest.mark.parametrize(
    ("trump", "play", "kind"),
    [
        ("S", "9H", "single"),
        ("S", "9H 9H", "pair"),
        ("S", "9H 9H JH JH", "run"),  # 9-J: the 10 is promoted
        ("S", "5H 5H 7H 7H", "run"),  # 5-7: the 6 is removed
        ("S", "7H 7H 8H 8H 9H 9H", "run"),
        ("S", "QH QH KH KH AH AH", "run"),
        ("S", "AS AS 2H 2H", "run"),  # 主AA和副22可以连
        ("S", "2H 2H 2S 2S", "run"),  # other 2 - trump 2
        ("S", "2S 2S TD TD", "run"),  # trump 2 - other 10
        ("S", "TD TD TS TS", "run"),  # other 10 - trump 10
        ("S", "TS TS SJ SJ", "run"),
        ("S", "SJ SJ BJ BJ", "run"),  # 大小王可以连
        ("S", "KS KS AS AS 2C 2C", "run"),
        ("None", "SJ SJ BJ BJ", "run"),
        ("None", "9S 9S JS JS", "run"),
        ("S", "9H JH", None),  # two singles
        ("S", "JH QH KH AH", None),  # no single runs
        ("S", "AH AH KH", None),  # no throws
        ("S", "2H 2H 2C 2C", None),  # equal-rank cards are not consecutive
        ("S", "TH TH TC TC", None),
        ("S", "7H 7H 9H 9H", None),
        ("S", "AH AH 2H 2H", None),  # side A is not next to the 2s
        ("H", "AS AS 2S 2S", None),  # AS is a side card when hearts are trump
        ("S", "8H 8H 8C 8C", None),  # two suits
        ("None", "TS TS SJ SJ", None),  # no-trump: only SJ-BJ among trumps
        ("None", "2S 2S TD TD", None),
        ("None", "TH TH TS TS", None),
        ("None", "AH AH 2H 2H", None),
        ("S", "", None),
    ],
)
def test_classify(trump: str, play: str, kind: str | None) -> None:
    o = ORDERS[None if trump == "None" else trump]
    got = classify(play.split(), o)
    assert (got[0] if got else None) == kind


def test_lead_options_lists_every_distinct_lead() -> None:
    o = ORDERS["S"]
    hand = dict(Counter(["AS", "AS", "2H", "2H", "2C", "2C", "2S", "2S", "9H"]))
    got = {tuple(sorted(p)) for p in lead_options(hand, o)}
    want = cards(
        "AS", "2H", "2C", "2S", "9H", "AS AS", "2H 2H", "2C 2C", "2S 2S",
        "AS AS 2H 2H", "AS AS 2C 2C", "2H 2H 2S 2S", "2C 2C 2S 2S",
        "AS AS 2H 2H 2S 2S", "AS AS 2C 2C 2S 2S",
    )
    assert got == want
    assert len(lead_options(hand, o)) == len(want)


def test_hand_order() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", ("TS",)))
    g.apply(Action(None, "end_declare"))
    assert g.view(0)["hand"] == [
        "BJ", "BJ", "TS", "TD", "2S", "AS", "AS", "KS", "KS", "QS", "QS", "JS", "JS",
        "9S", "9S", "8S", "8S", "7S", "7S", "5S", "5S",
    ]
    assert g.view(1)["hand"][:7] == ["TH", "TH", "2S", "2H", "2H", "AH", "AH"]
    assert sort_cards(["5D", "AH", "5S", "SJ"], ORDERS["S"]) == ["SJ", "5S", "AH", "5D"]


# -- declaring (seed 000 叫主; rulings.md "Declaring") ------------------------------


def test_declaring_sequence_and_self_overcall() -> None:
    g = Hunzhan({}, suited_deal())
    assert g.phase == "declaring" and g.to_act() == []
    assert [a.cards for a in g.declare_options(0)] == [("BJ", "BJ"), ("TS",), ("TD",)]
    assert [a.cards for a in g.declare_options(3)] == [("TS",), ("TD",)]
    assert [a.cards for a in g.declare_options(1)] == [("TH",)]
    assert g.legal_actions(2) == g.declare_options(2) == [Action(2, "declare", ("TC",))]
    ev = g.apply(Action(0, "declare", ("TD",)))
    assert ev[0].type == "declared" and ev[0].to is None
    assert ev[0].data["seat"] == 0 and ev[0].data["cards"] == ["TD"]
    assert ev[0].data["trump"] == "D"
    assert error(g, Action(3, "declare", ("TD",))) == "declare_too_weak"  # equal is not enough
    g.apply(Action(2, "declare", ("TC",)))
    assert error(g, Action(1, "declare", ("SJ",))) == "invalid_combination"  # no single joker
    assert error(g, Action(1, "declare", ("TH", "TH"))) == "invalid_combination"
    assert error(g, Action(1, "declare", ("2H",))) == "invalid_combination"
    assert error(g, Action(1, "declare", ("TS",))) == "cards_not_in_hand"
    assert error(g, Action(2, "declare", ("SJ", "SJ"))) == "cards_not_in_hand"
    g.apply(Action(1, "declare", ("TH",)))
    assert error(g, Action(1, "declare", ("TH",))) == "declare_too_weak"
    g.apply(Action(3, "declare", ("TS",)))
    # paiju ruling: the standing declarer may overcall itself with a stronger declaration
    assert [a.cards for a in g.declare_options(0)] == [("BJ", "BJ")]
    assert g.declare_options(3) == []
    # seat 0 was overcalled and declares again
    g.apply(Action(0, "declare", ("BJ", "BJ")))
    assert all(g.declare_options(s) == [] for s in range(4))
    assert error(g, Action(0, "play", ("5S",))) == "wrong_phase"
    ev = g.apply(Action(None, "end_declare"))
    assert ev[0].type == "declaring_closed" and ev[0].data["trump"] is None
    assert ev[0].data["leader"] == 0
    assert g.phase == "play" and g.to_act() == [0] and g.trump is None
    assert error(g, Action(3, "declare", ("TS",))) == "wrong_phase"
    assert error(g, Action(None, "end_declare")) == "wrong_phase"


def test_standing_declarer_overcalls_itself() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", ("TD",)))
    g.apply(Action(0, "declare", ("TS",)))
    g.apply(Action(0, "declare", ("BJ", "BJ")))
    g.apply(Action(None, "end_declare"))
    assert g.trump is None and g.to_act() == [0]


def test_last_declarer_leads_and_names_trump() -> None:
    g = Hunzhan({}, suited_deal(first=2))
    g.apply(Action(3, "declare", ("TD",)))
    g.apply(Action(1, "declare", ("TH",)))
    g.apply(Action(None, "end_declare"))
    assert g.trump == "H" and g.to_act() == [1] and g.view(2)["leader"] == 1


def test_nobody_declares_is_a_redeal() -> None:
    g = Hunzhan({}, suited_deal())
    ev = g.apply(Action(None, "end_declare"))
    assert ev[0].type == "declaring_closed" and ev[0].data["redeal"] is True
    assert g.finished and g.phase == "finished"
    r = g.result()
    assert r.points == [0, 0, 0, 0]
    assert r.detail["redeal"] is True and r.detail["trump"] is None
    assert error_game_over(g)


def error_game_over(g: Hunzhan) -> bool:
    with pytest.raises(RulesError) as e:
        g.apply(Action(None, "end_declare"))
    return e.value.code == "game_over"


def test_end_declare_needs_null_seat() -> None:
    g = Hunzhan({}, suited_deal())
    assert error(g, Action(0, "end_declare")) == "malformed_action"


def test_declare_with_dealt_checks_cards_dealt_so_far() -> None:
    # first = 1: card j goes to seat (1 + j) % 4, so seat 0 gets cards 3, 7, 11, ...
    g = Hunzhan({}, suited_deal(first=1, order=True))
    assert g.declare_options(0, dealt=3) == []
    assert [a.cards for a in g.declare_options(0, dealt=4)] == []  # one BJ only
    assert [a.to_json() for a in g.declare_options(0, dealt=8)] == [
        {"seat": 0, "type": "declare", "cards": ["TD"], "dealt": 8}
    ]
    assert error(g, Action(0, "declare", ("TD",), 7)) == "cards_not_in_hand"
    g.apply(Action(0, "declare", ("TD",), 8))
    # seat 0's second BJ is the last card dealt (card 83)
    assert error(g, Action(0, "declare", ("BJ", "BJ"), 83)) == "cards_not_in_hand"
    assert error(g, Action(0, "declare", ("BJ", "BJ"), 85)) == "malformed_action"
    assert [a.cards for a in g.declare_options(0, dealt=84)] == [("BJ", "BJ"), ("TS",)]
    g.apply(Action(0, "declare", ("BJ", "BJ"), 84))
    with pytest.raises(RulesError) as e:
        g.declare_options(0, dealt=-1)
    assert e.value.code == "malformed_action"


def test_order_must_match_the_hands() -> None:
    deal = suited_deal(first=1, order=True)
    deal["first"] = 0  # the same order dealt from seat 0 gives other hands
    with pytest.raises(RulesError) as e:
        Hunzhan({}, deal)
    assert e.value.code == "bad_deal"


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d["hands"][0].pop(),
        lambda d: d["hands"][0].__setitem__(0, "3S"),
        lambda d: d["hands"][0].__setitem__(0, "XX"),
        lambda d: d.__setitem__("bottom", ["BJ"]),
        lambda d: d.__setitem__("first", 4),
        lambda d: d.__setitem__("hands", d["hands"][:3]),
        lambda d: d.__setitem__("order", ["BJ"] * 84),
    ],
)
def test_bad_deal(mutate: Any) -> None:
    deal = suited_deal()
    mutate(deal)
    with pytest.raises(RulesError) as e:
        Hunzhan({}, deal)
    assert e.value.code == "bad_deal"


@pytest.mark.parametrize(
    "options",
    [{"turn_seconds": 0}, {"turn_seconds": "20"}, {"decks": 2}, {"reconnect_seconds": True}],
)
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(RulesError) as e:
        Hunzhan(options, suited_deal())
    assert e.value.code == "bad_options"


def test_room_options_accepted() -> None:
    # paiju ruling: the room-wide settlement keys are accepted and ignored
    g = Hunzhan({"base": 100, "unit": 5, "fee_rate": 0.02}, suited_deal())
    assert g.options["turn_seconds"] == 20


def test_options_defaults() -> None:
    g = Hunzhan({"turn_seconds": 30}, suited_deal())
    assert g.options == {"turn_seconds": 30, "declare_grace_seconds": 5, "reconnect_seconds": 90}


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


def test_full_trick_scores_and_default_actions() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", ("TS",)))
    g.apply(Action(None, "end_declare"))
    assert g.default_action(0) == Action(0, "play", ("5S",))
    play(g, 0, "AS")
    assert legal(g, 1) == cards("TH", "2S", "2H")  # all beat the trump A
    assert g.default_action(1) == Action(1, "play", ("2H",))
    play(g, 1, "2H")
    assert legal(g, 2) == cards("SJ", "TC", "2C")  # 2C ties 2H: no points, allowed
    play(g, 2, "TC")
    assert legal(g, 3) == cards("SJ", "TS")  # 10 points out: beat the other 10
    ev = play(g, 3, "TS")
    kinds = [e.type for e in ev]
    assert kinds == ["played", "hand", "trick_won", "scores"]
    won = ev[2].data
    assert won == {"seat": 3, "points": 20, "next_leader": 3}
    assert ev[3].data == {"captured": [0, 0, 0, 20], "cards": [[], [], [], ["TC", "TS"]]}
    assert ev[1].to == 3 and all(e.to is None for e in ev if e.type != "hand")
    assert g.scores_detail()[3] == {"points": 20, "cards": ["TC", "TS"]}
    v = g.view(1)
    assert v["last_trick"]["winner"] == 3 and v["trick"] == [] and v["to_act"] == [3]
    assert v["captured"] == [0, 0, 0, 20]
    assert v["hand_counts"] == [20, 20, 20, 20]
    # escape now: seat 3 has 20 < 60 → −3 × 40; the others 0
    assert g.escape_points(3) == [0, 0, 0, -120]
    g.apply(Action(1, "escape"))
    r = g.result()
    assert r.points == [0, -180, 0, 0]
    assert r.detail["escaped"] == 1 and r.detail["captured"] == [0, 0, 0, 20]


def test_escape_points_formula() -> None:
    g = Hunzhan({}, suited_deal())
    g.captured = [70, 60, 55, 55]  # state set by hand to reach the X ≥ 60 branches
    assert g.escape_points(0) == [-10, 0, 0, 0]
    assert g.escape_points(1) == [10, -10, 0, 0]
    assert g.escape_points(2) == [10, 0, -15, 0]


def test_timeouts_apply_default_and_fourth_is_escape() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", ("TS",)))
    g.apply(Action(None, "end_declare"))
    ev = g.apply(Action(0, "timeout"))
    assert ev[0].type == "timed_out" and ev[1].data["cards"] == ["5S"]
    with pytest.raises(RulesError) as e:
        g.default_action(0)
    assert e.value.code == "not_your_turn"


def test_default_action_while_declaring() -> None:
    g = Hunzhan({}, suited_deal())
    with pytest.raises(RulesError) as e:
        g.default_action(0)
    assert e.value.code == "wrong_phase"
    assert error(g, Action(0, "timeout")) == "not_your_turn"  # nobody is to act


# -- bad input changes nothing (records.md error codes) -------------------------------


def test_bad_input_changes_nothing() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", ("TS",)))
    g.apply(Action(None, "end_declare"))
    play(g, 0, "AS")
    assert error(g, Action(1, "play", ("5S",))) == "cards_not_in_hand"
    assert error(g, Action(1, "play", ("TH", "TH", "TH"))) == "cards_not_in_hand"
    assert error(g, Action(2, "play", ("TC",))) == "not_your_turn"
    assert error(g, Action(1, "declare", ("TH",))) == "wrong_phase"
    assert error(g, Action(1, "pass")) == "unknown_action"
    assert error(g, Action(1, "bury", ("TH",))) == "unknown_action"
    assert error(g, Action(7, "play", ("TH",))) == "malformed_action"
    assert error(g, Action(2, "timeout")) == "not_your_turn"
    assert error(g, Action(1, "play", ("5H",))) == "must_follow_suit"


def test_replay_reports_codes_and_goes_on() -> None:
    record = {
        "game": "hunzhan",
        "options": {},
        "deal": suited_deal(),
        "actions": [
            {"seat": 0, "type": "declare", "cards": ["TS"]},
            {"seat": None, "type": "end_declare"},
            {"seat": 0, "type": "play", "cards": ["XX"]},
            {"seat": 0, "type": "play", "cards": "AS"},
            {"seat": 0, "type": "play"},
            {"seat": "0", "type": "play", "cards": ["AS"]},
            {"seat": 0, "type": "play", "cards": ["AS"]},
        ],
    }
    out = replay(record)
    assert [a.get("error") for a in out["actions"]] == [
        None, None, "malformed_cards", "malformed_cards", "invalid_combination",
        "malformed_action", None,
    ]
    assert out["finished"] is False


def test_view_hides_other_hands() -> None:
    g = Hunzhan({}, suited_deal())
    v = g.view(1)
    assert sorted(v["hand"]) == sorted(SUITED[1])
    assert v["hand_counts"] == [21, 21, 21, 21]
    assert "hands" not in v and "order" not in v
    assert set(v) == {
        "game", "phase", "seat", "hand", "hand_counts", "to_act", "first", "declaration",
        "declarer", "trump", "no_trump", "leader", "turn", "trick", "trick_points",
        "trick_winner", "tricks_played", "last_trick", "last_trick_winner", "captured",
        "scores", "redeal", "escaped",
    }


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


def test_example_record_replays_finished() -> None:
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "hunzhan-game.json"
    out = replay(json.loads(path.read_text(encoding="utf-8")))
    assert out["finished"] and all(a["ok"] for a in out["actions"])
    assert sum(out["result"]["detail"]["captured"]) == 240


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
