"""大A (daa) engine: declaring, teams, reveal, take-back, 推风, points, escape,
default action, bad input. Expectations written by hand from seed 003 and
rulings.md ("daa", "Settlement")."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from paiju.games.daa import Daa
from paiju.rules.cards import deck
from paiju.rules.engine import Action
from paiju.rules.errors import RulesError


def c(text: str) -> list[str]:
    return text.split()


def make_deal(spec: dict[int, str], first: int = 0) -> dict[str, Any]:
    """Each seat gets the cards of ``spec`` first, then fillers from the rest of
    the deck (4s, jokers and A excluded from the fillers while others remain)
    up to 22 / 21 cards. The held-back card is a hand's last card, so a filler
    unless the spec fills the hand."""
    rest = Counter(deck(2))
    for text in spec.values():
        rest.subtract(c(text))
    assert min(rest.values()) >= 0
    plain = [x for x in sorted(rest.elements()) if x[0] not in "4A" and x[1] != "J"]
    special = [x for x in sorted(rest.elements()) if x[0] in "4A" or x[1] == "J"]
    pool = plain + special
    hands: list[list[str]] = []
    for s in range(5):
        size = 22 if (s - first) % 5 < 3 else 21
        h = c(spec.get(s, ""))
        while len(h) < size:
            h.append(pool.pop(0))
        hands.append(h)
    assert not pool
    return {"hands": hands, "bottom": [], "first": first}


def act(g: Daa, seat: int | None, typ: str, cards: str = "", dealt: int | None = None) -> Any:
    return g.apply(Action(seat, typ, tuple(c(cards)), dealt))


def code(g: Daa, seat: int | None, typ: str, cards: str = "", dealt: int | None = None) -> str:
    before = snapshot(g)
    with pytest.raises(RulesError) as e:
        act(g, seat, typ, cards, dealt)
    assert snapshot(g) == before, "a refused action changed the state"
    return e.value.code


def snapshot(g: Daa) -> Any:
    return ([g.view(s) for s in range(5)], [sorted(map(repr, g.legal_actions(s)))
                                            for s in range(5)])


# -- deal ---------------------------------------------------------------------------


def test_deal_sizes_and_bad_deal() -> None:
    d = make_deal({}, first=2)
    assert [len(h) for h in d["hands"]] == [21, 21, 22, 22, 22]
    Daa({}, d)
    bad = make_deal({})
    bad["hands"][0], bad["hands"][4] = bad["hands"][4], bad["hands"][0]  # 21 and 22 swapped
    with pytest.raises(RulesError) as e:
        Daa({}, bad)
    assert e.value.code == "bad_deal"
    with pytest.raises(RulesError) as e:
        Daa({"nonsense": 1}, make_deal({}))
    assert e.value.code == "bad_options"


def test_held_back_card_hidden_until_settled() -> None:
    d = make_deal({0: "AH AS"})
    g = Daa({}, d)
    held = d["hands"][0][-1]
    v = g.view(0)
    assert len(v["hand"]) == 21 and v["hand_counts"][0] == 22 and v["held_back"][0] == 1
    assert Counter(v["hand"]) + Counter([held]) == Counter(d["hands"][0])
    events = act(g, None, "end_declare")
    public = [e for e in events if e.to is None]
    assert all("cards" not in e.data for e in public)
    private = {e.to: e.data["cards"] for e in events if e.type == "hand"}
    assert Counter(private[0]) == Counter(d["hands"][0])
    assert len(g.view(0)["hand"]) == 22 and g.view(0)["held_back"][0] == 0


def test_held_back_positions_are_each_seats_last_card_dealt() -> None:
    # dealt from seat 2: seats 2, 3, 4 get 22 cards, 0 and 1 get 21; seat s's
    # cards are at positions (s - 2) % 5 + 5 j, its last one held back
    d = make_deal({}, first=2)
    order = [d["hands"][(2 + i) % 5][i // 5] for i in range(108)]
    d["order"] = order
    g = Daa({}, d)
    assert g.held_back_positions() == frozenset({105, 106, 107, 103, 104})
    assert [order[i] for i in (103, 104, 105, 106, 107)] == [d["hands"][s][-1]
                                                           for s in (0, 1, 2, 3, 4)]
    # without deal.order there is no paced deal: no positions to name
    assert Daa({}, make_deal({})).held_back_positions() == frozenset()


# -- declaring ----------------------------------------------------------------------


def test_declare_rules() -> None:
    g = Daa({}, make_deal({0: "AH AC", 1: "AS AS", 2: "AH AD AD"}))
    assert code(g, 0, "declare", "KS") in {"invalid_combination", "cards_not_in_hand"}
    assert code(g, 0, "declare", "AD") == "cards_not_in_hand"
    assert code(g, 1, "declare", "AS AS") == "not_eligible"  # 反 needs a 亮 first
    assert code(g, 0, "play", "AH") == "wrong_phase"
    ev = act(g, 0, "declare", "AH")
    assert ev[0].type == "declared" and ev[0].data["big_a"] == "H"
    assert code(g, 2, "declare", "AD") == "declare_too_weak"  # the first declaration stands
    assert code(g, 0, "declare", "AC AC") in {"not_eligible", "cards_not_in_hand"}
    opts = {a.cards for a in g.declare_options(1)}
    assert opts == {("AS", "AS")}
    act(g, 1, "declare", "AS AS")  # 反大A
    assert code(g, 2, "declare", "AD AD") == "declare_too_weak"
    act(g, None, "end_declare")
    assert code(g, None, "end_declare") == "wrong_phase"
    r = g.view(0)
    assert r["big_a"] == "S" and g.solo == 1 and g.named and g.turn == 1


def test_no_declaration_hearts_first_holder_from_first_seat() -> None:
    g = Daa({}, make_deal({1: "AH", 4: "AH"}, first=3))
    act(g, None, "end_declare")
    # from seat 3: 3, 4, 0, 1 -> seat 4 is the first ♥A holder
    assert g.big_suit == "H" and g.team() == [4, 1] and g.turn == 4 and not g.named


def test_declare_with_dealt_checks_cards_held_then() -> None:
    d = make_deal({0: "5S 5S 5D AS"})
    order = [d["hands"][(i) % 5][i // 5] for i in range(108)]
    d["order"] = order
    g = Daa({}, d)
    k, card = 15, "AS"  # seat 0's 4th card is the 16th dealt
    assert order[k] == card
    assert code(g, 0, "declare", card, dealt=k) == "cards_not_in_hand"
    assert [a.cards for a in g.declare_options(0, dealt=k + 1)].count((card,)) == 1
    act(g, 0, "declare", card, dealt=k + 1)


def test_held_back_card_cannot_be_declared() -> None:
    d = make_deal({0: "5S 5S 5D 5D 6S 6S 6D 6D 7S 7S 7D 7D 8S 8S 8D 8D 9S 9S 9D 9D TS AS"})
    assert d["hands"][0][-1] == "AS"
    g = Daa({}, d)
    assert code(g, 0, "declare", "AS") == "cards_not_in_hand"


# -- teams and reveal ---------------------------------------------------------------


def test_hidden_solo_without_declaration() -> None:
    g = Daa({}, make_deal({2: "AH AH"}))
    act(g, None, "end_declare")
    assert g.solo == 2 and not g.named and g.turn == 2
    assert code(g, 2, "reveal") == "not_eligible"  # it declared nothing


def test_declarer_with_both_reveals_before_first_play() -> None:
    g = Daa({}, make_deal({0: "AH AH 5S"}))
    act(g, 0, "declare", "AH")
    act(g, None, "end_declare")
    assert g.solo == 0 and not g.named
    assert Action(0, "reveal") in g.legal_actions(0)
    act(g, 0, "reveal")
    assert g.named and g.turn == 0
    g2 = Daa({}, make_deal({0: "AH AH 5S"}))
    act(g2, 0, "declare", "AH")
    act(g2, None, "end_declare")
    act(g2, 0, "play", "5S")
    assert code(g2, 0, "reveal") == "not_your_turn"
    for s in (1, 2, 3, 4):
        act(g2, s, "pass")
    assert code(g2, 0, "reveal") == "not_eligible"  # too late: hidden solo


def test_partner_reveals_in_its_turn_without_ending_it() -> None:
    g = Daa({}, make_deal({0: "AH 5S", 2: "AH"}))
    act(g, 0, "declare", "AH")
    act(g, None, "end_declare")
    assert g.team() == [0, 2]
    act(g, 0, "play", "5S")
    assert code(g, 1, "reveal") == "not_eligible"  # an opponent
    act(g, 1, "pass")
    ev = act(g, 2, "reveal")
    assert [e.type for e in ev] == ["revealed"] and g.turn == 2 and g.named
    assert code(g, 2, "reveal") == "not_eligible"
    act(g, 2, "pass")


# -- take-back ----------------------------------------------------------------------


def test_fours_take_back_a_trio() -> None:
    g = Daa({}, make_deal({0: "AH KS KD KC", 1: "4S 4D", 2: "6S 6D 6C 5S 5D 5C 5H", 3: "AH"}))
    act(g, None, "end_declare")
    act(g, 0, "play", "KS KD KC")
    assert code(g, 1, "play", "4S") == "does_not_beat"  # a single 4 takes nothing
    ev = act(g, 1, "play", "4S 4D")
    taken = [e for e in ev if e.type == "taken_back"]
    assert taken and taken[0].to is None
    assert Counter(taken[0].data["cards"]) == Counter(c("KS KD KC"))
    hand = next(e for e in ev if e.type == "hand")
    assert hand.to == 1 and Counter(c("KS KD KC")) <= Counter(hand.data["cards"])
    assert g.view(1)["hand_counts"][1] == 22 - 2 + 3
    assert code(g, 2, "play", "6S 6D 6C") == "does_not_beat"  # a trio does not beat
    act(g, 2, "play", "5S 5D 5C 5H")  # a 大蛋子 does


def test_single_four_takes_nothing() -> None:
    g = Daa({}, make_deal({0: "AH KS KD KC", 1: "4S 4D 4C", 3: "AH"}))
    act(g, None, "end_declare")
    act(g, 0, "play", "KS KD KC")
    assert code(g, 1, "play", "4S") == "does_not_beat"
    assert code(g, 1, "play", "4S 4D 4C") == "does_not_beat"


# -- 推风 ----------------------------------------------------------------------------


def settled(spec: dict[int, str], declarer: int | None = 0, card: str = "AH") -> Daa:
    g = Daa({}, make_deal(spec))
    if declarer is not None:
        act(g, declarer, "declare", card)
    act(g, None, "end_declare")
    return g


def test_push_wind() -> None:
    g = settled({0: "AH", 2: "AH"})
    g.hands[0].clear()
    assert g._push_wind(0) == 1  # the 次方 is hidden: next seat with cards
    g.named = True  # revealed
    assert g._push_wind(0) == 2
    g2 = settled({0: "AH", 2: "AH"})
    g2.hands[2].clear()
    assert g2._push_wind(2) == 0  # the 主方 is known from its declaration
    g2.hands[0].clear()
    assert g2._push_wind(2) == 3  # partner out: next seat with cards
    g3 = settled({0: "AH", 2: "AH"}, declarer=None)
    g3.hands[2].clear()
    assert g3._push_wind(2) == 3  # no declaration: the 主方 is not known
    g3.big_a_shown.add(0)
    assert g3._push_wind(2) == 0  # …until it played its big A


# -- points -------------------------------------------------------------------------

# Team game: 主方 M = seat 0 (declared AH), 次方 S = seat 1; opponents a b c = 2 3 4.
SEAT = {"M": 0, "S": 1, "a": 2, "b": 3, "c": 4, "d": 4}
TEAM_ORDERS: list[tuple[str, list[int], list[int]]] = [
    # order, points (hidden 次方), points (名A)
    ("MS", [6, 3, -3, -3, -3], [12, 6, -6, -6, -6]),
    ("SM", [6, 3, -3, -3, -3], [12, 6, -6, -6, -6]),
    ("MaS", [4, 2, -2, -2, -2], [8, 4, -4, -4, -4]),
    ("SaM", [4, 2, -2, -2, -2], [8, 4, -4, -4, -4]),
    ("aMS", [4, 2, -2, -2, -2], [8, 4, -4, -4, -4]),
    ("aSM", [4, 2, -2, -2, -2], [8, 4, -4, -4, -4]),
    ("MabS", [2, 1, -1, -1, -1], [4, 2, -2, -2, -2]),
    ("aMbS", [2, 1, -1, -1, -1], [4, 2, -2, -2, -2]),
    ("abMS", [2, 1, -1, -1, -1], [4, 2, -2, -2, -2]),
    ("SabM", [2, 1, -1, -1, -1], [4, 2, -2, -2, -2]),
    ("aSbM", [2, 1, -1, -1, -1], [4, 2, -2, -2, -2]),
    ("abSM", [2, 1, -1, -1, -1], [4, 2, -2, -2, -2]),
    ("abc", [-6, -3, 3, 3, 3], [-6, -3, 3, 3, 3]),
    ("cba", [-6, -3, 3, 3, 3], [-6, -3, 3, 3, 3]),
    ("Mabc", [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]),
    ("Sabc", [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]),
    ("aMbc", [-2, -1, 1, 1, 1], [-2, -1, 1, 1, 1]),
    ("abMc", [-2, -1, 1, 1, 1], [-2, -1, 1, 1, 1]),
    ("aSbc", [-4, -2, 2, 2, 2], [-4, -2, 2, 2, 2]),
    ("abSc", [-4, -2, 2, 2, 2], [-4, -2, 2, 2, 2]),
]


def finish(g: Daa, order: list[int]) -> list[int]:
    for s in order:
        g.hands[s].clear()
    g.finish_order = list(order)
    assert g._side_out()
    g._phase = "finished"
    return g.result().points


@pytest.mark.parametrize(("order", "hidden", "named"), TEAM_ORDERS,
                         ids=[o for o, _, _ in TEAM_ORDERS])
def test_team_points(order: str, hidden: list[int], named: list[int]) -> None:
    for is_named, expected in ((False, hidden), (True, named)):
        g = settled({0: "AH", 1: "AH"})
        assert g.team() == [0, 1]
        g.named = is_named
        pts = finish(g, [SEAT[x] for x in order])
        assert pts == expected
        assert sum(pts) == 0


# Solo X = seat 0; opponents a b c d = 1 2 3 4.
SOLO_SEAT = {"X": 0, "a": 1, "b": 2, "c": 3, "d": 4}
SOLO_ORDERS = [
    ("X", [32, -8, -8, -8, -8], [64, -16, -16, -16, -16]),
    ("aX", [0] * 5, [0] * 5),
    ("abX", [0] * 5, [0] * 5),
    ("abcX", [0] * 5, [0] * 5),
    ("abcd", [-32, 8, 8, 8, 8], [-64, 16, 16, 16, 16]),
    ("dcba", [-32, 8, 8, 8, 8], [-64, 16, 16, 16, 16]),
]


@pytest.mark.parametrize(("order", "hidden", "named"), SOLO_ORDERS,
                         ids=[o for o, _, _ in SOLO_ORDERS])
def test_solo_points(order: str, hidden: list[int], named: list[int]) -> None:
    for is_named, expected in ((False, hidden), (True, named)):
        g = settled({0: "AH AH"})
        assert g.solo == 0
        g.named = is_named
        pts = finish(g, [SOLO_SEAT[x] for x in order])
        assert pts == expected
        assert sum(pts) == 0
        assert g.result().detail["solo"] is True


# -- escape and default action -------------------------------------------------------


def test_escape_points() -> None:
    g = settled({0: "AH", 1: "AH"})
    g.apply(Action(3, "escape"))
    assert g.result().points == [3, 3, 3, -12, 3]
    g = Daa({}, make_deal({0: "AH", 1: "AH"}))
    g.apply(Action(0, "escape"))  # during declaring
    assert g.result().points == [-12, 3, 3, 3, 3]
    g = settled({0: "AH AH"})  # hidden solo (not revealed)
    g.apply(Action(0, "escape"))
    assert g.result().points == [-32, 8, 8, 8, 8]
    g = settled({2: "AS AS", 0: "AH"})
    g = Daa({}, make_deal({2: "AS AS", 0: "AH"}))
    act(g, 0, "declare", "AH")
    act(g, 2, "declare", "AS AS")
    act(g, None, "end_declare")
    g.apply(Action(2, "escape"))
    assert g.result().points == [16, 16, -64, 16, 16]
    g2 = settled({0: "AH AH"})
    g2.apply(Action(1, "escape"))  # an opponent of a solo pays 3 to each
    assert g2.result().points == [3, -12, 3, 3, 3]


def test_default_action() -> None:
    g = settled({0: "AH 5S 5D BJ SJ 3S", 2: "AH"})
    lowest = min(g.hands[0], key=lambda x: "456789TJQKA23".index(x[0]) if x[1] != "J" else 99)
    assert g.default_action(0) == Action(0, "play", (lowest,))
    g.hands[0] = Counter(c("AH BJ SJ 3S"))
    g._info[0] = None
    assert g.default_action(0) == Action(0, "play", ("3S",))  # big A and jokers above 3
    act(g, 0, "play", "3S")
    assert g.default_action(1) == Action(1, "pass")
    ev = g.apply(Action(1, "timeout"))
    assert [e.type for e in ev][:2] == ["timed_out", "passed"]


def test_timeouts_make_an_escape() -> None:
    g = settled({0: "AH", 1: "AH"})
    counts = [0] * 5
    while not g.finished:
        seat = g.turn
        g.apply(Action(seat, "timeout"))
        counts[seat] += 1
    # everybody only times out: the first seat to reach 4 escapes
    assert g.escaped is not None and counts[g.escaped] == 4
    assert g.result().points[g.escaped] == -12


# -- bad input ----------------------------------------------------------------------


def test_bad_input_changes_nothing() -> None:
    g = settled({0: "AH 5S 6S", 1: "AH 7S"})
    assert code(g, 1, "play", "7S") == "not_your_turn"
    assert code(g, 0, "play", "BJ BJ BJ") == "cards_not_in_hand"
    assert code(g, 0, "play", "5S 6S") == "invalid_combination"
    assert code(g, 0, "pass") == "cannot_pass"
    assert code(g, 0, "bury", "5S") == "unknown_action"
    assert code(g, 0, "declare", "AH") == "wrong_phase"
    assert code(g, 0, "play") == "invalid_combination"
    act(g, 0, "play", "7S" if "7S" in g.hands[0] else "6S")
    assert code(g, 1, "play", "5S") in {"does_not_beat", "cards_not_in_hand"}
    with pytest.raises(RulesError) as e:
        Action.from_json({"seat": 1, "type": "play", "cards": ["ZZ"]})
    assert e.value.code == "malformed_cards"


def test_game_over_refuses_actions() -> None:
    g = settled({0: "AH", 1: "AH"})
    g.apply(Action(2, "escape"))
    with pytest.raises(RulesError) as e:
        g.apply(Action(0, "pass"))
    assert e.value.code == "game_over"


def test_legal_play_actions_are_plain_actions() -> None:
    g = settled({0: "AH 5S 5D", 1: "AH"})
    plays = [a for a in g.legal_actions(0) if a.type == "play"]
    for a in plays:
        same = Action(0, "play", a.cards)
        assert a == same and hash(a) == hash(same) and type(a) is Action
    assert Action(0, "play", ("5S", "5D")) in plays
    assert Action(0, "pass") not in g.legal_actions(0)  # the leader must play


def test_view_shows_the_partner_only_once_revealed() -> None:
    g = settled({0: "AH 5S", 2: "AH"})
    assert all(g.view(s)["revealed"] is None for s in range(5))
    act(g, 0, "play", "5S")
    act(g, 1, "pass")
    act(g, 2, "reveal")
    assert all(g.view(s)["revealed"] == 2 for s in range(5))
    v = g.view(3)
    assert "team" not in v and v["big_a"] == "H" and v["declarer"] == 0
