"""大A (daa): what the client shows, computed by the server.

:class:`DaaResults` is a mixin of :class:`paiju.games.daa.game.Daa`:

- :meth:`DaaResults.public_roles`: per seat the role the whole table knows now
  (seed 003 一局结束: 主方, 次方, 名双大A), never one that only its seat
  knows: the declarer (亮大A) is ``主方``; a counter-declarer (反大A) or a
  revealed solo is ``名双大A``; the other holder is ``次方`` once it revealed
  (亮明) or played a big A with a declarer at the table; a seat that played
  a big A whose side is not yet known to all is ``大A`` (it holds one).
- :meth:`DaaResults.result_lines`: the settlement lines: 大A方胜 / 对方胜 / 平牌,
  the big-A suit, the teams (主方 and 次方 with 名A / 暗大A, or the solo as
  名双大A / 暗双大A, and 对方), the finishing order (出完顺序) and who still
  held cards.
"""

from __future__ import annotations

from typing import Any

from paiju.games.daa.deal import SEATS
from paiju.games.daa.teams import Teams
from paiju.rules.engine import Game

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


class DaaResults(Teams, Game):
    """The display data of a daa game (a part of the engine, abstract: the
    engine sets the fields; the sides' fields and :meth:`Teams.team` come from
    :class:`~paiju.games.daa.teams.Teams`)."""

    finish_order: list[int]

    def public_roles(self) -> list[str | None]:
        """Per seat: ``主方``, ``次方``, ``名双大A``, ``大A`` or ``None`` as
        the module docstring says (public knowledge only)."""
        roles: list[str | None] = [None] * SEATS
        if self.counter is not None:
            roles[self.counter] = "名双大A"
            return roles
        if self.solo is not None and self.named:
            roles[self.solo] = "名双大A"  # a declaring solo that revealed
            return roles
        for s in self.big_a_shown:
            roles[s] = "大A"
        if self.declarer is not None:
            roles[self.declarer] = "主方"
            # the declarer's is one big A: a seat that shows the other is 次方
            for s in self.big_a_shown:
                if s != self.declarer:
                    roles[s] = "次方"
        if self.second is not None and self.named:
            roles[self.second] = "次方"
        if self.master is not None and self.second is not None and self.declarer is None \
                and roles[self.master] and roles[self.second]:
            # both holders known: the 主方 is the first from deal.first (rulings)
            roles[self.master], roles[self.second] = "主方", "次方"
        return roles

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`)."""
        result = self.result()
        team = self.team()
        lines: list[dict[str, Any]] = []
        if self.escaped is not None:
            lines.append({"label": "逃跑", "seats": [self.escaped]})
        elif team:
            mine = result.points[team[0]]
            lines.append({"label": "大A方胜" if mine > 0 else "对方胜" if mine < 0 else "平牌"})
        if self.big_suit is not None:
            lines.append({"label": "大A", "value": SUIT_SYMBOLS[self.big_suit] + "A"})
        if self.solo is not None:
            lines.append({"label": "名双大A" if self.named else "暗双大A", "seats": [self.solo]})
        elif self.master is not None and self.second is not None:
            lines.append({"label": "主方", "seats": [self.master]})
            lines.append({"label": "次方", "seats": [self.second],
                          "value": "名A" if self.named else "暗大A"})
        if team:
            lines.append({"label": "对方", "seats": [s for s in range(SEATS) if s not in team]})
        if self.finish_order:
            lines.append({"label": "出完顺序", "seats": list(self.finish_order)})
        left = [s for s in range(SEATS) if self.hands[s]]
        if left and self._phase != "declaring":
            lines.append({"label": "未出完", "seats": left})
        return lines
