"""Unit tests of shengji's engine contract: bad input, escapes and timeouts,
paiju rulings, positions (``Shengji.from_position``) and the fast-built
actions and events (seed 004; rulings.md "shengji", "Shared", "Settlement";
docs/rules/shengji.md).

Every expectation below is typed by hand from the seed and the rulings.
"""

from __future__ import annotations

from typing import Any

import pytest

from paiju.games.shengji import Shengji
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError
from paiju.tools.replay import replay
from tests.rules.shengji_helpers import (
    HANDS_1,
    KITTY_1,
    LOW_KITTY,
    act,
    after_default_bury,
    declared_one_deck,
    legal,
    one_deck,
    position,
    rejects,
)

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




# -- positions (Shengji.from_position) -------------------------------------------------

#: A buried kitty of one deck without points.
BURIED_1 = ["4D", "6D", "7D", "8D", "9D", "JD"]


def test_position_with_a_pair_led() -> None:
    """Seat 0 (dealer) led KH KH; the lead stands until beaten: the trick goes
    to seat 0 with its 20 points (seed 一轮结束)."""
    hands = [["4S"], ["9H", "9H", "7H"], ["8H", "4D", "6C"], ["6C", "7C", "8C"]]
    g = Shengji.from_position({"decks": 2}, hands=hands, dealer=0, trump="S",
                              buried=LOW_KITTY[2], trick=[["KH", "KH"]], captured=[0, 15, 0, 0])
    assert g.phase == "play" and g.to_act() == [1]
    v = g.view(1)
    assert v["trick"] == [{"seat": 0, "cards": ["KH", "KH"]}]
    assert v["hand"] == ["9H", "9H", "7H"]
    assert v["hand_counts"] == [1, 3, 3, 3]
    assert v["trump"] == "S" and v["dealer"] == 0 and v["leader"] == 0
    assert v["captured"] == [0, 15, 0, 0] and v["defender_points"] == 15
    assert "buried" not in v
    assert g.view(0)["buried"] == ["AD", "QD", "JD", "9D", "8D", "7D", "6D", "4D"]
    assert legal(g, 1) == {("9H", "9H")}
    g.apply(act(1, "play", "9H", "9H"))
    g.apply(act(2, "play", "4D", "8H"))
    ev = g.apply(act(3, "play", "6C", "7C"))
    assert next(e.data for e in ev if e.type == "trick_won") == {
        "seat": 0, "points": 20, "next_leader": 0}
    assert g.to_act() == [0]


def test_position_with_the_second_play_best() -> None:
    """Seat 1 led 9H, seat 2 played AH: seat 3 must follow hearts; AH wins."""
    hands = [["QH", "7C"], ["4C"], ["5C"], ["KH", "6C"]]
    g = Shengji.from_position({"decks": 1}, hands=hands, dealer=0, trump="S", leader=1,
                              buried=BURIED_1, trick=[["9H"], ["AH"]])
    assert g.to_act() == [3]
    assert legal(g, 3) == {("KH",)}
    rejects(g, act(3, "play", "6C"), "must_follow_suit")
    g.apply(act(3, "play", "KH"))
    ev = g.apply(act(0, "play", "QH"))
    assert next(e.data for e in ev if e.type == "trick_won") == {
        "seat": 2, "points": 10, "next_leader": 2}


def _position(**changes: Any) -> dict[str, Any]:
    """A valid one-deck position (dealer 0, trump S, seat 0 to lead), changed."""
    args: dict[str, Any] = {"hands": [["KH"], ["QH"], ["JH"], ["TH"]], "dealer": 0,
                            "trump": "S", "buried": BURIED_1}
    args.update(changes)
    return args


def test_position_valid_baseline() -> None:
    g = Shengji.from_position({"decks": 1}, **_position())
    assert g.to_act() == [0] and g.trick_no == 1
    assert g.legal_actions(0) == [act(0, "play", "KH")]


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"hands": [["KH"], ["QH"], ["JH"]]}, "4 hands"),
        ({"hands": [["KH"], ["QH"], ["JH"], ["1X"]]}, "hand 3"),  # not a card
        ({"hands": [["KH"], ["QH"], ["JH"], ["TH", "9H"]]}, "as many cards"),
        ({"hands": [[], [], [], []]}, "as many cards"),  # nothing left to play
        ({"hands": [["KH"], ["KH"], ["JH"], ["TH"]]}, "more cards than"),  # two KH, one deck
        ({"hands": [["KH"], ["QH"], ["JH"], ["4D"]]}, "more cards than"),  # 4D is buried
        ({"trump": "T"}, "trump"),
        ({"trump": None}, "trump"),
        ({"dealer": 4}, "dealer"),
        ({"dealer": True}, "dealer"),
        ({"leader": -1}, "leader"),
        ({"buried": BURIED_1[:5]}, "kitty"),  # the kitty is 6 cards with one deck
        ({"trick": [["KH", "QH"]]}, "identical cards"),
        ({"trick": [["KH"], ["QH", "QS"]]}, "the lead's size"),
        ({"trick": [["KH"], ["QH"], ["JH"], ["TH"]]}, "0 to 3 plays"),
        # seat 1 played a club while holding hearts (seed 跟牌)
        ({"hands": [["9C"], ["QH"], ["JH", "8C"], ["TH", "7C"]], "trick": [["KH"], ["6C"]]},
         "seat 1's play"),
        ({"captured": [3, 0, 0, 0]}, "steps of 5"),
        ({"captured": [0, 0, 0]}, "4 integers"),
        ({"captured": [-5, 0, 0, 0]}, "4 integers"),
        ({"captured": [85, 0, 0, 0]}, "captured 85"),  # 100 in a deck; KH and TH still held
        ({"trick_no": 0}, "trick_no"),
        ({"declared": ["3H"], "declarer": 1}, "3s of the trump suit"),  # hearts are not trump
        ({"declared": ["3S"]}, "by a declarer"),
    ],
)
def test_bad_positions(changes: dict[str, Any], reason: str) -> None:
    with pytest.raises(RulesError) as e:
        Shengji.from_position({"decks": 1}, **_position(**changes))
    assert e.value.code == "bad_deal"
    assert reason in e.value.message


def test_position_options() -> None:
    with pytest.raises(RulesError) as e:
        Shengji.from_position({"decks": 5}, **_position())
    assert e.value.code == "bad_options"
    with pytest.raises(RulesError) as e:  # the option dealer is another seat
        Shengji.from_position({"decks": 1, "dealer": 2}, **_position())
    assert e.value.code == "bad_deal"
    g = Shengji.from_position({"decks": 1, "dealer": 0, "escape_points": 3}, **_position())
    g.apply(act(0, "escape"))
    assert g.result().points == [-9, 3, 3, 3]


def test_position_declaration_in_the_view() -> None:
    g = Shengji.from_position({"decks": 1}, **_position(declarer=2, declared=["3S"]))
    v = g.view(2)
    assert v["declarer"] == 2 and v["declared"] == ["3S"]
    assert v["kitty_shown"] == []  # the original kitty is not part of a position


# -- fast-built actions and events ----------------------------------------------------


def test_built_actions_and_events_equal_the_dataclasses() -> None:
    """Plays listed and events sent are equal (and hash equal) to
    ``Action(...)`` / ``Event(...)`` made by their constructors."""
    hands = [["KH", "KH", "QS"], ["9H", "7H", "6H"], ["8H", "8H", "4C"], ["6S", "6S", "7C"]]
    g = position(2, "S", 0, hands, 0)
    g.apply(act(0, "play", "KH", "KH"))
    listed = g.legal_actions(1)
    want = [Action(1, "play", c) for c in [("6H", "7H"), ("6H", "9H"), ("7H", "9H")]]
    assert sorted(listed, key=lambda a: a.cards) == want
    assert {hash(a) for a in listed} == {hash(a) for a in want}
    ev = g.apply(act(1, "play", "6H", "7H"))
    assert ev == [
        Event("played", {"seat": 1, "cards": ["6H", "7H"], "combination": "follow",
                         "trick": 1}),
        Event("hand", {"cards": ["9H"]}, to=1),
    ]
