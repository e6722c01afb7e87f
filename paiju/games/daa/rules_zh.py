"""大A: the rules for players (:mod:`paiju.rules.guide`), from the seed and
docs/rules/daa.md."""

from paiju.rules.guide import Section

TITLE = "大A 规则说明"

SECTIONS = (
    Section("big_a", "大A",
            "亮大A 定下哪一花色的 A 为大A；没有人亮时 ♥A 为大A。"),
    Section("sides", "大A方与对方",
            "持有两张大A的人是大A方：两人各持一张时为主方与次方（次方亮出为名A，否则"
            "暗大A）；一人持两张则一人对四人（亮过为名双大A，否则暗双大A）。其余为对"
            "方。"),
    Section("finish", "出完顺序",
            "先出完手牌的人排在前面；没出完的人列为未出完。"),
    Section("points", "胜负与积分",
            "大A方两人都先出完：对方还有 k 人未出完，每人 −k，主方 +2k，次方 +k；名A "
            "时翻倍。对方先出完而大A方两人都未出完：主方 −6，次方 −3，对方各 +3。一人"
            "对四人：第一个出完赢 64（名）/ 32（暗），最后出完输同样多，否则平牌。"),
    Section("escape", "逃跑",
            "连续四次超时或离开牌局视为逃跑，逃跑者按房间规则赔付其他玩家。"),
)

LINE_RULES = {
    "逃跑": "escape",
    "大A方胜": "points",
    "对方胜": "points",
    "平牌": "points",
    "大A": "big_a",
    "出完顺序": "finish",
    "未出完": "finish",
    "名双大A": "sides",
    "暗双大A": "sides",
    "主方": "sides",
    "次方": "sides",
    "对方": "sides",
}
