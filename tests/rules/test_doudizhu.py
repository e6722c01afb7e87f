"""斗地主 doudizhu: hand-written expectations from seed 002 and rulings.md.

Bidding and robbing, kitty, play, spring / anti-spring, points, default
actions, escapes, bad input; combinations and comparisons are in
test_doudizhu_combos.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from paiju.games.doudizhu import Doudizhu
from paiju.rules.cards import deck
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError
from paiju.tools.replay import replay

# -- helpers ---------------------------------------------------------------------------

def cs(text: str) -> list[str]:
    """Cards from a space-separated string."""
    return text.split()


def make(
    h0: list[str], h1: list[str] | None = None, h2: list[str] | None = None,
    bottom: list[str] | None = None, first: int = 0, options: dict[str, Any] | None = None,
) -> Doudizhu:
    """A game whose hands start with the given cards, the rest filled in deck order."""
    given = [list(h0), list(h1 or []), list(h2 or []), list(bottom or [])]
    sizes = [17, 17, 17, 3]
    used = {c for g in given for c in g}
    rest = [c for c in deck(1) if c not in used]
    for g, size in zip(given, sizes, strict=True):
        while len(g) < size:
            g.append(rest.pop(0))
    deal = {"hands": given[:3], "bottom": given[3], "first": first}
    return Doudizhu(options or {}, deal)


def act(game: Doudizhu, seat: int, typ: str, cards: str = "") -> list[Event]:
    return game.apply(Action(seat, typ, tuple(cards.split())))


def landlord0(game: Doudizhu) -> None:
    """Seat 0 calls, nobody robs: seat 0 is landlord and leads."""
    act(game, 0, "call")
    act(game, 1, "no_rob")
    act(game, 2, "no_rob")


def snapshot(game: Doudizhu) -> Any:
    return (
        [game.view(s) for s in range(3)],
        [game.legal_actions(s) for s in range(3)],
        game.phase, game.finished,
    )


# -- bidding and robbing (rulings "doudizhu") --------------------------------------------


def test_all_no_call_is_a_redeal() -> None:
    g = make([], first=1)
    for seat in (1, 2, 0):
        act(g, seat, "no_call")
    assert g.finished
    res = g.result()
    assert res.points == [0, 0, 0]
    assert res.detail["redeal"] is True
    assert res.detail["landlord"] is None


def test_no_rob_keeps_the_caller_without_a_second_chance() -> None:
    g = make([])
    events = act(g, 0, "call")
    assert events[0] == Event("bid", {"seat": 0, "kind": "call", "multiplier": 1})
    act(g, 1, "no_rob")
    events = act(g, 2, "no_rob")
    assert g.phase == "play" and g.landlord == 0 and g.multiplier == 1
    assert g.to_act() == [0]
    kinds = [e.type for e in events]
    assert kinds == ["bid", "kitty_shown", "kitty", "hand"]
    assert events[1].to is None and events[1].data["cards"] == g.bottom
    assert events[3].to == 0 and len(events[3].data["cards"]) == 20
    # every seat's count as the table shows it: 17 each, the landlord's with
    # the 3 of the kitty (seed 002: 一人17張，留3張做底牌; 將三張底牌交給地主)
    assert events[1].data["hand_counts"] == [20, 17, 17]


def test_scores_show_the_multiplier_and_the_cards_left() -> None:
    # 看分 in a game without point cards: ×2 for the one rob (rulings.md
    # "doudizhu": each rob doubles), no bomb yet; 17 each, the landlord 20
    g = make([], first=2)
    act(g, 2, "call")
    act(g, 0, "rob")
    act(g, 1, "no_rob")
    act(g, 2, "no_rob")
    assert g.landlord == 0
    assert g.scores_view() == {"multiplier": 2, "robs": 1, "bombs": 0,
                               "cards_left": [20, 17, 17]}


def test_rob_chain_and_multiplier() -> None:
    g = make([], first=2)
    act(g, 2, "call")
    act(g, 0, "rob")  # ×2
    act(g, 1, "rob")  # ×2
    assert g.to_act() == [2]  # the caller's chance comes last
    act(g, 2, "no_rob")
    assert g.landlord == 1 and g.multiplier == 4


def test_no_call_seat_cannot_rob() -> None:
    g = make([], first=0)
    act(g, 0, "no_call")
    act(g, 1, "call")
    assert g.to_act() == [2]
    act(g, 2, "no_rob")
    # nobody robbed and seat 0 said no_call: seat 1 is landlord at once
    assert g.phase == "play" and g.landlord == 1


def test_not_eligible_code() -> None:
    g = make([], first=1)
    act(g, 1, "no_call")
    act(g, 2, "call")
    act(g, 0, "rob")
    with pytest.raises(RulesError) as e:
        act(g, 1, "rob")
    assert e.value.code == "not_eligible"


def test_robbing_actions_in_calling_are_wrong_phase() -> None:
    g = make([])
    with pytest.raises(RulesError) as e:
        act(g, 0, "rob")
    assert e.value.code == "wrong_phase"


# -- play ------------------------------------------------------------------------------


def test_leader_cannot_pass_and_trick_ends_after_two_passes() -> None:
    g = make(["3S"], ["4S"], ["5S"])
    landlord0(g)
    with pytest.raises(RulesError) as e:
        act(g, 0, "pass")
    assert e.value.code == "cannot_pass"
    act(g, 0, "play", "3S")
    act(g, 1, "play", "4S")
    act(g, 2, "pass")
    events = act(g, 0, "pass")
    assert [e.type for e in events] == ["passed", "trick_won"]
    assert events[1].data == {"seat": 1, "next_leader": 1}
    assert g.to_act() == [1]
    assert g.view(0)["last_trick"][0] == {"seat": 0, "cards": ["3S"], "combination": "single"}


def test_follow_codes() -> None:
    g = make(["3S", "4S", "5S", "6S", "7S"], ["3H", "3C", "9H", "TH", "JH", "QH", "KH", "AH"])
    landlord0(g)
    act(g, 0, "play", "3S 4S 5S 6S 7S")
    with pytest.raises(RulesError) as e:
        act(g, 1, "play", "3H 3C")
    assert e.value.code == "must_follow_shape"
    with pytest.raises(RulesError) as e:
        act(g, 1, "play", "9H TH JH QH KH AH")
    assert e.value.code == "must_follow_shape"  # a 6-chain does not follow a 5-chain
    with pytest.raises(RulesError) as e:
        act(g, 1, "play", "9H TH JH KH AH")
    assert e.value.code == "invalid_combination"
    act(g, 1, "play", "9H TH JH QH KH")


def test_does_not_beat_code() -> None:
    g = make(["9S"], ["8H"])
    landlord0(g)
    act(g, 0, "play", "9S")
    with pytest.raises(RulesError) as e:
        act(g, 1, "play", "8H")
    assert e.value.code == "does_not_beat"


def test_lead_as_longest_airplane_and_follow_as_wings() -> None:
    # 555666777888 leads as a four-trio airplane (rulings)
    lead = "5S 5H 5C 6S 6H 6C 7S 7H 7C 8S 8H 8C"
    g = make(lead.split())
    landlord0(g)
    events = act(g, 0, "play", lead)
    assert events[0].data["combination"] == "airplane"
    g2 = make(
        ["3S", "3H", "3C", "4S", "4H", "4C", "5S", "5H", "5C", "7S", "8S", "9S"],
        ["6S", "6H", "6C", "7H", "7C", "7D", "8H", "8C", "8D", "9H", "9C", "9D"],
    )
    landlord0(g2)
    assert act(g2, 0, "play", "3S 3H 3C 4S 4H 4C 5S 5H 5C 7S 8S 9S")[0].data[
        "combination"] == "airplane_wings"
    # 666777888999 follows as 777888999 + 6 6 6 (the reading that can follow)
    events = act(g2, 1, "play", "6S 6H 6C 7H 7C 7D 8H 8C 8D 9H 9C 9D")
    assert events[0].data["combination"] == "airplane_wings"
    assert events[0].data["kickers"] == "singles"


def test_four_two_is_not_a_bomb_and_bombs_double() -> None:
    g = make(["5S", "5H", "5C", "5D", "3S", "8S"], ["7S", "7H", "7C", "7D"], ["BJ", "SJ"])
    landlord0(g)
    ev = act(g, 0, "play", "5S 5H 5C 5D 3S 8S")
    assert ev[0].data["combination"] == "four_two"
    assert g.multiplier == 1
    act(g, 1, "play", "7S 7H 7C 7D")
    assert g.multiplier == 2 and g.bombs == 1
    ev = act(g, 2, "play", "BJ SJ")
    assert ev[0].data["combination"] == "rocket"
    assert g.multiplier == 4 and g.bombs == 2


def test_spring_points() -> None:
    g = make(cs("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S 2H 2C 2D 3H"),
             bottom=["3C", "3D", "5H"])
    landlord0(g)
    act(g, 0, "play", "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")
    act(g, 1, "pass")
    act(g, 2, "pass")
    act(g, 0, "play", "2S 2H 2C 2D")  # bomb ×2
    act(g, 1, "pass")
    act(g, 2, "pass")
    act(g, 0, "play", "3H 3C 3D 5H")
    assert g.finished
    res = g.result()
    # bomb ×2, spring ×2: multiplier 4; landlord +2m, farmers −m
    assert res.points == [8, -4, -4]
    assert res.detail["spring"] is True and res.detail["multiplier"] == 4
    assert res.detail["bombs"] == 1 and res.detail["landlord"] == 0


def test_anti_spring() -> None:
    farmer = cs("2S 4S 4H 4C 5S 5H 5C 6S 6H 6C 7S 7H 7C 8S 9S TS JS")
    g = make(["3S"], farmer, bottom=["3H", "3C", "3D"])
    landlord0(g)
    act(g, 0, "play", "3S")
    act(g, 1, "play", "2S")
    act(g, 2, "pass")
    act(g, 0, "pass")
    act(g, 1, "play", " ".join(farmer[1:]))
    assert g.finished
    res = g.result()
    assert res.detail["spring"] is True and res.detail["multiplier"] == 2
    assert res.points == [-4, 2, 2]  # farmers win: landlord −2m, farmers +m


def test_spring_doubles_option_off() -> None:
    farmer = cs("2S 4S 4H 4C 5S 5H 5C 6S 6H 6C 7S 7H 7C 8S 9S TS JS")
    g = make(["3S"], farmer, bottom=["3H", "3C", "3D"], options={"spring_doubles": False})
    landlord0(g)
    for seat, typ, cards in [(0, "play", "3S"), (1, "play", "2S"), (2, "pass", ""),
                             (0, "pass", ""), (1, "play", " ".join(farmer[1:]))]:
        act(g, seat, typ, cards)
    assert g.result().points == [-2, 1, 1]


# -- default actions and escapes (rulings "Shared", "Settlement") ------------------------


def test_default_actions() -> None:
    g = make(["3D", "3S", "BJ"], ["4S"])
    assert g.default_action(0) == Action(0, "no_call")
    act(g, 0, "call")
    assert g.default_action(1) == Action(1, "no_rob")
    act(g, 1, "no_rob")
    act(g, 2, "no_rob")
    # leader: the lowest single (fewest cards, lowest rank; suits S H C D)
    assert g.default_action(0) == Action(0, "play", ("3S",))
    g.apply(Action(0, "timeout"))
    assert g.view(0)["trick"][0]["cards"] == ["3S"]
    assert g.default_action(1) == Action(1, "pass")


def test_escape_points_farmer_and_landlord() -> None:
    g = make([])
    act(g, 0, "call")
    act(g, 1, "rob")
    act(g, 2, "rob")
    act(g, 0, "no_rob")  # landlord 2, multiplier 4
    assert g.escape_points(1) == [4, -8, 4]  # rulings: farmer at 4: −8, +4, +4
    assert g.escape_points(2) == [8, 8, -16]  # landlord: doubled
    g.apply(Action(1, "escape"))
    res = g.result()
    assert res.points == [4, -8, 4]
    assert res.detail["escapee"] == 1 and res.detail["multiplier"] == 4


def test_escape_points_option() -> None:
    g = make([], options={"escape_points": 5})
    act(g, 0, "call")
    assert g.escape_points(0) == [-10, 5, 5]


def test_four_timeouts_in_play_escape() -> None:
    g = make(["3S", "3H", "3C", "3D"])
    landlord0(g)
    seat = 0
    count = 0
    while not g.finished:
        seat = g.to_act()[0]
        g.apply(Action(seat, "timeout"))
        count += 1
        assert count < 20
    assert g.escaped == 0  # the landlord's 4th timeout comes first
    assert g.timeouts[0] == 4
    assert g.result().points == [-4, 2, 2]


# -- options and deal ------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{"nope": 1}, {"jokers_as_wings": 1}, {"turn_seconds": 0}, {"escape_points": -1},
     {"no_call_fee": "20"}],
)
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(RulesError) as e:
        make([], options=options)
    assert e.value.code == "bad_options"


def test_bad_deal() -> None:
    deal = Doudizhu.random_deal({}, __import__("random").Random(1))
    bad = {**deal, "bottom": [*deal["bottom"][:2], deal["hands"][0][0]]}
    with pytest.raises(RulesError) as e:
        Doudizhu({}, bad)
    assert e.value.code == "bad_deal"
    with pytest.raises(RulesError) as e:
        Doudizhu({}, {**deal, "first": 3})
    assert e.value.code == "bad_deal"
    with pytest.raises(RulesError) as e:
        Doudizhu({}, {**deal, "hands": [["XX"], *deal["hands"][1:]]})
    assert e.value.code == "bad_deal"
    # lenient notation is accepted
    lower = {**deal, "hands": [[c.lower() for c in h] for h in deal["hands"]]}
    assert Doudizhu({}, lower).hand(0) == Doudizhu({}, deal).hand(0)


# -- bad input leaves everything unchanged ---------------------------------------------


def _started() -> Doudizhu:
    g = make(["3S", "4S", "5S"], ["6S"])
    landlord0(g)
    act(g, 0, "play", "3S")
    return g


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Action(1, "play", ("3S",)), "cards_not_in_hand"),  # seat 0's card, already played
        (Action(1, "play", ("4S",)), "cards_not_in_hand"),  # seat 0 holds it
        (Action(1, "play", ("6S", "6S")), "cards_not_in_hand"),
        (Action(2, "play", ("6S",)), "not_your_turn"),
        (Action(2, "pass"), "not_your_turn"),
        (Action(1, "call"), "wrong_phase"),
        (Action(1, "no_rob"), "wrong_phase"),
        (Action(1, "bury", ("6S",)), "unknown_action"),
        (Action(1, "play", ()), "invalid_combination"),
        (Action(1, "play", ("ZZ",)), "malformed_cards"),
        (Action(7, "pass"), "malformed_action"),
    ],
)
def test_bad_input_changes_nothing(action: Action, code: str) -> None:
    g = _started()
    before = snapshot(g)
    with pytest.raises(RulesError) as e:
        g.apply(action)
    assert e.value.code == code
    assert snapshot(g) == before


def test_malformed_cards_through_replay() -> None:
    deal = Doudizhu.random_deal({}, __import__("random").Random(3))
    rec = {"game": "doudizhu", "deal": deal, "actions": [
        {"seat": deal["first"], "type": "call"},
        {"seat": (deal["first"] + 1) % 3, "type": "no_rob", "cards": "3S"},
        {"seat": (deal["first"] + 1) % 3, "type": "play", "cards": ["11X"]},
    ]}
    out = replay(rec)
    assert [a.get("error") for a in out["actions"]] == [None, "malformed_cards", "malformed_cards"]


def test_game_over() -> None:
    g = make([])
    for seat in (0, 1, 2):
        act(g, seat, "no_call")
    with pytest.raises(RulesError) as e:
        act(g, 0, "call")
    assert e.value.code == "game_over"
    assert g.legal_actions(0) == []


def test_view_hides_other_hands() -> None:
    g = make([])
    v = g.view(1)
    assert v["hand"] == g.hand(1) and len(v["hand"]) == 17
    assert v["kitty"] is None  # not before a landlord is known
    assert v["hand_counts"] == [17, 17, 17]
    landlord0(g)
    v = g.view(1)
    assert v["kitty"] == g.bottom and v["hand_counts"] == [20, 17, 17]
    assert v["landlord"] == 0 and v["multiplier"] == 1
    others = set(g.hand(0)) | set(g.hand(2))
    assert not others & set(v["hand"])


def test_room_options_accepted() -> None:
    g = make([], options={"reconnect_seconds": 90, "base": 10, "turn_seconds": 15})
    assert g.options["turn_seconds"] == 15


def test_escape_points_option_is_flat_for_the_landlord() -> None:
    g = make([], options={"escape_points": 3})
    landlord0(g)
    assert g.escape_points(0) == [-6, 3, 3]  # paiju ruling: not doubled


def test_escape_before_a_landlord() -> None:
    g = make([])
    act(g, 0, "call")
    act(g, 1, "rob")  # multiplier 2, nobody is landlord yet
    g.apply(Action(0, "escape"))
    res = g.result()
    assert res.points == [-4, 2, 2]
    assert res.detail["landlord"] is None and res.detail["escapee"] == 0


def test_legal_actions_lists_one_card_choice_per_rank_pattern() -> None:
    g = make(cs("3S 3H 3C 4D"))
    landlord0(g)
    plays = {a.cards for a in g.legal_actions(0) if a.type == "play"}
    assert ("3S",) in plays and ("3H",) not in plays  # canonical: suits S H C D
    assert ("3S", "3H") in plays and ("3S", "3C") not in plays
    # any suits the seat holds are accepted
    act(g, 0, "play", "3C 3H")
    assert g.view(1)["trick"][0]["cards"] == ["3H", "3C"]
