"""What the client shows, computed by the engines: settlement
lines, announcements and the multiplier of doudizhu plays, shengji's hand
order and bury counts, daa's public roles. Expectations written by hand from
the seeds (002 doudizhu, 003 daa, 004 shengji) and rulings.md."""

from __future__ import annotations

import pytest

from paiju.games.daa import Daa
from paiju.games.hunzhan import Hunzhan
from paiju.games.shengji import Shengji
from paiju.games.shengji.cards import in_hand_order
from paiju.rules.errors import RulesError
from tests.rules import test_daa as daa_t
from tests.rules import test_doudizhu as ddz_t
from tests.rules.shengji_helpers import LOW_KITTY, declared_one_deck, position
from tests.rules.shengji_helpers import act as sj_act

# -- doudizhu ---------------------------------------------------------------------------


def test_doudizhu_bomb_rocket_and_one_left_are_announced_with_the_multiplier() -> None:
    g = ddz_t.make(["5S", "5H", "5C", "5D", "3S", "8S"], ["7S", "7H", "7C", "7D"],
                   ["BJ", "SJ"])
    ddz_t.landlord0(g)
    ev = ddz_t.act(g, 0, "play", "5S 5H 5C 5D 3S 8S")  # four with two: no bomb
    assert "announce" not in ev[0].data and "multiplier" not in ev[0].data
    ev = ddz_t.act(g, 1, "play", "7S 7H 7C 7D")
    assert ev[0].data["announce"] == ["炸弹"] and ev[0].data["multiplier"] == 2
    ev = ddz_t.act(g, 2, "play", "BJ SJ")
    assert ev[0].data["announce"] == ["王炸"] and ev[0].data["multiplier"] == 4


def test_doudizhu_one_card_left_is_announced() -> None:
    g = ddz_t.make(ddz_t.cs("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S 2H 2C 2D 3H"),
                   bottom=["3C", "3D", "5H"])
    ddz_t.landlord0(g)
    ev = ddz_t.act(g, 0, "play", "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")  # 8 cards left
    assert "announce" not in ev[0].data
    ddz_t.act(g, 1, "pass")
    ddz_t.act(g, 2, "pass")
    ev = ddz_t.act(g, 0, "play", "2S 2H 2C 2D")  # 4 left
    assert ev[0].data["announce"] == ["炸弹"]
    ddz_t.act(g, 1, "pass")
    ddz_t.act(g, 2, "pass")
    ev = ddz_t.act(g, 0, "play", "3H 3C 3D")  # trio: one card (5H) left
    assert ev[0].data["announce"] == ["报单"] and ev[0].data["multiplier"] == 2


def test_doudizhu_two_cards_left_is_announced() -> None:
    g = ddz_t.make(ddz_t.cs("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S 2H 2C 2D 3H"),
                   bottom=["3C", "3D", "5H"])
    ddz_t.landlord0(g)
    ddz_t.act(g, 0, "play", "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")  # 8 cards left
    ddz_t.act(g, 1, "pass")
    ddz_t.act(g, 2, "pass")
    ev = ddz_t.act(g, 0, "play", "3H 3C 3D 2S 2H")  # trio and a pair: 5H 2C 2D left
    assert "announce" not in ev[0].data
    ddz_t.act(g, 1, "pass")
    ddz_t.act(g, 2, "pass")
    ev = ddz_t.act(g, 0, "play", "5H")  # 2C 2D left
    assert ev[0].data["announce"] == ["报双"]


def test_doudizhu_result_lines_landlord_spring() -> None:
    g = ddz_t.make(ddz_t.cs("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S 2H 2C 2D 3H"),
                   bottom=["3C", "3D", "5H"])
    ddz_t.landlord0(g)
    with pytest.raises(RulesError):
        g.result_lines()
    ddz_t.act(g, 0, "play", "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")
    ddz_t.act(g, 1, "pass")
    ddz_t.act(g, 2, "pass")
    ddz_t.act(g, 0, "play", "2S 2H 2C 2D")
    ddz_t.act(g, 1, "pass")
    ddz_t.act(g, 2, "pass")
    ddz_t.act(g, 0, "play", "3H 3C 3D 5H")
    # one bomb ×2 and spring ×2 (rulings.md "doudizhu" Scoring): ×4
    assert g.result_lines() == [
        {"label": "地主胜", "seats": [0]},
        {"label": "地主", "seats": [0]},
        {"label": "倍数", "value": "×4"},
        {"label": "炸弹", "value": "1"},
        {"label": "春天"},
    ]


def test_doudizhu_result_lines_farmers_anti_spring_and_escape() -> None:
    farmer = ddz_t.cs("2S 4S 4H 4C 5S 5H 5C 6S 6H 6C 7S 7H 7C 8S 9S TS JS")
    g = ddz_t.make(["3S"], farmer, bottom=["3H", "3C", "3D"])
    ddz_t.landlord0(g)
    ddz_t.act(g, 0, "play", "3S")
    ddz_t.act(g, 1, "play", "2S")
    ddz_t.act(g, 2, "pass")
    ddz_t.act(g, 0, "pass")
    ddz_t.act(g, 1, "play", " ".join(farmer[1:]))
    assert g.result_lines() == [
        {"label": "农民胜", "seats": [1, 2]},
        {"label": "地主", "seats": [0]},
        {"label": "倍数", "value": "×2"},
        {"label": "炸弹", "value": "0"},
        {"label": "反春"},
    ]
    e = ddz_t.make(["3S"])
    ddz_t.landlord0(e)
    ddz_t.act(e, 2, "escape")
    assert e.result_lines()[0] == {"label": "逃跑", "seats": [2]}
    assert {"label": "倍数", "value": "×1"} in e.result_lines()


# -- shengji ----------------------------------------------------------------------------


def test_shengji_hand_order_trumps_together_then_each_suit_high_to_low() -> None:
    # Trump hearts: 大王 小王 主5 其他5 主3 其他3 主2 其他2 then trump A..4 (seed
    # 牌的大小); equal other-suit cards 黑 红 梅 方; then ♠ ♣ ♦ each high to low.
    hand = ["4S", "AS", "KH", "JS", "JH", "5C", "5H", "2D", "3S", "BJ", "9C", "QD",
            "TC", "SJ", "AH", "2H", "5S", "KD"]
    assert in_hand_order(hand, "H") == [
        "BJ", "SJ", "5H", "5S", "5C", "3S", "2H", "2D", "AH", "KH", "JH",
        "AS", "JS", "4S", "TC", "9C", "KD", "QD"]
    # before the trump: the jokers, 5s, 3s and 2s are trumps; all four suits apart
    assert in_hand_order(hand, "") == [
        "BJ", "SJ", "5S", "5H", "5C", "3S", "2H", "2D",
        "AS", "JS", "4S", "AH", "KH", "JH", "TC", "9C", "KD", "QD"]


def test_shengji_hand_event_and_view_in_hand_order() -> None:
    g, events = declared_one_deck()  # seat 1 declared 3C: clubs are trump
    hand = next(e for e in events if e.type == "hand").data["cards"]
    assert hand == in_hand_order(hand, "C")
    assert g.view(1)["hand"] == hand


def test_shengji_trump_shows_the_suit_and_what_is_always_trump() -> None:
    # seed 004 主牌: 大王和小王、5、3、2、主花色牌 — the suit declared, and the
    # 5s, 3s, 2s and jokers of every suit
    g, _ = declared_one_deck()  # seat 1 declared 3C
    trump = g.display()["trump"]
    assert (trump["label"], trump["suit"]) == ("当前主", "C")
    assert trump["note"] == "5、3、2 与大小王常主"


def test_shengji_bury_tells_every_seat_the_counts() -> None:
    g, _ = declared_one_deck()
    assert g.view(0)["hand_counts"] == [12, 18, 12, 12]  # the dealer took the 6-card kitty
    ev = g.apply(sj_act(1, "timeout"))
    buried = [e for e in ev if e.type == "buried"]
    assert len(buried) == 1 and buried[0].to is None
    assert buried[0].data["hand_counts"] == [12, 12, 12, 12]  # seed 底牌: 12 each
    assert buried[0].data["seat"] == 1 and buried[0].data["count"] == 6


def test_shengji_result_lines_defenders_go_up_with_the_kitty() -> None:
    hands = [["9D", "9C"], ["AH", "AH"], ["4C", "6C"], ["7D", "8D"]]
    buried = ["KC", "KC", "TC", "5H", "4D", "6D", "7C", "8C"]  # 35 points
    g = position(2, "S", 0, hands, 1, buried=buried, captured=[0, 20, 0, 0])
    for seat, cards in [(1, hands[1]), (2, hands[2]), (3, hands[3]), (0, hands[0])]:
        g.apply(sj_act(seat, "play", *cards))
    # the pair of seat 1 takes the last trick: 35 × 4 = 140, 160 in all: up
    assert g.result_lines() == [
        {"label": "上台", "seats": [1, 3]},
        {"label": "下台", "seats": [0, 2]},
        {"label": "庄家", "seats": [0]},
        {"label": "闲家得分", "value": "160"},
        {"label": "底牌", "value": "35 分 ×4 = 140"},
        {"label": "下局庄家", "seats": [1]},
    ]


def test_shengji_result_lines_dealer_keeps_the_deal() -> None:
    hands = [["AD"], ["KD"], ["QD"], ["JD"]]
    buried = ["KC", "TC", "5H", "4D", "6D", "7C"]  # 25 points
    g = position(1, "S", 0, hands, 0, buried=buried, captured=[40, 0, 0, 15])
    for seat in range(4):
        g.apply(sj_act(seat, "play", *hands[seat]))
    assert g.result_lines() == [
        {"label": "未上台", "seats": [1, 3]},
        {"label": "庄家", "seats": [0]},
        {"label": "闲家得分", "value": "15"},
        {"label": "底牌", "value": "25 分（未抠底）"},
        {"label": "下局庄家", "seats": [2]},  # the dealer's partner (seed 抢庄)
    ]


# -- daa --------------------------------------------------------------------------------


def test_daa_public_roles_only_what_the_table_knows() -> None:
    g = Daa({}, daa_t.make_deal({0: "AH 5S", 2: "AH 6S"}))
    assert g.public_roles() == [None] * 5
    daa_t.act(g, 0, "declare", "AH")
    daa_t.act(g, None, "end_declare")
    assert g.team() == [0, 2]
    # the declarer is 主方; the 次方 (seat 2) is not known yet
    assert g.public_roles() == ["主方", None, None, None, None]
    daa_t.act(g, 0, "play", "5S")
    daa_t.act(g, 1, "pass")
    daa_t.act(g, 2, "reveal")  # 亮明
    assert g.public_roles() == ["主方", None, "次方", None, None]


def test_daa_roles_without_declaration_and_by_playing_the_big_a() -> None:
    g = Daa({}, daa_t.make_deal({1: "AH", 3: "AH"}))
    daa_t.act(g, None, "end_declare")  # hearts; 主方 the first ♥A holder from seat 0
    assert (g.master, g.second) == (1, 3)
    assert g.public_roles() == [None] * 5
    daa_t.act(g, 1, "play", "AH")  # seat 1 shows a big A: its side is not known yet
    assert g.public_roles() == [None, "大A", None, None, None]


def test_daa_counter_declarer_is_named_solo() -> None:
    g = Daa({}, daa_t.make_deal({0: "AS", 3: "AH AH"}))
    daa_t.act(g, 0, "declare", "AS")
    assert g.public_roles() == ["主方", None, None, None, None]
    daa_t.act(g, 3, "declare", "AH AH")  # 反大A
    assert g.public_roles() == [None, None, None, "名双大A", None]


def test_daa_result_lines_teams_named_and_finishing_order() -> None:
    g = Daa({}, daa_t.make_deal({0: "AH", 1: "AH"}))
    daa_t.act(g, 0, "declare", "AH")
    daa_t.act(g, None, "end_declare")
    g.named = False
    daa_t.finish(g, [0, 1])  # 主方 then 次方 out, three opponents hold cards
    assert g.result_lines() == [
        {"label": "大A方胜"},
        {"label": "大A", "value": "♥A"},
        {"label": "主方", "seats": [0]},
        {"label": "次方", "seats": [1], "value": "暗大A"},
        {"label": "对方", "seats": [2, 3, 4]},
        {"label": "出完顺序", "seats": [0, 1]},
        {"label": "未出完", "seats": [2, 3, 4]},
    ]
    s = Daa({}, daa_t.make_deal({0: "AH AH"}))
    daa_t.act(s, None, "end_declare")
    s.named = True
    daa_t.finish(s, [1, 2, 3, 4])  # the solo is caught
    lines = s.result_lines()
    assert lines[0] == {"label": "对方胜"}
    assert {"label": "名双大A", "seats": [0]} in lines


def test_hunzhan_has_no_roles_and_no_lines_before_its_end() -> None:
    g = Hunzhan({}, Hunzhan.random_deal({}, __import__("random").Random(1)))
    assert g.public_roles() == [None] * 4
    with pytest.raises(RulesError):
        g.result_lines()


def test_shengji_scores_keep_the_point_cards_each_seat_won() -> None:
    # seed 004 分牌: 5, 10 and K are the point cards (K and 10 ten points each)
    hands = [["KD", "KC"], ["TD", "4C"], ["7D", "6C"], ["AD", "AC"]]
    buried = ["KH", "6D", "8D", "9D", "JD", "QD"]  # 10 points, seen by the dealer only
    g = position(1, "S", 0, hands, 0, buried=buried)
    for seat, card in [(0, "KD"), (1, "TD"), (2, "7D"), (3, "AD")]:
        g.apply(sj_act(seat, "play", card))
    assert g.view(1)["scores"] == [{"points": 0, "cards": []}] * 3 + [
        {"points": 20, "cards": ["KD", "TD"]}]
    ev = []
    for seat, card in [(3, "AC"), (0, "KC"), (1, "4C"), (2, "6C")]:
        ev = g.apply(sj_act(seat, "play", card))
    # seat 3 (闲家) takes the last trick with a single: 10 + the kitty's 10 × 2 (抠底)
    scores = next(e for e in ev if e.type == "scores").data
    assert scores["captured"] == [0, 0, 0, 50]
    assert scores["cards"] == [[], [], [], ["KD", "TD", "KC"]]  # never the buried KH
    assert g.view(2)["scores"][3] == {"points": 50, "cards": ["KD", "TD", "KC"]}


def test_shengji_position_takes_the_point_cards_behind_its_points() -> None:
    hands = [["9C"], ["8C"], ["7C"], ["6C"]]
    g = position(1, "S", 0, hands, 0, captured=[0, 15, 0, 10])
    assert [s["cards"] for s in g.view(0)["scores"]] == [[], [], [], []]  # none given
    def make(cards: list[list[str]], captured: tuple[int, ...] = (0, 15, 0, 10)) -> Shengji:
        return Shengji.from_position({"decks": 1}, hands=hands, dealer=0, trump="S",
                                     buried=LOW_KITTY[1], leader=0, captured=captured,
                                     captured_cards=cards)

    g = make([[], ["5H", "TH"], [], ["KC"]])
    assert g.view(2)["scores"][1] == {"points": 15, "cards": ["5H", "TH"]}
    for bad in ([[], ["5H", "TH"], [], ["QC"]],  # Q is no point card (seed 分牌)
                [[], ["5H"], [], ["KC"]],  # 5 points, not the 15 captured
                [[], ["5H", "TH"]]):  # not 4 lists
        with pytest.raises(RulesError) as e:
            make(bad)
        assert e.value.code == "bad_deal", bad
    with pytest.raises(RulesError) as e:  # one deck holds one KC
        make([["KC"], ["5H", "TH"], [], ["KC"]], (10, 15, 0, 10))
    assert e.value.code == "bad_deal" and "KC" in e.value.message
