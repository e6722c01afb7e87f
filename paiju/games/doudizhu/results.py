"""斗地主 doudizhu: what the client shows, computed by the server.

:class:`DoudizhuResults` is a mixin of :class:`paiju.games.doudizhu.game.Doudizhu`:

- :meth:`DoudizhuResults.play_announcements`: the words a play announces to the
  table: ``炸弹`` (a bomb), ``王炸`` (the rocket, seed 002 火箭) and ``报单``
  (the player has one card left, as doudizhu players call it).
- :meth:`DoudizhuResults.result_lines`: the settlement screen's lines (seed 002
  勝負; rulings.md "doudizhu" Scoring): 地主胜 / 农民胜 with the winning
  side's seats, the multiplier (倍数, with every bomb and rocket and spring
  counted), the bombs played and 春天 / 反春 where it happened.
"""

from __future__ import annotations

from typing import Any

from paiju.games.doudizhu import combos as dc
from paiju.games.doudizhu.deal import SEATS
from paiju.rules.engine import Game

#: The announcement of a bomb, of the rocket, and of one card left.
BOMB_CALL = "炸弹"
ROCKET_CALL = "王炸"
ONE_LEFT_CALL = "报单"


class DoudizhuResults(Game):
    """The display data of a doudizhu game (a part of the engine, abstract: the
    engine sets the fields)."""

    landlord: int | None
    multiplier: int
    bombs: int
    spring: bool
    redeal: bool
    winner: int | None
    escaped: int | None

    @staticmethod
    def play_announcements(kind: str, cards_left: int) -> list[str]:
        """What a play of combination ``kind`` (a :mod:`combos` kind)
        announces, the player holding ``cards_left`` cards after it:
        ``["王炸"]``, ``["炸弹"]``, ``["报单"]``, both (a bomb leaving one
        card) or ``[]``."""
        out = []
        if kind == dc.ROCKET:
            out.append(ROCKET_CALL)
        elif kind == dc.BOMB:
            out.append(BOMB_CALL)
        if cards_left == 1:
            out.append(ONE_LEFT_CALL)
        return out

    def result_lines(self) -> list[dict[str, Any]]:
        """The settlement lines (see :meth:`paiju.rules.engine.Game.result_lines`):
        ``地主胜`` (seats: the landlord) or ``农民胜`` (seats: the farmers),
        ``倍数`` ``×m``, ``炸弹`` (bombs and rockets played), ``春天`` or
        ``反春`` where it happened; an escape names the escapee (``逃跑``)
        instead of a winner. A redeal has none. Raises ``wrong_phase`` before
        the end."""
        self.result()
        if self.redeal and self.escaped is None:
            return []
        lines: list[dict[str, Any]] = []
        landlord = self.landlord
        if self.escaped is not None:
            lines.append({"label": "逃跑", "seats": [self.escaped]})
        elif landlord is not None and self.winner is not None:
            if self.winner == landlord:
                lines.append({"label": "地主胜", "seats": [landlord]})
            else:
                lines.append({"label": "农民胜",
                              "seats": [s for s in range(SEATS) if s != landlord]})
        if landlord is not None:
            lines.append({"label": "地主", "seats": [landlord]})
        lines.append({"label": "倍数", "value": f"×{self.multiplier}"})
        lines.append({"label": "炸弹", "value": str(self.bombs)})
        if self.spring and self.escaped is None and landlord is not None:
            lines.append({"label": "春天" if self.winner == landlord else "反春"})
        return lines
