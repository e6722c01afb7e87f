"""升级 (shengji): the settlement lines, computed by the server.

:class:`ShengjiResults` (a part of :class:`paiju.games.shengji.game.Shengji`):
:meth:`ShengjiResults.result_lines`, the settlement lines: 上台 (the defenders go
up, seed 上台) and 下台 (the dealer's side), or 未上台; the dealer; the
defenders' points (闲家得分, seed 非庄家方得分); the kitty's points and
multiplier (seed 抠底 ×2 / 4 / 6 / 8); the next dealer (seed 抢庄 / 上台).
How a hand is shown (in the order players hold it) is
:func:`paiju.games.shengji.cards.in_hand_order`.
"""

from __future__ import annotations

from typing import Any

from paiju.games.shengji.cards import SEATS, card_points
from paiju.games.shengji.scoring import defenders
from paiju.games.shengji.state import ShengjiState


class ShengjiResults(ShengjiState):
    """The settlement lines of a shengji game (a part of the engine, abstract:
    the fields and :meth:`~ShengjiState.defender_points` are the state's)."""

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`
        and the module docstring); a redeal has none."""
        detail = self.result().detail
        dealer = self.dealer
        if dealer is None or (self.redeal and self.escaped is None):
            return []
        side = [dealer, (dealer + 2) % SEATS]
        others = list(defenders(dealer))
        lines: list[dict[str, Any]] = []
        if self.escaped is not None:
            lines.append({"label": "逃跑", "seats": [self.escaped]})
        elif detail.get("up"):
            lines += [{"label": "上台", "seats": others}, {"label": "下台", "seats": side}]
        else:
            lines.append({"label": "未上台", "seats": others})
        lines.append({"label": "庄家", "seats": [dealer]})
        lines.append({"label": "闲家得分", "value": str(self.defender_points())})
        kitty = card_points(self.buried)
        if self.kitty_multiplier:
            lines.append({"label": "底牌", "value":
                          f"{kitty} 分 ×{self.kitty_multiplier} = {kitty * self.kitty_multiplier}"})
        else:
            lines.append({"label": "底牌", "value": f"{kitty} 分（未抠底）"})
        nxt = detail.get("next_dealer")
        if isinstance(nxt, int):
            lines.append({"label": "下局庄家", "seats": [nxt]})
        return lines
