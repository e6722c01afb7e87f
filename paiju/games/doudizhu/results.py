"""斗地主 doudizhu: what the client shows, computed by the server.

- :func:`play_announcements`: the words a play announces to the
  table: ``炸弹`` (a bomb), ``王炸`` (the rocket, seed 002 火箭) and ``报单``
  (the player has one card left, as doudizhu players call it).
- :func:`result_lines`: the settlement screen's lines (seed 002
  勝負; rulings.md "doudizhu" Scoring): 地主胜 / 农民胜 with the winning
  side's seats, the multiplier (倍数, with every bomb and rocket and spring
  counted), the bombs played and 春天 / 反春 where it happened.
"""

from __future__ import annotations

from typing import Any, Protocol

from paiju.games.doudizhu import combos as dc
from paiju.games.doudizhu.deal import SEATS

#: The announcement of a bomb, of the rocket, of one card left and of two.
BOMB_CALL = "炸弹"
ROCKET_CALL = "王炸"
ONE_LEFT_CALL = "报单"
TWO_LEFT_CALL = "报双"


class ResultTable(Protocol):
    """What the settlement lines read of a finished doudizhu game."""

    landlord: int | None
    multiplier: int
    bombs: int
    spring: bool
    redeal: bool
    winner: int | None
    escaped: int | None


def play_announcements(kind: str, cards_left: int) -> list[str]:
    """What a play of combination ``kind`` (a :mod:`combos` kind)
    announces, the player holding ``cards_left`` cards after it:
    ``["王炸"]``, ``["炸弹"]``, ``["报单"]`` (one card left), ``["报双"]``
    (two left), a bomb's and a count's both, or ``[]``."""
    out = []
    if kind == dc.ROCKET:
        out.append(ROCKET_CALL)
    elif kind == dc.BOMB:
        out.append(BOMB_CALL)
    if cards_left == 1:
        out.append(ONE_LEFT_CALL)
    elif cards_left == 2:
        out.append(TWO_LEFT_CALL)
    return out


def result_lines(g: ResultTable) -> list[dict[str, Any]]:
    """The settlement lines of a finished game (see
    :meth:`paiju.rules.engine.Game.result_lines`): ``地主胜`` (seats: the
    landlord) or ``农民胜`` (seats: the farmers), ``倍数`` ``×m``, ``炸弹``
    (bombs and rockets played), ``春天`` or ``反春`` where it happened; an
    escape names the escapee (``逃跑``) instead of a winner. A redeal has none."""
    if g.redeal and g.escaped is None:
        return []
    lines: list[dict[str, Any]] = []
    landlord = g.landlord
    if g.escaped is not None:
        lines.append({"label": "逃跑", "seats": [g.escaped]})
    elif landlord is not None and g.winner is not None:
        if g.winner == landlord:
            lines.append({"label": "地主胜", "seats": [landlord]})
        else:
            lines.append({"label": "农民胜",
                          "seats": [s for s in range(SEATS) if s != landlord]})
    if landlord is not None:
        lines.append({"label": "地主", "seats": [landlord]})
    lines.append({"label": "倍数", "value": f"×{g.multiplier}"})
    lines.append({"label": "炸弹", "value": str(g.bombs)})
    if g.spring and g.escaped is None and landlord is not None:
        lines.append({"label": "春天" if g.winner == landlord else "反春"})
    return lines
