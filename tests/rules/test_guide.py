"""The rules for players (paiju.rules.guide): every game has Chinese
sections and every settlement line kind its engine produces names one."""

from __future__ import annotations

import re

import pytest

from paiju.rules.guide import NoSuchGame, line_rule, rules_for

#: The settlement line labels each game's results module produces, read from
#: docs/rules/<game>.md (written here, not taken from the code).
LABELS = {
    "doudizhu": ["逃跑", "地主胜", "农民胜", "地主", "倍数", "炸弹", "春天", "反春"],
    "hunzhan": ["逃跑", "最高分", "得分", "叫主", "下局先摸牌"],
    "shengji": ["逃跑", "上台", "下台", "未上台", "庄家", "闲家得分", "底牌", "下局庄家"],
    "daa": ["逃跑", "大A方胜", "对方胜", "平牌", "大A", "出完顺序", "未出完",
            "名双大A", "暗双大A", "主方", "次方", "对方"],
}
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("game", sorted(LABELS))
def test_sections_are_chinese_with_stable_ids(game: str) -> None:
    doc = rules_for(game)
    assert doc["game"] == game and HAN.search(doc["title"])
    ids = [s["id"] for s in doc["sections"]]
    assert len(ids) == len(set(ids)) >= 4
    for s in doc["sections"]:
        assert re.fullmatch(r"[a-z_]+", s["id"])
        assert HAN.search(s["title"]) and HAN.search(s["text"])


@pytest.mark.parametrize("game", sorted(LABELS))
def test_every_line_kind_names_an_existing_section(game: str) -> None:
    ids = {s["id"] for s in rules_for(game)["sections"]}
    for label in LABELS[game]:
        assert line_rule(game, label) in ids, label
    assert set(rules_for(game)["lines"]) == set(LABELS[game])


def test_house_rules_are_in_the_text() -> None:
    text = {g: "".join(s["text"] for s in rules_for(g)["sections"]) for g in LABELS}
    assert "♠10" in text["hunzhan"] and "一对大王" in text["hunzhan"]
    assert "5 > 其他 5" in text["shengji"] and "对子 ×4" in text["shengji"]
    assert "王炸" in text["doudizhu"] and "×2" in text["doudizhu"]
    assert "主方" in text["daa"] and "♥A" in text["daa"]


@pytest.mark.parametrize("name", ["chess", "", "../doudizhu", "Doudizhu", "rules"])
def test_unknown_game(name: str) -> None:
    with pytest.raises(NoSuchGame):
        rules_for(name)
