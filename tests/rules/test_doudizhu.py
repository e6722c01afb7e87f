"""斗地主 doudizhu: hand-written expectations from seed 002 and rulings.md.

Combinations and comparisons (seed §牌型, §牌型的大小), bidding and robbing,
kitty, spring / anti-spring, points, default actions, escapes, bad input.
"""

from __future__ import annotations

from typing import Any

import pytest

from paiju.replay import replay
from paiju.rules import doudizhu_combos as dc
from paiju.rules.cards import deck
from paiju.rules.doudizhu import Doudizhu
from paiju.rules.engine import Action, Event
from paiju.rules.errors import RulesError

# -- helpers ---------------------------------------------------------------------------

_RANK_OF = {ch: i for i, ch in enumerate(dc.RANK_CHARS)} | {"w": dc.SJ_RANK, "W": dc.BJ_RANK}


def cs(text: str) -> list[str]:
    """Cards from a space-separated string."""
    return text.split()


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


def test_pair_kickers_may_repeat_a_rank() -> None:
    # paiju ruling: four of a rank may stand as two pair kickers
    assert rd("3334445555") == {("airplane_pairs", "4")}
    assert rd("33334444") == {("four_two_pairs", "3"), ("four_two_pairs", "4")}


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
