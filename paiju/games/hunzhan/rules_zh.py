"""混战: the rules for players (:mod:`paiju.rules.guide`), from seed 000
and docs/rules/hunzhan.md."""

from paiju.rules.guide import Section

TITLE = "混战 规则说明"

SECTIONS = (
    Section("cards", "牌与分牌",
            "分牌：5 为 5 分，10、K、王各 10 分，全副共 240 分。"),
    Section("declare", "叫主（10 叫主）",
            "摸牌时亮一张 10 叫该花色为主，亮一对相同的王叫无主。大小：一对大王 > 一"
            "对小王 > ♠10 > ♥10 > ♣10 > ♦10，只能用更大的反主；被反后可以再反。例：有"
            "人亮 ♦10，你亮 ♠10 即反主成功。"),
    Section("order", "牌的大小",
            "大王 > 小王 > 主 10 > 其他 10 > 主 2 > 其他 2 > 主花色 A K …；无主时只有"
            "王、10、2 是主。"),
    Section("scores", "得分",
            "各自得分，赢得的墩中分牌归自己；每人积分 = 得分 − 60。例：得 70 分记 +10"
            "。"),
    Section("first_draw", "下局先摸牌",
            "上局最后一手牌最大的玩家下局先摸牌。"),
    Section("escape", "逃跑",
            "逃跑者已得 X 分：X < 60 记 −3×(60−X)，X ≥ 60 记 −10；其他人各记 max(0, "
            "得分 − 60)。"),
)

LINE_RULES = {
    "逃跑": "escape",
    "最高分": "scores",
    "得分": "scores",
    "叫主": "declare",
    "下局先摸牌": "first_draw",
}
