"""混战 hunzhan: hand-written expectations from seed 000 and rulings.md "hunzhan".

Card order, leads, declaring, the deal, scores, escape, bad input and views;
following and the point rules are in test_hunzhan_follow.py. Every expected
value below was worked out by hand from the seed and the rulings, not computed
by the engine (deals: tests/rules/hunzhan_support.py).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from paiju.games.hunzhan import Hunzhan
from paiju.games.hunzhan.cards import ORDERS, card_points, classify, lead_options, sort_cards
from paiju.rules.cards import deck
from paiju.rules.engine import Action
from paiju.rules.errors import RulesError
from paiju.tools.replay import replay
from tests.rules.hunzhan_support import (
    SUITED,
    cards,
    error,
    legal,
    play,
    suited_deal,
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


def test_example_record_replays_finished() -> None:
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "hunzhan-game.json"
    out = replay(json.loads(path.read_text(encoding="utf-8")))
    assert out["finished"] and all(a["ok"] for a in out["actions"])
    assert sum(out["result"]["detail"]["captured"]) == 240


