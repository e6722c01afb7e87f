"""Unit tests of shengji's options, deals, declaring and the kitty (seed 004
游戏用牌 / 底牌 / 开牌 / 亮主 / 冲主 / 抢庄 / 扣底; rulings.md "shengji", "Settlement").

Every expectation below is typed by hand from the seed and the rulings.
"""

from __future__ import annotations

import random

import pytest

from paiju.games.shengji import Shengji
from paiju.rules.errors import RulesError
from tests.rules.shengji_helpers import (
    HANDS_1,
    HANDS_2,
    KITTY_1,
    KITTY_2,
    ORDER_1,
    act,
    declared_one_deck,
    one_deck,
    rejects,
    two_decks,
)


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
    assert [(e.type, e.to) for e in ev] == [("buried", None), ("hand", 1)]
    # every seat holds 12 again after the bury (seed 底牌: one deck, 12 each)
    assert ev[0].data == {"seat": 1, "count": 6, "hand_counts": [12, 12, 12, 12]}
    assert sorted(ev[1].data["cards"]) == sorted(
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
