"""混战 (hunzhan) settlement lines. Expectations written by hand from
seed 000 (积分: 本局游戏得分为 X − 60; the 本局结算表 example A 60, B 70, C 50,
D 60; 例外: escapes; 上局最后一手牌最大的玩家先摸牌) and rulings.md "hunzhan"."""

from __future__ import annotations

from paiju.games.hunzhan import Hunzhan
from paiju.rules.engine import Action
from tests.rules.hunzhan_support import play, suited_deal


def played_out(declare: tuple[str, ...] = ("TS",)) -> Hunzhan:
    """A SUITED game played to its end by the default actions."""
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", declare))
    g.apply(Action(None, "end_declare"))
    while not g.finished:
        g.apply(g.default_action(g.to_act()[0]))
    return g


def test_result_lines_after_a_normal_end_as_the_seeds_table() -> None:
    g = played_out()
    assert sum(g.captured) == 240  # seed 分牌: 总计240分
    # the seed's 本局结算表 example (A 60, B 70, C 50, D 60), set by hand on the
    # finished game, with seat 2 winning the last trick
    g.captured = [60, 70, 50, 60]
    g.last_trick_winner = 2
    assert g.result_lines() == [
        {"label": "最高分", "value": "70 分", "seats": [1]},
        {"label": "得分", "value": "60 分（0）", "seats": [0]},
        {"label": "得分", "value": "70 分（+10）", "seats": [1]},
        {"label": "得分", "value": "50 分（-10）", "seats": [2]},
        {"label": "得分", "value": "60 分（0）", "seats": [3]},
        {"label": "叫主", "value": "♠", "seats": [0]},
        {"label": "下局先摸牌", "seats": [2]},
    ]


def test_result_lines_tie_for_the_most_points_name_both() -> None:
    g = played_out()
    g.captured = [80, 80, 40, 40]
    lines = g.result_lines()
    assert lines[0] == {"label": "最高分", "value": "80 分", "seats": [0, 1]}
    assert lines[3] == {"label": "得分", "value": "40 分（-20）", "seats": [2]}


def test_result_lines_of_an_escape_with_the_seeds_penalty() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", ("TS",)))
    g.apply(Action(None, "end_declare"))
    play(g, 0, "AS")
    play(g, 1, "2H")
    play(g, 2, "TC")
    play(g, 3, "TS")  # seat 3 wins 20 points (TC, TS)
    g.apply(Action(1, "escape"))  # X = 0 < 60: 3 × (60 − 0) = 180 off seat 1
    assert g.result_lines() == [
        {"label": "逃跑", "seats": [1]},
        {"label": "得分", "value": "0 分（0）", "seats": [0]},
        {"label": "得分", "value": "0 分（-180）", "seats": [1]},
        {"label": "得分", "value": "0 分（0）", "seats": [2]},
        {"label": "得分", "value": "20 分（0）", "seats": [3]},  # not over 60: 不输不赢
        {"label": "叫主", "value": "♠", "seats": [0]},
    ]


def test_result_lines_no_trump_declared_with_jokers_and_escape_over_sixty() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(0, "declare", ("BJ", "BJ")))  # a pair of jokers: 无主
    g.captured = [70, 65, 50, 55]  # state set by hand for the X ≥ 60 branch
    g.apply(Action(0, "escape"))  # X = 70 ≥ 60: 10 off; seat 1 over 60 by 5
    assert g.result_lines() == [
        {"label": "逃跑", "seats": [0]},
        {"label": "得分", "value": "70 分（-10）", "seats": [0]},
        {"label": "得分", "value": "65 分（+5）", "seats": [1]},
        {"label": "得分", "value": "50 分（0）", "seats": [2]},
        {"label": "得分", "value": "55 分（0）", "seats": [3]},
        {"label": "叫主", "value": "无主", "seats": [0]},
    ]


def test_a_redeal_has_no_lines() -> None:
    g = Hunzhan({}, suited_deal())
    g.apply(Action(None, "end_declare"))  # nobody declared
    assert g.finished and g.result_lines() == []


def test_the_trump_shows_while_the_window_is_open() -> None:
    # seed 000 叫主: a ten names the trump suit, a pair of equal jokers 无主;
    # the standing declaration is the trump shown, before the window closes
    g = Hunzhan({}, suited_deal())
    assert "trump" not in g.display()
    g.apply(Action(1, "declare", ("TH",)))
    assert g.display()["trump"] == {"label": "当前主", "suit": "H", "rank": "", "text": ""}
    g.apply(Action(0, "declare", ("BJ", "BJ")))  # stronger: no trump
    assert g.display()["trump"] == {"label": "当前主", "suit": None, "rank": "", "text": "无主"}
    g.apply(Action(None, "end_declare"))
    assert g.display()["trump"]["text"] == "无主"
